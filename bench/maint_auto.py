"""The two guards of the ``auto`` policy, measured side by side in one run (algorithms/auto.py).

additions   delete k sampled facts (setup, by rematerialisation), then add them back, timed, with
            ``auto`` and with ``remat``: ``auto`` must never rematerialise an update that only adds.
runaway     delete the middle edge of a chain (linear transitive closure), timed, with ``auto``,
            ``remat`` and ``dred`` (killed at ``--dred-cap`` s), then add it back (setup, by
            rematerialisation): ``auto`` starts DRed, passes its overdeletion budget, rolls back and
            rematerialises; it should end within 2x of ``remat``.

Every update's fact counts are checked against a fresh materialisation (``!!! MISMATCH`` otherwise).
Results: docs/maintenance-benchmarks.md, section "auto: add-only updates and runaway overdeletion".
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
for entry in (str(BENCH.parent / "src"), str(BENCH)):
    if entry not in sys.path:
        sys.path.insert(0, entry)

from maint_run import (MISMATCHES, Proc, Timeout, WorkerFailed, check, fmt_count, fmt_time, log,  # noqa: E402
                       machine, markdown)


def additions(dataset: str, k: int, repeats: int, algorithms: list[str], timeout: float) -> list[dict]:
    """Per algorithm and seed: delete k uniformly sampled facts by remat, then add them back, timed."""
    log(f"== additions {dataset}: {k} facts, seeds 1..{repeats}")
    records = []
    for algorithm in algorithms:
        proc = Proc(dataset, algorithm, timeout)
        initial = proc.ready["ready"]["counts"]
        for seed in range(1, repeats + 1):
            spec = {"sampling": "uniform", "seed": seed, "k": k}
            proc.call(timeout, op="update", kind="delete", algorithm="remat", **spec)
            result = proc.call(timeout, op="update", kind="add", **spec)
            diff = check({"dataset": dataset, "algorithm": algorithm, "seed": seed}, result.pop("counts"), initial,
                         "state after adding back")
            records.append({"experiment": "additions", "dataset": dataset, "algorithm": algorithm, "seed": seed,
                            "status": "mismatch" if diff else "ok", **result})
            log(f"   {algorithm:5s} seed {seed} add {k}: {result['seconds']:.3f} s, ran {result['ran']}")
        proc.stop()
    return records


def runaway(dataset: str, repeats: int, algorithms: list[str], cap: float, timeout: float) -> list[dict]:
    """Per algorithm: delete a chain's middle edge (timed, ``dred`` capped), restore it by remat, repeat."""
    n = int(dataset.split("-")[1])
    middle = {"edge": [(n // 2, n // 2 + 1)]}
    log(f"== runaway overdeletion {dataset}: delete edge {middle['edge'][0]}, {repeats} repetitions")
    scratch = Proc(dataset, None, timeout)
    fresh = [scratch.call(timeout, op="fresh", rows=middle) for _ in range(repeats)]
    scratch.stop()
    records = [{"experiment": "runaway", "dataset": dataset, "algorithm": "fresh materialise", "seed": i + 1,
                "status": "ok", "seconds": f["mat"], "ran": "-", "instances": f["instances"]}
               for i, f in enumerate(fresh)]
    for algorithm in algorithms:
        records += runaway_algorithm(dataset, algorithm, middle, repeats, fresh[0]["counts"],
                                     cap if algorithm == "dred" else timeout, timeout)
    return records


def runaway_algorithm(dataset: str, algorithm: str, middle: dict, repeats: int, expected: dict, limit: float,
                      timeout: float) -> list[dict]:
    records = []
    proc = Proc(dataset, algorithm, timeout)
    for seed in range(1, repeats + 1):
        context = {"experiment": "runaway", "dataset": dataset, "algorithm": algorithm, "seed": seed}
        try:
            result = proc.call(limit, op="update", kind="delete", rows=middle)
        except (Timeout, WorkerFailed) as exc:
            records.append({**context, "status": "timeout" if isinstance(exc, Timeout) else "failed",
                            "cap": limit, "error": str(exc)[-2000:]})
            log(f"   {algorithm:5s} delete: {records[-1]['status']} after {limit:.0f} s")
            return records   # the worker is gone; one timeout says enough
        diff = check(context, result.pop("counts"), expected, "maintained vs from-scratch counts")
        records.append({**context, "status": "mismatch" if diff else "ok", **result})
        log(f"   {algorithm:5s} #{seed} delete: {result['seconds']:.2f} s, ran {result['ran']}"
            f"{' (abandoned ' + result['abandoned'] + ')' if result['abandoned'] else ''}")
        proc.call(timeout, op="update", kind="add", rows=middle, algorithm="remat")
    proc.stop()
    return records


def table(records: list[dict], baseline: str = "remat") -> str:
    """Median, min and max per algorithm, and the median against the baseline algorithm's."""
    groups: dict[str, list[dict]] = {}
    for r in records:
        groups.setdefault(r["algorithm"], []).append(r)
    ok = {a: [r for r in runs if r["status"] in ("ok", "mismatch")] for a, runs in groups.items()}
    base = statistics.median(r["seconds"] for r in ok[baseline]) if ok.get(baseline) else None
    rows = []
    for algorithm, runs in groups.items():
        times = [r["seconds"] for r in ok[algorithm]]
        timeouts = [r for r in runs if r["status"] == "timeout"]
        if not times:
            rows.append([algorithm, "-", "0", f"> {timeouts[0]['cap']:.0f} s (cap)" if timeouts else "failed",
                         "-", "-", "-", f"> {timeouts[0]['cap'] / base:.0f}x" if timeouts and base else "-"])
            continue
        median = statistics.median(times)
        rows.append([algorithm, ", ".join(sorted({r["ran"] for r in ok[algorithm]})), str(len(times)),
                     fmt_time(median), fmt_time(min(times)), fmt_time(max(times)),
                     fmt_count(statistics.median(r["instances"] for r in ok[algorithm])),
                     f"{median / base:.2f}x" if base else "-"])
    return markdown(["algorithm", "ran", "n", "median", "min", "max", "rule instances", f"vs {baseline}"], rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--add-dataset", default="claros", help="feeds generative recursion (default: claros)")
    ap.add_argument("--add-size", type=int, default=100)
    ap.add_argument("--chain", default="chain-8000", help="chain-N: N edges (N*(N+1)/2 paths)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--dred-cap", type=float, default=300.0, help="seconds before DRed's deletion is killed")
    ap.add_argument("--timeout", type=float, default=900.0, help="any other worker call")
    ap.add_argument("--skip", choices=["additions", "runaway"], action="append", default=[])
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    before, started = machine(), time.perf_counter()
    out: dict[str, list[dict]] = {"additions": [], "runaway": []}
    if "additions" not in a.skip:
        out["additions"] = additions(a.add_dataset, a.add_size, a.repeats, ["auto", "remat"], a.timeout)
    if "runaway" not in a.skip:
        out["runaway"] = runaway(a.chain, a.repeats, ["auto", "remat", "dred"], a.dred_cap, a.timeout)
    after = machine()
    if out["additions"]:
        print(f"\n## (a) {a.add_dataset}: add {a.add_size} sampled facts back (median of {a.repeats})\n")
        print(table(out["additions"]))
    if out["runaway"]:
        print(f"\n## (b) {a.chain}: delete the middle edge (median of {a.repeats})\n")
        print(table(out["runaway"]))
    print(f"\n## Correctness: {len(MISMATCHES)} mismatch(es)")
    print(f"load average {before['loadavg']} -> {after['loadavg']}; git {before['git_head']}"
          f"{' (dirty)' if before['git_dirty_files'] else ''}; {time.perf_counter() - started:.0f} s")
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps({"machine": {"before": before, "after": after}, "options": vars(a),
                                      "results": out, "mismatches": MISMATCHES}, indent=1, default=str))
    return 1 if MISMATCHES else 0


if __name__ == "__main__":
    sys.exit(main())
