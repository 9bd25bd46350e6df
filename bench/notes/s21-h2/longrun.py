"""Profile events of LUBM-like 1,000-fact deletions and re-adds after many updates: does an update's fixed cost
grow with the number of updates before it? PYTHONPATH=<tree>/src python longrun.py [UPDATES] [EVERY]"""
import statistics
import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402

updates, every = int((sys.argv[1:2] or [150])[0]), int((sys.argv[2:3] or [50])[0])
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, 1000, 12))
count = [0]


def counted(frame, event, arg):
    count[0] += 1


window: dict[str, list[int]] = {"delete": [], "add": []}
for i in range(updates):
    sel = samples[i % len(samples)]
    rows = {p: f.rows() for p, f in sel.items()}
    measure = i % every >= every - 3
    for kind in ("delete", "add"):
        if measure:
            count[0] = 0
            sys.setprofile(counted)
        r.update(**{kind: rows}, algorithm="dred")
        sys.setprofile(None)
        if measure:
            window[kind].append(count[0])
    if i % every == every - 1:
        print(f"after {i + 1} updates: delete events {statistics.median(window['delete']):.0f}, "
              f"re-add {statistics.median(window['add']):.0f}", flush=True)
        window = {"delete": [], "add": []}
