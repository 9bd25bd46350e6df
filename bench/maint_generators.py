"""Seeded datasets for the maintenance benchmarks: LUBM-like, Claros-like, DAG-R, RS1, RS2 and chains."""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generators import PROGRAMS, build_chain, build_dag, build_rs1, build_rs2  # noqa: E402

LUBM_PROGRAM = """\
% class hierarchy (subclass axioms)
professor(X) :- fullProfessor(X).
professor(X) :- associateProfessor(X).
professor(X) :- assistantProfessor(X).
professor(X) :- chair(X).
faculty(X) :- professor(X).
faculty(X) :- lecturer(X).
employee(X) :- faculty(X).
person(X) :- employee(X).
student(X) :- undergraduateStudent(X).
student(X) :- graduateStudent(X).
person(X) :- student(X).
person(X) :- researchAssistant(X).
person(X) :- teachingAssistant(X).
course(X) :- graduateCourse(X).
work(X) :- course(X).
article(X) :- journalArticle(X).
article(X) :- conferencePaper(X).
article(X) :- technicalReport(X).
publication(X) :- article(X).
publication(X) :- book(X).
work(X) :- publication(X).
organization(X) :- university(X).
organization(X) :- department(X).
organization(X) :- researchGroup(X).
% subproperties, inverses, transitivity
worksFor(X, Y) :- headOf(X, Y).
memberOf(X, Y) :- worksFor(X, Y).
member(Y, X) :- memberOf(X, Y).
memberOf(X, Y) :- member(Y, X).
degreeFrom(X, Y) :- undergraduateDegreeFrom(X, Y).
degreeFrom(X, Y) :- mastersDegreeFrom(X, Y).
degreeFrom(X, Y) :- doctoralDegreeFrom(X, Y).
hasAlumnus(Y, X) :- degreeFrom(X, Y).
degreeFrom(X, Y) :- hasAlumnus(Y, X).
subOrganizationOf(X, Z) :- subOrganizationOf(X, Y), subOrganizationOf(Y, Z).
% domains and ranges
organization(X) :- subOrganizationOf(X, Y).
organization(Y) :- subOrganizationOf(X, Y).
organization(Y) :- memberOf(X, Y).
organization(X) :- member(X, Y).
person(Y) :- member(X, Y).
university(Y) :- degreeFrom(X, Y).
person(X) :- degreeFrom(X, Y).
person(X) :- advisor(X, Y).
professor(Y) :- advisor(X, Y).
faculty(X) :- teacherOf(X, Y).
course(Y) :- teacherOf(X, Y).
course(Y) :- takesCourse(X, Y).
teachingAssistant(X) :- teachingAssistantOf(X, Y).
course(Y) :- teachingAssistantOf(X, Y).
publication(X) :- publicationAuthor(X, Y).
person(Y) :- publicationAuthor(X, Y).
% conjunctive class definitions (equivalent classes, lower bound direction)
chair(X) :- person(X), headOf(X, D), department(D).
student(X) :- person(X), takesCourse(X, C), course(C).
employee(X) :- person(X), worksFor(X, O), organization(O).
teachingAssistant(X) :- person(X), teachingAssistantOf(X, C), course(C).
"""

CLAROS_PROGRAM = """\
relatedPlaces(X, Y) :- relatedPlaces(Y, X).
relatedPlaces(X, Z) :- relatedPlaces(X, Y), relatedPlaces(Y, Z).
place(X) :- relatedPlaces(X, Y).
place(P) :- foundAt(O, P).
artefact(O) :- foundAt(O, P).
artefact(O) :- objectType(O, T).
relatedToSite(O, S) :- foundAt(O, P), relatedPlaces(P, S), majorSite(S).
siteWithFinds(S) :- relatedToSite(O, S).
"""

LUBM_DEFAULT_SCALE = 13
"""Universities in the default LUBM-like case (about 1.06M explicit facts)."""


@dataclass
class Dataset:
    """A benchmark dataset: program text, explicit facts per predicate, and a description."""

    name: str
    program: str
    facts: dict[str, pl.DataFrame]
    description: str
    params: dict = field(default_factory=dict)

    @property
    def size(self) -> int:
        return sum(df.height for df in self.facts.values())


