"""The expressions of plans: column references, constants, arithmetic, built-in function calls and
comparisons (``deltalog.plan.ir`` is the one name to import them by, with the plan nodes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from deltalog.syntax.ast import Constant


@dataclass(frozen=True)
class Col:
    """A reference to a named column."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Lit:
    """A constant, carried as its typed value; backends encode it with their dictionary."""

    constant: Constant

    def __str__(self) -> str:
        return str(self.constant)


@dataclass(frozen=True)
class Arith:
    """``left op right`` with op in + - * / %."""

    op: str
    left: "Expr"
    right: "Expr"

    def __str__(self) -> str:
        return f"({self.left} {self.op} {self.right})"


@dataclass(frozen=True)
class Func:
    """A built-in function call (abs, min, max, concat, str, int, float)."""

    name: str
    args: tuple["Expr", ...]

    def __str__(self) -> str:
        return f"{self.name}({', '.join(map(str, self.args))})"


@dataclass(frozen=True)
class Compare:
    """``left op right`` with op in = != < <= > >= (docs/semantics.md: numbers compare numerically),
    or ``same``: the two sides are the same constant (same kind and value), as a join would require."""

    op: str
    left: "Expr"
    right: "Expr"

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


Expr = Union[Col, Lit, Arith, Func, Compare]
Term = Union[Col, Lit]
