"""AST to IR: terms and expressions, one small function per AST node (``functools.singledispatch``).

>>> from deltalog.syntax.ast import BinaryOp, Constant, Variable
>>> print(expression(BinaryOp("*", Variable("P"), Constant(2, "int"))))
(P * 2)
>>> sorted(variables_of(BinaryOp("+", Variable("A"), Variable("B"))))
['A', 'B']
"""

from __future__ import annotations

from functools import singledispatch

from deltalog.plan import ir
from deltalog.syntax.ast import (
    Assignment,
    Atom,
    BinaryOp,
    Call,
    Comparison,
    Constant,
    Expr,
    Variable,
)


def term(t) -> ir.Term:
    """A body or head term: a constant selects, a variable names a column."""
    return ir.Lit(t) if isinstance(t, Constant) else ir.Col(t.name)


@singledispatch
def expression(e: Expr) -> ir.Expr:
    """The IR form of an AST expression."""
    raise TypeError(f"not an expression: {e!r}")


@expression.register
def _(e: Variable) -> ir.Expr:
    return ir.Col(e.name)


@expression.register
def _(e: Constant) -> ir.Expr:
    return ir.Lit(e)


@expression.register
def _(e: BinaryOp) -> ir.Expr:
    return ir.Arith(e.op, expression(e.left), expression(e.right))


@expression.register
def _(e: Call) -> ir.Expr:
    return ir.Func(e.function, tuple(expression(a) for a in e.args))


@singledispatch
def variables_of(e) -> set[str]:
    """Variables of an atom, expression, comparison or assignment (none for anything else)."""
    return set()


@variables_of.register
def _(e: Variable) -> set[str]:
    return {e.name}


@variables_of.register
def _(e: Atom) -> set[str]:
    return {t.name for t in e.terms if isinstance(t, Variable)}


@variables_of.register(BinaryOp)
@variables_of.register(Comparison)
def _(e) -> set[str]:
    return variables_of(e.left) | variables_of(e.right)


@variables_of.register
def _(e: Call) -> set[str]:
    return set().union(*(variables_of(a) for a in e.args))


@variables_of.register
def _(e: Assignment) -> set[str]:
    return variables_of(e.expr) | {e.variable.name}
