"""Streaming upload handler: the request body goes chunk by chunk to a temporary file while its
sha256 is computed, so a multi-gigabyte tarball is never held in memory and never read twice."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.files.uploadhandler import StopUpload, TemporaryFileUploadHandler


class HashingUploadHandler(TemporaryFileUploadHandler):
    """Writes each file to disk as it arrives, hashing it on the way; stops past UPLOAD_MAX_BYTES.

    The finished file carries `.sha256`. When the limit is passed the request gets
    `upload_too_large = True` and the rest of the body is not read.
    """

    def new_file(self, *args, **kwargs) -> None:
        super().new_file(*args, **kwargs)
        self.digest = hashlib.sha256()
        self.received = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        self.received += len(raw_data)
        if self.received > settings.UPLOAD_MAX_BYTES:
            self.request.upload_too_large = True
            raise StopUpload(connection_reset=True)
        self.digest.update(raw_data)
        return super().receive_data_chunk(raw_data, start)

    def file_complete(self, file_size: int):
        uploaded = super().file_complete(file_size)
        uploaded.sha256 = self.digest.hexdigest()
        return uploaded
