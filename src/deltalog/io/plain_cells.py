"""Delimited files of plain names read, and relations of plain strings written, with NumPy alone.

A fact file of names (``alice	bob``) is, after a file of ints, the usual input. Read through Polars
it costs the import (~0.15 s) plus a hash lookup and a collect per column (issue 15: 0.36 s of the
0.9 s ``pc`` run went to encoding its 8 text columns). Here such a file is cut into cells over its
bytes (as io/int_columns.py cuts ints), each cell's bytes are read as big-endian 64-bit words, and
one sort of a key per cell gives the distinct cells (the file's ``Vocabulary``) and each
cell's code: the backend then encodes each distinct name once (backends/local/plain_codec.py).

Only cells that are certainly plain strings are taken (``storage.values.parse_cell`` reads them as
the string they are, and ``format_value`` writes that string back raw): non-empty, at most
``MAX_WIDTH`` bytes, not starting with a byte that types a cell (``-0123456789<"``), no NUL; the file
valid UTF-8 without BOM or carriage return, in regular rows, a CSV file without quote bytes. Anything
else returns None and the general reader (io/delimited.py) reads the file, so both paths give the
same strings. Keys are exact for cells of up to 8 bytes (the padded bytes themselves); longer cells
are keyed by a hash of their words and every cell is then compared with its group's first cell, byte
for byte: a collision is never silent (the file goes to the general reader).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from deltalog.io.int_columns import ColumnTable, laid_out
from deltalog.io.int_reader import regular_rows

if TYPE_CHECKING:
    import polars as pl

MAX_WIDTH = 64   # widest cell (bytes) taken: wider names go to the general reader (the byte matrices stay small)
_LINE = 10
_TYPED_START = np.zeros(256, bool)
_TYPED_START[list(b'-0123456789<"')] = True   # how an int, a float, an IRI, a literal or a quoted cell starts
_MASKS = np.array([0] + [((1 << 64) - 1) ^ ((1 << (64 - 8 * n)) - 1) for n in range(1, 9)], np.uint64)
_MIX = np.uint64(0x9E3779B97F4A7C15)   # a 64-bit odd constant (Fibonacci hashing) to spread words in a key


class Vocabulary:
    """Distinct plain strings: row i of ``words`` is string i's UTF-8 bytes padded with zero bytes to a
    multiple of 8, read as big-endian uint64 words (no plain string holds a zero byte, so equal rows
    are equal strings). ``encoded`` is a slot for a backend to remember the strings' ids (see
    backends/local/plain_codec.py): tables of one load share a vocabulary, encoded once."""

    def __init__(self, words: np.ndarray) -> None:
        self.words = words
        self.encoded: tuple[object, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.words)

    def byte_matrix(self) -> np.ndarray:
        """The padded bytes, a row per string (uint8)."""
        return self.words.astype(">u8").view(np.uint8).reshape(len(self.words), -1)

    def texts(self) -> list[str]:
        """The strings, in order: one decode of the bytes joined by line feeds."""
        if not len(self.words):
            return []
        matrix = self.byte_matrix()
        lines = np.empty((matrix.shape[0], matrix.shape[1] + 1), np.uint8)
        lines[:, :-1] = matrix
        lines[:, -1] = _LINE
        return lines[lines != 0].tobytes().decode("utf-8").split("\n")[:-1]

    @classmethod
    def of_texts(cls, texts: Sequence[str]) -> Vocabulary | None:
        """The vocabulary of distinct strings, or None unless every one is plain (written raw)."""
        try:
            blob = ("\n".join(texts) + "\n").encode("utf-8")
        except UnicodeEncodeError:   # a lone surrogate (from Python): the general writer says what it does
            return None
        if b"\t" in blob or b"\r" in blob or b"\0" in blob:
            return None
        buf = np.frombuffer(blob, np.uint8)
        ends = np.flatnonzero(buf == _LINE)
        if ends.size != len(texts):
            return None   # a line break inside a string
        words = _plain_words(buf, ends)
        return None if words is None else cls(words)


class PlainTable(ColumnTable):
    """A decoded table c0..ck of plain strings without Polars: a column per array of codes (int64) into
    one ``Vocabulary``."""

    arrays: list[np.ndarray]

    def __init__(self, arrays: list[np.ndarray], vocabulary: Vocabulary) -> None:
        super().__init__(arrays)
        self.vocabulary = vocabulary

    def to_polars(self) -> pl.DataFrame:
        import polars as pl
        texts = pl.Series(self.vocabulary.texts(), dtype=pl.String)
        return pl.DataFrame([texts.gather(codes).rename(name) for name, codes in zip(self.columns, self.arrays)])


def read_plain_cells(data: bytes, separator: str, quote: str | None, arity: int | None) -> PlainTable | None:
    """The table of a headerless file of plain names in regular rows of ``arity`` cells (of the first
    row's number when None), or None when the file is anything else (see the module docstring)."""
    if (not data or len(separator) != 1 or _TYPED_START[data[0]] or b"\r" in data or b"\0" in data
            or data.startswith(b"\xef\xbb\xbf") or (quote is not None and quote.encode() in data)):
        return None
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if not data.endswith(b"\n"):
        data += b"\n"
    buf = np.frombuffer(data, np.uint8)
    sep = ord(separator)
    ends = np.flatnonzero((buf == sep) | (buf == _LINE))
    arity = arity if arity is not None else int(np.argmax(buf[ends] == _LINE)) + 1
    if arity < 1 or ends.size % arity or not regular_rows(buf[ends].reshape(-1, arity), sep):
        return None
    words = _plain_words(buf, ends)
    distinct = None if words is None else _distinct(words)
    if distinct is None:
        return None
    codes = distinct[1].reshape(-1, arity)
    return PlainTable([np.ascontiguousarray(codes[:, j]) for j in range(arity)], Vocabulary(distinct[0]))


def _plain_words(buf: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The padded words of the cells ending at ``ends`` (each cell starts after the previous end), or
    None if one is empty, wider than MAX_WIDTH or starts as a typed cell."""
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    lengths = ends - starts
    if not lengths.all() or int(lengths.max()) > MAX_WIDTH or _TYPED_START[buf[starts]].any():
        return None
    padded = np.concatenate([buf, np.zeros(8, np.uint8)])
    # every byte offset read as a big-endian word (a strided view: no copy); a gather per 8 bytes of width
    at_offset = np.ndarray((buf.size,), dtype=">u8", buffer=padded, strides=(1,))
    words = np.empty((ends.size, -(-int(lengths.max()) // 8)), np.uint64)
    for w in range(words.shape[1]):
        words[:, w] = at_offset[np.minimum(starts + 8 * w, buf.size - 1)]
        words[:, w] &= _MASKS[np.clip(lengths - 8 * w, 0, 8)]   # bytes past the cell's end: zero
    return words


def _distinct(words: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(the distinct rows of ``words``, each row's position among them) by one sort of a key per row;
    None when two different rows share a hashed key (then nothing is guessed)."""
    keys = words[:, 0].copy()
    for w in range(1, words.shape[1]):   # wider than 8 bytes: a hash of the words, checked below
        keys = (keys * _MIX) ^ words[:, w]
    order = np.argsort(keys)   # np.unique(return_inverse=True) does more: 15 vs 10 ms at 400k keys
    ordered = keys[order]
    first = np.empty(keys.size, bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    inverse = np.empty(keys.size, np.int64)
    inverse[order] = np.cumsum(first) - 1
    distinct = words[order[first]]
    if words.shape[1] > 1 and not (distinct[inverse] == words).all():
        return None   # two different rows of one hashed key
    return distinct, inverse


def share_vocabulary(tables: list[PlainTable]) -> list[PlainTable]:
    """The tables (of one load) recoded into one vocabulary, so that each distinct name of the load is
    encoded once (pc: three files, 200k distinct names among 800k cells); unchanged when the merge
    cannot be made exact (a hash collision, see ``_distinct``)."""
    if len(tables) < 2:
        return tables
    width = max(t.vocabulary.words.shape[1] for t in tables)
    words = np.zeros((sum(len(t.vocabulary) for t in tables), width), np.uint64)
    offsets = np.cumsum([0] + [len(t.vocabulary) for t in tables])
    for table, at in zip(tables, offsets):
        words[at:at + len(table.vocabulary), :table.vocabulary.words.shape[1]] = table.vocabulary.words
    distinct = _distinct(words)
    if distinct is None:
        return tables
    shared = Vocabulary(distinct[0])
    return [PlainTable([distinct[1][at + codes] for codes in t.arrays], shared) for t, at in zip(tables, offsets)]


def plain_table_bytes(table: PlainTable, separator: str, rows: int) -> list[bytes] | None:
    """The rows of the table as text, in slices of ``rows`` rows: each cell's bytes gathered from the
    vocabulary's byte matrix (a fixed-width row per string), terminators laid between, the zero padding
    dropped (``int_columns.laid_out``). None when a CSV cell would need quotes."""
    matrix = table.vocabulary.byte_matrix()
    if separator == "," and (((matrix == ord(",")) | (matrix == ord('"'))).any()):
        return None
    width = matrix.shape[1]
    strings = np.ascontiguousarray(matrix).view(f"V{width}").ravel()   # one fixed-size item a string
    out = []
    for at in range(0, table.height, rows):
        out.append(laid_out([strings[codes[at:at + rows]].view(np.uint8).reshape(-1, width)
                             for codes in table.arrays], separator))
    return out
