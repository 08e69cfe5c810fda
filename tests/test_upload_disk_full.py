# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""Issue 36, item 8: a full disk under an upload. Before: an HTML 500 with no reason, the partial
temporary file left open in the worker (its space still taken), so the next small upload failed
too. Now: 507 with a JSON reason, the partial file closed and deleted at once, the next upload
stored. The disk is simulated (no mount in tests): FILE_UPLOAD_TEMP_DIR gets a capacity, and a
write past it fails with ENOSPC as the kernel's does; space is held by every file still open or
still on disk, as on a real filesystem."""

from __future__ import annotations

import errno
import hashlib
import os

import pytest
from django.core.files import temp
from django.core.files.storage import storages

from ingest.models import Upload
from ingest.tests.tarballs import sample_tarball
from ingest.tests.upload_fixtures import client_for, dead_broker, open_round, post_upload, unthrottled  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("unthrottled", "dead_broker")]


class SmallDisk:
    """The files NamedTemporaryFile makes in `folder`, on a disk of `capacity` bytes."""

    def __init__(self, folder, capacity: int):
        self.folder = str(folder)
        self.capacity = capacity
        self.files: list[DiskFile] = []

    def used(self) -> int:
        return sum(file.written for file in self.files if not file.closed or os.path.exists(file.name))

    def install(self, monkeypatch):
        """Django makes upload files with django.core.files.temp.NamedTemporaryFile."""
        real = temp.NamedTemporaryFile

        def named_temporary_file(*args, dir=None, **kwargs):
            made = real(*args, dir=dir, **kwargs)
            if dir != self.folder:
                return made
            self.files.append(DiskFile(made, self))
            return self.files[-1]

        monkeypatch.setattr(temp, "NamedTemporaryFile", named_temporary_file)


class DiskFile:
    def __init__(self, real, disk: SmallDisk):
        self._real, self._disk, self.written = real, disk, 0

    def write(self, data: bytes) -> int:
        room = self._disk.capacity - self._disk.used()
        if len(data) > room:
            self.written += self._real.write(data[:max(room, 0)])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.written += self._real.write(data)
        return len(data)

    def __getattr__(self, name):
        return getattr(self._real, name)


@pytest.fixture
def small_disk(settings, tmp_path, monkeypatch):
    folder = tmp_path / "upload-tmp"
    folder.mkdir()
    settings.FILE_UPLOAD_TEMP_DIR = str(folder)
    disk = SmallDisk(folder, capacity=sample_tarball(tmp_path).stat().st_size + 64 * 1024)
    disk.install(monkeypatch)
    return disk


def test_a_full_disk_answers_507_frees_the_partial_file_and_the_next_upload_is_stored(
    personas, open_round, small_disk, tmp_path
):
    large = tmp_path / "large.tar.gz"
    large.write_bytes(os.urandom(4 * small_disk.capacity))
    response = post_upload(client_for(personas["owner"]), large)
    assert response.status_code == 507, response.content
    assert "no space left" in response.json()["detail"]
    (partial,) = small_disk.files
    assert partial.closed and not os.listdir(small_disk.folder)  # at once, not when the worker recycles
    assert small_disk.used() == 0

    response = post_upload(client_for(personas["owner"]), sample_tarball(tmp_path))
    assert response.status_code == 201, response.content
    assert Upload.objects.count() == 1


def test_a_full_disk_for_the_stored_archive_answers_507_and_keeps_no_partial_archive(
    personas, open_round, tmp_path, monkeypatch
):
    """MEDIA_ROOT on another filesystem than FILE_UPLOAD_TEMP_DIR: the archive is copied, and the
    copy fails half way. The stored name is the content's: a partial file left under it would be
    taken for the archive by the next upload of the same bytes."""
    from django.core.files.storage import filesystem

    def copy_half_then_fail(source, destination, allow_overwrite=False):
        with open(source, "rb") as whole, open(destination, "wb") as copy:
            copy.write(whole.read()[: os.path.getsize(source) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    archive = tmp_path / "unique.tar.gz"  # bytes no other test stored (the name is the content's)
    archive.write_bytes(os.urandom(256 * 1024))
    with monkeypatch.context() as patch:
        patch.setattr(filesystem, "file_move_safe", copy_half_then_fail)
        response = post_upload(client_for(personas["owner"]), archive)
    assert response.status_code == 507, response.content
    assert "no space left" in response.json()["detail"]
    storage = storages["submissions"]
    assert not Upload.objects.exists()
    assert not storage.exists(f"uploads/training-v1.0/alpha/{hashlib.sha256(archive.read_bytes()).hexdigest()}.tar.gz")

    response = post_upload(client_for(personas["owner"]), archive)
    assert response.status_code == 201, response.content
    assert storage.open(Upload.objects.get().storage_name).read() == archive.read_bytes()
