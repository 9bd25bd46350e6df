"""The run-time half of ``@decl`` checking: derived facts in head columns the analysis could not prove.

``AnalysedProgram.unproven`` lists, per declared predicate, the head columns some rule may fill
with a value of the wrong kind (a variable from an undeclared body column, say). After a
materialisation or an update those columns are scanned for such a value; finding one is a
``TypeCheckError`` naming the value, the attribute and the rules that derive into it. The scan is
vectorised: the local backend looks at the kinds of the dictionary ids, the Spark backend filters
the tagged column by its kind letter on the executors.
"""

from __future__ import annotations

from deltalog.analysis.declarations import TYPE_KINDS
from deltalog.analysis.program import AnalysedProgram
from deltalog.backends.base import EncodedColumns, FrameLoading
from deltalog.errors import TypeCheckError

PREFIXES = {"int": "i", "float": "f", "string": "s", "iri": "r"}


def misfit(backend, relation: str, column: int, allowed: frozenset[str]) -> tuple[str, object] | None:
    """A (kind, value) in ``relation``'s column whose kind is not ``allowed``, or None."""
    if isinstance(backend, FrameLoading):
        return _spark_misfit(backend, relation, column, allowed)
    if not isinstance(backend, EncodedColumns):
        return next((row[column] for row in backend.typed_rows(relation=relation) if row[column][0] not in allowed),
                    None)
    from deltalog.storage.values import KIND_CODES
    import numpy as np
    ids = backend.id_columns(relation=relation)[column]
    kinds = backend.dictionary.kinds.view()[ids]
    bad = ~np.isin(kinds, [KIND_CODES[k] for k in allowed])
    if not bad.any():
        return None
    first = ids[int(np.argmax(bad))]
    return backend.dictionary.decode(np.array([first]))[0]


def _spark_misfit(backend, relation: str, column: int, allowed: frozenset[str]) -> tuple[str, object] | None:
    from pyspark.sql import functions as F
    from deltalog.backends.tagged import untag
    rows = backend.frame(relation=relation)
    if rows is None:
        return None
    name = rows.columns[column]
    found = rows.where(~F.substring(F.col(name), 1, 1).isin(*[PREFIXES[k] for k in allowed])).select(name).first()
    return None if found is None else untag(found[0])


def check_derived(analysed: AnalysedProgram, backend) -> None:
    """Raise TypeCheckError if an unproven declared column holds a value its type refuses."""
    for predicate, columns in analysed.unproven.items():
        decl = analysed.declarations[predicate]
        for column in columns:
            attribute = decl.attributes[column]
            found = misfit(backend, predicate, column, TYPE_KINDS[attribute.type])
            if found is not None:
                kind, value = found
                rules = [f"{info.label} at {info.rule.span}" for info in analysed.rules
                         if info.head.predicate == predicate]
                raise TypeCheckError(
                    f"a rule derived the {kind} {value!r} into {predicate}.{attribute.name} (column {column + 1}), "
                    f"which is declared {attribute.type}", decl.span,
                    notes=(f"rules deriving {predicate}: {'; '.join(rules)}",
                           "convert the value in the rule (int(X), float(X), str(X)) or change the declaration"))
