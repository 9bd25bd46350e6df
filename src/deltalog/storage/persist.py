"""Saving and loading the local backend's state (dictionary and relations) as plain NumPy/Arrow files.

A snapshot directory holds ``dictionary.npz`` + ``texts.arrow`` and one ``<n>.npz`` per relation
(its live rows, the generation marks and the rows' deletion generations), plus ``relations.json``
naming them. Writers call :func:`save` into a fresh directory; the store swaps directories
atomically (see deltalog/store.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc

from deltalog.storage.dictionary import Dictionary
from deltalog.storage.relation import Relation


def save_dictionary(d: Dictionary, directory: Path) -> None:
    np.savez(directory / "dictionary.npz", kinds=d.kinds.view(), ints=d.ints.view(), numbers=d.numbers.view())
    with ipc.new_file(directory / "texts.arrow", pa.schema([("text", pa.string())])) as writer:
        writer.write_table(pa.table({"text": pa.array(d.texts, pa.string())}))


def load_dictionary(directory: Path) -> Dictionary:
    d = Dictionary()
    arrays = np.load(directory / "dictionary.npz")
    texts = ipc.open_file(directory / "texts.arrow").read_all().column("text").to_pylist()
    d.restore(arrays["kinds"], arrays["ints"], arrays["numbers"], texts)
    return d


def save_relations(relations: dict[str, Relation], directory: Path) -> None:
    index = {}
    for number, (name, relation) in enumerate(sorted(relations.items())):
        relation.compact()
        columns = relation.stored_columns()
        np.savez(directory / f"{number}.npz", *columns, generations=np.array(relation.generation_marks()[0]),
                 ends=np.array(relation.generation_marks()[1]))
        index[name] = {"file": f"{number}.npz", "arity": relation.arity}
    (directory / "relations.json").write_text(json.dumps(index, indent=1, sort_keys=True))


def load_relations(directory: Path) -> dict[str, Relation]:
    index = json.loads((directory / "relations.json").read_text())
    relations = {}
    for name, entry in index.items():
        arrays = np.load(directory / entry["file"])
        columns = [arrays[f"arr_{i}"] for i in range(max(entry["arity"], 1))]
        relations[name] = Relation.restore(name, entry["arity"], columns, arrays["generations"].tolist(),
                                           arrays["ends"].tolist())
    return relations
