"""The store's command line as a user runs it, one command per process, trees side by side.

For each tree (``--trees NAME=SRC,...``: ``branch=src,base=/tmp/base/src``) a store of the dataset is
made once by that tree (materialise and save, then one update saved, as a store in use has), and the
change files of a sample are written (``uniform_samples``: ``--size`` explicit facts). Each round then
runs, for every tree in turn (the order alternating between rounds), on a fresh copy of its store:

- ``delete``: ``deltalog update STORE --delete DIR`` (the algorithm auto chooses);
- ``add``: the sample deleted first (untimed), then ``deltalog update STORE --add DIR``;
- ``remat``: ``deltalog update STORE --delete DIR --algorithm remat``;
- ``query``: ``deltalog query STORE ATOM`` (``--query``; default the dataset's first derived predicate);
- ``export``: ``deltalog export STORE --out DIR``.

Each command's CPU (user + system of the child, ``RUSAGE_CHILDREN``) and wall seconds are recorded, and
medians printed per tree and command, with the store's bytes on disk.

    python bench/store_cli.py --dataset lubm --trees branch=src,base=/tmp/base/src --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from maint_generators import make, uniform_samples  # noqa: E402

KINDS = ("delete", "add", "remat", "query", "export")
MAKE_STORE = """
import sys
sys.path.insert(0, {bench!r})
from maint_generators import make
from deltalog.api import Reasoner
ds = make({dataset!r})
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
r.save({store!r})
"""


def tree_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def write_changes(directory: Path, sample: dict) -> None:
    directory.mkdir(parents=True)
    for predicate, frame in sample.items():
        rows = frame.rows()
        (directory / f"{predicate}.tsv").write_text("".join("\t".join(map(str, row)) + "\n" for row in rows))


def run_cli(src: str, *args: str) -> tuple[float, float]:
    """(CPU, wall) seconds of one ``deltalog`` process."""
    env = dict(os.environ, PYTHONPATH=src)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "deltalog", *args], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"deltalog {' '.join(args)} failed:\n{done.stderr}")
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


def prepare(name: str, src: str, dataset: str, work: Path, changes: dict[str, Path]) -> Path:
    """The tree's store: materialised and saved by the tree, then one update (another sample) saved."""
    store = work / f"store-{name}"
    env = dict(os.environ, PYTHONPATH=src)
    code = MAKE_STORE.format(bench=str(Path(__file__).parent), dataset=dataset, store=str(store))
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    run_cli(src, "update", str(store), "--delete", str(changes["age"]))
    return store


def one(kind: str, src: str, store: Path, changes: dict[str, Path], query: str, scratch: Path) -> tuple[float, float]:
    copy = scratch / "copy"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(store, copy)
    if kind == "add":
        run_cli(src, "update", str(copy), "--delete", str(changes["sample"]))
    if kind == "query":
        return run_cli(src, "query", str(copy), query)
    if kind == "export":
        shutil.rmtree(scratch / "out", ignore_errors=True)
        return run_cli(src, "export", str(copy), "--out", str(scratch / "out"))
    args = ["update", str(copy), "--add" if kind == "add" else "--delete", str(changes["sample"])]
    return run_cli(src, *args, *(["--algorithm", "remat"] if kind == "remat" else []))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default="lubm")
    parser.add_argument("--trees", default="branch=src")
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--query", default=None)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    trees = dict(item.split("=", 1) for item in args.trees.split(","))
    trees = {name: str(Path(src).resolve()) for name, src in trees.items()}
    data = make(args.dataset)
    samples = list(uniform_samples(data, args.size, 2))
    query = args.query or next(f"{p}({', '.join('X' + str(i) for i in range(a))})"
                               for p, a in _derived(data.program))
    work = Path(tempfile.mkdtemp(prefix="store_cli."))
    changes = {"sample": work / "sample", "age": work / "age"}
    write_changes(changes["sample"], samples[0])
    write_changes(changes["age"], samples[1])
    stores = {name: prepare(name, src, args.dataset, work, changes) for name, src in trees.items()}
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    kinds = args.kinds.split(",")
    for round_number in range(args.rounds):
        order = list(trees) if round_number % 2 == 0 else list(trees)[::-1]
        for kind in kinds:
            for name in order:
                times.setdefault((name, kind), []).append(one(kind, trees[name], stores[name], changes, query, work))
    print(f"{args.dataset}, {args.size} facts, {args.rounds} rounds; CPU / wall seconds, medians (each run)")
    for name in trees:
        print(f"  {name}: store {tree_bytes(stores[name]):,} bytes")
        for kind in kinds:
            runs = times[(name, kind)]
            cpu, wall = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
            each = " ".join(f"{c:.3f}" for c, _ in runs)
            print(f"    {kind:<7} {cpu:.3f} / {wall:.3f}   ({each})")
    if args.json:
        Path(args.json).write_text(json.dumps({f"{n}/{k}": v for (n, k), v in times.items()}, indent=1))
    shutil.rmtree(work, ignore_errors=True)


def _derived(program: str):
    """(predicate, arity) of the rule heads, in order."""
    from deltalog.syntax import parse
    for rule in parse(program).rules:
        yield rule.head.predicate, rule.head.arity


if __name__ == "__main__":
    main()
