"""The combined approach of 000 section 5: the Yannakakis planner (plan/hypertree.py) for complex
rules, the greedy planner for the rest; the choice is made once per rule, when the reasoning is set up.

Modes (``Reasoner(..., hd=...)``, ``--hd`` on the CLI):
- ``auto``: the hypertree path for complex rules (000's cyclic rules: decomposition width > 1,
  analysis/hypergraph.py) and for long acyclic rules whose decomposition projects early (below);
  on this path each body is planned by its decomposition only where the estimated cost (from the
  statistics at planning time: plan/hypertree.py, ``guarded``) is well below the greedy plan's,
  since the greedy planner already avoids most blow-ups (group semi-joins, delta first);
- ``off``: the greedy planner everywhere (000's "standard" approach);
- ``all``: the hypertree path for every rule with two or more atoms (000's "HD" approach).

The cost model is structural (no data is loaded when the choice is made): an acyclic body gains
from a decomposition when some node relation can drop a variable that a left-deep plan would
carry through later joins, i.e. a node has a variable local to it that the head does not need
while the body has at least :data:`LONG_BODY` atoms (long chains whose middle is projected away).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from deltalog.analysis.normalise import atom_variables

if TYPE_CHECKING:
    from deltalog.analysis.program import AnalysedProgram, RuleInfo
    from deltalog.plan.query import Planner

HD_MODES = ("auto", "off", "all")
DEFAULT_HD = os.environ.get("DELTALOG_HD", "off")   # the environment sets it for whole test runs
LONG_BODY = 6
HD_PATH, STANDARD_PATH = "hd", "standard"


def rule_path(info: RuleInfo, mode: str) -> str:
    """``hd`` or ``standard``: how the rule's bodies are planned in ``mode``."""
    if mode not in HD_MODES:
        raise ValueError(f"hd must be one of {', '.join(HD_MODES)}, not {mode!r}")
    if mode == "off" or len(info.positive) < 2:
        return STANDARD_PATH
    if mode == "all":
        return HD_PATH
    from deltalog.analysis.hypergraph import rule_decomposition   # only "auto" decomposes (start-up time)
    decomposition = rule_decomposition(info)
    return HD_PATH if decomposition.complex or _projects_early(info, decomposition) else STANDARD_PATH


def _projects_early(info: RuleInfo, decomposition) -> bool:
    if len(info.positive) < LONG_BODY or len(decomposition.nodes) < 2:
        return False
    head = {v.name for v in atom_variables(info.head)}
    for p, node in enumerate(decomposition.nodes):
        others = set().union(*(q.chi for i, q in enumerate(decomposition.nodes) if i != p))
        if node.chi - others - head and p != decomposition.root:
            return True
    return False


def rule_paths(program: AnalysedProgram, mode: str) -> dict[str, str]:
    """Per rule id, its path in ``mode``."""
    return {info.id: rule_path(info, mode) for info in program.rules}


def choose_planners(program: AnalysedProgram, mode: str) -> dict[str, Planner]:
    """Per rule id, the planner of the rules on the hypertree path (the others use the default)."""
    if mode == "off":
        return {}   # no rule on the hypertree path, and no need to import its planner
    from deltalog.plan.hypertree import YannakakisPlanner
    planner = YannakakisPlanner(guarded=mode == "auto")
    return {rule: planner for rule, path in rule_paths(program, mode).items() if path == HD_PATH}
