"""Size thresholds shrunk so that small random cases take the paths only large data takes by default.

The engine picks many representations and kernels by size (sorted runs of hash sets, index tiers,
row scans, chunked operators, bitset chains, scipy closures, packed death marks ...). The differential
tests draw programs over a dozen values, which stay under every threshold; :func:`tiny_thresholds`
draws a subset of the thresholds below and :func:`shrunk` sets them to small values while a case runs.
Each entry is (module, attribute, small value); a name other modules import by value is listed once per
module holding it.
"""

from __future__ import annotations

import importlib
from contextlib import contextmanager
from functools import partial
from typing import Iterator

import pytest
from hypothesis import strategies as st

from deltalog.algorithms.auto import OverdeletionBudget

FRACTIONS = ("REMAT_FRACTION", "BOUNDED_REMAT_FRACTION", "MODULE_REMAT_FRACTION", "ADD_REMAT_FRACTION",
             "ADD_BOUNDED_REMAT_FRACTION")
"""algorithms/auto.py's fractions of changed facts past which ``auto`` rematerialises."""
LOCAL = "backends.local"

SMALL: dict[str, tuple[tuple[str, str, object], ...]] = {
    "sorted hash runs": (("storage.hashset", "SORTED_RUN_MIN", 2), ("storage.hashmap", "SORTED_RUN_MIN", 2)),
    "windowed probes": (("storage.hashset", "WINDOW_PENDING", 1),),
    "sorted row maps": (("storage.rowmap", "SORTED_MIN", 2), ("storage.rowmap", "MERGE_SHARE", 1)),
    "packed deaths": (("storage.deathcounts", "PACK_MIN_ROWS", 1),),
    "sorted probes": (("storage.sorted_run", "DENSE_MIN_SPACE", 1), ("storage.sorted_run", "SORTED_PROBE_MIN", 1),
                      ("storage.sorted_run", "FILTER_MIN_PROBE", 1)),
    "index tiers": (("storage.index", "TIER_MIN_ROWS", 1), ("storage.index", "TIER_RUNS", 2),
                    ("storage.index", "MAX_RUNS", 2), ("storage.index", "SORTED_SAMPLE", 2)),
    "no row maps": (("storage.relation", "ROW_MAP_MAX_ROWS", 4),),
    "row scans": (("storage.row_scan", "SCAN_MIN_ROWS", 1), ("storage.row_scan", "SCAN_CHUNK", 3),
                  ("storage.row_scan", "SCAN_MAX_SHARE", 1 << 20)),
    "sorted stretches": (("storage.row_order", "MIN_STRETCH_ROWS", 2), ("storage.row_order", "LEARN_CHUNK", 3)),
    "dense uniques": (("storage.uniques", "DENSE_UNIQUE_MIN", 1),),
    "sampled windows": (("storage.windows", "SAMPLE_ROWS", 2),),
    "revived indexes": (("storage.history", "REVIVE_OWN_INDEX", 1),),
    "hash sets": (("storage.tupleset", "BYTEMAP_DENSITY", 0), ("storage.tupleset", "BITMAP_DENSITY", 0)),
    "hashed ints": (("storage.dictionary", "DENSE_SPAN_FACTOR", 0), ("storage.dictionary", "DENSE_SPAN_MIN", 0)),
    "membership bitmaps": ((f"{LOCAL}.membership", "MIN_PROBE", 1), (f"{LOCAL}.membership", "OWN_INDEX", 1)),
    "no membership bitmaps": ((f"{LOCAL}.membership", "DENSE_MAX", 0),),
    "chunked operators": ((f"{LOCAL}.execute", "CHUNK_ROWS", 3), (f"{LOCAL}.backend", "CHUNK_ROWS", 3)),
    "chunked closures": tuple((f"{LOCAL}.{m}", name, value) for m, name, value in (
        ("closure", "CHUNK_PAIRS", 3), ("closure_diff", "CHUNK_PAIRS", 3), ("component_diff", "CHUNK_PAIRS", 3),
        ("closure", "UNPACK_BITS", 8), ("closure_diff", "UNPACK_BITS", 8),
        ("closure", "GATHER_WORDS", 1), ("closure_diff", "GATHER_WORDS", 1))),
    "closure column blocks": ((f"{LOCAL}.closure", "BITSET_BYTES", 8), (f"{LOCAL}.closure_diff", "BITSET_BYTES", 8)),
    "sparse closures": ((f"{LOCAL}.dense_closure", "DENSE_NODES", 0),),
    "reached parts": ((f"{LOCAL}.closure_diff", "REACHED_PART_MIN_NODES", 0),),
    "shallow searches": ((f"{LOCAL}.reach", "FRONTIER_LEVELS", 1), (f"{LOCAL}.components", "DAG_CHECK_LEVELS", 1),
                         (f"{LOCAL}.components", "WEAK_ROUNDS", 1)),
    "no few sources": ((f"{LOCAL}.few_sources", "PAIR_SPACE", 0),),
    "witness windows": ((f"{LOCAL}.witness", "GROWTH", 1), (f"{LOCAL}.witness", "ONE_WINDOW", 0)),
    "bitset chains": ((f"{LOCAL}.compose", "DENSE_RATIO", 0), (f"{LOCAL}.compose", "MIN_LEFT", 0),
                      (f"{LOCAL}.compose", "WITNESS_READS", 10**9)),
    "sorted extremes": ((f"{LOCAL}.extremes", "DENSE_GROUP_SPAN", 0), (f"{LOCAL}.extremes", "DENSE_GROUP_MIN", -1)),
    "exact sums": ((f"{LOCAL}.exact_sums", "_EXACT_DOUBLE", 1.0), (f"{LOCAL}.exact_sums", "_INT_RISK", 1.0)),
    "replanning": (("plan.cache", "SMALL_ROWS", 0), ("plan.cache", "DRIFT", 1.0)),
    "closure rounds by module": (("modules.transitive", "SEMINAIVE_INSERT_FACTS", 0),),
    "fbf budget": (("algorithms.strategies", "FBF_BUDGET", 1),),
    "auto gives up": (("algorithms.maintain", "OverdeletionBudget", partial(OverdeletionBudget, fraction=0, floor=0)),),
    "auto rematerialises": tuple(("algorithms.auto", name, 0.0) for name in FRACTIONS),
    "auto maintains": tuple(("algorithms.auto", name, 1e9) for name in FRACTIONS),
}


@st.composite
def tiny_thresholds(draw) -> tuple[str, ...]:
    """A subset of SMALL's groups (each in about one case of three, sometimes all of them)."""
    if draw(st.integers(0, 5)) == 0:
        return tuple(SMALL)
    return tuple(name for name in SMALL if draw(st.integers(0, 2)) == 0)


@contextmanager
def shrunk(groups) -> Iterator[None]:
    """The named groups' thresholds set to their small values while the block runs."""
    with pytest.MonkeyPatch.context() as patch:
        for group in groups:
            for module, name, value in SMALL[group]:
                target = importlib.import_module(f"deltalog.{module}")
                assert hasattr(target, name), (module, name)
                patch.setattr(target, name, value)
        yield
