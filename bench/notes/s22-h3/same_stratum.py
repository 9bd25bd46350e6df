"""Usage: PYTHONPATH=src python bench/notes/s22-h3/same_stratum.py COMPONENTS SIZE K SAMPLES VARIANT,...

A linear closure over a step derived in its own stratum (stop 22, helper h3): ``step`` is the lower
``edge`` plus shortcuts ``step(X, Y) :- r(X, Y), hub(X)`` (2% of the nodes are hubs), so step and r
share a stratum. The graph: COMPONENTS random components of SIZE nodes, 2.5 forward edges a node and 5%
back edges (cycles). VARIANT is ``modules:algorithm`` (``auto:dred``, ``none:dred``, ``auto:remat``,
...): one Reasoner each, interleaved; each of SAMPLES samples of K edges is deleted then re-added in every
Reasoner in turn. Prints materialisation and update CPU seconds (time.process_time) and their medians."""
import sys
import time

import numpy as np
import polars as pl

from deltalog.api import Reasoner

PROGRAM = """
step(X, Y) :- edge(X, Y).
step(X, Y) :- r(X, Y), hub(X).
r(X, Y) :- step(X, Y).
r(X, Z) :- r(X, Y), step(Y, Z).
"""

components, size, k, samples = (int(a) for a in sys.argv[1:5])
variants = sys.argv[5].split(",")
rng = np.random.default_rng(22)
n = components * size
src = np.repeat(np.arange(n), 3)
offset = src % size
room = size - 1 - offset
forward = src + 1 + (rng.random(src.size) * np.maximum(room, 1)).astype(np.int64)
keep = (room > 0) & (rng.random(src.size) < 2.5 / 3)
back = rng.random(src.size) < 0.05 / 3
target = np.where(back, src - offset + (rng.random(src.size) * size).astype(np.int64), forward)
keep |= back
edges = pl.DataFrame({"a": src[keep], "b": target[keep]}).unique()
hubs = pl.DataFrame({"a": rng.choice(n, n // 50, replace=False)})
print(f"{n} nodes, {edges.height} edges, {hubs.height} hubs", flush=True)
for modules in ("auto", "none"):   # warm-up (imports, kernels' first calls): not the first variant's cost
    warm = Reasoner(PROGRAM, modules=modules)
    warm.load_tables({"edge": edges, "hub": hubs})
    warm.materialise()
    warm.update(delete={"edge": edges.sample(k, seed=samples).rows()}, algorithm="dred")
    del warm
rs, cpu = {}, {}
for v in variants:
    modules, _ = v.split(":")
    r = Reasoner(PROGRAM, modules=modules)
    r.load_tables({"edge": edges, "hub": hubs})
    c = time.process_time()
    r.materialise()
    cpu[v] = ([time.process_time() - c], [], [])
    rs[v] = r
    print(f"{v}: materialise cpu {cpu[v][0][0]:.3f}  r {r.relation('r').height} step {r.relation('step').height}",
          flush=True)
for s in range(samples):
    chosen = edges.sample(k, seed=s)
    for v in variants:
        _, algorithm = v.split(":")
        for i, kind in ((1, "delete"), (2, "add")):
            c = time.process_time()
            result = rs[v].update(**{kind: {"edge": chosen.rows()}}, algorithm=algorithm)
            cpu[v][i].append(time.process_time() - c)
        print(f"  sample {s} {v}: delete cpu {cpu[v][1][-1]:.3f} add cpu {cpu[v][2][-1]:.3f} ({result.algorithm})",
              flush=True)
sizes = {v: (rs[v].relation("r").height, rs[v].relation("step").height) for v in variants}
assert len(set(sizes.values())) == 1, sizes
for v in variants:
    m, d, a = (np.median(x) for x in cpu[v])
    print(f"RESULT {n} nodes k={k} {v}: materialise {m:.3f} | delete median cpu {d:.4f} | add median cpu {a:.4f}")
