"""Profile events of one LUBM-like 1,000-fact deletion by the function whose frame runs them (calls of
Python functions counted as the callee's, C calls as the caller's). PYTHONPATH=<tree>/src python ev_by_fn.py [KIND]"""
import collections
import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402

kind = (sys.argv[1:2] or ["delete"])[0]
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, int(__import__("os").environ.get("K", 1000)), 5))
for sel in samples[:2]:
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm="dred")
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm="dred")
own = collections.Counter()
incl = collections.Counter()


def counted(frame, event, arg):
    code = frame.f_code
    key = f"{code.co_filename.split('src/')[-1]}:{code.co_name}"
    own[key] += 1


for sel in samples[2:5]:
    rows = {p: f.rows() for p, f in sel.items()}
    for k in ("delete", "add"):
        if k == kind:
            sys.setprofile(counted)
        r.update(**{k: rows}, algorithm="dred")
        sys.setprofile(None)
total = sum(own.values())
print("events per update", total / 3)
for key, v in own.most_common(45):
    print(f"{v / 3:8.0f}  {key}")
