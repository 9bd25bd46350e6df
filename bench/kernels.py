"""Micro-benchmarks behind the join/dedup kernel choices (docs/design.md, issue 15); CPU time, in-process.

    PYTHONPATH=src python bench/kernels.py
"""

from __future__ import annotations

import time

import numpy as np

from deltalog.storage.hashset import Int64HashSet, mix
from deltalog.storage.hashset import sort_with_positions
from deltalog.storage.sorted_run import Run
from deltalog.storage.tupleset import BitMap


def timed(fn, repeat: int = 3) -> float:
    """Median CPU seconds of fn()."""
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return sorted(times)[len(times) // 2]


def dedup() -> None:
    space = 39_000**2
    rng = np.random.default_rng(1)
    batches = [np.unique(rng.integers(0, space, 600_000)) for _ in range(11)]

    def hashed() -> None:
        s = Int64HashSet()
        for b in batches:
            s.add_unique(b[~s.contains(b)])

    def bits() -> None:
        s = BitMap(space)
        for b in batches:
            s.add_unique(b[~s.contains(b)])

    print(f"dedup 6.6M keys / 11 batches: hash set {timed(hashed):.2f} s, bit map {timed(bits):.2f} s")


def hash_table(keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Open addressing over the distinct keys of a sorted run, built without a probe loop: slots in
    order of home slot, position = i + cummax(home - i), overflow past the end instead of wrapping."""
    first = np.empty(keys.size, bool)
    first[0] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    distinct, bounds = keys[starts], np.append(starts, keys.size)
    bits = max(int(2 * distinct.size - 1).bit_length(), 4)
    home, order = sort_with_positions(mix(distinct, bits))
    at = np.arange(distinct.size)
    pos = at + np.maximum.accumulate(home - at)
    table = np.full((int(pos[-1]) + 2, 3), -1, np.int64)
    table[pos, 0], table[pos, 1], table[pos, 2] = distinct[order], bounds[order], bounds[order + 1]
    return table, bits


def hash_probe(table: np.ndarray, bits: int, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = np.zeros(q.size, np.int64), np.zeros(q.size, np.int64)
    slot, pending = mix(q, bits), np.arange(q.size)
    while pending.size:
        row = table[slot]
        hit = row[:, 0] == q[pending]
        lo[pending[hit]], hi[pending[hit]] = row[hit, 1], row[hit, 2]
        go = ~hit & (row[:, 0] != -1)
        pending, slot = pending[go], slot[go] + 1
    return lo, hi


def probes() -> None:
    rng = np.random.default_rng(1)
    space = 4_000_000_000
    keys = np.sort(rng.integers(0, space, 8_000_000))
    q = np.concatenate([rng.choice(keys, 500_000), rng.integers(0, space, 500_000)])
    rng.shuffle(q)
    run = Run.build(0, keys.size, keys, np.arange(keys.size), None)
    inside = np.ones(q.size, bool)
    build = timed(lambda: hash_table(keys), 1)
    table, bits = hash_table(keys)
    print(f"1M probes into 8M sorted keys: as they come {timed(lambda: run._search(q, inside, None)):.3f} s, "
          f"sorted first {timed(lambda: run._search(q, inside, sort_with_positions(q))):.3f} s, "
          f"hash table {timed(lambda: hash_probe(table, bits, q)):.3f} s (+ {build:.2f} s build)")
    small = np.sort(rng.integers(0, space, 6_000))
    run = Run.build(0, small.size, small, np.arange(small.size), None)
    q = rng.integers(0, space, 200_000)
    q[:2_000] = small[:2_000]
    inside = np.ones(q.size, bool)
    as_they_come = timed(lambda: run._search(q, inside, None)) * 1e3
    print(f"200k probes (1% hits) into 6k keys: as they come {as_they_come:.1f} ms, "
          f"sorted first {timed(lambda: run._search(q, inside, sort_with_positions(q))) * 1e3:.1f} ms, "
          f"hash filter {timed(lambda: run.bounds(q, inside)) * 1e3:.1f} ms")


if __name__ == "__main__":
    dedup()
    probes()
