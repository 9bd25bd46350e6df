import time, numpy as np, sys
rng = np.random.default_rng(0)
n = 4_800_000
sl = rng.permutation(1 << 24)[:n]; vals = np.arange(n)
for dt in sys.argv[1:]:
    c = time.process_time(); v = np.zeros(1 << 24, dt); v[sl] = vals; print(dt, "zeros+scatter (fresh)", round(time.process_time() - c, 3))
    c = time.process_time(); v[sl] = vals; print(dt, "scatter warm", round(time.process_time() - c, 3))
    del v
