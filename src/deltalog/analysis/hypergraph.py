"""A rule body as a hypergraph, and its decomposition (000 section 2), computed once per rule.

Positive atoms are the hyperedges; negated atoms and the comparisons over atom variables are
constraints some node must hold whole (analysis/decompose.py). BINDs, aggregates and comparisons
over their results are applied after the join, as the join planner does, so they take no part.

>>> from deltalog.analysis.program import analyse
>>> from deltalog.syntax import parse
>>> info = analyse(parse("t(X, Y, Z) :- e(X, Y), e(Y, Z), e(Z, X), X != Y.")).rules[0]
>>> print(rule_decomposition(info).lines(*rule_texts(info))[1])
node 0 χ={X, Y, Z} λ=[e(X, Y), e(Y, Z)] filters=[e(Z, X)] constraints=[X != Y]
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from deltalog.analysis.decompose import Decomposition, decompose
from deltalog.analysis.normalise import atom_variables
from deltalog.analysis.safety import literal_variables

if TYPE_CHECKING:
    from deltalog.analysis.program import RuleInfo


def hyperedges(info: RuleInfo) -> list[frozenset[str]]:
    return [frozenset(v.name for v in atom_variables(atom)) for atom in info.positive]


def constraints(info: RuleInfo) -> list[tuple[str, frozenset[str]]]:
    """Negations (their variables bound by the positive atoms) and comparisons over atom variables."""
    bound = info.bound_variables
    out = []
    for atom in info.negative:
        names = frozenset(v.name for v in atom_variables(atom)) & bound
        out.append((str(atom), names))
    for comparison in info.filters:
        names = frozenset(v.name for v in literal_variables(comparison))
        if names <= bound:
            out.append((str(comparison), names))
    return out


@lru_cache(maxsize=4096)
def rule_decomposition(info: RuleInfo) -> Decomposition:
    """The rule's decomposition, the head's variables preferred at the root."""
    head = frozenset(v.name for v in atom_variables(info.head))
    return decompose(hyperedges(info), [names for _, names in constraints(info)], prefer=head)


def rule_texts(info: RuleInfo) -> tuple[list[str], list[str]]:
    """How the decomposition's atom and constraint positions print."""
    return [str(atom) for atom in info.positive], [text for text, _ in constraints(info)]


def to_dot(named: list[tuple[str, Decomposition, tuple[list[str], list[str]]]]) -> str:
    """Graphviz DOT: one cluster per rule, a box per node with χ and λ."""
    lines = ["digraph decompositions {", "  node [shape=box, fontname=monospace];"]
    for k, (name, d, (atoms, _)) in enumerate(named):
        lines.append(f'  subgraph cluster_{k} {{ label="{_escape(name)} (width {d.width})";')
        for p, node in enumerate(d.nodes):
            text = f"χ={{{', '.join(sorted(node.chi))}}}\\nλ={', '.join(atoms[i] for i in node.cover)}"
            lines.append(f'    r{k}n{p} [label="{_escape(text)}"];')
            lines += [f"    r{k}n{p} -> r{k}n{c};" for c in node.children]
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _escape(text: str) -> str:
    return text.replace('"', '\\"')
