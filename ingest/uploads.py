"""Streaming upload handler: the request body goes chunk by chunk to a temporary file while its
sha256 is computed, so a multi-gigabyte tarball is never held in memory and never read twice.

Nothing is read, let alone stored, for a request that is refused anyway: a body larger than
UPLOAD_MAX_BYTES by its Content-Length, and whatever the view's `precheck` refuses from what is
known before the body (the user, and the round and organization when the query string names them).
A disk that fills up (FILE_UPLOAD_TEMP_DIR) refuses the upload with 507 and gets its space back:
the partial file is closed and deleted at once.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
from collections.abc import Callable

from django.conf import settings
from django.core.files.uploadhandler import StopUpload, TemporaryFileUploadHandler
from django.http import QueryDict
from django.utils.datastructures import MultiValueDict

from .services import UploadRefused

log = logging.getLogger(__name__)

# Room for the multipart boundaries, part headers and the small form fields around the file.
FORM_OVERHEAD_BYTES = 64 * 1024


class HashingUploadHandler(TemporaryFileUploadHandler):
    """Writes the one file of the request to disk as it arrives, hashing it on the way.

    The finished file carries `.sha256`. A refused request gets `request.upload_refused` (an
    UploadRefused with its HTTP status) and the rest of the body is not read: too large (the whole
    request counts, however many parts it has), a second file part, or a `precheck` refusal.
    """

    def __init__(self, request, precheck: Callable[[], UploadRefused | None] | None = None):
        super().__init__(request)
        self.precheck = precheck
        self.received = 0  # bytes of file data in the whole request, not per part
        self.files = 0

    def handle_raw_input(self, input_data, META, content_length, boundary, encoding=None):
        if content_length > settings.UPLOAD_MAX_BYTES + FORM_OVERHEAD_BYTES:
            return self.refuse(UploadRefused(too_large_message(), status=413))
        refusal = self.precheck() if self.precheck else None
        if refusal is not None:
            return self.refuse(refusal)
        return None  # go on: Django's parser reads the body through new_file/receive_data_chunk

    def refuse(self, refusal: UploadRefused):
        """An empty form in place of the body, which is never read."""
        self.request.upload_refused = refusal
        return QueryDict(), MultiValueDict()

    def new_file(self, *args, **kwargs) -> None:
        self.files += 1
        if self.files > 1:
            self.request.upload_refused = UploadRefused("send one archive per upload, as the `file` field")
            raise StopUpload(connection_reset=True)
        with self.refusing_a_full_disk():
            super().new_file(*args, **kwargs)
        self.digest = hashlib.sha256()

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        self.received += len(raw_data)
        if self.received > settings.UPLOAD_MAX_BYTES:
            self.request.upload_refused = UploadRefused(too_large_message(), status=413)
            raise StopUpload(connection_reset=True)
        self.digest.update(raw_data)
        with self.refusing_a_full_disk():
            self.file.write(raw_data)

    def file_complete(self, file_size: int):
        with self.refusing_a_full_disk():  # the seek flushes what is still buffered
            uploaded = super().file_complete(file_size)
        uploaded.sha256 = self.digest.hexdigest()
        return uploaded

    @contextlib.contextmanager
    def refusing_a_full_disk(self):
        """A write that fails closes and deletes the partial file, so its space is free again for the
        next upload (left open, it held the space until the worker recycled). A full disk or quota
        refuses the upload with 507 and the rest of the body is not read; any other error is the
        server's and goes on up."""
        try:
            yield
        except OSError as error:
            partial = getattr(self, "file", None)
            if partial is not None:
                with contextlib.suppress(OSError):  # flushing the buffered rest fails the same way
                    partial.close()  # a NamedTemporaryFile: closing it deletes it
            if not out_of_space(error):
                raise
            log.error("upload refused: no space left for it in %s (%s)", settings.FILE_UPLOAD_TEMP_DIR or "the "
                      "system's temporary folder", error)
            self.request.upload_refused = UploadRefused(NO_SPACE_MESSAGE, status=507)
            raise StopUpload(connection_reset=True) from error


NO_SPACE_MESSAGE = "the server has no space left to store the upload; nothing was kept: try again later"


def out_of_space(error: OSError) -> bool:
    """A full disk, a full quota, or a file larger than the filesystem takes: 507, not the server's fault."""
    return error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def too_large_message() -> str:
    return f"the upload is larger than the limit of {settings.UPLOAD_MAX_BYTES} bytes"
