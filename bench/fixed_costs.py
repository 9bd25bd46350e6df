"""Fixed costs (issue 15): what a seminaive round and a small update cost beyond their real work.

    PYTHONPATH=src python bench/fixed_costs.py [--rounds-only | --updates-only] [--profile] [--scale 13]
    PYTHONPATH=src python bench/fixed_costs.py --updates-only --algorithms dred,auto,fbf,bf
    PYTHONPATH=src python bench/fixed_costs.py --ab plan-cache|overdeletion-skip|lower-proofs [--scale 13]

Per round: ``reach(Y) :- reach(X), edge(X, Y)`` from one end of a 2,000-node chain derives one fact
per round (2,000 rounds), so its time per round is almost all fixed cost; linear TC over the same
chain (``modules="none"``: 2,000 seminaive rounds, 2M facts) is the issue's case, whose time per round
also holds the join work. Per update: a LUBM-like store (about 1.06M explicit facts at scale 13),
then 20 no-op updates (deleting a fact that is not there: the pure fixed cost), and 20 deletions of
one explicit ``takesCourse`` fact each followed by its re-insertion, by DRed and by ``auto``. Medians
of CPU seconds (``time.process_time``: the machine is shared); ``--profile`` prints where the time
goes (cProfile, top functions by own time); ``--ab`` measures one decision of this issue on and off,
interleaved in one process.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))

CHAIN = 2000
TC = "path(X, Y) :- edge(X, Y).\npath(X, Z) :- path(X, Y), edge(Y, Z).\n"
REACH = "reach(Y) :- start(Y).\nreach(Y) :- reach(X), edge(X, Y).\n"
UPDATES = 20


def chain_edges(n: int) -> pl.DataFrame:
    return pl.DataFrame({"c0": list(range(n)), "c1": list(range(1, n + 1))})


def materialise_once(program: str, facts: dict[str, pl.DataFrame], off: str = "") -> tuple[float, int, object]:
    """CPU seconds of one materialise() and the number of seminaive rounds it ran (``off``: a decision
    turned off, see ``switch``)."""
    from deltalog.api import Reasoner
    reasoner = Reasoner(program, modules="none", offload=None)
    if off == "plan-cache":
        switch(reasoner, off, False)
    reasoner.load_tables(facts)
    started = time.process_time()
    summary = reasoner.materialise()
    seconds = time.process_time() - started
    return seconds, sum(s.rounds for s in summary.stats.strata), reasoner


def per_round(profile: bool, repeat: int = 5) -> list[tuple[str, str]]:
    edges = chain_edges(CHAIN)
    rows = []
    for name, program, facts in (("reach, chain-2000 (1 fact/round)", REACH,
                                  {"edge": edges, "start": pl.DataFrame({"c0": [0]})}),
                                 ("linear TC, chain-2000", TC, {"edge": edges})):
        runs = [materialise_once(program, facts)[:2] for _ in range(repeat)]
        seconds = statistics.median(s for s, _ in runs)
        rounds = runs[0][1]
        rows.append((name, f"{seconds:.3f} s / {rounds} rounds = {1000 * seconds / rounds:.3f} ms per round"))
        if profile:
            profiled(lambda: materialise_once(program, facts), name)
    return rows


def lubm_store(scale: int):
    from deltalog.api import Reasoner
    from maint_generators import lubm
    data = lubm(scale)
    reasoner = Reasoner(data.program)
    reasoner.load_tables(data.facts)
    started = time.process_time()
    reasoner.materialise()
    return reasoner, data, time.process_time() - started


def per_update(scale: int, profile: bool, algorithms: tuple[str, ...] = ("dred", "auto")) -> list[tuple[str, str]]:
    reasoner, data, seconds = lubm_store(scale)
    facts = sum(reasoner.backend.count(relation=p) for p in reasoner.predicates())
    rows = [(f"LUBM-like store (scale {scale})", f"{data.size:,} explicit, {facts:,} facts; "
                                                 f"materialise {seconds:.1f} s CPU")]
    takes = data.facts["takesCourse"]
    picks = [takes.slice(i * (takes.height // UPDATES), 1) for i in range(UPDATES)]
    run_updates(reasoner, picks[:3], "dred")   # warm-up: indexes the updates use get built
    missing = pl.DataFrame({"c0": [-1], "c1": [-2]}).cast(takes.schema)   # in no relation: nothing to do
    noop = [timed(lambda: reasoner.update(delete={"takesCourse": missing}, algorithm="dred")) for _ in range(UPDATES)]
    rows.append(("no-op update (delete a missing fact)", f"{1000 * statistics.median(noop):.2f} ms "
                                                         f"(median of {UPDATES})"))
    for algorithm in algorithms:
        deletes, inserts = run_updates(reasoner, picks, algorithm)
        for side, times in (("delete", deletes), ("insert", inserts)):
            median = 1000 * statistics.median(times)
            rows.append((f"1-fact {side}, {algorithm}", f"{median:.2f} ms (median of {UPDATES})"))
        if profile:
            profiled(lambda: run_updates(reasoner, picks, algorithm), f"{UPDATES} x (delete, insert), {algorithm}")
    return rows


def timed(run: Callable[[], object]) -> float:
    started = time.process_time()
    run()
    return time.process_time() - started


def run_updates(reasoner, picks: list[pl.DataFrame], algorithm: str) -> tuple[list[float], list[float]]:
    """Delete each picked fact and insert it back; CPU seconds of each update."""
    deletes, inserts = [], []
    for fact in picks:
        for side, times in (("delete", deletes), ("add", inserts)):
            started = time.process_time()
            result = reasoner.update(**{side: {"takesCourse": fact}}, algorithm=algorithm)
            times.append(time.process_time() - started)
            changed = result.removed if side == "delete" else result.added
            assert changed["takesCourse"].height == 1, (side, fact)
    return deletes, inserts


def profiled(run: Callable[[], object], title: str, top: int = 25) -> None:
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    run()
    profiler.disable()
    print(f"\n--- cProfile (CPU): {title} ---")
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats("deltalog", top)


DECISIONS = ("plan-cache", "overdeletion-skip", "lower-proofs")


def switch(reasoner, decision: str, on: bool) -> None:
    """Turn one of this issue's decisions on or off in a running reasoner (for --ab)."""
    import deltalog.algorithms.dred as dred
    if decision == "plan-cache":
        cache = reasoner.__dict__.setdefault("_bench_cache", reasoner.reasoning.plan_cache)
        reasoner.reasoning.plan_cache = cache if on else None   # off: plan every rule variant every time
    elif decision == "overdeletion-skip":   # off: DRed overdeletes and rederives for insertions too
        original = dred.__dict__.setdefault("_bench_may_lose", dred.may_lose_derivations)
        dred.may_lose_derivations = original if on else (lambda update, stratum: True)
    else:   # lower-proofs off: DRed as before, candidates checked only in strata over lower strata
        from deltalog.algorithms.strategies import STRATEGIES, StratumByStratum
        original = dred.__dict__.setdefault("_bench_dred", STRATEGIES["dred"])
        STRATEGIES["dred"] = original if on else StratumByStratum("dred", dred_before_lower_proofs)


