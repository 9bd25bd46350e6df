"""Human-facing output of the CLI: progress over strata (stderr), the --stats tables and their JSON (stdout)."""

from __future__ import annotations

import json
import os
import sys
import time

from deltalog.algorithms.context import Live, StratumStats


def console_for(quiet: bool):
    """A rich console on stderr, or None when quiet."""
    if quiet:
        return None
    from rich.console import Console
    return Console(stderr=True, log_path=False)


PROGRESS_INTERVAL = float(os.environ.get("DELTALOG_PROGRESS_INTERVAL", "10"))
"""Seconds between plain progress lines when stderr is not a terminal (logs, CI)."""


class Progress:
    """Progress over strata: on a terminal a bar naming the stratum, its rounds and facts so far;
    elsewhere a plain line every ``interval`` seconds while a stratum runs long."""

    def __init__(self, console, total: int, *, interval: float | None = None) -> None:
        self._bar, self._total = None, total
        self._interval = PROGRESS_INTERVAL if interval is None else interval
        self._plain = console is not None and not console.is_terminal and total > 0
        self._next = time.monotonic() + self._interval
        if console is not None and console.is_terminal and total > 0:
            from rich.progress import BarColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn
            self._bar = RichProgress(TextColumn("strata"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                                     TextColumn("{task.description}"), TimeElapsedColumn(), console=console,
                                     transient=True)
            self._task = self._bar.add_task("", total=total)

    def __enter__(self) -> "Progress":
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.stop()

    def advance(self, stats: StratumStats) -> None:
        """A stratum is done."""
        if self._bar is not None:
            self._bar.update(self._task, advance=1, description="")
        elif self._plain and stats.seconds >= self._interval:
            self._line(f"stratum {stats.index + 1}/{self._total} ({_names(stats.predicates)}) done: "
                       f"{stats.rounds:,} rounds, {stats.derived:,} facts, {stats.seconds:.1f} s")

    def round(self, live: Live) -> None:
        """A round of a recursive stratum is done: show where the run is."""
        text = (f"stratum {live.stratum.index + 1} ({_names(live.stratum.predicates)}): round {live.rounds:,}, "
                f"{live.derived:,} facts")
        if self._bar is not None:
            self._bar.update(self._task, description=text)
        elif self._plain and time.monotonic() >= self._next:
            self._line(f"{text}, {time.perf_counter() - live.started:.1f} s")

    def _line(self, text: str) -> None:
        print(text, file=sys.stderr, flush=True)
        self._next = time.monotonic() + self._interval


def _names(predicates: tuple[str, ...], most: int = 3) -> str:
    shown = ", ".join(predicates[:most])
    return shown + (f" and {len(predicates) - most} more" if len(predicates) > most else "")


def rules_in_program_order(reasoner, summary) -> list:
    """(position in the program, statistics) of every rule that ran; statistics are keyed by rule id."""
    stats = summary.stats.rules
    return [(info.index, stats[info.id]) for info in reasoner.analysed.rules if info.id in stats]


def _path(reasoner, index: int) -> str:
    """How the rule's bodies were planned: ``hd`` (plan/hypertree.py) or ``standard`` (plan/combined.py)."""
    paths = getattr(reasoner, "rule_paths", {})
    return paths.get(reasoner.analysed.rules[index].id, "standard")


def node_rows(nodes: dict[int, int]) -> str:
    """Rows each hypertree node's in-node joins produced, summed over the rule's evaluations."""
    return " ".join(f"n{p}:{rows:,}" for p, rows in sorted(nodes.items()))


def stats_dict(reasoner, summary) -> dict:
    """The --stats numbers as plain data (``--stats --json``)."""
    rules = [{"rule": r.label, "text": str(reasoner.program.rules[i]), "path": _path(reasoner, i),
              "evaluations": r.evaluations,
              "instances": r.instances, "derived": r.derived, "seconds": round(r.seconds, 6),
              "node_rows": {str(p): n for p, n in sorted(r.nodes.items())}}
             for i, r in rules_in_program_order(reasoner, summary)]
    strata = [{"stratum": s.index, "predicates": list(s.predicates), "rounds": s.rounds, "derived": s.derived,
               "seconds": round(s.seconds, 6)} for s in summary.stats.strata]
    return {"derived": summary.derived, "seconds": round(summary.seconds, 6), "facts": reasoner.fact_count(),
            "memory_bytes": reasoner.backend.memory_bytes(), "strata": strata, "rules": rules,
            "modules": [{"stratum": s.index, "kind": c.kind.value, "predicate": c.predicate,
                         "rules": [r.label for r in c.rules]}
                        for s in reasoner.analysed.strata for c in s.modules if c.predicate]}


def print_stats_json(reasoner, summary) -> None:
    json.dump(stats_dict(reasoner, summary), sys.stdout, indent=2)
    print()


def print_stats(reasoner, summary) -> None:
    """Per-stratum and per-rule time, rule instances considered and facts derived."""
    from rich.console import Console
    from rich.table import Table
    console = Console(file=sys.stdout, width=160)
    strata = Table(title="strata")
    for column in ("stratum", "predicates", "rounds", "facts derived", "seconds"):
        strata.add_column(column, justify="right" if column != "predicates" else "left")
    for s in summary.stats.strata:
        strata.add_row(str(s.index), ", ".join(s.predicates), str(s.rounds), f"{s.derived:,}", f"{s.seconds:.3f}")
    rules = Table(title="rules")
    ordered = rules_in_program_order(reasoner, summary)
    with_nodes = any(r.nodes for _, r in ordered)
    for column in ("rule", "path", "evaluations", "instances", "facts derived", "seconds") + \
            (("node rows",) if with_nodes else ()):
        rules.add_column(column, justify="right" if column not in ("rule", "path", "node rows") else "left")
    for index, r in ordered:
        row = [f"{r.label}: {reasoner.program.rules[index]}", _path(reasoner, index), str(r.evaluations),
               f"{r.instances:,}", f"{r.derived:,}", f"{r.seconds:.3f}"]
        rules.add_row(*row, *([node_rows(r.nodes)] if with_nodes else []))
    console.print(strata)
    console.print(rules)
    from deltalog.cli import module_lines
    for line in module_lines(reasoner.analysed):
        console.print(line)
    console.print(f"total {summary.seconds:.3f} s, memory held by the backend "
                  f"{reasoner.backend.memory_bytes() / 2**20:.1f} MiB")
