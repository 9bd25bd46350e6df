"""Saving and loading the local backend's state (dictionary and relations), whole or as the changes since a save.

A saved state is a sequence of *parts*: the first holds everything, each later one what changed since
the part before (rows appended to a relation, death marks that changed, constants added to the
dictionary, relations made or dropped). Every part is a directory with ``state.json`` (what it holds)
and the NumPy/Arrow files it names. Relations are append-only with death marks
(storage/relation.py), so the changes of an update are a few appended rows and a few marks:
saving them costs in proportion to the update, not to the store.

Files are written through a :class:`FileSink` (storage/checked_files.py), which fsyncs each file and
records its size and BLAKE2b checksum; the store (deltalog/store) lists them in its manifest and loading
goes through a :class:`FileSource` that refuses any file whose size or checksum differs.

>>> import tempfile
>>> from pathlib import Path
>>> from deltalog.backends.local.backend import LocalBackend
>>> b = LocalBackend(); b.create_relation(relation="e", arity=2)
>>> import polars as pl
>>> b.load(relation="e", table=pl.DataFrame({"c0": [1, 2], "c1": [2, 3]}), generation=0)
2
>>> with tempfile.TemporaryDirectory() as tmp:
...     root = Path(tmp)
...     (root / "base").mkdir(); sink = FileSink(root / "base", "base")
...     saved = save_state(b.dictionary, b._relations, sink, since=None)
...     d, rels = load_state(FileSource(root, sink.files), ["base"])
>>> sorted(rels), len(rels["e"]), len(d)
(['e'], 2, 3)
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from deltalog.storage.checked_files import Damaged, FileSink, FileSource
from deltalog.storage.dictionary import Dictionary
from deltalog.storage.relation import ALIVE, Relation

STATE = "state.json"


# ---- what a saved state covers -------------------------------------------------------------------

@dataclass
class Saved:
    """How much of a backend's state the store holds: dictionary entries, and per relation its layout
    and row count (a relation whose layout changed since is saved whole again)."""

    constants: int = 0
    relations: dict[str, tuple[int, int]] = field(default_factory=dict)


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type, unused-ignore]  # numpy's stub: mypy matches **arrays to allow_pickle
    return buffer.getvalue()


def texts_bytes(texts: list) -> bytes:
    import pyarrow as pa
    import pyarrow.ipc as ipc
    sink = pa.BufferOutputStream()
    with ipc.new_file(sink, pa.schema([("text", pa.string())])) as writer:
        writer.write_table(pa.table({"text": pa.array(texts, pa.string())}))
    return sink.getvalue().to_pybytes()


def read_npz(data: bytes) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
        return {name: arrays[name] for name in arrays.files}


def read_texts(data: bytes) -> list:
    import pyarrow as pa
    import pyarrow.ipc as ipc
    return ipc.open_file(pa.BufferReader(data)).read_all().column("text").to_pylist()


# ---- saving ----------------------------------------------------------------------------------------

def save_state(dictionary: Dictionary, relations: dict[str, Relation], sink: FileSink,
               since: Saved | None) -> tuple[Saved, Callable[[], None]]:
    """Write the state (``since`` None: whole, compacted; else the changes since ``since``) into the
    sink's part; returns what the store then holds, and a function to call once the part is committed
    (it lets the relations forget the changes just saved).

    A whole state writes one file per relation (no relation is copied twice in memory); changes go
    into one ``changes.npz`` (one write and one fsync per update, however many relations changed)."""
    saved = Saved(len(dictionary))
    entries: dict[str, dict] = {}
    done: list[Callable[[], None]] = []
    bundle: dict[str, np.ndarray] = {}
    start = 0 if since is None else since.constants
    state = {"dictionary": save_dictionary(dictionary, start, sink), "relations": entries,
             "dropped": sorted(set(since.relations) - set(relations)) if since else []}
    for number, (name, relation) in enumerate(sorted(relations.items())):
        before = None if since is None else since.relations.get(name)
        if since is None:
            relation.compact()
        entry, arrays, forget = relation_changes(relation, before)
        if entry is not None:
            prefix = f"r{number}."
            entries[name] = dict(entry, prefix=prefix)
            if since is None:
                entries[name]["file"] = sink.write(f"r{number}.npz", npz_bytes(prefixed(arrays, prefix)))
            else:
                bundle.update(prefixed(arrays, prefix))
                entries[name]["file"] = "changes.npz"
        done.append(forget)
        saved.relations[name] = (relation.layout, len(relation))
    if bundle:
        sink.write("changes.npz", npz_bytes(bundle))
    sink.write(STATE, json.dumps(state, sort_keys=True).encode())

    def committed() -> None:
        for forget in done:
            forget()
    return saved, committed


def prefixed(arrays: dict[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    return {prefix + key: value for key, value in arrays.items()}


def save_dictionary(d: Dictionary, start: int, sink: FileSink) -> dict:
    """The dictionary entries from ``start`` on (the dictionary only grows)."""
    arrays = {"kinds": d.kinds.view()[start:], "ints": d.ints.view()[start:], "numbers": d.numbers.view()[start:]}
    if start == len(d):
        return {"start": start, "size": 0}
    texts = d.texts[start:]
    entry = {"start": start, "size": len(d) - start, "arrays": sink.write("dictionary.npz", npz_bytes(arrays)),
             "texts": sink.write("texts.arrow", texts_bytes(texts))}
    if texts.count(None) == len(texts):   # numbers only: loading then needs no Arrow (``apply_part``)
        entry["no_texts"] = True
    return entry


def relation_changes(relation: Relation, before: tuple[int, int] | None):
    """One relation's entry and arrays: whole, or its appended rows and changed death marks (entry
    None: unchanged); and the function that forgets the saved death-mark journal."""
    rows = len(relation)
    whole = before is None or before[0] != relation.layout or before[1] > rows
    start = before[1] if before is not None and not whole else 0
    changed, mark = (None, -1) if whole else relation.died_journal()
    forget = lambda: relation.forget_journal(mark)  # noqa: E731
    if not whole and start == rows and (changed is None or changed.size == 0):
        return None, {}, forget
    marks = relation.death_marks()
    arrays = {f"c{i}": c for i, c in enumerate(relation.stored_columns(start))}
    if marks is not None:
        if changed is None:
            arrays["died"] = marks
        else:
            old = changed[changed < start]
            arrays.update(died_rows=old, died_values=marks[old], died_tail=marks[start:])
    generations, ends = relation.generation_marks()
    entry = {"arity": relation.arity, "whole": whole, "start": start, "rows": rows,
             "generations": generations, "ends": ends}
    return entry, arrays, forget


# ---- loading ---------------------------------------------------------------------------------------

@dataclass
class _Building:
    """A relation being assembled from the parts that touch it."""

    arity: int
    columns: list[list[np.ndarray]]
    died: np.ndarray | None = None
    generations: list = field(default_factory=list)
    ends: list = field(default_factory=list)
    rows: int = 0


def load_state(source: FileSource, parts: list[str]) -> tuple[Dictionary, dict[str, Relation]]:
    """The dictionary and relations the parts hold, each part applied on top of the ones before."""
    dictionary: list[dict[str, list]] = []
    building: dict[str, _Building] = {}
    for part in parts:
        state = source.parse(f"{part}/{STATE}", json.loads)
        try:
            apply_part(source, part, state, dictionary, building)
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise Damaged(f"{part}/{STATE}", f"inconsistent ({type(error).__name__}: {error})") from None
    d = assemble_dictionary(dictionary)
    relations = assemble_relations(source, parts, building)
    for name, relation in relations.items():
        if relation.arity and relation.max_id >= len(d):
            raise Damaged(f"{parts[-1]}/{STATE}", f"relation {name} refers to constants the dictionary lacks")
    return d, relations


def apply_part(source: FileSource, part: str, state: dict, dictionary: list, building: dict) -> None:
    entry = state["dictionary"]
    if entry["start"] != sum(len(d["texts"]) for d in dictionary):
        raise ValueError(f"dictionary part starts at {entry['start']}")
    if entry["size"]:
        arrays = source.parse(f"{part}/{entry['arrays']}", read_npz)
        if entry.get("no_texts"):   # (its file is still read and checked, not parsed: no PyArrow import,
            source.read(f"{part}/{entry['texts']}")   # ~0.05 s of a CLI command on a store of numbers)
            texts: list = [None] * entry["size"]
        else:
            texts = source.parse(f"{part}/{entry['texts']}", read_texts)
        if any(len(a) != entry["size"] for a in arrays.values()) or len(texts) != entry["size"]:
            raise ValueError("dictionary arrays of different lengths")
        dictionary.append({**arrays, "texts": texts})
    for name in state["dropped"]:
        building.pop(name)
    files: dict[str, dict[str, np.ndarray]] = {}
    for name, rel in state["relations"].items():
        if rel["file"] not in files:
            files[rel["file"]] = source.parse(f"{part}/{rel['file']}", read_npz)
        prefix = rel["prefix"]
        arrays = {key[len(prefix):]: value for key, value in files[rel["file"]].items() if key.startswith(prefix)}
        apply_relation(name, rel, arrays, building)


def apply_relation(name: str, rel: dict, arrays: dict[str, np.ndarray], building: dict) -> None:
    width = max(rel["arity"], 1)
    columns = [arrays[f"c{i}"] for i in range(width)]
    if rel["whole"] or name not in building:
        if not rel["whole"] or rel["start"]:
            raise ValueError(f"relation {name} changed before it was saved whole")
        building[name] = _Building(rel["arity"], [[c] for c in columns], arrays.get("died"))
    else:
        into = building[name]
        if into.rows != rel["start"] or into.arity != rel["arity"]:
            raise ValueError(f"relation {name}: changes start at row {rel['start']}, saved rows {into.rows}")
        for parts, column in zip(into.columns, columns):
            parts.append(column)
        into.died = apply_deaths(into.died, into.rows, arrays)
    into = building[name]
    into.rows, into.generations, into.ends = rel["rows"], rel["generations"], rel["ends"]
    if sum(len(c) for c in into.columns[0]) != into.rows:
        raise ValueError(f"relation {name}: {sum(len(c) for c in into.columns[0])} rows, expected {into.rows}")


def apply_deaths(died: np.ndarray | None, start: int, arrays: dict[str, np.ndarray]) -> np.ndarray | None:
    """Death marks after a part: all of them, or the changed ones of the old rows plus the new rows'."""
    if "died" in arrays:
        return arrays["died"]
    if "died_tail" not in arrays:
        return died
    old = np.full(start, ALIVE, np.int64) if died is None else died.copy()
    old[arrays["died_rows"]] = arrays["died_values"]
    return np.concatenate([old, arrays["died_tail"]])


def assemble_dictionary(parts: list[dict]) -> Dictionary:
    d = Dictionary()
    if parts:
        kinds, ints, numbers = (np.concatenate([p[k] for p in parts]) for k in ("kinds", "ints", "numbers"))
        d.restore(kinds, ints, numbers, [t for p in parts for t in p["texts"]])
    return d


def assemble_relations(source: FileSource, parts: list[str], building: dict[str, _Building]) -> dict[str, Relation]:
    relations = {}
    for name, b in building.items():
        columns = [np.concatenate(c) if len(c) > 1 else c[0] for c in b.columns]
        try:
            relations[name] = Relation.restore(name, b.arity, columns, b.generations, b.ends, b.died)
        except ValueError as error:
            raise Damaged(f"{parts[-1]}/{STATE}", str(error)) from None
    return relations
