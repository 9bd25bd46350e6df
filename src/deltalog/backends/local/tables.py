"""A load's or an update's tables as id columns of the embedded backend (backend.py stores them).

Each form of table is encoded its own way, most without Polars: files of ints and of plain names
(io/int_columns.py, io/plain_cells.py), small text files (io/text_table.py), anything else as a
Polars frame; the int columns of several tables are encoded in one dictionary call.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from deltalog.io.int_columns import IntTable, as_polars
from deltalog.io.plain_cells import PlainTable
from deltalog.io.text_table import TextTable
from deltalog.storage.dictionary import Dictionary
from deltalog.storage.tupleset import pack, packs
from deltalog.storage.uniques import sorted_unique
from deltalog.backends.local.plain_codec import encode_plain


def table_ids(table: Any, dictionary: Dictionary) -> list[np.ndarray]:
    """The id columns of a table with rows (a table of no columns: one column of zeros, a row each)."""
    if isinstance(table, IntTable):   # a file of ints, read without Polars
        columns = int_table_ids(table, dictionary)
    elif isinstance(table, PlainTable):   # a file of plain names, read without Polars
        columns = encode_plain(table, dictionary)
    elif isinstance(table, TextTable):   # a small text file, read without Polars
        from deltalog.backends.local.text_codec import encode_table
        columns = encode_table(table, dictionary)
    else:
        from deltalog.backends.local.codec import encode_series
        frame = as_polars(table)
        columns = [encode_series(frame.to_series(i), dictionary) for i in range(table.width)]
    return columns or [np.zeros(table.height, np.int64)]


def int_table_ids(table: IntTable, dictionary: Dictionary) -> list[np.ndarray]:
    """The id columns of an IntTable; a matrix of rows (io/int_columns.IntTable.rows) is encoded as
    it lies, its ids viewed as columns the same way (ids do not depend on the order values come in)."""
    if table.rows is None:
        return dictionary.encode_int_columns(table.arrays)
    return list(dictionary.encode_ints(table.rows.ravel()).reshape(table.rows.shape).T)


def int_ids_together(tables: dict[str, list[np.ndarray]], dictionary: Dictionary) -> dict[str, list[np.ndarray]]:
    """The id columns of tables of int arrays (``int_arrays``), encoded in one dictionary call and split,
    instead of one call per column."""
    columns = [column for arrays in tables.values() for column in arrays]
    ids = np.split(dictionary.encode_ints(np.concatenate(columns)), np.cumsum([c.size for c in columns])[:-1])
    encoded, start = {}, 0
    for name, arrays in tables.items():
        encoded[name] = ids[start:start + len(arrays)]
        start += len(arrays)
    return encoded


def int_arrays(table: Any) -> list[np.ndarray] | None:
    """A table's columns as int64 arrays when every one holds ints (an IntTable, a Polars frame of
    integer columns), else None."""
    if isinstance(table, IntTable):
        return table.arrays
    polars = sys.modules.get("polars")   # a frame exists only if Polars is loaded
    if polars is None or not isinstance(table, polars.DataFrame) or not all(t.is_integer() for t in table.dtypes):
        return None
    return [table.to_series(i).cast(polars.Int64).to_numpy() for i in range(table.width)]


def distinct_rows(columns: list[np.ndarray]) -> int:
    """How many distinct rows the id columns hold (packed into one key while it fits in 62 bits)."""
    radix = max(int(c.max()) for c in columns) + 1
    if packs(radix, len(columns)):
        return int(sorted_unique(pack(columns, radix)).size)
    return int(np.unique(np.stack(columns, axis=1), axis=0).shape[0])