# ---------------------------------------------------------------- small numpy helpers


class Ids:
    """A global counter handing out disjoint ranges of integer constants."""

    def __init__(self, start: int = 1) -> None:
        self.next = start

    def take(self, n: int) -> np.ndarray:
        out = np.arange(self.next, self.next + n, dtype=np.int64)
        self.next += n
        return out


def unary(ids: np.ndarray) -> pl.DataFrame:
    return pl.DataFrame({"c0": np.asarray(ids, dtype=np.int64)})


def binary(a: np.ndarray, b: np.ndarray) -> pl.DataFrame:
    """Distinct pairs (a[i], b[i])."""
    return pl.DataFrame({"c0": np.asarray(a, dtype=np.int64), "c1": np.asarray(b, dtype=np.int64)}).unique(
        maintain_order=True)


def counts_per(rng: np.random.Generator, groups: int, low: int, high: int) -> np.ndarray:
    """For each of ``groups`` groups a count drawn uniformly from [low, high]."""
    return rng.integers(low, high + 1, size=groups)


def pick_in_ranges(rng: np.random.Generator, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """One uniform element of range [starts[i], starts[i] + sizes[i]) for each i (sizes > 0)."""
    return starts + np.floor(rng.random(starts.size) * sizes).astype(np.int64)


def offsets(sizes: np.ndarray) -> np.ndarray:
    """Start index of each group when groups of ``sizes`` are laid out contiguously."""
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)


# ---------------------------------------------------------------- LUBM-like


FACULTY_KINDS = [  # (type predicate, per department min/max, publications min/max)
    ("fullProfessor", (7, 10), (15, 20)),
    ("associateProfessor", (10, 14), (10, 18)),
    ("assistantProfessor", (8, 11), (5, 10)),
    ("lecturer", (5, 7), (0, 5)),
]
PUBLICATION_TYPES = ["journalArticle", "conferencePaper", "technicalReport", "book"]
UNIVERSITY_POOL = 1000
"""Degrees come from any of this many universities (LUBM's convention), generated or not."""


@dataclass
class Faculty:
    """Faculty members of all departments: id, department index, kind index, rank within department."""

    ids: np.ndarray
    dept: np.ndarray
    kind: np.ndarray
    per_dept: np.ndarray          # faculty per department
    professors: np.ndarray        # professors (non-lecturers) per department
    start: np.ndarray             # index of a department's first faculty member in ``ids``


def lubm_faculty(rng: np.random.Generator, ids: Ids, n_dept: int) -> Faculty:
    """Faculty laid out per department as [full, associate, assistant, lecturer] blocks."""
    counts = np.stack([counts_per(rng, n_dept, *k[1]) for k in FACULTY_KINDS], axis=1)
    per_dept = counts.sum(axis=1)
    dept = np.repeat(np.arange(n_dept), per_dept)
    kind = np.concatenate([np.repeat(np.arange(4), row) for row in counts])
    return Faculty(ids.take(int(per_dept.sum())), dept, kind, per_dept, counts[:, :3].sum(axis=1),
                   offsets(per_dept))


def lubm_courses(rng: np.random.Generator, ids: Ids, fac: Faculty, graduate: bool):
    """Each faculty member (professors only for graduate courses) teaches 1-2 courses of a department."""
    teaches = counts_per(rng, fac.ids.size, 1, 2)
    if graduate:
        teaches[fac.kind == 3] = 0
    teacher = np.repeat(fac.ids, teaches)            # faculty are ordered by department, so are courses
    per_dept = np.bincount(np.repeat(fac.dept, teaches), minlength=fac.per_dept.size)
    return ids.take(teacher.size), teacher, per_dept, offsets(per_dept)


def lubm_students(rng: np.random.Generator, ids: Ids, fac: Faculty, low: int, high: int):
    """Students per department: low..high per faculty member; returns ids and department indexes."""
    per_dept = fac.per_dept * counts_per(rng, fac.per_dept.size, low, high)
    return ids.take(int(per_dept.sum())), np.repeat(np.arange(per_dept.size), per_dept)


