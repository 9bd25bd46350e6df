"""io/threads.map_in_threads and the writes spread over it (io/writers.write_relations): the same
results, files and errors as the serial loop, however many threads."""

from __future__ import annotations

import threading

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

from deltalog.errors import InputError
from deltalog.io import writers
from deltalog.io.int_columns import IntTable
from deltalog.io.threads import map_in_threads


@settings(max_examples=60, deadline=None)
@given(size=st.integers(0, 12), failing=st.sets(st.integers(0, 11), max_size=3),
       threads=st.integers(1, 4))
def test_map_in_threads_gives_the_serial_results_and_the_serial_error(size, failing, threads):
    used = set()

    def work(k):
        used.add(threading.current_thread())
        if k in failing:
            raise ValueError(f"item {k}")
        return k * 2

    items = list(range(size))
    raised = sorted(k for k in items if k in failing)
    if raised:   # the earliest failing item's error, as the loop would raise it
        with pytest.raises(ValueError, match=f"^item {raised[0]}$"):
            map_in_threads(work, items, threads)
    else:
        assert map_in_threads(work, items, threads) == [k * 2 for k in items]
    assert len(used) <= max(min(threads, len(items)), 1)


def tables() -> dict:
    rng = np.random.default_rng(3)
    return {f"r{k}": IntTable([rng.integers(-10**6, 10**6, 500 * k + 1), rng.integers(0, 9, 500 * k + 1)])
            for k in range(5)} | {"names": pl.DataFrame({"c0": ["a", "b"], "c1": [1, 2]})}


@pytest.mark.parametrize("fmt", ["tsv", "csv", "parquet"])
def test_relations_written_on_threads_are_the_files_written_on_one(tmp_path, monkeypatch, fmt):
    monkeypatch.setattr(writers, "_numpy_writes", lambda table: True)   # Polars is imported in the tests
    monkeypatch.setattr(writers, "workers", lambda: 1)
    writers.write_relations(tables(), tmp_path / "one", format=fmt)
    monkeypatch.setattr(writers, "workers", lambda: 3)
    writers.write_relations(tables(), tmp_path / "three", format=fmt)
    one, three = sorted((tmp_path / "one").iterdir()), sorted((tmp_path / "three").iterdir())
    assert [p.name for p in one] == [p.name for p in three] and len(one) == 6
    if fmt != "parquet":   # Parquet files carry their writer's metadata: compared as tables below
        assert all(a.read_bytes() == b.read_bytes() for a, b in zip(one, three))
    assert all(pl.read_parquet(a).equals(pl.read_parquet(b)) for a, b in zip(one, three) if fmt == "parquet")


@pytest.mark.parametrize("order", [("ok", "x", "ok2", "y"), ("y", "ok", "x"), ("ok", "ok2", "x", "y")])
def test_a_failing_write_on_threads_reports_the_first_failing_table_and_publishes_nothing(tmp_path, monkeypatch,
                                                                                          order):
    """TSV cannot hold a tab or a line break: of two such tables, the error names the first in order."""
    made = {"ok": IntTable([np.arange(9)]), "ok2": IntTable([np.arange(3)]),
            "x": pl.DataFrame({"x": ["a\tb"]}), "y": pl.DataFrame({"y": ["c\nd"]})}
    monkeypatch.setattr(writers, "workers", lambda: 3)
    first = next(name for name in order if name in ("x", "y"))
    with pytest.raises(InputError, match=f"column '{first}'"):
        writers.write_relations({name: made[name] for name in order}, tmp_path / "out")
    assert not (tmp_path / "out").exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("chosen, expected", [("", 1), ("x", 1), ("1", 1), ("2", 2), ("9", 4)])
def test_one_thread_unless_deltalog_threads_asks_for_more(monkeypatch, chosen, expected):
    """One thread by default (a second one measured no faster); DELTALOG_THREADS=N asks for N, at most 4."""
    from deltalog.io import threads
    monkeypatch.setenv("DELTALOG_THREADS", chosen)
    assert threads.workers() == expected
    used = set()
    map_in_threads(lambda k: used.add(threading.current_thread()), list(range(8)), threads.workers())
    assert len(used) == expected
