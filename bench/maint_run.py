"""Maintenance benchmarks (001 section 10): robustness, break-even points and headline numbers, in worker processes."""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
for entry in (str(REPO / "src"), str(BENCH)):
    if entry not in sys.path:
        sys.path.insert(0, entry)

from maint_worker import serve  # noqa: E402

ALGORITHMS = ["dred", "fbf", "bf", "remat", "auto"]
ROBUST_DATASETS = ["lubm", "claros", "dag-r", "rs2"]
FRACTIONS = [0.00001, 0.0001, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5]
RS1_MIDDLE = {"hasNeighbour": [("wt_50", "wt_51"), ("wt_51", "wt_52")]}
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045]
"""Student's t quantile 0.975 for 1..29 degrees of freedom (1.96 beyond)."""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- worker processes


class Timeout(Exception):
    """A worker did not answer in time (it has been killed)."""


class WorkerFailed(Exception):
    """A worker raised or died; the message carries its traceback."""


class Proc:
    """A worker process (maint_worker.serve) holding one materialisation; killed on timeout."""

    def __init__(self, dataset: str, algorithm: str | None, timeout: float, warmup: int = 0) -> None:
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=serve, args=(child, dataset, algorithm, warmup), daemon=True)
        self.proc.start()
        child.close()
        self.ready = self.receive(timeout)

    def call(self, timeout: float, **cmd) -> dict:
        self.conn.send(cmd)
        return self.receive(timeout)

    def receive(self, timeout: float) -> dict:
        if not self.conn.poll(timeout):
            self.kill()
            raise Timeout(f"no answer within {timeout:.0f} s")
        try:
            message = self.conn.recv()
        except EOFError:
            self.kill()
            raise WorkerFailed(f"worker died (exit code {self.proc.exitcode})") from None
        if "error" in message:
            self.kill()
            raise WorkerFailed(message["error"])
        return message

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()

    def stop(self) -> None:
        if self.proc.is_alive():
            self.conn.send({"op": "stop"})
            self.proc.join(30)
        self.kill()


# ---------------------------------------------------------------- checks and statistics


MISMATCHES: list[dict] = []


def compare(got: dict[str, int], expected: dict[str, int]) -> dict[str, list[int]]:
    """Predicates whose fact counts differ: {pred: [maintained, from scratch]}."""
    return {p: [got.get(p, 0), expected.get(p, 0)] for p in sorted(set(got) | set(expected))
            if got.get(p, 0) != expected.get(p, 0)}


def check(context: dict, got: dict, expected: dict, what: str) -> dict:
    """Compare counts; a difference is recorded and printed loudly."""
    diff = compare(got, expected)
    if diff:
        MISMATCHES.append({**context, "what": what, "diff": diff})
        log(f"!!! MISMATCH {what} {context}: {diff}")
    return diff


def mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (Student's t)."""
    if not values:
        return math.nan, math.nan
    if len(values) == 1:
        return values[0], math.nan
    t = T975[len(values) - 2] if len(values) - 1 <= len(T975) else 1.96
    return statistics.fmean(values), t * statistics.stdev(values) / math.sqrt(len(values))


# ---------------------------------------------------------------- options


@dataclass
class Options:
    datasets: list[str] = field(default_factory=lambda: list(ROBUST_DATASETS))
    algorithms: list[str] = field(default_factory=lambda: list(ALGORITHMS))
    samplings: list[str] = field(default_factory=lambda: ["uniform", "walk"])
    seeds: int = 5
    size: int = 1000
    fractions: list[float] = field(default_factory=lambda: list(FRACTIONS))
    be_sampling: str = "uniform"
    be_seed: int = 1
    cap_factor: float = 5.0
    cap_min: float = 10.0
    build_timeout: float = 600.0
    rs1_repeats: int = 5
    keep_going: bool = False
    warmup: int = 0

    def cap(self, remat_seconds: float) -> float:
        """Per-update time limit: an update this much slower than rematerialisation is killed."""
        return max(self.cap_min, self.cap_factor * remat_seconds)


def worker(dataset: str, algorithm: str, opt: Options) -> Proc:
    """An algorithm's worker process, warmed up if asked (the warm-up times are logged)."""
    proc = Proc(dataset, algorithm, opt.build_timeout, opt.warmup)
    if "warmup" in proc.ready["ready"]:
        log(f"   {algorithm} warm-up (delete / add {opt.warmup}): "
            + " / ".join(f"{s:.3f} s" for s in proc.ready["ready"]["warmup"]))
    return proc


def full_build(ready: dict) -> float:
    """Seconds of a rematerialisation from scratch including loading the facts into a fresh Reasoner."""
    return ready["load"] + ready["mat"]


# ---------------------------------------------------------------- robustness (001 section 10.3)


def robustness(dataset: str, opt: Options) -> list[dict]:
    """Delete then re-add k sampled facts per algorithm, sampling and seed, against fresh rematerialisation."""
    log(f"== robustness {dataset}: k={opt.size}, seeds={opt.seeds}, samplings={opt.samplings}")
    scratch = Proc(dataset, None, opt.build_timeout)
    base = scratch.ready
    builds = [base["ready"]]
    refs = {}
    for sampling in opt.samplings:
        for seed in range(1, opt.seeds + 1):
            refs[sampling, seed] = scratch.call(opt.build_timeout, op="fresh", sampling=sampling, seed=seed,
                                                k=opt.size)
            log(f"   fresh {sampling} seed {seed}: mat {refs[sampling, seed]['mat']:.3f} s")
    whole = [scratch.call(opt.build_timeout, op="fresh", sampling="uniform", seed=1, k=0) for _ in range(opt.seeds)]
    scratch.stop()
    records = []
    for algorithm in opt.algorithms:
        records += robust_algorithm(dataset, algorithm, opt, base, refs, builds)
    remat_add = statistics.fmean(b["mat"] for b in whole)
    remat_add_full = statistics.fmean(full_build(b) for b in whole)
    for r in records:
        if r["op"] == "add":
            r["remat"], r["remat_full"] = remat_add, remat_add_full
    return records


def robust_algorithm(dataset: str, algorithm: str, opt: Options, base: dict, refs: dict, builds: list) -> list[dict]:
    """One algorithm's runs over every sampling and seed. A timeout skips the rest of that sampling, and
    (unless ``opt.keep_going``) the other samplings too: an update slower than the cap is slow either way."""
    records, proc = [], None
    cap = opt.cap(full_build(base["ready"]))
    runs_left = [(s, seed) for s in opt.samplings for seed in range(1, opt.seeds + 1)]
    while runs_left:
        sampling, seed = runs_left.pop(0)
        if proc is None:
            proc = worker(dataset, algorithm, opt)
            builds.append(proc.ready["ready"])
            check({"dataset": dataset, "algorithm": algorithm}, proc.ready["ready"]["counts"],
                  base["ready"]["counts"], "initial materialisation")
        context = {"dataset": dataset, "algorithm": algorithm, "sampling": sampling, "seed": seed}
        runs, proc = delete_and_add(proc, context, opt.size, cap, refs[sampling, seed], base["ready"])
        records += runs
        if proc is None and runs[-1]["status"] == "timeout":
            dropped = [r for r in runs_left if r[0] == sampling or not opt.keep_going]
            runs_left = [r for r in runs_left if r not in dropped]
            records += [{**context, "sampling": s, "seed": n, "op": runs[-1]["op"], "status": "skipped"}
                        for s, n in dropped]
    if proc is not None:
        proc.stop()
    return records


def delete_and_add(proc: Proc, context: dict, k: int, cap: float, ref: dict, initial: dict):
    """Delete a sample, check against the fresh rematerialisation, add it back, check the state is restored.
    Returns the records and the worker (None once it is gone or its state is no longer trusted)."""
    spec = {"sampling": context["sampling"], "seed": context["seed"], "k": k}
    records = []
    for op, expected, remat in (("delete", ref["counts"], ref), ("add", initial["counts"], None)):
        record = {**context, "op": op, "k": k, "cap": cap}
        if remat is not None:
            record["remat"], record["remat_full"] = remat["mat"], full_build(remat)
            record["remat_instances"] = remat["instances"]
        try:
            result = proc.call(cap, op="update", kind=op, **spec)
        except (Timeout, WorkerFailed) as exc:
            records.append({**record, "status": "timeout" if isinstance(exc, Timeout) else "failed",
                            "error": str(exc)[-2000:]})
            log(f"   {context} {op}: {records[-1]['status']}: {str(exc).strip().splitlines()[-1]}")
            return records, None
        diff = check({**context, "op": op}, result.pop("counts"), expected,
                     "maintained vs from-scratch counts" if op == "delete" else "state after re-adding")
        records.append({**record, **result, "status": "mismatch" if diff else "ok", "diff": diff})
        log(f"   {context['algorithm']:5s} {context['sampling']:7s} seed {context['seed']} {op:6s}"
            f" {result['seconds']:8.3f} s  ran {result['ran']:5s} instances {result['instances']:,d}")
        if diff:
            proc.kill()
            return records, None
    return records, proc


# ---------------------------------------------------------------- break-even points (001 section 10.4)


class FreshRuns:
    """Fresh rematerialisations after deleting the first k facts of one sample, computed when first asked."""

    def __init__(self, proc: Proc, timeout: float, spec: dict) -> None:
        self.proc, self.timeout, self.spec, self.done = proc, timeout, spec, {}

    def __getitem__(self, k: int) -> dict:
        if k not in self.done:
            self.done[k] = self.proc.call(self.timeout, op="fresh", k=k, **self.spec)
            log(f"   fresh k={k}: mat {self.done[k]['mat']:.3f} s")
        return self.done[k]


def breakeven(dataset: str, opt: Options) -> list[dict]:
    """Delete growing samples (nested) per algorithm until the update is slower than rematerialising."""
    scratch = Proc(dataset, None, opt.build_timeout)
    n = scratch.ready["explicit"]
    sizes = sorted({max(1, round(f * n)) for f in opt.fractions})
    log(f"== break-even {dataset}: {n:,d} explicit facts, sizes {sizes}")
    refs = FreshRuns(scratch, opt.build_timeout, {"sampling": opt.be_sampling, "seed": opt.be_seed,
                                                  "k_max": max(sizes)})
    records = []
    for algorithm in opt.algorithms:
        records += breakeven_algorithm(dataset, algorithm, opt, sizes, refs, scratch.ready["ready"], n)
    scratch.stop()
    fresh = [{"dataset": dataset, "algorithm": "fresh", "k": k, "op": "delete", "seconds": ref["mat"],
              "remat": ref["mat"], "remat_full": full_build(ref), "instances": ref["instances"],
              "explicit_total": n, "status": "ok"} for k, ref in sorted(refs.done.items()) if k]
    return fresh + records


def breakeven_algorithm(dataset, algorithm, opt: Options, sizes, refs, initial, n) -> list[dict]:
    """Growing deletions (each re-added afterwards) until one is slower than the fresh rematerialisation."""
    proc = worker(dataset, algorithm, opt)
    records = []
    for k in sizes:
        context = {"dataset": dataset, "algorithm": algorithm, "sampling": opt.be_sampling, "seed": opt.be_seed}
        runs, proc = delete_and_add(proc, context, k, opt.cap(full_build(refs[k])), refs[k], initial)
        for r in runs:
            r["explicit_total"] = n
            if r["op"] == "add":
                r["remat"], r["remat_full"] = refs[0]["mat"], full_build(refs[0])
        records += runs
        deletion = runs[0]
        if proc is None or deletion["status"] != "ok" or deletion["seconds"] > deletion["remat"]:
            break
    if proc is not None:
        proc.stop()
    return records


# ---------------------------------------------------------------- RS1 headline


def rs1_headline(opt: Options) -> list[dict]:
    """RS1 with 100 turbines: delete the two middle hasNeighbour edges and add them back, per algorithm."""
    log("== RS1 N=100: delete/add 2 middle hasNeighbour edges")
    scratch = Proc("rs1", None, opt.build_timeout)
    ref = scratch.call(opt.build_timeout, op="fresh", rows=RS1_MIDDLE)
    fresh_times = [scratch.call(opt.build_timeout, op="fresh", rows=RS1_MIDDLE) for _ in range(opt.rs1_repeats)]
    whole = [scratch.call(opt.build_timeout, op="fresh", rows={}) for _ in range(opt.rs1_repeats)]
    initial = scratch.ready["ready"]
    scratch.stop()
    ref["mat"] = statistics.median(f["mat"] for f in fresh_times)
    initial = {**initial, "mat": statistics.median(f["mat"] for f in whole)}
    records = []
    for algorithm in opt.algorithms:
        proc = worker("rs1", algorithm, opt)
        for repeat in range(1, opt.rs1_repeats + 1):
            context = {"dataset": "rs1", "algorithm": algorithm, "sampling": "middle", "seed": repeat}
            runs, proc = rs1_round(proc, context, ref, initial, opt)
            records += runs
            if proc is None:
                break
        if proc is not None:
            proc.stop()
    return records


def rs1_round(proc: Proc, context: dict, ref: dict, initial: dict, opt: Options):
    records = []
    for op, expected in (("delete", ref["counts"]), ("add", initial["counts"])):
        record = {**context, "op": op, "k": 2, "remat": ref["mat"] if op == "delete" else initial["mat"]}
        try:
            result = proc.call(opt.cap(1.0), op="update", kind=op, rows=RS1_MIDDLE)
        except (Timeout, WorkerFailed) as exc:
            return records + [{**record, "status": "failed", "error": str(exc)[-2000:]}], None
        diff = check({**context, "op": op}, result.pop("counts"), expected, f"RS1 {op}")
        records.append({**record, **result, "status": "mismatch" if diff else "ok", "diff": diff})
        if diff:
            proc.kill()
            return records, None
    return records, proc


# ---------------------------------------------------------------- tables


def fmt_time(seconds: float) -> str:
    if seconds is None or math.isnan(seconds):
        return "-"
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def fmt_mean_ci(values: list[float]) -> str:
    mean, half = mean_ci(values)
    if math.isnan(mean):
        return "-"
    return fmt_time(mean) + ("" if math.isnan(half) else f" ± {fmt_time(half)}")


def fmt_count(value: float) -> str:
    if value is None or math.isnan(value):
        return "-"
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= limit:
            return f"{value / limit:.2f}{suffix}"
    return f"{value:.0f}"


def markdown(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def group(records: list[dict], *keys: str) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = {}
    for r in records:
        out.setdefault(tuple(r.get(k) for k in keys), []).append(r)
    return out


def robustness_row(key: tuple, runs: list[dict]) -> list[str]:
    """One table row: an algorithm on a dataset, sampling and operation over the seeds."""
    ok = [r for r in runs if r["status"] in ("ok", "mismatch")]
    bad = {s: sum(r["status"] == s for r in runs) for s in ("timeout", "failed", "skipped", "mismatch")}
    times = [r["seconds"] for r in ok]
    remat = [r["remat"] for r in runs if "remat" in r]
    mean_remat = statistics.fmean(remat) if remat else math.nan
    notes = ", ".join(f"{n} {s}" for s, n in bad.items() if n)
    if bad["timeout"]:
        cap = next(r["cap"] for r in runs if r["status"] == "timeout")
        notes += f" (cap {cap:.0f} s)"
    if times:
        speed = f"{mean_remat / statistics.fmean(times):.2f}x"
    else:
        speed = f"< {mean_remat / cap:.2f}x" if bad["timeout"] and remat else "-"
    return [*key, ", ".join(sorted({r["ran"] for r in ok})) or "-", str(len(ok)), fmt_mean_ci(times),
            fmt_count(statistics.fmean(r["instances"] for r in ok) if ok else math.nan),
            fmt_time(mean_remat), speed, notes or "ok"]


def robustness_table(records: list[dict]) -> str:
    header = ["dataset", "op", "sampling", "algorithm", "ran", "n", "time (mean ± 95% CI)", "rule instances",
              "remat from scratch", "speed-up vs remat", "status"]
    rows = [robustness_row(key, runs) for key, runs in
            group(records, "dataset", "op", "sampling", "algorithm").items()]
    return markdown(header, rows)


def breakeven_table(records: list[dict], dataset: str) -> str:
    """Per deletion size: fresh rematerialisation and each algorithm's deletion (and re-addition) time."""
    mine = [r for r in records if r["dataset"] == dataset]
    algorithms = [a for a in dict.fromkeys(r["algorithm"] for r in mine) if a != "fresh"]
    sizes = sorted({r["k"] for r in mine})
    n = mine[0]["explicit_total"]
    rows = []
    for k in sizes:
        fresh = next((r for r in mine if r["algorithm"] == "fresh" and r["k"] == k), {"seconds": math.nan})
        cells = [f"{k:,d} ({100 * k / n:.2g}%)", fmt_time(fresh["seconds"])]
        for a in algorithms:
            cells.append(breakeven_cell([r for r in mine if r["algorithm"] == a and r["k"] == k]))
        rows.append(cells)
    rows.append(["**break-even**", ""] + [breakeven_point(mine, a, sizes, n) for a in algorithms])
    return markdown(["deleted (of E)", "remat from scratch"] + [f"{a}: delete / re-add" for a in algorithms], rows)


def breakeven_cell(runs: list[dict]) -> str:
    by_op = {r["op"]: r for r in runs}
    if not by_op:
        return ""
    parts = []
    for op in ("delete", "add"):
        r = by_op.get(op)
        if r is None:
            parts.append("-")
        elif r["status"] in ("ok", "mismatch"):
            flag = "!" if r["status"] == "mismatch" else ("*" if op == "delete" and r["seconds"] > r["remat"] else "")
            parts.append(fmt_time(r["seconds"]) + flag)
        else:
            parts.append(f">{r['cap']:.0f} s" if r["status"] == "timeout" else r["status"])
    return " / ".join(parts)


def breakeven_point(mine: list[dict], algorithm: str, sizes: list[int], n: int) -> str:
    """The smallest deletion slower than rematerialising (or timed out); '> largest' if none."""
    for k in sizes:
        r = next((x for x in mine if x["algorithm"] == algorithm and x["k"] == k and x["op"] == "delete"), None)
        if r is None:
            continue
        if r["status"] in ("timeout", "failed") or r["seconds"] > r["remat"]:
            return f"{'≤ ' if k == sizes[0] else ''}{k:,d} ({100 * k / n:.2g}%)"
    return f"> {sizes[-1]:,d}"


def rs1_table(records: list[dict]) -> str:
    header = ["algorithm", "op", "ran", "n", "median time", "min", "max", "rule instances", "remat from scratch",
              "≤ 50 ms?", "correct"]
    rows = []
    for (algorithm, op), runs in group(records, "algorithm", "op").items():
        ok = [r for r in runs if r["status"] in ("ok", "mismatch")]
        times = [r["seconds"] for r in ok]
        med = statistics.median(times) if times else math.nan
        rows.append([algorithm, op, ", ".join(sorted({r["ran"] for r in ok})), str(len(ok)), fmt_time(med),
                     fmt_time(min(times) if times else math.nan), fmt_time(max(times) if times else math.nan),
                     fmt_count(statistics.median(r["instances"] for r in ok) if ok else math.nan),
                     fmt_time(runs[0]["remat"]), "yes" if med <= 0.05 else f"no ({med / 0.05:.1f}x over)",
                     "yes" if all(r["status"] == "ok" for r in runs) else "NO"])
    return markdown(header, rows)


def lubm_headline(records: list[dict]) -> str:
    """Deleting / adding the sampled facts on the LUBM-like data against rematerialisation (target 50x)."""
    lines = []
    lubm = [r for r in records if r["dataset"] == "lubm" and r["status"] == "ok"]
    for (op, algorithm), runs in group(lubm, "op", "algorithm").items():
        update = statistics.fmean(r["seconds"] for r in runs)
        remat = statistics.fmean(r["remat"] for r in runs)
        full = statistics.fmean(r["remat_full"] for r in runs)
        lines.append(f"LUBM {op:6s} {runs[0]['k']} facts, {algorithm:5s}: {fmt_time(update):>9s} vs remat "
                     f"{fmt_time(remat)} (materialise) = {remat / update:5.2f}x, {fmt_time(full)} (load + "
                     f"materialise) = {full / update:5.2f}x  [target >= 50x: "
                     f"{'met' if remat / update >= 50 else 'missed'}]")
    return "\n".join(lines)


# ---------------------------------------------------------------- machine and main


def machine() -> dict:
    """Where and under what load the numbers were taken, and which engine state."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True).stdout.strip()
    mem = Path("/proc/meminfo").read_text().split("\n")[:3] if Path("/proc/meminfo").exists() else []
    import deltalog
    return {"host": platform.node(), "python": platform.python_version(), "cpus": os.cpu_count(),
            "engine": str(Path(deltalog.__file__).parent),
            "loadavg": os.getloadavg(), "meminfo": mem, "git_head": git("rev-parse", "--short", "HEAD"),
            "git_dirty_files": len(git("status", "--porcelain").splitlines()),
            "time": time.strftime("%Y-%m-%d %H:%M:%S")}


def parse_args(argv: list[str] | None) -> tuple[str, Options, Path | None]:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("experiment", choices=["robustness", "breakeven", "rs1", "headline", "all"])
    ap.add_argument("--datasets", help=f"comma list (default: {','.join(ROBUST_DATASETS)})")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS))
    ap.add_argument("--samplings", default="uniform,walk")
    ap.add_argument("--seeds", type=int, default=5, help="seeds per sampling (001 used 30)")
    ap.add_argument("--size", type=int, default=1000, help="facts deleted/added in the robustness experiment")
    ap.add_argument("--fractions", default=",".join(map(str, FRACTIONS)))
    ap.add_argument("--be-sampling", default="uniform")
    ap.add_argument("--cap-factor", type=float, default=5.0, help="kill an update slower than this x remat")
    ap.add_argument("--cap-min", type=float, default=10.0, help="... but never before this many seconds")
    ap.add_argument("--rs1-repeats", type=int, default=5)
    ap.add_argument("--keep-going", action="store_true",
                    help="after a timeout still try the algorithm with the other samplings")
    ap.add_argument("--warmup", type=int, default=0, metavar="K",
                    help="before measuring, each algorithm's worker deletes and re-adds K facts (uniform, seed 0)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--src", type=Path, help="engine sources to benchmark (default: the repo's src/), e.g. a "
                    "frozen copy while others edit the tree")
    a = ap.parse_args(argv)
    if a.src:
        sys.path.insert(0, str(a.src.resolve()))
    opt = Options(algorithms=a.algorithms.split(","), samplings=a.samplings.split(","), seeds=a.seeds,
                  size=a.size, fractions=[float(f) for f in a.fractions.split(",")], be_sampling=a.be_sampling,
                  cap_factor=a.cap_factor, cap_min=a.cap_min, rs1_repeats=a.rs1_repeats,
                  keep_going=a.keep_going, warmup=a.warmup)
    if a.datasets:
        opt.datasets = a.datasets.split(",")
    elif a.experiment == "headline":
        opt.datasets = ["lubm"]
    return a.experiment, opt, a.json


def run(experiment: str, opt: Options) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {"robustness": [], "breakeven": [], "rs1": []}
    if experiment in ("robustness", "headline", "all"):
        for dataset in opt.datasets:
            out["robustness"] += robustness(dataset, opt)
    if experiment in ("breakeven", "all"):
        for dataset in opt.datasets:
            out["breakeven"] += breakeven(dataset, opt)
    if experiment in ("rs1", "headline", "all"):
        out["rs1"] = rs1_headline(opt)
    return out


def report(out: dict[str, list[dict]]) -> None:
    if out["robustness"]:
        print("\n## Robustness (delete k sampled facts, then add them back)\n")
        print(robustness_table(out["robustness"]))
    for dataset in dict.fromkeys(r["dataset"] for r in out["breakeven"]):
        print(f"\n## Break-even: {dataset} (times: delete / re-add; * slower than remat)\n")
        print(breakeven_table(out["breakeven"], dataset))
    headline = lubm_headline(out["robustness"])
    if headline:
        print("\n## Headline: LUBM-like\n\n" + headline)
    if out["rs1"]:
        print("\n## Headline: RS1, 100 turbines, 2 middle hasNeighbour edges\n")
        print(rs1_table(out["rs1"]))
    print(f"\n## Correctness: {len(MISMATCHES)} mismatch(es)")
    for m in MISMATCHES:
        print(f"MISMATCH {json.dumps(m)}")


def main(argv: list[str] | None = None) -> int:
    experiment, opt, json_path = parse_args(argv)
    before = machine()
    started = time.perf_counter()
    out = run(experiment, opt)
    after = machine()
    report(out)
    print(f"\nload average {before['loadavg']} -> {after['loadavg']}; {time.perf_counter() - started:.0f} s")
    if json_path:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps({"machine": {"before": before, "after": after}, "options": vars(opt),
                                         "results": out, "mismatches": MISMATCHES}, indent=1, default=str))
    return 1 if MISMATCHES else 0


if __name__ == "__main__":
    sys.exit(main())
