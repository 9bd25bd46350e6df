"""Reading a delimited file whose every cell is a canonical int with NumPy alone (io/int_columns.py says
which files are taken; anything else returns None and the general reader reads it).

The cells are parsed over the file's bytes: the separator and line-feed positions, then the digits of
all cells at once, up to eight a step. The passes are arranged for memory, not only for operations:
every array the parse allocates is memory the process has never touched before (its pages are faulted
in and zeroed by the kernel) unless an earlier array of the run freed it, so the parse's peak
footprint is paid as system time in every run that reads a large file. A file is read straight into
the padded buffer the parse works on (no bytes object, no copy of it), offsets are updated in place
and digit counts kept in one byte (docs/benchmarks.md, Stop 16).

The buffer is then parsed in slices of whole lines of about ``SLICE_BYTES`` (``_slices``): a slice's
arrays (~8 bytes a byte of text at most) stay in a core's 2 MB L2 cache and come from memory the
previous slice freed. Reach-tiny's 13.7 MB in a fresh process: ~97 ms of CPU in one pass, 77 ms in
1 MB slices, 66 ms in 128 kB ones (docs/benchmarks.md, Stop 19). The slices are independent (NumPy's
passes release the GIL), so ``DELTALOG_THREADS`` can spread them over threads (io/threads.py).
"""

from __future__ import annotations

import io
import os
import threading

import numpy as np

from deltalog.io.int_columns import IntTable
from deltalog.io.threads import map_in_threads, workers

MAX_DIGITS = 18   # 10**18 - 1 < 2**63 - 1: a cell this short always fits 64 bits
_ZERO, _MINUS, _LINE = 48, 45, 10
_PAD = 24   # bytes before the data: the three 8-byte words of an 18-digit cell that starts the file
SLICE_BYTES = 1 << 17   # a slice of the file parsed at once (whole lines: a slice ends after a line feed);
# 64 kB-128 kB measured best, 1 MB 17% and one pass 45% slower (bench/int_parse_ab.py --slices)


def read_int_cells(data: bytes, separator: str, arity: int | None) -> IntTable | None:
    """The table of a file of canonical ints in rows of ``arity`` cells (of the first row's number of
    cells when None), or None when the file is anything else (see io/int_columns.py)."""
    if not data or len(separator) != 1:
        return None
    padded = np.empty(_PAD + len(data) + 1, np.uint8)
    padded[_PAD:_PAD + len(data)] = np.frombuffer(data, np.uint8)
    return _parse_slices(_terminated(padded, len(data)), separator, arity)


def read_int_file(file: io.BufferedIOBase, separator: str, arity: int | None) -> IntTable | None:
    """``read_int_cells`` of the rest of an open file, read into the parse's own buffer."""
    if len(separator) != 1:
        return None
    start = file.tell()
    size = max(os.fstat(file.fileno()).st_size - start, 0)
    padded = np.empty(_PAD + size + 1, np.uint8)
    got = file.readinto(padded[_PAD:_PAD + size].data) or 0
    if got < size or file.read(1):   # the file changed size while it was read: read it as it is now
        file.seek(start)
        return read_int_cells(file.read(), separator, arity)
    return _parse_slices(_terminated(padded, size), separator, arity) if size else None


def plausible(data: bytes, separator: str) -> bool:
    """No byte but digits, '-', the separator and line feeds in ``data`` (on a file's first bytes: a
    cheap refusal of text files before the rest is read)."""
    return not data.translate(None, b"0123456789-\n" + separator.encode())


def regular_rows(terminators: np.ndarray, sep: int) -> bool:
    """Every row has its cells separated by ``sep`` and ends in a line feed."""
    return bool((terminators[:, :-1] == sep).all() and (terminators[:, -1] == _LINE).all())


def _terminated(padded: np.ndarray, size: int) -> np.ndarray:
    """The buffer of ``size`` data bytes after _PAD bytes '0' (so that the 8-byte words ending at the
    first cells' ends exist, and read as leading zeros), ending in a line feed (one is added if the data
    does not end in one): a view of ``padded``, which has room for that line feed."""
    padded[:_PAD] = _ZERO
    if padded[_PAD + size - 1] == _LINE:
        return padded[:_PAD + size]
    padded[_PAD + size] = _LINE
    return padded


def _parse_slices(padded: np.ndarray, separator: str, arity: int | None) -> IntTable | None:
    """The table of the buffer's cells (after _PAD bytes, ending in a line feed), parsed slice by slice
    on ``workers()`` threads; None when any slice is not all canonical ints in rows of ``arity`` cells
    (of the first row's number of cells when None)."""
    data = padded[_PAD:]
    if arity is None:
        arity = data[:_line_end(data, 0)].tobytes().count(separator.encode()) + 1
    if arity < 1:
        return None
    cuts = _slices(data, SLICE_BYTES)
    slices = [padded[lo:_PAD + hi] for lo, hi in zip(cuts, cuts[1:])]   # each with the _PAD bytes before it
    failed = threading.Event()   # a slice that is no int rows: the file is not taken, the rest left unparsed

    def parse(part: np.ndarray) -> np.ndarray | None:
        values = None if failed.is_set() else _slice_values(part, separator, arity)
        if values is None:
            failed.set()
        return values

    parts = [part for part in map_in_threads(parse, slices, workers()) if part is not None]
    if failed.is_set():
        return None
    return IntTable.of_rows((parts[0] if len(parts) == 1 else np.concatenate(parts)).reshape(-1, arity))


