"""Run base and branch alternately; per tree print medians and means (CPU) of delete/add for after:auto and remat:auto."""
import subprocess, sys, re, statistics
ds, k, n, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
variants = sys.argv[5] if len(sys.argv) > 5 else "after:auto,remat:auto"
for r in range(rounds):
    for tree in ["/tmp/base-h1", "/work/wt-h1"]:
        out = subprocess.run([sys.executable, f"{tree}/bench/maint_closure_cpu.py", ds, k, n, variants],
                             env={"PYTHONPATH": f"{tree}/src", "PYTHONDONTWRITEBYTECODE": "1", "PATH": "/usr/bin:/bin"},
                             capture_output=True, text=True).stdout
        vals = {}
        for m in re.finditer(r"sample (\d+) (\S+): delete wall [\d.]+ cpu ([\d.]+)  add wall [\d.]+ cpu ([\d.]+)", out):
            vals.setdefault(m.group(2), []).append((int(m.group(1)), float(m.group(3)), float(m.group(4))))
        line = []
        for v, xs in vals.items():
            d = [x[1] for x in xs if x[0] > 0] ; a = [x[2] for x in xs]
            dm, am = statistics.median([x[1] for x in xs]), statistics.median(a)
            line.append(f"{v}: del med {dm:.3f} mean(s>0) {statistics.mean(d):.3f} | add med {am:.3f} mean {statistics.mean(a):.3f} | dels {[x[1] for x in xs]} adds {a}")
        print(f"round {r} {tree.split('/')[-1]}:", *line, sep="\n   ", flush=True)
