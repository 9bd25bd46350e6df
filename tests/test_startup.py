"""Start-up discipline: commands that need no data engine load none (issue 15, import discipline).

Checked through ``sys.modules`` in a fresh interpreter, not by timing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("polars", "pyarrow", "pyspark", "numpy", "scipy")

PROBE = """
import json, sys
from deltalog.cli import main
sys.argv = ["deltalog", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
print("\\nLOADED " + json.dumps(sorted(m for m in {heavy} if m in sys.modules)))
"""


def loaded_by(*argv: str) -> list[str]:
    probe = PROBE.replace("{heavy}", repr(HEAVY))
    out = subprocess.run([sys.executable, "-c", probe, json.dumps(argv)], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    return json.loads(out.rsplit("LOADED ", 1)[1])


@pytest.mark.parametrize("argv", [
    ("--help",),
    ("check", "examples/transitive/program.dl"),
    ("graph", "examples/transitive/program.dl"),
    ("update", "--help"),
])
def test_light_commands_load_no_data_engine(argv):
    assert loaded_by(*argv) == []


def test_run_does_load_the_engine():
    """The probe can see a heavy import (so the test above is not vacuous)."""
    assert "numpy" in loaded_by("run", "examples/transitive/program.dl", "--out", "-")


def test_a_small_closure_needs_no_scipy(tmp_path):
    """The quick start's transitive closure is a closure module; a graph that small is closed by the
    dense kernel (backends/local/dense_closure.py), so scipy's ~0.2 s import is not paid."""
    assert "scipy" not in loaded_by("run", "examples/transitive/program.dl", "--facts", "examples/transitive/facts",
                                    "--out", str(tmp_path / "out"))
    rules = "path(X, Y) :- edge(X, Y).\npath(X, Z) :- path(X, Y), path(Y, Z).\n"
    chain, cycle = tmp_path / "chain.dl", tmp_path / "cycle.dl"
    chain.write_text("".join(f"edge({i}, {i + 1}).\n" for i in range(300)) + rules)
    cycle.write_text("".join(f"edge({i}, {(i + 1) % 300}).\n" for i in range(300)) + rules)
    # past the dense kernel's 256 nodes: a DAG is proven one by peeling (backends/local/components.py),
    # a cycle needs scipy's strong components
    assert "scipy" not in loaded_by("run", str(chain), "--out", str(tmp_path / "chain"))
    assert "scipy" in loaded_by("run", str(cycle), "--out", str(tmp_path / "cycle"))


def test_algorithm_names_match_the_strategies():
    from deltalog.algorithms.maintain import ALGORITHMS
    from deltalog.algorithms.names import ALGORITHM_NAMES
    assert ALGORITHM_NAMES == ALGORITHMS


def test_a_run_over_int_files_loads_no_polars(tmp_path):
    """Files of canonical ints are read and the int relations written by NumPy (io/int_columns.py): neither
    Polars nor PyArrow is imported (~0.1 s each); a file of text cells still reads through Polars."""
    out = tmp_path / "out"
    assert loaded_by("run", "examples/transitive/program.dl", "--out", str(out)) == ["numpy"]
    assert (out / "path.tsv").read_text().splitlines()[:2] == ["1\t2", "2\t3"]


def test_a_run_over_small_text_files_loads_no_polars_and_a_large_one_does(tmp_path):
    """A small file of text cells is read, and its small relations written, in Python (io/text_table.py);
    a text file above SMALL_TEXT_BYTES is read by Polars. Both write the same rows."""
    from deltalog.io.text_table import SMALL_TEXT_BYTES
    program = tmp_path / "p.dl"
    program.write_text("path(X, Y) :- edge(X, Y).\npath(X, Z) :- path(X, Y), edge(Y, Z).\n")
    rows = {}
    for size, edges in (("small", 3), ("large", SMALL_TEXT_BYTES // 10)):
        facts = tmp_path / size
        facts.mkdir()
        (facts / "edge.tsv").write_text("a\tb\nb\t\"c d\"\n<x>\t1.5\n" + "".join(f"n{i}\tm{i}\n" for i in range(edges)))
        loaded = loaded_by("run", str(program), "--facts", str(facts), "--out", str(tmp_path / f"o-{size}"))
        assert ("polars" in loaded) == (size == "large")
        rows[size] = set((tmp_path / f"o-{size}" / "path.tsv").read_text().splitlines())
    assert {"a\tb", "b\tc d", "a\tc d", "<x>\t1.5", "n0\tm0"} <= rows["small"] <= rows["large"]


def test_the_command_line_asks_for_one_blas_thread_unless_told(monkeypatch):
    """OpenBLAS's thread pool costs a run ~40 ms (docs/design.md); a caller's own setting is kept."""
    from deltalog import process
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    process.one_blas_thread()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    process.one_blas_thread()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "4"


_REUSE = """
import resource, sys
import numpy as np
from deltalog.process import retain_freed_memory
made = retain_freed_memory()
def faults_of_a_fresh_array():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    np.ones(1 << 21).sum()   # 16 MB written, then freed
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
faults_of_a_fresh_array()
print(made, faults_of_a_fresh_array())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux-only")
def test_the_command_line_reuses_freed_memory_for_large_arrays_unless_told(monkeypatch):
    """With the command line's malloc settings a second 16 MB array reuses the first one's pages instead of
    faulting in fresh ones (docs/design.md, "process settings"); a caller's own malloc variable wins."""
    for name in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "GLIBC_TUNABLES"):
        monkeypatch.delenv(name, raising=False)
    made, faults = subprocess.run([sys.executable, "-c", _REUSE], capture_output=True, text=True,
                                  check=True).stdout.split()
    assert made == "True" and int(faults) < 8
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "131072")
    made, faults = subprocess.run([sys.executable, "-c", _REUSE], capture_output=True, text=True,
                                  check=True).stdout.split()
    assert made == "False" and int(faults) >= 8   # one per page: 4 kB, or 2 MB where NumPy asks for huge pages


def test_a_command_leaves_the_collector_as_it_found_it(tmp_path):
    """main() pauses the cyclic collector over the start-up and freezes what it loaded (process.py);
    when it returns, collection is back on and nothing stays frozen, and a caller's own settings hold."""
    import gc

    from deltalog import cli
    run = ["run", "examples/transitive/program.dl", "--facts", "examples/transitive/facts", "--quiet"]
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert cli.main([*run, "--out", str(tmp_path / "a")]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    try:
        assert cli.main([*run, "--out", str(tmp_path / "b")]) == 0
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert cli.main(["run", "no-such-program.dl", "--out", str(tmp_path / "c")]) == 2   # an error path
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_the_start_up_is_frozen_for_the_evaluation(monkeypatch, tmp_path):
    """While the evaluation runs, the collector is on and the start-up's objects are frozen."""
    import gc

    from deltalog import cli
    from deltalog.api import Reasoner
    seen = []
    materialise = Reasoner.materialise

    def spy(self, *args, **kwargs):
        seen.append((gc.isenabled(), gc.get_freeze_count() > 0))
        return materialise(self, *args, **kwargs)
    monkeypatch.setattr(Reasoner, "materialise", spy)
    assert cli.main(["run", "examples/transitive/program.dl", "--quiet", "--out", str(tmp_path / "o")]) == 0
    assert seen and all(state == (True, True) for state in seen)


def test_an_update_of_numbers_on_a_store_loads_no_polars_pyarrow_or_lark(tmp_path):
    """``deltalog update`` on a store of numbers, with a file of int facts: the change file stays an
    IntTable (cli_store.read_changes), the dictionary's texts are not parsed when it holds numbers only
    (storage/persist.py ``no_texts``), and the store's program comes from the parse cache once parsed
    (store/opening.py): ~0.2 s of imports less a command (docs/benchmarks.md, stop 22)."""
    store, cache = tmp_path / "store", tmp_path / "cache"
    (tmp_path / "facts").mkdir()
    (tmp_path / "facts" / "edge.tsv").write_text("".join(f"{i}\t{i + 1}\n" for i in range(50)))
    (tmp_path / "gone").mkdir()
    (tmp_path / "gone" / "edge.tsv").write_text("10\t11\n")
    env = dict(os.environ, DELTALOG_PARSE_CACHE=str(cache))
    program = ROOT / "examples" / "transitive" / "program.dl"
    for argv in (("init", str(store), str(program), "--facts", str(tmp_path / "facts")),
                 ("query", str(store), "path(1, X)")):   # (a query parses its atom: the program gets cached)
        subprocess.run([sys.executable, "-m", "deltalog", *argv], cwd=ROOT, env=env, check=True, capture_output=True)
    probe = PROBE.replace("{heavy}", repr(HEAVY + ("lark",)))
    done = subprocess.run([sys.executable, "-c", probe, json.dumps(["update", str(store), "--delete",
                                                                     str(tmp_path / "gone")])],
                          capture_output=True, text=True, cwd=ROOT, env=env, check=True)
    assert "-" in done.stdout.split("LOADED")[0], done.stdout    # the update ran and removed facts
    assert [m for m in json.loads(done.stdout.rsplit("LOADED ", 1)[1]) if m != "numpy" and m != "scipy"] == []


UPDATE_PROBE = """
import json, sys
from deltalog.api import Reasoner
rules = "r(X, Y) :- e(X, Y).\\nr(X, Y) :- r(Y, X).\\nr(X, Z) :- r(X, Y), r(Y, Z).\\n"
chain = "".join(f"e({i}, {i + 1}).\\n" for i in range(400))
reasoner = Reasoner(chain + rules, modules="auto")
reasoner.materialise()
counts = []
for algorithm in ("dred", "dredc", "counting", "auto"):
    reasoner.update(delete={"e": [(100, 101)]}, algorithm=algorithm)
    counts.append(reasoner.relation("r").height)
    reasoner.update(add={"e": [(100, 101)]}, algorithm=algorithm)
    counts.append(reasoner.relation("r").height)
print("\\nLOADED " + json.dumps([counts, "scipy" in sys.modules]))
"""


def test_a_symmetric_transitive_update_needs_no_scipy():
    """Maintaining a symmetric-transitive closure (Del and Add by component labellings, Red by ``ir.Connects``)
    asks scipy nothing: a 400-edge chain split by one deletion (two cliques of 101 and 300 nodes) and joined
    again, by every DRed-like algorithm, imports no ``scipy.sparse.csgraph`` (~0.15-0.25 s; Red searched the
    chain both ways and condensed its cycles by scipy before: docs/benchmarks.md, stop 23)."""
    out = subprocess.run([sys.executable, "-c", UPDATE_PROBE], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout
    counts, scipy = json.loads(out.rsplit("LOADED ", 1)[1])
    assert counts == [101 ** 2 + 300 ** 2, 401 ** 2] * 4
    assert scipy is False
