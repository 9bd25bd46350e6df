"""line_profiler of named functions over N LUBM-like 1,000-fact deletions (KIND delete) or re-adds (add).
PYTHONPATH=<tree>/src python lp.py N KIND module:Qual.name ..."""
import importlib
import sys

from line_profiler import LineProfiler

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402

n, kind = int(sys.argv[1]), sys.argv[2]
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, 1000, n + 2))
for sel in samples[:2]:
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm="dred")
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm="dred")
lp = LineProfiler()
for spec in sys.argv[3:]:
    mod, qual = spec.split(":")
    owner = importlib.import_module(mod)
    for p in qual.split("."):
        owner = getattr(owner, p)
    lp.add_function(owner)
for sel in samples[2:]:
    rows = {p: f.rows() for p, f in sel.items()}
    for k in ("delete", "add"):
        if k == kind:
            lp.enable()
        r.update(**{k: rows}, algorithm="dred")
        lp.disable()
lp.print_stats(output_unit=1e-3 / n)
