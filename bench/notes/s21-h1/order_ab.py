"""The closure's emission order A/B in one process (branch code, load-fair): two Reasoners on claros-15000,
one materialised with component_pairs emitting in (x, y) order (the branch), one with the component-by-component
order (base's loop, patched in for its materialisation only); then 003's samples deleted and re-added in both,
interleaved. Usage: PYTHONPATH=<tree>/src TREE=<tree> python order_ab.py [SAMPLES]"""
import os, statistics as st, sys, time
sys.path.insert(0, os.environ["TREE"] + "/bench")
import numpy as np
from maint_generators import make, uniform_samples
from deltalog.api import Reasoner
from deltalog.backends.local import closure as cl
from deltalog.backends.local import dense_closure as dense
from deltalog.backends.local.closure import _compress, _positions, _chunks, weak_components, group_offsets, slices_by_weight, expand_ranges
import deltalog.backends.local.closure_nodes as cn

def component_order(src, dst, nodes=None, *, chunk=cl.CHUNK_PAIRS):
    """base's component_pairs (stop 20): component by component."""
    src, dst = np.asarray(src, np.int64), np.asarray(dst, np.int64)
    if src.size == 0 or (nodes is not None and len(nodes) == 0):
        return
    ids, s, d = _compress(src, dst)
    if ids.size <= dense.DENSE_NODES:
        yield from sorted_order(src, dst, nodes, chunk=chunk); return
    ncomp, label = weak_components(s, d, ids.size)
    members = np.argsort(label, kind="stable")
    if nodes is not None:
        wanted = np.zeros(ncomp, bool); wanted[label[_positions(ids, nodes)]] = True
        members = members[wanted[label[members]]]
    off = group_offsets(label[members], ncomp)
    comp = label[members]
    counts = off[comp + 1] - off[comp]
    for a, b in slices_by_weight(counts, chunk):
        y = members[expand_ranges(off[comp[a:b]], counts[a:b])]
        yield ids[np.repeat(members[a:b], counts[a:b])], ids[y]

sorted_order = cl.component_pairs
n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
ds = make("claros-15000")
rs = {}
for name, kernel in (("sorted", sorted_order), ("component", component_order)):
    cn.component_pairs = kernel
    r = Reasoner(ds.program, modules="auto"); r.load_tables(ds.facts)
    c = time.process_time(); r.materialise(); print(name, "materialise", round(time.process_time() - c, 3), flush=True)
    rs[name] = r
cn.component_pairs = sorted_order   # updates: the same code for both; only the stored order differs
res = {k: ([], []) for k in rs}
for i, sel in enumerate(uniform_samples(ds, 1000, n)):
    rows = {p: f.rows() for p, f in sel.items()}
    flip = (i + int(os.environ.get("FLIP", "0"))) % 2
    for name, r in (rs.items() if flip == 0 else reversed(list(rs.items()))):
        c = time.process_time(); r.update(delete=rows, algorithm="auto"); d = time.process_time() - c
        c = time.process_time(); r.update(add=rows, algorithm="auto"); a = time.process_time() - c
        res[name][0].append(d); res[name][1].append(a)
        print(f"  sample {i} {name}: delete {d:.3f} add {a:.3f}", flush=True)
for name, (d, a) in res.items():
    print(f"{name}: delete median {st.median(d):.3f} (1-9: {st.median(d[1:]):.3f}) mean {st.mean(d):.3f} | "
          f"add median {st.median(a):.3f} mean {st.mean(a):.3f}")
