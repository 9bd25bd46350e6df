"""Why a result may be silently empty, found before the run: predicates read but never defined,
fact files no rule reads, updates that would invent predicates, outputs that overwrite inputs.

These checks live apart from api.py so the Reasoner stays a thin facade; the CLI prints what
they return as warnings, or (``--strict``) as errors.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Mapping

from deltalog.errors import InputError, UndefinedPredicateWarning, UnknownPredicateError
from deltalog.syntax.ast import NO_SPAN, Span


def _suggestion(name: str, known: Iterable[str]) -> tuple[str, ...]:
    import difflib   # only when there is something to suggest (its import is ~2 ms of every run)
    close = difflib.get_close_matches(name, sorted(known), n=1)
    return (f"did you mean '{close[0]}'?",) if close else ()


def reasoner_diagnostics(reasoner) -> list[UndefinedPredicateWarning]:
    """What ``Reasoner.diagnostics`` returns: undefined body and @output predicates (the first use of
    each), then loaded predicates the program never mentions."""
    from deltalog.analysis.types import rule_body_atoms
    analysed = reasoner.analysed
    program = analysed.program
    first: dict[str, Span] = {}
    for rule in program.rules:
        for atom in rule_body_atoms(rule.body):
            first.setdefault(atom.predicate, atom.span)
    for directive in program.outputs:
        first.setdefault(directive.predicate, directive.span)
    defined = set(analysed.idb) | {f.atom.predicate for f in program.facts} | set(reasoner.loaded)
    defined |= {d.predicate for d in program.inputs}
    mentioned = set(analysed.arities) | set(analysed.graph.nodes) | {d.predicate for d in program.outputs}
    warnings = undefined_body_predicates(first.items(), defined, mentioned | set(reasoner.loaded))
    return warnings + unread_files(reasoner.loaded, mentioned)


def undefined_body_predicates(body_uses: Iterable[tuple[str, Span]], defined: Iterable[str],
                              known: Iterable[str]) -> list[UndefinedPredicateWarning]:
    """A warning for each predicate read in a body (or declared @output) that nothing defines:
    no rule, no fact in the program, no @input and no loaded data."""
    defined = set(defined)
    warnings = []
    for predicate, span in body_uses:
        if predicate not in defined:
            warnings.append(UndefinedPredicateWarning(
                f"predicate {predicate} has no rules and no facts, so it is empty", span,
                notes=_suggestion(predicate, set(known) - {predicate}) or
                ("load its facts with --facts DIR (DIR/" + predicate + ".tsv) or @input",)))
    return warnings


def unread_files(loaded: Mapping[str, list[str]], program_predicates: Iterable[str]) -> list[UndefinedPredicateWarning]:
    """A warning for each fact file whose predicate the program never mentions (its facts are
    stored, but no rule reads them and nothing writes them)."""
    known = set(program_predicates)
    warnings = []
    for predicate, sources in sorted(loaded.items()):
        if predicate not in known:
            for source in sources:
                warnings.append(UndefinedPredicateWarning(
                    f"the facts of {predicate} match no predicate of the program; no rule reads them",
                    Span(source) if source != "the data" else NO_SPAN, notes=_suggestion(predicate, known)))
    return warnings


def refuse_unknown(predicates: Iterable[str], known: Iterable[str], what: str) -> None:
    """Raise UnknownPredicateError for the first predicate neither the program nor the stored data
    knows: an update must not invent a predicate from a misspelt file name."""
    known = set(known)
    for predicate in predicates:
        if predicate not in known:
            raise UnknownPredicateError(f"{what} facts of {predicate}, which neither the program nor the "
                                        f"stored data knows", NO_SPAN, notes=_suggestion(predicate, known))


def refuse_overlap(out_dir: str | os.PathLike, inputs: Iterable[str | os.PathLike]) -> None:
    """Refuse to write into a directory that holds (or is inside) one of the run's inputs: the outputs
    would overwrite them, or be read back as inputs by the next run."""
    out = Path(out_dir).resolve()
    for source in inputs:
        path = Path(source).resolve()
        if path == out or out in path.parents:
            raise InputError(f"the output directory {out_dir} holds the input {source}; "
                             f"write the results somewhere else")
