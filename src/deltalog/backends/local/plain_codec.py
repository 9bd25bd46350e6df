"""Tables of plain names (io/plain_cells.py) to dictionary ids and back, vectorised and without Polars.

Loading: each distinct name of a load's shared ``Vocabulary`` is encoded once (the first names of
their kind are appended in one batch), and a column's ids are one gather of the names' ids by the
column's codes. Reading: a relation whose every value is a string gets its distinct ids' texts in one
vocabulary (when they are all plain, i.e. written raw) and its columns as codes into it; the writer
then lays out the file by one gather per column over the vocabulary's byte matrix (io/writers.py).
"""

from __future__ import annotations

import numpy as np

from deltalog.io.plain_cells import PlainTable, Vocabulary
from deltalog.storage.dictionary import Dictionary
from deltalog.storage.uniques import unique_inverse
from deltalog.storage.values import STRING


def encode_plain(table: PlainTable, d: Dictionary) -> list[np.ndarray]:
    """The id columns of a PlainTable, adding the unknown names (once per vocabulary and dictionary:
    the tables of one load, and a relation loaded into its E relation too, share it)."""
    vocabulary = table.vocabulary
    if vocabulary.encoded is None or vocabulary.encoded[0] is not d:
        vocabulary.encoded = (d, d.encode_distinct_texts("string", vocabulary.texts()))
    ids = vocabulary.encoded[1]
    return [ids[codes] for codes in table.arrays]


def names_by_id(vocabulary: Vocabulary) -> tuple[int, Vocabulary] | None:
    """(first id, vocabulary) when an encoded vocabulary's names got consecutive ids (they were all new,
    as the first names a backend loads): then the name of id i is row i - first id, and a relation of
    those names is decoded by a gather of rows instead of formatting each name again."""
    assert vocabulary.encoded is not None
    ids = vocabulary.encoded[1]
    if ids.size and int(ids[-1]) - int(ids[0]) == ids.size - 1 and bool((np.diff(ids) == 1).all()):
        return int(ids[0]), vocabulary
    return None


def decode_plain(columns: list[np.ndarray], d: Dictionary,
                 names: tuple[int, Vocabulary] | None = None) -> PlainTable | None:
    """A relation's id columns as a PlainTable, or None unless every id is a string written raw; the
    distinct ids' rows come from ``names`` (``names_by_id``) when it has them all."""
    kinds = d.kinds.view()
    if not columns or not all(c.size and bool((kinds[c] == STRING).all()) for c in columns):
        return None
    unique, inverse = unique_inverse(np.concatenate(columns))
    if names is not None and names[0] <= unique[0] and unique[-1] < names[0] + len(names[1]):
        vocabulary: Vocabulary | None = Vocabulary(names[1].words[unique - names[0]])
    else:
        vocabulary = Vocabulary.of_texts(list(map(d.texts.__getitem__, unique.tolist())))   # type: ignore[arg-type]
    if vocabulary is None:
        return None
    return PlainTable(np.split(inverse, np.cumsum([c.size for c in columns[:-1]])), vocabulary)
