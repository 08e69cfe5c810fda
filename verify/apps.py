from django.apps import AppConfig


class VerifyConfig(AppConfig):
    name = "verify"
    verbose_name = "Verification"
