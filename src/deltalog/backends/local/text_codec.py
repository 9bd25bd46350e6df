"""Small tables of text cells (io/text_table.py) to dictionary ids and back, cell by cell, without Polars.

The counterpart of backends/local/codec.py for the few cells of a small run (the size is bounded by
io/text_table's thresholds): every distinct cell is typed by ``storage.values.parse_cell`` and every
distinct id written by ``storage.values.format_value``, the rules that io/cells.py and
backends/tagged.py apply to whole Polars columns, so both paths give the same ids and cells.
"""

from __future__ import annotations

import numpy as np

from deltalog.io.text_table import Column, TextTable
from deltalog.storage.dictionary import Dictionary
from deltalog.storage.uniques import unique_inverse
from deltalog.storage.values import FLOAT, INT, format_value, parse_cell

KINDS = ("int", "float", "string", "iri", "literal")


def encode_table(table: TextTable, d: Dictionary) -> list[np.ndarray]:
    """The id columns of a TextTable, adding the unknown constants."""
    return [_encode(column, d) for column in table.arrays]


def _encode(column: Column, d: Dictionary) -> np.ndarray:
    if isinstance(column, np.ndarray):
        return d.encode_ints(column) if column.dtype.kind == "i" else d.encode_floats(column)
    unique = list(dict.fromkeys(column))
    typed = [parse_cell(cell) for cell in unique]
    ids = np.empty(len(unique), np.int64)
    for kind in KINDS:
        at = [i for i, (k, _) in enumerate(typed) if k == kind]
        if not at:
            continue
        values = [typed[i][1] for i in at]
        if kind == "int":
            ids[at] = d.encode_ints(np.array(values, np.int64))
        elif kind == "float":
            ids[at] = d.encode_floats(np.array(values, np.float64))
        else:
            ids[at] = d.encode_texts(kind, values)
    position = {cell: i for i, cell in enumerate(unique)}
    return ids[[position[cell] for cell in column]]


def decode_table(columns: list[np.ndarray], d: Dictionary) -> TextTable:
    """A relation's id columns as a TextTable: ints or floats where a column holds only that kind
    (as ``codec.decode_series``), else the text cell of each id, each distinct id formatted once."""
    return TextTable([_decode(ids, d) for ids in columns])


def _decode(ids: np.ndarray, d: Dictionary) -> Column:
    kinds = d.kinds.view()[ids]
    if ids.size and (kinds == INT).all():
        return d.ints.view()[ids]
    if ids.size and (kinds == FLOAT).all():
        return d.numbers.view()[ids]
    if ids.size == 0:
        return []
    unique, inverse = unique_inverse(ids)
    cells = [format_value(kind, value) for kind, value in d.decode(unique)]   # type: ignore[arg-type]
    return np.array(cells, dtype=np.object_)[inverse].tolist()
