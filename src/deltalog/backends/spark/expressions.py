"""IR expressions as Spark Columns over tagged strings, following docs/semantics.md exactly.

A value is a tagged string Column (see codec.py); null means "no value" (division by zero,
a wrong kind, an int overflow), and the operator that asked drops the row. Ints compute
with Spark's ``try_*`` functions (null on overflow), floats as IEEE doubles; a computed
float is turned back into text by a pandas UDF applying Python's ``repr``, the one place
Spark cannot match Python by itself (Java's double-to-text differs).
"""

from __future__ import annotations

from functools import singledispatch
from typing import Callable

from pyspark.sql import Column, DataFrame, functions as F
from pyspark.sql.types import StringType

from deltalog.plan.ir import Arith, Col, Compare, Func, Lit
from deltalog.backends.spark.codec import format_float, tag_constant

INT64_MIN = -(2**63)
TWO_63 = float(2**63)
# Python's str.strip() whitespace (int("...") and float("...") ignore it), as a Java regex class
_SPACE = r"[\s\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
INT_RE = r"^-?[0-9]+$"
FLOAT_RE = r"^-?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][-+]?[0-9]+)?$"


def column(name: str) -> Column:
    """A column by its plan name, quoted (variables such as ``?x`` are no SQL identifiers)."""
    return F.col("`" + name.replace("`", "``") + "`")


@F.pandas_udf(StringType())  # type: ignore[call-overload, unused-ignore]  # PySpark stubs lack the type-hint-free form
def _float_text(values):
    # object dtype: pandas 3's Arrow-backed strings come back as chunked arrays PySpark cannot take
    return values.map(format_float, na_action="ignore").astype(object)


def tag_double(d: Column) -> Column:
    """Tagged text of a double Column (null stays null; NaN and infinities become null)."""
    return F.when(~F.isnan(d) & (F.abs(d) != float("inf")), _float_text(d))


def tag_long(n: Column) -> Column:
    return F.concat(F.lit("i"), n.cast("string"))


def kind(v: Column) -> Column:
    return F.substring(v, 1, 1)


def body(v: Column) -> Column:
    return F.substr(v, F.lit(2))


def as_long(v: Column) -> Column:
    return F.when(kind(v) == "i", body(v).try_cast("long"))


def as_double(v: Column) -> Column:
    """The numeric value of ints and floats (ints rounded to the nearest double, as numpy does)."""
    return F.when(kind(v) == "i", body(v).try_cast("long").cast("double")) \
        .when(kind(v) == "f", body(v).try_cast("double"))


def residual(v: Column) -> Column:
    """What an int exceeds its nearest double by (0 for other values): with the double, an exact order
    key of numbers (backends/local/decoded.residuals; 9007199254740993 > 9007199254740992.0)."""
    n, d = as_long(v), as_double(v)
    exact = F.when(d >= TWO_63, (n - F.lit(2**62)) - F.lit(2**62)).otherwise(n - d.cast("long"))
    return F.when(kind(v) == "i", exact).otherwise(F.lit(0))


def is_number(v: Column) -> Column:
    return kind(v).isin("i", "f")


def kind_code(v: Column) -> Column:
    """0 int, 1 float, 2 string, 3 IRI, 4 literal (the order min/max use to break an int-float tie)."""
    return F.when(kind(v) == "i", 0).when(kind(v) == "f", 1).when(kind(v) == "s", 2).when(kind(v) == "r", 3) \
        .otherwise(4)


def rank(v: Column) -> Column:
    """Group of the total order: numbers 0, strings 1, IRIs 2, literals 3."""
    return F.when(is_number(v), 0).when(kind(v) == "s", 1).when(kind(v) == "r", 2).otherwise(3)


@singledispatch
def value(expr) -> Column:
    raise TypeError(f"the Spark backend cannot evaluate {expr!r}")


@value.register
def _col(expr: Col) -> Column:
    return column(expr.name)


@value.register
def _lit(expr: Lit) -> Column:
    return F.lit(tag_constant(expr.constant.kind, expr.constant.value))


@value.register
def _arith(expr: Arith) -> Column:
    return apply(expr, [value(expr.left), value(expr.right)])


def arguments(expr) -> tuple:
    return expr.args if isinstance(expr, Func) else (expr.left, expr.right)


def apply(expr, args: list[Column]) -> Column:
    """A compound expression over the Columns of its arguments."""
    if isinstance(expr, Func):
        return FUNCTIONS[expr.name](*args)
    a, b = args
    if isinstance(expr, Compare):
        return order(expr.op, a, b)
    out = arithmetic(expr.op, a, b)
    if expr.op == "+":
        return F.when((kind(a) == "s") & (kind(b) == "s"), F.concat(F.lit("s"), body(a), body(b))).otherwise(out)
    return out


def staged(expr, rows: DataFrame, temps: list[str]) -> tuple[DataFrame, Column]:
    """``expr`` as a Column over ``rows``, each compound argument first computed into a column of its own
    (named in ``temps``): inlined, nested expressions grow exponentially and break Spark's code generation."""
    if isinstance(expr, (Col, Lit)):
        return rows, value(expr)
    args = []
    for arg in arguments(expr):
        rows, arg_value = staged(arg, rows, temps)
        if isinstance(arg, (Arith, Func)):
            temps.append(f"_e{len(temps)}")
            rows, arg_value = rows.withColumn(temps[-1], arg_value), column(temps[-1])
        args.append(arg_value)
    return rows, apply(expr, args)


