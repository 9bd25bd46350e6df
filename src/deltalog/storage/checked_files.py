"""Files written durably and read back only when their size and checksum match: the store's file layer.

A :class:`FileSink` fsyncs each file it writes and records its size and BLAKE2b checksum; the store
(deltalog/store) lists them in its manifest, and a :class:`FileSource` refuses any file whose size or
checksum differs from the manifest's, or that does not parse, with :class:`Damaged`.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     sink = FileSink(Path(tmp), "."); name = sink.write("a.bin", b"abc")
...     (Path(tmp) / "a.bin").write_bytes(b"abd")
...     FileSource(Path(tmp), sink.files).read("./a.bin")
Traceback (most recent call last):
deltalog.storage.checked_files.Damaged: ./a.bin: checksum mismatch (the file was changed or corrupted)
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Callable


def checksum(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class FileSink:
    """Writes the files of one part into ``directory``, each fsynced, and records (size, checksum)
    under the name ``part/file`` (the part's directory may be renamed to ``part`` once complete)."""

    def __init__(self, directory: Path, part: str) -> None:
        self.directory, self.part = directory, part
        self.files: dict[str, list] = {}

    def write(self, name: str, data: bytes) -> str:
        relative = f"{self.part}/{name}"
        write_durably(self.directory / name, data)
        self.files[relative] = [len(data), checksum(data)]
        return name


def write_durably(path: Path, data: bytes) -> None:
    """Write and fsync a file (its directory is fsynced by whoever makes it visible)."""
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


class Damaged(Exception):
    """A stored file is missing, of the wrong size or checksum, or cannot be parsed."""

    def __init__(self, file: str, what: str) -> None:
        super().__init__(f"{file}: {what}")
        self.file, self.what = file, what


class FileSource:
    """Reads the files a manifest lists, checking each one's size and checksum before it is parsed."""

    def __init__(self, root: Path, files: dict[str, list]) -> None:
        self.root, self.files = root, files

    def read(self, relative: str) -> bytes:
        expected = self.files.get(relative)
        if expected is None:
            raise Damaged(relative, "not listed in the manifest")
        try:
            data = (self.root / relative).read_bytes()
        except FileNotFoundError:
            raise Damaged(relative, "missing") from None
        except IsADirectoryError:
            raise Damaged(relative, "is a directory, not a file") from None
        if len(data) != expected[0]:
            raise Damaged(relative, f"{len(data):,} bytes, expected {expected[0]:,} (truncated or overwritten)")
        if checksum(data) != expected[1]:
            raise Damaged(relative, "checksum mismatch (the file was changed or corrupted)")
        return data

    def parse(self, relative: str, parser: Callable[[bytes], object]):
        data = self.read(relative)
        try:
            return parser(data)
        except Exception as error:   # a checksummed file that does not parse: written by something else
            raise Damaged(relative, f"unreadable ({type(error).__name__}: {error})") from None
