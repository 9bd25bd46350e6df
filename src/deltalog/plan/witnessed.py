"""The node of an existence check (``Witnessed``): some rows of a plan, one per row of its leftmost
leaf that has any, so a backend may stop at a leaf row's first match (``deltalog.plan.ir`` is the one
name to import it by)."""

from __future__ import annotations

from dataclasses import dataclass

from deltalog.plan.algebra import Unary


@dataclass(frozen=True)
class Witnessed(Unary):
    """Some rows of ``input``: for every row of the leaf at the bottom of its left spine (the left
    input of each Join, SemiJoin, AntiJoin, Filter, Bind and Project) that ``input`` extends to an
    output row, at least one such output row. A backend may stop at a leaf row's first witness
    instead of enumerating every extension; evaluating all of ``input`` is also correct.

    This is the existence check of rederivation (001 Algorithm 4, REDERIVE): with the candidate
    head facts as the leaf, one output row per candidate that still has a rule instance.

    >>> from deltalog.plan.ir import Col, Project, Scan
    >>> print(Witnessed(Project(Scan("h", (Col("X"),)), (("c0", Col("X")),))))
    Witnessed
      Project[c0=X]
        Scan h(X) gen[0:)
    """
