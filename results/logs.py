"""One page of a stored log, read in bounded memory whatever the log.

A log may be gigabytes, or 20 MB of nothing but newlines (20 million lines): the page is found by
counting newlines chunk by chunk, and only its own lines (at most LINES_PER_PAGE, at most
PAGE_MAX_BYTES) are ever decoded. Lines are numbered by "\\n" only, as the parser numbers the lines
that findings cite (a lone "\\r" from a progress bar does not start a line).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO

LINES_PER_PAGE = 2000
PAGE_MAX_BYTES = 1024 * 1024  # a page stops here even inside a line (a 1 GB line is one "line")
CHUNK_BYTES = 1024 * 1024


@dataclass
class LogPage:
    number: int  # 1-based
    page_count: int
    line_count: int  # of the whole log
    first_line: int  # 1-based number of lines[0]
    lines: list[str]
    cut: bool  # the page's bytes ran out inside a line: the last line shown is incomplete

    @property
    def last_line(self) -> int:
        return self.first_line + len(self.lines) - 1


def page_of_line(line: int) -> int:
    return max(1, (line - 1) // LINES_PER_PAGE + 1)


def read_page(handle: BinaryIO, number: int) -> LogPage | None:
    """Page `number` of the log open in `handle`, or None when the log has fewer pages."""
    skip = (number - 1) * LINES_PER_PAGE  # the page starts after this many newlines
    newlines, size, last_byte, start = 0, 0, b"", 0 if number == 1 else None
    while chunk := handle.read(CHUNK_BYTES):
        in_chunk = chunk.count(b"\n")
        if start is None and newlines + in_chunk >= skip:
            start = size + end_of_nth_newline(chunk, skip - newlines)
        newlines += in_chunk
        size += len(chunk)
        last_byte = chunk[-1:]
    line_count = newlines + (1 if size and last_byte != b"\n" else 0)
    page_count = page_of_line(line_count) if line_count else 1
    if number < 1 or number > page_count or start is None:
        return None
    handle.seek(start)
    return page_at(handle, number, line_count)


def page_at(handle: BinaryIO, number: int, line_count: int) -> LogPage:
    """Page `number` of a log of `line_count` lines, read from `handle` open at the page's first
    byte (a reader that knows where its pages start, as verification logs do, skips the scan)."""
    page_count = page_of_line(line_count) if line_count else 1
    skip = (number - 1) * LINES_PER_PAGE
    data = handle.read(PAGE_MAX_BYTES + 1)
    cut = len(data) > PAGE_MAX_BYTES
    raw_lines = data[:PAGE_MAX_BYTES].split(b"\n", LINES_PER_PAGE)
    if len(raw_lines) > LINES_PER_PAGE:
        raw_lines.pop()  # the rest belongs to the next page
        cut = False
    elif raw_lines[-1] == b"" and not cut:
        raw_lines.pop()  # the file's final newline ends a line, it starts none
    lines = [raw.decode("utf-8", errors="replace").removesuffix("\r") for raw in raw_lines]
    return LogPage(number, page_count, line_count, skip + 1, lines, cut)


def end_of_nth_newline(chunk: bytes, n: int) -> int:
    """The offset just past the n-th newline of `chunk` (0 for n == 0), by bisection over
    bytes.count, so a chunk of a million newlines costs a few scans, not a million steps."""
    if n <= 0:
        return 0
    low, high = 1, len(chunk)  # the smallest end with n newlines in chunk[:end]
    while low < high:
        middle = (low + high) // 2
        if chunk.count(b"\n", 0, middle) >= n:
            high = middle
        else:
            low = middle + 1
    return low
