"""Golden program cases: tests/programs/<case>/program.dl + facts/ + expected/<pred>.tsv (sorted lines)."""

from __future__ import annotations

from pathlib import Path

from deltalog.api import Reasoner
from deltalog.io.rdf import read_rdf
from deltalog.syntax import parse_file
from reference import from_text, naive_materialise, text

PROGRAMS = Path(__file__).parent / "programs"
CASES = sorted(p for p in PROGRAMS.iterdir() if (p / "program.dl").exists())


def read_facts(case: Path) -> dict[str, set[tuple]]:
    """The case's fact files as reference values (text cells typed per docs/semantics.md)."""
    facts: dict[str, set[tuple]] = {}
    for file in sorted((case / "facts").glob("*.tsv")):
        rows = [line.split("\t") for line in file.read_text().splitlines() if line]
        facts[file.stem] = {tuple(from_text(c) for c in row) for row in rows}
    for file in sorted((case / "facts").glob("*.nt")):
        table = read_rdf(file)["triple"]
        rows = zip(*(table[c].cast(str).to_list() for c in table.columns))
        facts.setdefault("triple", set()).update(tuple(from_text(c) for c in row) for row in rows)
    return facts


def derived_predicates(case: Path) -> list[str]:
    program = parse_file(case / "program.dl")
    return sorted({r.head.predicate for r in program.rules})


def expected_by_reference(case: Path) -> dict[str, list[str]]:
    program = parse_file(case / "program.dl")
    facts = read_facts(case)
    for directive in program.inputs:
        facts.setdefault(directive.predicate, set())
    result = naive_materialise(program.__class__(rules=program.rules, facts=program.facts), facts)
    return {p: sorted("\t".join(text(v) for v in row) for row in result.get(p, set()))
            for p in derived_predicates(case)}


def expected(case: Path) -> dict[str, list[str]]:
    return {f.stem: sorted(f.read_text().splitlines()) for f in sorted((case / "expected").glob("*.tsv"))}


def run_case(case: Path, backend: str, out_dir: Path) -> dict[str, list[str]]:
    """Materialise the case on a backend, write every derived predicate as TSV, read the lines back."""
    reasoner = Reasoner(case / "program.dl", backend=backend)
    reasoner.load_directory(case / "facts")
    reasoner.materialise()
    predicates = derived_predicates(case)
    reasoner.write(out_dir, predicates=predicates)
    return {p: sorted((out_dir / f"{p}.tsv").read_text().splitlines()) for p in predicates}