def take_courses(rng, students, dept, course, c_start, c_per_dept, low, high):
    """Each student takes low..high courses of their own department."""
    k = counts_per(rng, students.size, low, high)
    who = np.repeat(students, k)
    d = np.repeat(dept, k)
    return binary(who, course[pick_in_ranges(rng, c_start[d], c_per_dept[d])])


def pick_professor(rng, fac: Faculty, dept: np.ndarray) -> np.ndarray:
    """A random professor (full, associate or assistant) of each given department."""
    return fac.ids[pick_in_ranges(rng, fac.start[dept], fac.professors[dept])]


def lubm_publications(rng, ids: Ids, fac: Faculty, grads, grad_dept):
    """Publications of each faculty member, typed, some co-authored by a graduate student of the department."""
    lows = np.array([k[2][0] for k in FACULTY_KINDS])[fac.kind]
    highs = np.array([k[2][1] for k in FACULTY_KINDS])[fac.kind]
    n = lows + np.floor(rng.random(fac.ids.size) * (highs - lows + 1)).astype(np.int64)
    pub = ids.take(int(n.sum()))
    author = np.repeat(fac.ids, n)
    pub_dept = np.repeat(fac.dept, n)
    g_per = np.bincount(grad_dept, minlength=fac.per_dept.size)
    g_start = offsets(g_per)
    co = rng.random(pub.size) < 0.3
    coauthor = grads[pick_in_ranges(rng, g_start[pub_dept[co]], g_per[pub_dept[co]])]
    kinds = rng.choice(len(PUBLICATION_TYPES), size=pub.size, p=[0.4, 0.35, 0.15, 0.1])
    facts = {t: unary(pub[kinds == i]) for i, t in enumerate(PUBLICATION_TYPES)}
    facts["publicationAuthor"] = binary(np.concatenate([pub, pub[co]]), np.concatenate([author, coauthor]))
    return facts


def lubm_degrees(rng, fac: Faculty, grads) -> dict[str, pl.DataFrame]:
    """Faculty hold three degrees, graduate students an undergraduate one, from any pool university."""
    pool = lambda n: rng.integers(0, UNIVERSITY_POOL, size=n) + 1  # noqa: E731 - university ids 1..1000
    return {
        "undergraduateDegreeFrom": binary(np.concatenate([fac.ids, grads]), pool(fac.ids.size + grads.size)),
        "mastersDegreeFrom": binary(fac.ids, pool(fac.ids.size)),
        "doctoralDegreeFrom": binary(fac.ids, pool(fac.ids.size)),
    }


def lubm_organisations(rng, ids: Ids, universities: int):
    """Universities (ids 1..universities), 15-25 departments each, 10-20 research groups per department."""
    dept_per_u = counts_per(rng, universities, 15, 25)
    dept = ids.take(int(dept_per_u.sum()))
    dept_univ = np.repeat(np.arange(1, universities + 1), dept_per_u)
    groups_per_d = counts_per(rng, dept.size, 10, 20)
    groups = ids.take(int(groups_per_d.sum()))
    facts = {
        "university": unary(np.arange(1, universities + 1)),
        "department": unary(dept),
        "researchGroup": unary(groups),
        "subOrganizationOf": binary(np.concatenate([dept, groups]),
                                    np.concatenate([dept_univ, np.repeat(dept, groups_per_d)])),
    }
    return dept, facts


