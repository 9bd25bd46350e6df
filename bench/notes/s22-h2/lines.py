"""line_profiler of named functions during N LUBM-like 1,000-fact deletions (after two warm-up pairs).
PYTHONPATH=<tree>/src python lines.py N module:Qual.name ..."""
import importlib
import sys

from line_profiler import LineProfiler

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402

n = int(sys.argv[1])
lp = LineProfiler()
for spec in sys.argv[2:]:
    mod, qual = spec.split(":")
    obj = importlib.import_module(mod)
    for part in qual.split("."):
        obj = getattr(obj, part)
    lp.add_function(obj)
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, 1000, n + 2))
for i, sel in enumerate(samples):
    rows = {p: f.rows() for p, f in sel.items()}
    if i >= 2:
        lp.enable_by_count()
    r.update(delete=rows, algorithm="dred")
    if i >= 2:
        lp.disable_by_count()
    r.update(add=rows, algorithm="dred")
lp.print_stats(output_unit=1e-6)