def dred_before_lower_proofs(update, stratum) -> None:
    """DRed before recursive strata kept the candidates a nonrecursive rule still derives: every
    candidate of a recursive stratum overdeleted, then rederived one step, rule by rule."""
    import deltalog.algorithms.dred as dred
    import deltalog.algorithms.lowerbound as lowerbound
    from deltalog.reasoning.update import predicates_read
    dred.refuse_recursive_aggregates(stratum)
    if dred.may_lose_derivations(update, stratum):
        over_lower = not stratum.recursive and not predicates_read(stratum.nonrecursive) & stratum.predicates
        if over_lower:   # a stratum whose rules read only lower strata: checked, as before
            dred.overdelete(update, stratum, settle=lowerbound.delete_unwitnessed)
        else:
            dred.overdelete(update, stratum)
            dred.rederive(update, stratum)
    dred.insert(update, stratum)


def ab(decision: str, scale: int) -> list[tuple[str, str]]:
    """The decision on and off, interleaved in one process (per round: alternate materialisations;
    per update: alternate updates on one store), medians of CPU seconds."""
    rows = []
    if decision == "plan-cache":
        edges = chain_edges(CHAIN)
        for name, program, facts in (("reach, chain-2000, ms per round", REACH,
                                      {"edge": edges, "start": pl.DataFrame({"c0": [0]})}),
                                     ("linear TC, chain-2000, ms per round", TC, {"edge": edges})):
            times: dict[bool, list[float]] = {True: [], False: []}
            for _ in range(5):
                for on in (True, False):
                    seconds, rounds, _ = materialise_once(program, facts, decision if not on else "")
                    times[on].append(1000 * seconds / rounds)
            rows.append((name, on_off(times)))
    reasoner, data, _ = lubm_store(scale)
    takes = data.facts["takesCourse"]
    picks = [takes.slice(i * (takes.height // UPDATES), 1) for i in range(UPDATES)]
    run_updates(reasoner, picks[:3], "dred")
    deletes: dict[bool, list[float]] = {True: [], False: []}
    inserts: dict[bool, list[float]] = {True: [], False: []}
    for fact in picks:
        for on in (True, False):
            switch(reasoner, decision, on)
            (d,), (i,) = run_updates(reasoner, [fact], "dred")
            deletes[on].append(1000 * d)
            inserts[on].append(1000 * i)
    switch(reasoner, decision, True)
    return rows + [(f"1-fact delete, dred, ms (scale {scale})", on_off(deletes)),
                   (f"1-fact insert, dred, ms (scale {scale})", on_off(inserts))]


def on_off(times: dict[bool, list[float]]) -> str:
    return f"on {statistics.median(times[True]):.3f}, off {statistics.median(times[False]):.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds-only", action="store_true")
    parser.add_argument("--updates-only", action="store_true")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--scale", type=int, default=13, help="LUBM-like universities (13: ~1.06M explicit facts)")
    parser.add_argument("--ab", choices=DECISIONS, help="one decision on and off, interleaved in one process")
    parser.add_argument("--algorithms", default="dred,auto", help="the update algorithms timed, comma-separated "
                                                                   "(e.g. dred,auto,fbf,bf)")
    args = parser.parse_args(argv)
    rows = []
    if args.ab:
        rows += ab(args.ab, args.scale)
    elif not args.updates_only:
        rows += per_round(args.profile)
    if not args.rounds_only and not args.ab:
        rows += per_update(args.scale, args.profile, tuple(args.algorithms.split(",")))
    width = max(len(name) for name, _ in rows)
    print(f"\n{'case':<{width}}  CPU time")
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
