"""Per-sample table rows from ab.sh's outputs: side.py DIR ROUNDS (reads DIR/{base,branch}-R.txt)."""
import re, statistics as st, sys


def load(path):
    """{variant: (delete cpu per sample, add cpu per sample)} of one bench/maint_closure_cpu.py output."""
    out = {}
    for line in open(path):
        m = re.match(r"\s+sample (\d+) (\S+): delete wall \S+ cpu (\S+)\s+add wall \S+ cpu (\S+)", line)
        if m:
            d, a = out.setdefault(m.group(2), ([], []))
            d.append(float(m.group(3)))
            a.append(float(m.group(4)))
    return out


d, rounds = sys.argv[1], int(sys.argv[2])
for r in range(1, rounds + 1):
    b, n = load(f"{d}/base-{r}.txt"), load(f"{d}/branch-{r}.txt")
    for i, kind in enumerate(("delete", "re-add")):
        for name, x in (("base", b), ("branch", n)):
            a, m = x["after:auto"][i], x["remat:auto"][i]
            print(f"| {r} | {kind} | {name} | {' / '.join(f'{v:.2f}' for v in a)} | {st.mean(a):.3f} / {st.median(a):.3f} | "
                  f"{st.mean(m):.3f} / {st.median(m):.3f} | {st.mean(m)/st.mean(a):.1f}x / {st.median(m)/st.median(a):.1f}x |")
