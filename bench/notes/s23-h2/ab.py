"""In one process: LUBM-like 1,000-fact deletions and re-adds in Reasoners with stop 23's changes switched off
and on, alternating per sample, plus a rematerialising one; CPU medians. Switches (while that Reasoner runs):
``narrow`` candidates narrowed by the plain checks before the bound ones (lowerbound.NARROW_MIN_CANDIDATES
huge when off; measured, then reverted: bench/notes/s23-h2/narrow.patch), ``inline`` DRed's candidates kept as
plans where no check reads them stored (lowerbound.unstored empty when off), ``views`` a derived predicate's one-sided
explicit changes staged as views of its store (explicit.stage_changed copying them into a scratch relation when
off, as before), ``visible`` old-state membership by live tuples and those lost since (exists.visible_tuples_check
answering None when off). PYTHONPATH=<tree>/src python ab.py [DATASET K SAMPLES [SWITCHES]]"""
import statistics
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402
from deltalog.algorithms import explicit, lowerbound  # noqa: E402
from deltalog.reasoning.update import tuples_of  # noqa: E402
from deltalog.reasoning.workspace import explicit_relation  # noqa: E402

name, k, n = (sys.argv[1:2] or ["lubm"])[0], int((sys.argv[2:3] or [1000])[0]), int((sys.argv[3:4] or [15])[0])
ds = make(name)
switches = (sys.argv[4:5] or ["inline,views,visible"])[0].split(",")
narrow_min = getattr(lowerbound, "NARROW_MIN_CANDIDATES", None)
variants = {"off": False, "on": True, "remat": True}
hooks = []   # (switch name, function(on))
unstored = getattr(lowerbound, "unstored", None)
if unstored is not None:
    hooks.append(("inline", lambda on: setattr(lowerbound, "unstored", unstored if on else lambda s: frozenset())))
stage_view = explicit.stage_changed


def stage_copied(update, predicate, role, changed):   # stop 22's stage_changed
    arity, store = update.reasoning.arities[predicate], explicit_relation(predicate)
    staged = update.workspace.relation(role, predicate, arity)
    update.backend.insert(relation=staged, plan=tuples_of(store, arity, changed), generation=update.views.g0)


if hasattr(update_workspace := __import__("deltalog.reasoning.workspace", fromlist=["Workspace"]).Workspace, "stage_view"):
    hooks.append(("views", lambda on: setattr(explicit, "stage_changed", stage_view if on else stage_copied)))


def switch(on):
    if narrow_min is not None:
        lowerbound.NARROW_MIN_CANDIDATES = narrow_min if on or "narrow" not in switches else 1 << 62
    for flag, hook in hooks:
        hook(on or flag not in switches)


from deltalog.backends.local import execute, exists  # noqa: E402,F401
if (visible_check := getattr(exists, "visible_tuples_check", None)) is not None:
    hooks.append(("visible", lambda on: setattr(exists, "visible_tuples_check",
                                               visible_check if on else lambda right, on_, ctx: None)))
reasoners = {}
for v in variants:
    r = Reasoner(ds.program)
    r.load_tables(ds.facts)
    r.materialise()
    reasoners[v] = r
times = {v: ([], []) for v in variants}
for i, sel in enumerate(uniform_samples(ds, k, n)):
    rows = {p: f.rows() for p, f in sel.items()}
    for v in (variants if i % 2 else reversed(list(variants))):
        switch(variants[v])
        alg = "remat" if v == "remat" else "auto"
        t = time.process_time()
        reasoners[v].update(delete=rows, algorithm=alg)
        d = time.process_time() - t
        t = time.process_time()
        reasoners[v].update(add=rows, algorithm=alg)
        a = time.process_time() - t
        times[v][0].append(d)
        times[v][1].append(a)
for v, (d, a) in times.items():
    print(f"{v:6s} delete median {statistics.median(d) * 1e3:7.2f} ms  add median {statistics.median(a) * 1e3:7.2f} ms")
rm = statistics.median(times["remat"][0])
for v in ("off", "on"):
    print(f"{v}: delete ratio {rm / statistics.median(times[v][0]):.2f}x")
