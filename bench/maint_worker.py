"""A benchmark worker process: holds one materialisation and runs updates or fresh rematerialisations on request."""

from __future__ import annotations

import gc
import os
import time
import traceback
from typing import Any

import numpy as np
import polars as pl

from maint_generators import make
from maint_sampling import SAMPLERS, FactTable


def build(program: str, facts: dict[str, pl.DataFrame]) -> tuple[Any, dict]:
    """A fresh Reasoner over the facts, materialised; with the wall times of loading and of materialise().
    ``DELTALOG_MODULES`` (auto or none) chooses the closure modules (issue 13), default auto."""
    from deltalog.api import Reasoner
    gc.collect()
    started = time.perf_counter()
    reasoner = Reasoner(program, modules=os.environ.get("DELTALOG_MODULES", "auto"))
    reasoner.load_tables(facts)
    loaded = time.perf_counter()
    reasoner.materialise()
    done = time.perf_counter()
    return reasoner, {"load": loaded - started, "mat": done - loaded, "instances": rule_instances(reasoner),
                      "counts": counts(reasoner)}


def counts(reasoner) -> dict[str, int]:
    """Facts per predicate (explicit and derived)."""
    return {p: reasoner.backend.count(relation=p) for p in sorted(reasoner.predicates())}


def rule_instances(reasoner) -> int:
    """Rule instances considered so far, summed over every rule (cumulative)."""
    return sum(rule.instances for rule in reasoner.reasoning.stats.rules.values())


def phase_snapshot(reasoner) -> dict[str, tuple[int, float]]:
    return {name: (s.instances, s.seconds) for name, s in reasoner.reasoning.stats.phases.items()}


def phase_delta(before: dict, after: dict) -> dict[str, list]:
    """Per phase: [instances, seconds] spent between two snapshots (phases that did something)."""
    out = {}
    for name, (instances, seconds) in after.items():
        i0, s0 = before.get(name, (0, 0.0))
        if instances - i0 or seconds - s0 > 1e-9:
            out[name] = [instances - i0, seconds - s0]
    return out


class Worker:
    """The state of one worker process: dataset, fact numbering, the materialisation, cached samples."""

    def __init__(self, dataset: str, algorithm: str | None, warmup: int = 0) -> None:
        self.data = make(dataset)
        self.table = FactTable(self.data.facts)
        self.algorithm = algorithm
        self.samples: dict[tuple[str, int], np.ndarray] = {}
        self.reasoner, self.ready = build(self.data.program, self.data.facts)
        if warmup and algorithm is not None:
            self.ready["warmup"] = self.warm_up(warmup)

    def warm_up(self, k: int) -> list[float]:
        """An unmeasured delete and re-add of k facts (uniform, seed 0): the first update after a
        materialisation builds indexes the later ones reuse. Returns its two times."""
        spec = {"sampling": "uniform", "seed": 0, "k": k}
        return [self.update({**spec, "kind": kind})["seconds"] for kind in ("delete", "add")]

    def selection(self, cmd: dict) -> dict[str, pl.DataFrame]:
        """The facts a command names: explicit ``rows`` per predicate, or a sample (sampling, seed, k)."""
        if "rows" in cmd:
            return {p: self.typed(p, rows) for p, rows in cmd["rows"].items()}
        return self.table.rows(self.sample(cmd["sampling"], cmd["seed"], cmd["k"], cmd.get("k_max")))

    def typed(self, predicate: str, rows: list) -> pl.DataFrame:
        schema = self.data.facts[predicate].schema
        return pl.DataFrame([tuple(r) for r in rows], schema=schema, orient="row")

    def sample(self, sampling: str, seed: int, k: int, k_max: int | None = None) -> np.ndarray:
        """The first k facts of a seeded sample (computed once up to k_max and cut: samples are nested)."""
        key = (sampling, seed)
        if key not in self.samples or self.samples[key].size < k:
            self.samples[key] = SAMPLERS[sampling](self.table, max(k, k_max or 0), seed)
        return self.samples[key][:k]

    def update(self, cmd: dict) -> dict:
        """Delete or add the selected facts with the worker's algorithm (or the command's ``algorithm``);
        time, work, and the counts after."""
        rows = self.selection(cmd)
        before, instances = phase_snapshot(self.reasoner), rule_instances(self.reasoner)
        gc.collect()
        started = time.perf_counter()
        result = self.reasoner.update(**{cmd["kind"]: rows}, algorithm=cmd.get("algorithm", self.algorithm))
        wall = time.perf_counter() - started
        changed = result.removed if cmd["kind"] == "delete" else result.added
        return {"seconds": wall, "engine_seconds": result.seconds, "ran": result.algorithm,
                "abandoned": getattr(result, "abandoned", ""),
                "instances": rule_instances(self.reasoner) - instances,
                "phases": phase_delta(before, phase_snapshot(self.reasoner)),
                "changed": sum(f.height for f in changed.values()), "overdeleted": sum(result.overdeleted.values()),
                "explicit": sum(f.height for f in rows.values()), "counts": counts(self.reasoner)}

    def fresh(self, cmd: dict) -> dict:
        """Rematerialise from scratch, in a new Reasoner, the explicit facts without the selected ones."""
        rows = self.selection(cmd)
        kept = {p: df.join(rows[p], on=df.columns, how="anti") if p in rows else df
                for p, df in self.data.facts.items()}
        reasoner, built = build(self.data.program, kept)
        del reasoner
        gc.collect()
        return {"seconds": built["mat"], **built, "explicit": sum(df.height for df in kept.values())}


def serve(conn, dataset: str, algorithm: str | None, warmup: int = 0) -> None:
    """Process entry point: build, report readiness, then answer commands until told to stop."""
    try:
        worker = Worker(dataset, algorithm, warmup)
        import deltalog
        conn.send({"ready": worker.ready, "explicit": worker.table.size, "description": worker.data.description,
                   "engine": deltalog.__file__})
    except BaseException:
        conn.send({"error": traceback.format_exc()})
        return
    while True:
        cmd = conn.recv()
        if cmd["op"] == "stop":
            return
        try:
            conn.send(getattr(worker, cmd["op"])(cmd))
        except BaseException:
            conn.send({"error": traceback.format_exc()})
