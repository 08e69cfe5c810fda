"""The static files storage of every mode: hashed names, gzip copies, hashed URLs even under DEBUG.

`collectstatic` (run by `make run`, the Dockerfile and the benches) writes each file under a name
holding a hash of its content, plus a `.gz` copy; WhiteNoise sends a hashed name with a far-future
`Cache-Control: ..., immutable` header and the `.gz` copy to clients that accept gzip.
"""

from django.core.files.storage import FileSystemStorage
from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    def url(self, name, force=False):
        # Django gives the plain name under DEBUG, which WhiteNoise would serve uncompressed and
        # uncached from static/; `make run` collects first, so the hashed name exists there too.
        try:
            return super().url(name, force=True)
        except ValueError:
            # Never collected (a bare `manage.py runserver`): the plain name, which WhiteNoise
            # finds in static/ under DEBUG (WHITENOISE_USE_FINDERS), rather than a crashed page.
            return FileSystemStorage.url(self, name)
