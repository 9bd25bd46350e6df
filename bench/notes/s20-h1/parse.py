import re, sys, statistics as st
def load(path):
    d = {}
    for line in open(path):
        m = re.match(r"\s+sample (\d+) (\S+): delete wall \S+ cpu (\S+)\s+add wall \S+ cpu (\S+)", line)
        if m:
            d.setdefault(m[2], ([], []))
            d[m[2]][0].append(float(m[3])); d[m[2]][1].append(float(m[4]))
    return d
for path in sys.argv[1:]:
    d = load(path)
    a, r = d["after:auto"], d["remat:auto"]
    print(path.split("/")[-1])
    for i, kind in enumerate(("delete", "re-add")):
        x, y = a[i], r[i]
        print(f"  {kind}: " + " ".join(f"{v:.2f}" for v in x))
        print(f"    mean {st.mean(x):.3f} median {st.median(x):.3f} | remat mean {st.mean(y):.3f} median {st.median(y):.3f}"
              f" | ratio mean {st.mean(y)/st.mean(x):.1f}x median {st.median(y)/st.median(x):.1f}x")