def arithmetic(op: str, a: Column, b: Column) -> Column:
    """a op b on numbers: int op int exact (null on overflow), else IEEE doubles; ``/`` always a float."""
    both_int = (kind(a) == "i") & (kind(b) == "i")
    numbers = is_number(a) & is_number(b)
    x, y = as_double(a), as_double(b)
    if op == "/":
        return F.when(numbers & (y != 0), tag_double(F.try_divide(x, y)))
    floats = F.when(numbers, tag_double(_float_op(op, x, y)))
    return F.when(both_int, tag_long(_int_op(op, as_long(a), as_long(b)))).otherwise(floats)


def _int_op(op: str, x: Column, y: Column) -> Column:
    if op == "+":
        return F.try_add(x, y)
    if op == "-":
        return F.try_subtract(x, y)
    if op == "*":
        return F.try_multiply(x, y)
    return python_mod(x, y)


def python_mod(x: Column, y: Column) -> Column:
    """Python's ``%``: the result has the sign of the divisor (Spark's ``%`` and pmod do not), null for y = 0."""
    r = F.when(y != 0, F.try_mod(x, y))
    return F.when((r != 0) & ((r < 0) != (y < 0)), r + y).otherwise(r)


def _float_op(op: str, x: Column, y: Column) -> Column:
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    return python_mod(x, y)


@value.register
def _func(expr: Func) -> Column:
    return apply(expr, [value(a) for a in expr.args])


def _abs(a: Column) -> Column:
    """|a|: an int (but the smallest, whose negation overflows), or a float (its text without the sign)."""
    n = as_long(a)
    return F.when((kind(a) == "i") & (n != INT64_MIN), tag_long(F.abs(n))) \
        .when(kind(a) == "f", F.concat(F.lit("f"), F.regexp_replace(body(a), "^-", "")))


def _min(a: Column, b: Column) -> Column:
    return F.when(a.isNotNull() & b.isNotNull(), F.when(order("<=", a, b, tie_break=True), a).otherwise(b))


def _max(a: Column, b: Column) -> Column:
    return F.when(a.isNotNull() & b.isNotNull(), F.when(order(">=", a, b, tie_break=True), a).otherwise(b))


def _concat(*args: Column) -> Column:
    """Text of every argument (ints digits, floats repr, IRIs without brackets, literals' lexical forms)."""
    from deltalog.backends.spark.codec import lexical_text
    return F.concat(F.lit("s"), *[lexical_text(a) for a in args])


def _str(a: Column) -> Column:
    return _concat(a)


def _number_of_text(a: Column) -> tuple[Column, Column]:
    """(long, double) read from a string the way parse_number_text does: an int when it fits 64 bits, else a float."""
    text = F.regexp_replace(body(a), f"^{_SPACE}+|{_SPACE}+$", "")
    is_int = text.rlike(INT_RE)
    n = F.when(is_int, text.try_cast("long"))
    d = F.when(is_int & n.isNotNull(), n.cast("double")).when(text.rlike(FLOAT_RE), text.try_cast("double"))
    return n, d


def _int(a: Column) -> Column:
    """int(x): ints as they are, floats truncated toward zero, strings that read as 64-bit ints; else no value."""
    n, _ = _number_of_text(a)
    d = as_double(a)
    return F.when(kind(a) == "i", a).when(kind(a) == "f", F.when(F.abs(d) < TWO_63, tag_long(d.cast("long")))) \
        .when(kind(a) == "s", tag_long(n))


def _float(a: Column) -> Column:
    """float(x): numbers, and strings that read as numbers; else no value."""
    _, d = _number_of_text(a)
    return F.when(kind(a) == "f", a).when(kind(a) == "i", tag_double(as_double(a))) \
        .when(kind(a) == "s", tag_double(d))


FUNCTIONS: dict[str, Callable[..., Column]] = {
    "abs": _abs, "min": _min, "max": _max, "concat": _concat, "str": _str, "int": _int, "float": _float}


def order(op: str, a: Column, b: Column, *, tie_break: bool = False) -> Column:
    """a op b under the total order (numbers numerically < strings by code point < IRIs), false where
    either side has no value. With ``tie_break`` an int sorts before an equal float; ``same`` holds
    for the same constant (kind and value), as a join matches."""
    if op == "same":   # the same constant: equal tagged texts (kind and value)
        return F.coalesce(a == b, F.lit(False))
    ra, rb = rank(a), rank(b)
    both_int = (kind(a) == "i") & (kind(b) == "i")
    da, db, same_double = as_double(a), as_double(b), as_double(a) == as_double(b)
    less_n = F.when(both_int, as_long(a) < as_long(b)) \
        .otherwise((da < db) | (same_double & (residual(a) < residual(b))))
    equal_n = F.when(both_int, as_long(a) == as_long(b)).otherwise(same_double & (residual(a) == residual(b)))
    if tie_break:
        less_n = less_n | (equal_n & (kind_code(a) < kind_code(b)))
        equal_n = equal_n & (kind(a) == kind(b))
    less = (ra < rb) | ((ra == rb) & F.when(ra == 0, less_n).otherwise(body(a) < body(b)))
    equal = (ra == rb) & F.when(ra == 0, equal_n).otherwise(body(a) == body(b))
    result = {"=": equal, "!=": ~equal, "<": less, "<=": less | equal, ">": ~less & ~equal, ">=": ~less}[op]
    return F.coalesce(a.isNotNull() & b.isNotNull() & result, F.lit(False))


