"""Predicate names for RDF properties (``--rdf-predicates``, ``--rdf-map``), the same on both backends.

A name depends only on the set of property IRIs read (all RDF files of a directory together) and
the explicit map, never on file or triple order, and two different IRIs never share a name by
accident: ``http://a.org/name`` and ``http://b.org/name`` become ``a_name`` and ``b_name``, and a
clash that even this does not settle is refused with an error suggesting ``--rdf-map``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import urlsplit

from deltalog.errors import InputError
from deltalog.io.writers import PREDICATE_RE
from deltalog.syntax.ast import Span

_IRI = re.compile(r'[^<>"{}|^`\\\x00-\x20]+')


def local_name(iri: str) -> str:
    """The part of an IRI after its last ``#`` or ``/``, made a valid predicate name."""
    return _identifier(re.split(r"[#/]", iri)[-1])


def _identifier(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_]", "_", text)
    return name if re.match(r"[A-Za-z_]", name) else f"_{name}"


def qualified_name(iri: str) -> str:
    """The local name prefixed by the namespace's host (``http://a.org/name`` -> ``a_name``, ``www``
    dropped), or by the namespace itself for IRIs without a host (``urn:x:name`` -> ``urn_x_name``)."""
    namespace = iri[: len(iri) - len(re.split(r"[#/]", iri)[-1])]
    labels = [label for label in (urlsplit(namespace).hostname or "").split(".") if label and label != "www"]
    qualifier = labels[0] if labels else re.sub(r"^[A-Za-z][A-Za-z0-9+.-]*://", "", namespace).strip("/#:")
    return _identifier(f"{qualifier}_{re.split(r'[#/]', iri)[-1]}")


def predicate_names(iris: Iterable[str], explicit: Mapping[str, str] | None = None) -> dict[str, str]:
    """IRI -> predicate name: the explicit map's name, else the local name when no other IRI has
    the same one, else the host-qualified name; refuses names that still clash."""
    explicit = explicit or {}
    automatic = sorted(set(iris) - set(explicit))
    by_local: dict[str, list[str]] = {}
    for iri in automatic:
        by_local.setdefault(local_name(iri), []).append(iri)
    taken = set(explicit.values())
    names = {iri: local if len(group) == 1 and local not in taken else qualified_name(iri)
             for local, group in by_local.items() for iri in group}
    owners: dict[str, list[str]] = {}
    for iri, name in names.items():
        owners.setdefault(name, []).append(iri)
    for name, clash in sorted(owners.items()):
        if len(clash) > 1 or name in taken:
            others = clash + [iri for iri, given in explicit.items() if given == name]
            raise InputError(f"RDF properties {', '.join(f'<{i}>' for i in sorted(others))} would all be "
                             f"predicate {name!r}; name them with --rdf-map FILE (lines: IRI<TAB>predicate)")
    return {**names, **{iri: name for iri, name in explicit.items()}}


def read_rdf_map(path: str | os.PathLike) -> dict[str, str]:
    """An explicit IRI -> predicate map: lines ``IRI<TAB>predicate`` (the IRI with or without angle
    brackets); blank lines and lines starting with ``#`` are skipped. Several IRIs may share a predicate
    (merged on purpose); an IRI given twice, a bad IRI or predicate name is refused with its line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the RDF map {path}: {exc.strerror or exc}") from None
    mapping: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        iri = fields[0].strip()
        iri = iri[1:-1] if iri.startswith("<") and iri.endswith(">") else iri
        where = Span(str(path), number, 1)
        if len(fields) != 2 or not _IRI.fullmatch(iri):
            raise InputError("expected an IRI, a tab and a predicate name", where)
        if not PREDICATE_RE.fullmatch(fields[1].strip()):
            raise InputError(f"{fields[1].strip()!r} is not a valid predicate name", Span(str(path), number, 2))
        if iri in mapping:
            raise InputError(f"<{iri}> is mapped twice", where)
        mapping[iri] = fields[1].strip()
    return mapping


def rdf_map_of(rdf_map: str | os.PathLike | Mapping[str, str] | None) -> dict[str, str] | None:
    """An explicit map given as a file or a mapping (IRIs without brackets), or None."""
    if rdf_map is None:
        return None
    if isinstance(rdf_map, Mapping):
        return {iri.removeprefix("<").removesuffix(">"): name for iri, name in rdf_map.items()}
    return read_rdf_map(rdf_map)

