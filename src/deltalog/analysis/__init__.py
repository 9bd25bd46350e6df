"""Static analysis of deltalog programs: normalisation, safety, arity and type checks, dependency graph, strata."""

from deltalog.analysis.graph import DependencyGraph, Edge, build_graph
from deltalog.analysis.normalise import normalise_assignments, resolve_equalities
from deltalog.analysis.program import AnalysedProgram, RuleInfo, Stratum, analyse, collect_warnings, split_body
from deltalog.analysis.safety import check_safety
from deltalog.analysis.strata import check_stratifiable, stratify
from deltalog.analysis.types import check_arities, check_functions, check_types

__all__ = [
    "AnalysedProgram",
    "DependencyGraph",
    "Edge",
    "RuleInfo",
    "Stratum",
    "analyse",
    "build_graph",
    "check_arities",
    "check_functions",
    "check_safety",
    "check_stratifiable",
    "check_types",
    "collect_warnings",
    "normalise_assignments",
    "resolve_equalities",
    "split_body",
    "stratify",
]
