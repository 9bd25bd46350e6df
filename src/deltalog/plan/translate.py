"""AST to IR: terms, and expressions with one small function per AST node (``functools.singledispatch``).

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


def variables_of(e) -> set[str]:
    """Variables of an atom, expression, comparison or assignment (none for anything else).
    (Plain isinstance tests: planners call this in their inner loops, where dispatch costs show.)"""
    if isinstance(e, Atom):
        return {t.name for t in e.terms if isinstance(t, Variable)}
    if isinstance(e, Variable):
        return {e.name}
    if isinstance(e, (BinaryOp, Comparison)):
        return variables_of(e.left) | variables_of(e.right)
    if isinstance(e, Call):
        return set().union(*(variables_of(a) for a in e.args))
    if isinstance(e, Assignment):
        return variables_of(e.expr) | {e.variable.name}
    return set()
