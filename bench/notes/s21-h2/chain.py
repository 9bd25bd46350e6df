"""Each semi/anti-join of the deletion statements of one LUBM-like 1,000-fact deletion: the right side, the
left rows in, the rows kept, CPU us of the check's build. PYTHONPATH=<tree>/src python chain.py [SAMPLE]"""
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from maint_generators import make, uniform_samples  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402
from deltalog.backends.local import execute  # noqa: E402,F401  (imports exists in its order)
from deltalog.backends.local import exists  # noqa: E402
from deltalog.backends.local.backend import LocalBackend  # noqa: E402

which = int((sys.argv[1:2] or [3])[0])
ds = make("lubm")
r = Reasoner(ds.program)
r.load_tables(ds.facts)
r.materialise()
samples = list(uniform_samples(ds, 1000, which + 1))
for sel in samples[:which]:
    r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm="dred")
    r.update(add={p: f.rows() for p, f in sel.items()}, algorithm="dred")
log = []
original_check = exists.exists_check


def timed_check(node, ctx):
    t = time.process_time()
    check = original_check(node, ctx)
    built = (time.process_time() - t) * 1e6

    def run(frame):
        t = time.process_time()
        found = check(frame)
        log.append((type(node).__name__, str(node.right).split("\n")[0][:60], frame.length, int(found.sum()), built,
                    (time.process_time() - t) * 1e6))
        return found
    return run


exists.exists_check = timed_check
original_delete = LocalBackend.delete


def delete(self, **k):
    log.append(("STATEMENT", k["relation"], 0, 0, 0, 0))
    return original_delete(self, **k)


LocalBackend.delete = delete
sel = samples[which]
r.update(delete={p: f.rows() for p, f in sel.items()}, algorithm="dred")
for kind, right, rows, found, built, probed in log:
    if kind == "STATEMENT":
        print(f"-- delete {right}")
    else:
        print(f"   {kind:8s} {rows:5d} rows, {found:5d} found  build {built:5.0f} us probe {probed:5.0f} us  {right}")