def lubm_people(rng, ids: Ids, dept: np.ndarray, fac: Faculty) -> dict[str, pl.DataFrame]:
    """Faculty types, heads, employment, courses, students, advisors and assistants."""
    facts = {t: unary(fac.ids[fac.kind == i]) for i, (t, _, _) in enumerate(FACULTY_KINDS)}
    head = fac.start                                  # the first full professor of each department
    facts["headOf"] = binary(fac.ids[head], dept)
    others = np.ones(fac.ids.size, dtype=bool)
    others[head] = False
    facts["worksFor"] = binary(fac.ids[others], dept[fac.dept[others]])
    ug_course, ug_teacher, ug_per, ug_start = lubm_courses(rng, ids, fac, graduate=False)
    g_course, g_teacher, g_per, g_start = lubm_courses(rng, ids, fac, graduate=True)
    facts["course"], facts["graduateCourse"] = unary(ug_course), unary(g_course)
    facts["teacherOf"] = binary(np.concatenate([ug_teacher, g_teacher]), np.concatenate([ug_course, g_course]))
    ugs, ug_dept = lubm_students(rng, ids, fac, 8, 14)
    grads, grad_dept = lubm_students(rng, ids, fac, 3, 4)
    facts["undergraduateStudent"], facts["graduateStudent"] = unary(ugs), unary(grads)
    facts["memberOf"] = binary(np.concatenate([ugs, grads]), dept[np.concatenate([ug_dept, grad_dept])])
    facts["takesCourse"] = pl.concat([
        take_courses(rng, ugs, ug_dept, ug_course, ug_start, ug_per, 2, 4),
        take_courses(rng, grads, grad_dept, g_course, g_start, g_per, 1, 3)])
    advised = rng.random(ugs.size) < 0.2
    facts["advisor"] = binary(np.concatenate([grads, ugs[advised]]),
                              pick_professor(rng, fac, np.concatenate([grad_dept, ug_dept[advised]])))
    ta = rng.random(grads.size) < 0.25
    facts["teachingAssistantOf"] = binary(grads[ta], ug_course[pick_in_ranges(
        rng, ug_start[grad_dept[ta]], ug_per[grad_dept[ta]])])
    facts["researchAssistant"] = unary(grads[rng.random(grads.size) < 0.25])
    facts.update(lubm_publications(rng, ids, fac, grads, grad_dept))
    facts.update(lubm_degrees(rng, fac, grads))
    return facts


def lubm(universities: int = LUBM_DEFAULT_SCALE, seed: int = 0) -> Dataset:
    """LUBM-like university data (seeded) with an OWL 2 RL lower-bound style program."""
    rng = np.random.default_rng(seed)
    ids = Ids(UNIVERSITY_POOL + 1)
    dept, facts = lubm_organisations(rng, ids, universities)
    fac = lubm_faculty(rng, ids, dept.size)
    facts.update(lubm_people(rng, ids, dept, fac))
    return Dataset(f"lubm-{universities}", LUBM_PROGRAM, facts,
                   f"LUBM-like, {universities} universities (seed {seed})",
                   {"universities": universities, "seed": seed})


# ---------------------------------------------------------------- Claros-like


def cluster_sizes(rng: np.random.Generator, clusters: int, largest: int) -> np.ndarray:
    """Skewed (Pareto) cluster sizes 2..largest; the largest cluster is forced to ``largest``."""
    sizes = np.minimum(largest, 2 + np.floor(rng.pareto(1.5, clusters) * 3)).astype(np.int64)
    sizes[np.argmax(sizes)] = largest
    return sizes


def cluster_chains(rng: np.random.Generator, sizes: np.ndarray, ids: np.ndarray) -> pl.DataFrame:
    """relatedPlaces edges: inside each cluster a chain through its places in random order."""
    shuffled = ids[rng.permutation(ids.size)]
    start = offsets(sizes)
    src = np.arange(ids.size - 1)
    inside = np.ones(ids.size - 1, dtype=bool)
    inside[(start + sizes - 1)[:-1]] = False        # no edge from a cluster's last place to the next cluster
    return binary(shuffled[src[inside]], shuffled[src[inside] + 1])


def claros(clusters: int = 1500, largest: int = 300, seed: int = 0) -> Dataset:
    """Claros-like cultural-heritage data: cliques of relatedPlaces (closed by the rules), finds at places."""
    rng = np.random.default_rng(seed)
    sizes = cluster_sizes(rng, clusters, largest)
    ids = Ids()
    places = ids.take(int(sizes.sum()))
    objects = ids.take(2 * places.size)
    types = ids.take(50)
    facts = {
        "relatedPlaces": cluster_chains(rng, sizes, places),
        "foundAt": binary(objects, places[rng.integers(0, places.size, objects.size)]),
        "objectType": binary(objects, types[rng.integers(0, types.size, objects.size)]),
        "majorSite": unary(places[rng.random(places.size) < 0.01]),
    }
    return Dataset(f"claros-{clusters}", CLAROS_PROGRAM, facts,
                   f"Claros-like, {places.size} places in {clusters} clusters (largest {int(sizes.max())}), "
                   f"{objects.size} objects (seed {seed})",
                   {"clusters": clusters, "largest": largest, "places": int(places.size), "seed": seed})


