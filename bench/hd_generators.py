"""Datasets for the hypertree benchmarks (issue 14, seed 000 section 5): Exp, LUBM L+C and the PC rule.

- **Exp**: expression trees evaluated by three recursive rules (+, -, *), each cyclic with 9 body atoms
  (000: "Exp applies Datalog rules to evaluate expression trees of various depths ... three recursive
  rules ... each cyclic and contains 9 body atoms; a generator ... for a given number of expressions,
  sets of values and maximum depth"). Every expression is evaluated under ``values`` assignments of
  its leaves; ``val(N, A, V)``: node N has value V under assignment A.
- **LUBM L+C**: the LUBM-like data and program of bench/maint_generators.py (L) plus complex rules
  (C) of the kind 000 adds: triangles and squares over the university graph (12 rules).
- **PC**: bench/generators.build_pc (000 section 3).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generators import PROGRAMS, build_pc  # noqa: E402
from maint_generators import lubm  # noqa: E402

EXP_RULES = """\
val(N, A, V) :- op(N, "add"), left(N, L), right(N, R), expr(N, E), expr(L, E), expr(R, E), assignment(E, A),
                val(L, A, V1), val(R, A, V2), V = (V1 + V2) % 1000003.
val(N, A, V) :- op(N, "sub"), left(N, L), right(N, R), expr(N, E), expr(L, E), expr(R, E), assignment(E, A),
                val(L, A, V1), val(R, A, V2), V = (V1 - V2 + 1000003) % 1000003.
val(N, A, V) :- op(N, "mul"), left(N, L), right(N, R), expr(N, E), expr(L, E), expr(R, E), assignment(E, A),
                val(L, A, V1), val(R, A, V2), V = (V1 * V2) % 1000003.
"""

LUBM_COMPLEX_RULES = """\
% C: complex rules over the university graph (triangles and squares), as 000's LUBM L+C
haveSameAdvisor(P1, P2) :- hasAlumnus(O, P1), advisor(P1, A), hasAlumnus(O, P2), advisor(P2, A).
advisorTeaches(S, P) :- takesCourse(S, C), teacherOf(P, C), advisor(S, P).
advisorInDept(S, P) :- advisor(S, P), memberOf(S, D), worksFor(P, D).
coauthorWithAdvisor(S, P) :- publicationAuthor(X, S), publicationAuthor(X, P), advisor(S, P).
alumnusOfAdvisorsUniversity(S, P) :- advisor(S, P), degreeFrom(S, U), degreeFrom(P, U).
assistsAdvisor(S, P) :- teachingAssistantOf(S, C), teacherOf(P, C), advisor(S, P).
classmatesSameAdvisor(S1, S2) :- takesCourse(S1, C), takesCourse(S2, C), advisor(S1, P), advisor(S2, P).
colleaguesCoauthors(A, B) :- worksFor(A, D), worksFor(B, D), publicationAuthor(X, A), publicationAuthor(X, B).
assistsInOwnDept(S, P) :- teachingAssistantOf(S, C), teacherOf(P, C), memberOf(S, D), worksFor(P, D).
advisorPeersInCourse(S1, S2) :- advisor(S1, P), advisor(S2, P), teachingAssistantOf(S1, C), takesCourse(S2, C).
sameAlmaMaterColleagues(A, B) :- degreeFrom(A, U), degreeFrom(B, U), worksFor(A, D), worksFor(B, D).
coauthorsSameUniversity(A, B) :- publicationAuthor(X, A), publicationAuthor(X, B), degreeFrom(A, U), degreeFrom(B, U).
"""


@dataclass
class HdCase:
    """A benchmark case: program text, explicit facts, and which predicates updates sample from."""

    name: str
    program: str
    facts: dict[str, pl.DataFrame]
    description: str
    update_predicates: list[str] = field(default_factory=list)


def exp(expressions: int, values: int, depth: int, seed: int = 0) -> HdCase:
    """``expressions`` random binary trees of depth ≤ ``depth`` (internal nodes +, - or *), each
    evaluated under ``values`` random assignments of its leaves (values 0..999)."""
    rng = np.random.default_rng(seed)
    ops, lefts, rights, exprs, leaves = [], [], [], [], []
    next_id = 0

    def build(e: int, d: int) -> int:
        nonlocal next_id
        node = next_id
        next_id += 1
        exprs.append((node, e))
        if d < depth and (d < 2 or rng.random() < 0.7):
            ops.append((node, ("add", "sub", "mul")[rng.integers(3)]))
            lefts.append((node, build(e, d + 1)))
            rights.append((node, build(e, d + 1)))
        else:
            leaves.append((node, e))
        return node

    for e in range(expressions):
        build(e, 1)

    def frame(rows, names=("c0", "c1")):
        return pl.DataFrame({n: [r[i] for r in rows] for i, n in enumerate(names)})

    leaf_ids = np.array([n for n, _ in leaves], np.int64)
    leaf_expr = np.array([e for _, e in leaves], np.int64)
    assignment = np.repeat(leaf_expr * values, values) + np.tile(np.arange(values), leaf_ids.size)
    val = pl.DataFrame({"c0": np.repeat(leaf_ids, values), "c1": assignment,
                        "c2": rng.integers(0, 1000, leaf_ids.size * values)})
    assignments = pl.DataFrame({"c0": np.repeat(np.arange(expressions), values),
                                "c1": np.arange(expressions * values)})
    facts = {"op": frame(ops), "left": frame(lefts), "right": frame(rights), "expr": frame(exprs),
             "assignment": assignments, "val": val}
    return HdCase(f"exp-{expressions}-{values}-{depth}", EXP_RULES, facts,
                  f"Exp: {expressions} expressions, {values} values each, depth <= {depth}", ["val"])


def lubm_lc(universities: int = 1, seed: int = 0) -> HdCase:
    data = lubm(universities, seed)
    return HdCase(f"lubm-lc-{universities}", data.program + LUBM_COMPLEX_RULES, data.facts,
                  f"LUBM L+C: {data.description} + 12 complex rules",
                  ["advisor", "takesCourse", "publicationAuthor", "teacherOf"])


def lubm_l(universities: int = 1, seed: int = 0) -> HdCase:
    data = lubm(universities, seed)
    return HdCase(f"lubm-l-{universities}", data.program, data.facts, f"LUBM L: {data.description}",
                  ["advisor", "takesCourse", "publicationAuthor", "teacherOf"])


def pc(n: int = 1000, k: int = 100) -> HdCase:
    data = build_pc(n, k)
    return HdCase(f"pc-{n}-{k}", PROGRAMS["pc"], data.facts, data.description, ["cw", "ca"])


CASES = {
    "exp-small": lambda: exp(30, 30, 5),
    "exp": lambda: exp(100, 100, 5),
    "exp-200": lambda: exp(200, 200, 5),
    "exp-300": lambda: exp(300, 300, 5),   # 000's scale (300 expressions, 300 values, depth 5)
    "lubm-lc-1": lambda: lubm_lc(1),
    "lubm-lc-3": lambda: lubm_lc(3),
    "lubm-l-1": lambda: lubm_l(1),
    "pc": lambda: pc(1000, 100),
    "pc-small": lambda: pc(300, 30),
}
