"""Usage: PYTHONPATH=src python bench/maint_closure_cpu.py DATASET K SAMPLES VARIANT,... [--before-insert].

bench/maint_closure.py with CPU seconds and several configurations interleaved in one process: one
Reasoner per VARIANT (``code:modules``, code ``after`` = the code as is, ``before`` = semi/anti-joins
against views with deleted rows expanding every match (round 2's executor), ``remat`` = the update
by rematerialisation, ``auto`` = the code as is with ``algorithm="auto"``), each sample of K explicit facts
deleted then re-added (DRed) in every Reasoner in turn. Code ``main`` = round 4 switched off in process
(no early-stop rederivation, no check of DRed's candidates before deleting them
(algorithms/lowerbound.py), no witness pricing in the planner; ``Probe.any_alive``'s growing windows
stay: for round 3's code run this script from main's tree), ``full`` = one-check
settling but every witness enumerated.
``--before-insert``: linear closure modules insert by the closure plans (round 2)
in every Reasoner of the run (a class-level switch, so it cannot be interleaved; since round 4 those plans
are `ClosureDifference`s)."""
import sys
import time
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
import numpy as np
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
import deltalog.backends.local.execute as ex
import deltalog.backends.local.exists as exists
import deltalog.backends.local.witness as wi
import deltalog.algorithms.dred as dred
import deltalog.algorithms.strategies as strategies
import deltalog.plan.greedy as gr
from deltalog.plan import ir
orig = exists._only_keys_compared
orig_dred = strategies.STRATEGIES["dred"]


def plain_dred(update, stratum):
    """DRed without any check before deleting: every candidate overdeleted, rederived one step."""
    dred.refuse_recursive_aggregates(stratum)
    if dred.may_lose_derivations(update, stratum):
        dred.overdelete(update, stratum)
        dred.rederive(update, stratum)
    dred.insert(update, stratum)


def set_code(code):
    """Switch the executor and DRed to a variant's code (process-wide, before each of its runs)."""
    code = "after" if code == "auto" else code   # the code as is, updates by algorithm="auto"
    exists._only_keys_compared = orig if code != "before" else (lambda left, f: False)
    strategies.STRATEGIES["dred"] = orig_dred if code in ("after", "full") else \
        strategies.StratumByStratum("dred", plain_dred)
    gr.WITNESS_EXPANSION = 4.0 if code == "after" else float("inf")
    ex.stream.register(ir.Witnessed, wi._witnessed if code == "after" else (lambda n, c: ex.stream(n.input, c)))


if "--before-insert" in sys.argv:
    sys.argv.remove("--before-insert")
    import deltalog.modules.transitive as tr
    from deltalog.modules.closure import ClosureModule
    tr.LinearModule.diff = ClosureModule.diff   # type: ignore[method-assign]
    tr.LinearModule.insert = ClosureModule.insert   # type: ignore[method-assign]
name, k, samples = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
variants = sys.argv[4].split(",")   # e.g. before:auto,after:auto,after:none,remat:auto
ds = make(name)
rs = {}
for v in variants:
    code, modules = v.split(":")
    set_code(code)
    r = Reasoner(ds.program, modules=modules)
    r.load_tables(ds.facts)
    t = time.perf_counter()
    c = time.process_time()
    r.materialise()
    print(f"{v}: materialise wall {time.perf_counter()-t:.2f} cpu {time.process_time()-c:.2f}", flush=True)
    rs[v] = r
res = {v: ([], []) for v in variants}
for s, sel in enumerate(uniform_samples(ds, k, samples)):
    for v in variants:
        code, modules = v.split(":")
        set_code(code)
        alg = code if code in ("remat", "auto") else "dred"
        r = rs[v]
        out = []
        for kind in ("delete", "add"):
            t = time.perf_counter()
            c = time.process_time()
            result = r.update(**{kind: {p: f.rows() for p, f in sel.items()}}, algorithm=alg)
            out.append((time.perf_counter() - t, time.process_time() - c))
            if alg == "auto":
                print(f"    auto ran {result.algorithm}{' after ' + result.abandoned if result.abandoned else ''}")
        res[v][0].append(out[0])
        res[v][1].append(out[1])
        print(f"  sample {s} {v}: delete wall {out[0][0]:.2f} cpu {out[0][1]:.2f}  "
              f"add wall {out[1][0]:.2f} cpu {out[1][1]:.2f}", flush=True)
for v in variants:
    d, a = np.array(res[v][0]), np.array(res[v][1])
    print(f"RESULT {name} k={k} {v}: delete median wall {np.median(d[:,0]):.4f} cpu {np.median(d[:,1]):.4f} | "
          f"add median wall {np.median(a[:,0]):.4f} cpu {np.median(a[:,1]):.4f}", flush=True)
