import sys, statistics as st
sys.argv = sys.argv  # dir rounds
exec(open("/tmp/h1/parse.py").read().split("for path in")[0])
d, rounds = sys.argv[1], int(sys.argv[2])
for r in range(1, rounds + 1):
    b, n = load(f"{d}/base-{r}.txt"), load(f"{d}/branch-{r}.txt")
    for i, kind in enumerate(("delete", "re-add")):
        for name, x in (("base", b), ("branch", n)):
            a, m = x["after:auto"][i], x["remat:auto"][i]
            print(f"| {r} | {kind} | {name} | {' / '.join(f'{v:.2f}' for v in a)} | {st.mean(a):.3f} / {st.median(a):.3f} | "
                  f"{st.mean(m):.3f} / {st.median(m):.3f} | {st.mean(m)/st.mean(a):.1f}x / {st.median(m)/st.median(a):.1f}x |")
