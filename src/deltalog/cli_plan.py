"""``deltalog plan PROGRAM.dl [--dot FILE]``: each rule's decomposition (000) and its join plan.

For every rule with a body of two or more atoms: the hypertree decomposition (nodes with χ and λ,
atoms applied as filters, attached negations and comparisons, the width and whether the search
proved it minimal) and the plan the engine evaluates the rule with when all of its atoms are read
in full (statistics: every relation the same size, as nothing is loaded).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_plan_command(commands) -> None:
    plan = commands.add_parser("plan", help="print each rule's hypertree decomposition and join plan")
    plan.add_argument("program")
    plan.add_argument("--dot", metavar="FILE", help="write the decompositions as Graphviz DOT to FILE ('-': stdout)")
    from deltalog.cli_args import add_hd_option
    add_hd_option(plan)


class UniformStats:
    """Planner statistics with nothing loaded: every relation 1,000 rows, each column 100 values;
    ``planners``: the per-rule planner choice of the --hd mode (plan/combined.py)."""

    def __init__(self, planners=None) -> None:
        self.planners = planners or {}

    def rows(self, relation, since, until, visible=None, deleted=None) -> int:
        return 1000

    def distinct(self, relation, positions) -> int:
        return 100


def cmd_plan(args: argparse.Namespace) -> int:
    from deltalog.analysis import analyse
    from deltalog.analysis.hypergraph import rule_decomposition, rule_texts, to_dot
    from deltalog.plan.combined import choose_planners, rule_path
    from deltalog.plan.rules import FULL, rule_plan
    from deltalog.sources import read_program

    program, _, _ = read_program(Path(args.program))
    analysed = analyse(program)
    stats = UniformStats(choose_planners(analysed, args.hd))
    named = []
    for info in analysed.rules:
        if len(info.positive) < 2:
            continue
        decomposition = rule_decomposition(info)
        texts = rule_texts(info)
        named.append((info.label, decomposition, texts))
        print(f"rule {info.index} [{info.id}]: {info.rule}")
        print(f"  {'complex' if decomposition.complex else 'acyclic'}, " + decomposition.lines(*texts)[0])
        for line in decomposition.lines(*texts)[1:]:
            print("    " + line)
        print(f"  plan (--hd {args.hd}: {rule_path(info, args.hd)}):")
        plan = rule_plan(info, [FULL] * len(info.positive), stats)
        for line in str(plan).splitlines():
            print("    " + line)
    if not named:
        print("no rule joins two or more atoms")
    if args.dot:
        dot = to_dot(named)
        if args.dot == "-":
            sys.stdout.write(dot)
        else:
            Path(args.dot).write_text(dot)
    return 0