# ---------------------------------------------------------------- the cases of bench/generators.py


def from_case(name: str, family: str, case) -> Dataset:
    return Dataset(name, PROGRAMS[family], dict(case.facts), case.description, dict(case.params))


def dag_r() -> Dataset:
    """DAG-R of bench/generators.py: 10,000 nodes, 100,000 edges, linear transitive closure."""
    return from_case("dag-r", "tc-linear", build_dag(10_000, 100_000, 1, True))


def rs2() -> Dataset:
    """RS2 of bench/generators.py: 400 constants, 1,000 pairs each for p1, p2, p3, p5."""
    return from_case("rs2", "rs2", build_rs2(400, 1_000, 5))


def chain(edges: int) -> Dataset:
    """A chain of ``edges`` edges with linear transitive closure (edges * (edges + 1) / 2 paths):
    deleting a middle edge deletes a quarter of the paths (bench/maint_auto.py)."""
    return from_case(f"chain-{edges}", "tc-linear", build_chain(edges, True))


def rs1(turbines: int = 100) -> Dataset:
    """RS1 of bench/generators.py: a chain of wind turbines with aggregates."""
    return from_case(f"rs1-{turbines}", "rs1", build_rs1(turbines, 4))


DATASETS: dict[str, Callable[[], Dataset]] = {
    "lubm": lambda: lubm(LUBM_DEFAULT_SCALE),
    "claros": lambda: claros(),
    "dag-r": dag_r,
    "dag-r-nonlinear": lambda: from_case("dag-r-nonlinear", "tc-nonlinear", build_dag(10_000, 100_000, 1, False)),
    "rs2": rs2,
    "rs1": lambda: rs1(100),
    # small variants for development runs
    "lubm-1": lambda: lubm(1),
    "lubm-3": lambda: lubm(3),
    "claros-s": lambda: claros(300, 150),
    "dag-s": lambda: from_case("dag-s", "tc-linear", build_dag(2_000, 20_000, 2, True)),
}


def uniform_samples(ds: Dataset, k: int, samples: int, seed: int = 1):
    """``samples`` draws of k explicit facts uniformly over all of them (without replacement within a
    draw), each as {predicate: the drawn rows}: 003's protocol (bench/maint_closure_cpu.py and kin)."""
    preds = sorted(ds.facts)
    sizes = np.array([ds.facts[p].height for p in preds])
    off = np.concatenate([[0], np.cumsum(sizes)])
    rng = np.random.default_rng(seed)
    for _ in range(samples):
        pick = rng.choice(int(sizes.sum()), min(k, int(sizes.sum())), replace=False)
        sel = {}
        for i, p in enumerate(preds):
            idx = pick[(pick >= off[i]) & (pick < off[i + 1])] - off[i]
            if idx.size:
                sel[p] = ds.facts[p][np.sort(idx)]
        yield sel


def make(name: str) -> Dataset:
    """The dataset registered under ``name``."""
    if name not in DATASETS and (scaled := re.fullmatch(r"lubm-(\d+)", name)):
        return lubm(int(scaled.group(1)))   # any scale: lubm-100 is 100 universities
    if name not in DATASETS and (scaled := re.fullmatch(r"chain-(\d+)", name)):
        return chain(int(scaled.group(1)))   # chain-8000: 8,000 edges, 32M paths
    if name not in DATASETS and (scaled := re.fullmatch(r"claros-(\d+)", name)):
        return claros(int(scaled.group(1)))   # claros-15000: 10x the default's clusters
    if name not in DATASETS:
        raise KeyError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}")
    return DATASETS[name]()


def main(argv: list[str] | None = None) -> int:
    """CLI: print the size of each dataset per predicate."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("datasets", nargs="*", default=["lubm", "claros", "dag-r", "rs2", "rs1"])
    args = ap.parse_args(argv)
    for name in args.datasets:
        data = make(name)
        print(f"{name}: {data.size:,d} explicit facts; {data.description}")
        for pred, df in sorted(data.facts.items()):
            print(f"    {pred:26s} {df.height:>10,d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