def _slices(data: np.ndarray, size: int) -> list[int]:
    """Offsets cutting ``data`` (ending in a line feed) into slices of whole lines of about ``size`` bytes."""
    cuts = [0]
    while cuts[-1] < data.size:
        target = cuts[-1] + size
        cuts.append(data.size if target >= data.size else _line_end(data, target))
    return cuts


def _line_end(data: np.ndarray, at: int) -> int:
    """The offset after the first line feed at or after ``at`` (``data`` ends in one)."""
    width = 256
    while at < data.size:
        found = np.flatnonzero(data[at:at + width] == _LINE)
        if found.size:
            return at + int(found[0]) + 1
        at, width = at + width, width * 4
    return data.size


def _slice_values(padded: np.ndarray, separator: str, arity: int) -> np.ndarray | None:
    """The cells of one slice (whole lines after _PAD bytes, which belong to the previous slice or are the
    file's padding: the parse masks them off) in row order, or None if the slice is anything else."""
    text = padded[_PAD:].tobytes()   # bytes.translate and count are the cheapest checks (3 vs ~9 ms for
    if not plausible(text, separator):   # 13.7 MB as NumPy comparisons), and want bytes
        return None
    buf = padded[_PAD:]
    sep = ord(separator)
    terminator = buf == sep
    terminator |= buf == _LINE
    ends = np.flatnonzero(terminator)   # the byte after each cell
    del terminator
    if ends.size % arity or not regular_rows(buf[ends].reshape(-1, arity), sep):
        return None
    return _cell_values(padded, ends, text.count(b"-"))


def _cell_values(padded: np.ndarray, ends: np.ndarray, minus: int) -> np.ndarray | None:
    """The int of each cell ``[previous end + 1, end)`` (offsets in ``padded[_PAD:]``), or None if any
    cell is not a canonical int (the caller has checked that every byte is a digit, '-' or a terminator).
    ``ends`` is used up (updated in place)."""
    buf = padded[_PAD:]
    starts = np.empty_like(ends)
    starts[0] = 0
    np.add(ends[:-1], 1, out=starts[1:])
    wide = ends - starts
    if not wide.all() or int(wide.max()) > MAX_DIGITS + 1:
        return None   # an empty cell or a blank line; a cell that may not fit 64 bits
    digits = wide.astype(np.uint8)   # 1-19: one byte a cell from here on
    del wide
    negative = buf[starts] == _MINUS if minus else np.zeros(ends.size, bool)
    digits -= negative
    if int(np.count_nonzero(negative)) != minus or not digits.all() or int(digits.max()) > MAX_DIGITS:
        return None   # a '-' inside a cell, a lone '-', or a cell that may not fit 64 bits
    starts += negative
    lead = buf[starts]
    del starts
    if ((lead == _ZERO) & ((digits > 1) | negative)).any():
        return None   # 007 or -0: not the canonical form, a string to the general reader
    return _accumulate(padded, ends, digits, negative)


_KEEP = np.array([0] + [2**64 - 2**(8 * (8 - d)) for d in range(1, 9)], np.uint64)   # the top d bytes of a word
_NIBBLES, _LANES = np.uint64(0x0F0F0F0F0F0F0F0F), np.uint64(0x000000FF000000FF)
_HUNDREDS, _UNITS = np.uint64(100 + (1_000_000 << 32)), np.uint64(1 + (10_000 << 32))


def _accumulate(padded: np.ndarray, ends: np.ndarray, digits: np.ndarray, negative: np.ndarray) -> np.ndarray:
    """All cells at once, up to eight digits per step: the 8 bytes before each cell's end read as one
    little-endian word (an unaligned view: no copy), the bytes before the cell masked off (they read as
    leading zeros) and its digits combined by SWAR multiplications (Lemire, "Faster integer parsing"
    (2018), the 8-digit kernel of simdjson); a cell of 9-18 digits takes two or three words. ``ends``
    becomes the words' offsets (in place)."""
    words = np.ndarray((padded.size - 7,), "<u8", padded, 0, (1,))
    at = ends
    at += _PAD - 8
    scratch = np.empty(ends.size, np.uint64)
    value = _eight_digits(words[at], np.minimum(digits, 8), scratch).view(np.int64)
    for step in range(1, (int(digits.max()) + 7) // 8):
        at -= 8
        done = np.uint8(8 * step)   # digits below this place were read by earlier steps
        count = np.minimum(np.maximum(digits, done) - done, 8)   # no uint8 wrap-around
        more = _eight_digits(words[at], count, scratch).view(np.int64)
        more *= 10 ** (8 * step)
        value += more
    np.negative(value, out=value, where=negative)
    return value


def _eight_digits(word: np.ndarray, count: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """The number written by the last ``count`` (0-8) bytes of each word (ASCII digits, the first the
    least significant byte), in place: the digit pairs, then the quadruples, then the eight."""
    np.take(_KEEP, count, out=scratch, mode="clip")   # counts are 0-8; "raise" would buffer the output first
    word &= scratch
    word &= _NIBBLES   # each digit's value, 0 in the masked bytes
    np.right_shift(word, np.uint64(8), out=scratch)
    word *= np.uint64(10)
    word += scratch   # each 16-bit lane's low byte: its two digits' value
    np.right_shift(word, np.uint64(16), out=scratch)
    scratch &= _LANES
    scratch *= _UNITS
    word &= _LANES
    word *= _HUNDREDS
    word += scratch
    word >>= np.uint64(32)
    return word
