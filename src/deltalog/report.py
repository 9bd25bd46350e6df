"""Human-facing output of the CLI: progress over strata and the --stats tables (rich, on stderr)."""

from __future__ import annotations

import sys

from deltalog.algorithms.context import StratumStats


def console_for(quiet: bool):
    """A rich console on stderr, or None when quiet."""
    if quiet:
        return None
    from rich.console import Console
    return Console(stderr=True, log_path=False)


class Progress:
    """A progress bar over strata, shown only on a terminal (long runs are what it is for)."""

    def __init__(self, console, total: int) -> None:
        self._bar = None
        if console is not None and console.is_terminal and total > 0:
            from rich.progress import BarColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn
            self._bar = RichProgress(TextColumn("strata"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                                     TimeElapsedColumn(), console=console, transient=True)
            self._task = self._bar.add_task("materialise", total=total)

    def __enter__(self) -> "Progress":
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.stop()

    def advance(self, stats: StratumStats) -> None:
        if self._bar is not None:
            self._bar.advance(self._task)


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
    for column in ("rule", "evaluations", "instances", "facts derived", "seconds"):
        rules.add_column(column, justify="right" if column != "rule" else "left")
    for index, r in sorted(summary.stats.rules.items()):
        rules.add_row(f"{r.label}: {reasoner.program.rules[index]}", str(r.evaluations), f"{r.instances:,}",
                      f"{r.derived:,}", f"{r.seconds:.3f}")
    console.print(strata)
    console.print(rules)
    console.print(f"total {summary.seconds:.3f} s, memory held by the backend "
                  f"{reasoner.backend.memory_bytes() / 2**20:.1f} MiB")
