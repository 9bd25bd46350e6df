"""Persistence cost of store updates: bytes written and wall time with I/O, against the in-memory update.

For a dataset (LUBM-like by default, about 1.06M explicit facts), the store is created once; then each
round deletes ``--size`` uniformly sampled explicit facts and adds them back (two updates), each one
saved to the store. Per update it records the in-memory update time, the save time (the segment's
files written, fsynced and checksummed, the manifest and CURRENT switched), the bytes the save wrote
and the store's size, and the time to open the store afresh. Medians are printed; the JSON goes to
bench/results/store.json.

    python bench/store_run.py --dataset lubm --size 1000 --rounds 10
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "src"))

import maint_generators  # noqa: E402
from maint_sampling import FactTable, uniform  # noqa: E402

from deltalog.api import Reasoner  # noqa: E402


def tree_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run(dataset: str, size: int, rounds: int, algorithm: str, workdir: Path) -> dict:
    data = getattr(maint_generators, dataset.replace("-", "_"))()
    table = FactTable(data.facts)
    reasoner = Reasoner(data.program)
    reasoner.load_tables(data.facts)
    started = time.perf_counter()
    reasoner.materialise()
    materialise_s = time.perf_counter() - started
    store = workdir / "store"
    started = time.perf_counter()
    reasoner.save(store)
    init_s = time.perf_counter() - started
    rows = []
    reasoner = Reasoner.open(store, writable=True)
    for round_number in range(rounds):
        facts = table.rows(uniform(table, size, seed=round_number))
        for kind, change in (("delete", {"delete": facts}), ("add", {"add": facts})):
            before = tree_bytes(store)
            started = time.perf_counter()
            result = reasoner.update(**change, algorithm=algorithm)
            updated = time.perf_counter()
            reasoner.save(store)
            saved = time.perf_counter()
            after = tree_bytes(store)
            written = sum(size for name, (size, _) in reasoner.store_session.link.manifest["files"].items()
                          if name.startswith(f"seg-{reasoner.store_session.link.version:06d}/"))
            rows.append({"kind": kind, "algorithm": result.algorithm, "update_s": updated - started,
                         "save_s": saved - updated,
                         "written": written if reasoner.store_session.link.version else after,
                         "whole_snapshot": reasoner.store_session.link.version == 0, "store_bytes": after,
                         "store_grew": after - before})
    reasoner.close()
    started = time.perf_counter()
    Reasoner.open(store)
    open_s = time.perf_counter() - started
    return {"dataset": dataset, "explicit": data.size, "facts": reasoner.fact_count(), "size": size,
            "materialise_s": materialise_s, "init_save_s": init_s, "open_s": open_s, "updates": rows}


def summarise(result: dict) -> None:
    print(f"{result['dataset']}: {result['explicit']:,} explicit, {result['facts']:,} facts; materialise "
          f"{result['materialise_s']:.2f} s, first save {result['init_save_s']:.2f} s, open {result['open_s']:.2f} s")
    for kind in ("delete", "add"):
        rows = [r for r in result["updates"] if r["kind"] == kind]
        segments = [r for r in rows if not r["whole_snapshot"]]
        median = statistics.median
        print(f"  {kind} {result['size']:,} facts ({len(rows)} updates, {len(rows) - len(segments)} whole snapshots): "
              f"update {median(r['update_s'] for r in rows) * 1000:.0f} ms, "
              f"save {median(r['save_s'] for r in rows) * 1000:.0f} ms, "
              f"with I/O {median((r['update_s'] + r['save_s']) / r['update_s'] for r in rows):.2f}x the update; "
              f"written {median(r['written'] for r in rows) / 1e3:,.0f} kB = "
              f"{median(r['written'] / r['store_bytes'] for r in rows) * 100:.2f}% of the store "
              f"({median(r['store_bytes'] for r in rows) / 1e6:.1f} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="lubm")
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--algorithm", default="auto")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="deltalog-store-bench-"))
    try:
        result = run(args.dataset, args.size, args.rounds, args.algorithm, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    summarise(result)
    out = Path(__file__).parent / "results" / "store.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
