from django.apps import AppConfig


class PagesConfig(AppConfig):
    name = "pages"
    verbose_name = "Public pages and API"

    def ready(self):
        from . import warming

        warming.connect()  # after a round changes, its pages are built before the next visitor
