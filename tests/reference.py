"""A small, obviously-correct naive evaluator of deltalog programs (docs/semantics.md), the oracle for engine tests."""

from __future__ import annotations

import math
import operator
import re
from collections import defaultdict
from typing import Iterable, Iterator, Mapping

from deltalog.syntax.ast import (
    Aggregate,
    Assignment,
    Atom,
    BinaryOp,
    Call,
    Comparison,
    Constant,
    Expr,
    Literal,
    Negation,
    Variable,
    expr_variables,
    literal_atoms,
)
from deltalog.syntax.statements import Program, Rule

Value = tuple[str, object]
"""A value is ``(kind, python_value)``: ("int", 1), ("float", 1.0), ("string", "a"), ("iri", "http://x")."""
Binding = dict[str, Value]
Materialisation = dict[str, set[tuple[Value, ...]]]

KINDS = ("int", "float", "string", "iri")
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
INT_TEXT = re.compile(r"-?[0-9]+")
FLOAT_TEXT = re.compile(r"-?(?:(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+)")
AGGREGATES = ("count", "sum", "min", "max", "avg", "median")
_ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "%": operator.mod}
_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


class NoResult(Exception):
    """A run-time error (division by zero, wrong kind, int overflow): the rule instance derives nothing."""


# ---------------------------------------------------------------- values


def to_value(constant: Constant) -> Value:
    """The value of an AST constant."""
    if constant.kind == "float":
        return make_float(constant.value)   # -0.0 is 0.0
    converters = {"int": int, "string": str, "iri": str}
    return (constant.kind, converters[constant.kind](constant.value))


def from_python(x: object) -> Value:
    """int -> int, float -> float, str -> string (bool is refused)."""
    for kind, python_type in (("int", int), ("float", float), ("string", str)):
        if isinstance(x, python_type) and not isinstance(x, bool):
            return (kind, python_type(x))
    raise TypeError(f"no deltalog value for {x!r}")


def iri(text: str) -> Value:
    """The IRI value with this text (no angle brackets)."""
    return ("iri", text)


def as_value(x: object) -> Value:
    """A ``(kind, value)`` pair unchanged (checked), anything else through :func:`from_python`."""
    if isinstance(x, tuple):
        if len(x) != 2 or x[0] not in KINDS:
            raise TypeError(f"not a value: {x!r}")
        return x
    return from_python(x)


def is_number(v: Value) -> bool:
    return v[0] in ("int", "float")


def text(v: Value) -> str:
    """The TSV text of a value: ints as digits, floats as repr, strings raw, IRIs in angle brackets."""
    return f"<{v[1]}>" if v[0] == "iri" else plain_text(v)


def plain_text(v: Value) -> str:
    """The text ``concat``/``str`` use: like :func:`text` but an IRI without its brackets."""
    return repr(v[1]) if v[0] == "float" else str(v[1])


def from_text(cell: str) -> Value:
    """Read a text cell: an int, a float, an ``<IRI>``, else a string."""
    if INT_TEXT.fullmatch(cell):
        return ("int", int(cell))
    if FLOAT_TEXT.fullmatch(cell):
        return ("float", float(cell) + 0.0)
    if len(cell) >= 2 and cell[0] == "<" and cell[-1] == ">":
        return ("iri", cell[1:-1])
    return ("string", cell)


def order_key(v: Value) -> tuple:
    """The total order: numbers (numerically, int before float on a tie) < strings < IRIs."""
    kind, x = v
    if kind in ("int", "float"):
        return (0, x, kind == "float")
    return (1 if kind == "string" else 2, x, False)


def make_int(x: int) -> Value:
    if not INT_MIN <= x <= INT_MAX:
        raise NoResult(f"int overflow: {x}")
    return ("int", x)


# ---------------------------------------------------------------- expressions


def evaluate(expr: Expr, binding: Binding) -> Value:
    """The value of an expression under a binding; raises NoResult on a run-time error."""
    if isinstance(expr, Variable):
        return binding[expr.name]
    if isinstance(expr, Constant):
        return to_value(expr)
    if isinstance(expr, BinaryOp):
        return arithmetic(expr.op, evaluate(expr.left, binding), evaluate(expr.right, binding))
    if isinstance(expr, Call):
        return call(expr.function, [evaluate(a, binding) for a in expr.args])
    raise TypeError(f"not an expression: {expr!r}")


def make_float(x: float) -> Value:
    """A float value: infinities and NaN give no result, and -0.0 is 0.0 (docs/semantics.md)."""
    x = float(x)
    if not math.isfinite(x):
        raise NoResult(f"{x} is not a finite float")
    return ("float", x + 0.0)


def arithmetic(op: str, a: Value, b: Value) -> Value:
    """``a op b`` for op in + - * / %."""
    if op == "+" and a[0] == b[0] == "string":
        return ("string", a[1] + b[1])
    if not (is_number(a) and is_number(b)):
        raise NoResult(f"{op} on {a[0]} and {b[0]}")
    if op in "/%" and b[1] == 0:
        raise NoResult("division by zero")
    try:
        result = _ARITHMETIC[op](a[1], b[1])
    except (ArithmeticError, ValueError) as e:
        raise NoResult(str(e)) from e
    if op != "/" and a[0] == b[0] == "int":
        return make_int(result)
    return make_float(result)


def call(function: str, args: list[Value]) -> Value:
    """A built-in function applied to values."""
    arity = {"abs": 1, "min": 2, "max": 2, "str": 1, "int": 1, "float": 1}.get(function)
    if function not in _FUNCTIONS or (arity is not None and len(args) != arity) or not args:
        raise ValueError(f"unknown function {function}/{len(args)}")
    return _FUNCTIONS[function](*args)


def _abs(x: Value) -> Value:
    if x[0] == "int":
        return make_int(abs(x[1]))
    if x[0] == "float":
        return ("float", abs(x[1]))
    raise NoResult(f"abs of {x[0]}")


def _to_int(x: Value) -> Value:
    kind, v = x
    if kind == "int":
        return x
    if kind == "float" and math.isfinite(v):
        return make_int(math.trunc(v))
    if kind == "string" and INT_TEXT.fullmatch(v.strip()):   # surrounding whitespace aside, as Python's int()
        return make_int(int(v))
    raise NoResult(f"int of {x!r}")


def _to_float(x: Value) -> Value:
    kind, v = x
    if kind in ("int", "float"):
        return make_float(v)
    if kind == "string" and (INT_TEXT.fullmatch(v.strip()) or FLOAT_TEXT.fullmatch(v.strip())):
        return make_float(float(v))
    raise NoResult(f"float of {x!r}")


_FUNCTIONS = {
    "abs": _abs,
    "min": lambda a, b: min(a, b, key=order_key),
    "max": lambda a, b: max(a, b, key=order_key),
    "concat": lambda *args: ("string", "".join(plain_text(a) for a in args)),
    "str": lambda a: ("string", plain_text(a)),
    "int": _to_int,
    "float": _to_float,
}


def compare(op: str, a: Value, b: Value) -> bool:
    """``a op b``: two numbers compare numerically (1 = 1.0); other values by kind and value for
    = and !=, and by the total order (numbers < strings < IRIs) for the others."""
    key_a, key_b = comparison_key(a), comparison_key(b)
    if op == "=":
        return key_a == key_b
    if op == "!=":
        return key_a != key_b
    return _ORDER[op](key_a, key_b)


def comparison_key(v: Value) -> tuple:
    """The order key without the int-before-float tie break: comparisons see only the number."""
    return order_key(v)[:2]


# ---------------------------------------------------------------- aggregates


def aggregate(function: str, values: list[Value]) -> Value:
    """Aggregate the ``Arg`` values of a group's distinct bindings (one value per binding)."""
    if function == "count":
        return ("int", len(values))
    if function in ("min", "max"):
        return (min if function == "min" else max)(values, key=order_key)
    if not all(is_number(v) for v in values):
        raise NoResult(f"{function} over a non-number")
    numbers = [x for _, x in values]
    all_ints = all(kind == "int" for kind, _ in values)
    if function == "sum":
        return make_int(sum(numbers)) if all_ints else make_float(_float_sum(numbers))
    if function == "avg":
        return make_float((sum(numbers) if all_ints else _float_sum(numbers)) / len(numbers))
    if function == "median":
        return _median(values)
    raise ValueError(f"unknown aggregate {function}")


def _float_sum(numbers: list) -> float:
    """The exactly rounded sum (order-independent, as befits a set)."""
    try:
        return math.fsum(numbers)
    except (OverflowError, ValueError):
        return float(sum(sorted(numbers)))


def _median(values: list[Value]) -> Value:
    ordered = sorted(values, key=order_key)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return make_float((ordered[middle - 1][1] + ordered[middle][1]) / 2)


# ---------------------------------------------------------------- stratification and safety


def predicates(program: Program) -> set[str]:
    """Every predicate the program mentions (heads, bodies, aggregate bodies, facts)."""
    names = {f.atom.predicate for f in program.facts}
    for rule in program.rules:
        names.add(rule.head.predicate)
        names |= {a.predicate for lit in rule.body for a in literal_atoms(lit)}
    return names


def dependencies(rule: Rule) -> list[tuple[str, int]]:
    """``(body predicate, 0 or 1)``: 1 when the head must be in a strictly higher stratum."""
    deps = []
    for lit in rule.body:
        if isinstance(lit, Atom):
            deps.append((lit.predicate, 0))
        elif isinstance(lit, (Negation, Aggregate)):
            deps += [(a.predicate, 1) for a in literal_atoms(lit)]
    return deps


def stratify(program: Program) -> dict[str, int]:
    """The least stratum of every predicate; ValueError if there is none (negation/aggregation in a cycle)."""
    preds = predicates(program)
    stratum = dict.fromkeys(preds, 0)
    changed = True
    while changed:
        changed = False
        for rule in program.rules:
            need = max((stratum[p] + step for p, step in dependencies(rule)), default=0)
            if need > stratum[rule.head.predicate]:
                stratum[rule.head.predicate] = need
                changed = True
                if need > len(preds):
                    raise ValueError(f"not stratifiable: {rule.head.predicate} depends negatively on itself")
    return stratum


def literal_variables(lit: Literal) -> set[str]:
    """Names of all variables of a literal (an aggregate's result, argument and body included)."""
    if isinstance(lit, Atom):
        return {t.name for t in lit.terms if isinstance(t, Variable)}
    if isinstance(lit, Negation):
        return literal_variables(lit.atom)
    if isinstance(lit, Comparison):
        return {v.name for v in expr_variables(lit.left) + expr_variables(lit.right)}
    if isinstance(lit, Assignment):
        return {lit.variable.name} | {v.name for v in expr_variables(lit.expr)}
    if isinstance(lit, Aggregate):
        arg = {lit.arg.name} if isinstance(lit.arg, Variable) else set()
        return {lit.result.name} | arg | _body_variables(lit.body)
    raise TypeError(f"not a literal: {lit!r}")


def _body_variables(body: Iterable[Literal]) -> set[str]:
    return set().union(*(literal_variables(lit) for lit in body))


def _others(body: tuple[Literal, ...], i: int, outside: set[str]) -> set[str]:
    """Variables occurring outside literal ``i``: in ``outside`` or in another literal of the body."""
    return outside | _body_variables(lit for j, lit in enumerate(body) if j != i)


def plan_body(body: tuple[Literal, ...], outside: set[str]) -> tuple[list[tuple], set[str]]:
    """Steps evaluating a body, and the variables they bind; ValueError if some literal never gets its inputs.

    Aggregates come first (each is a relation of its own, computed once), then the positive atoms in
    source order, then repeatedly the first ready literal among assignments, comparisons and negations.
    """
    steps = [plan_aggregate(lit, _others(body, i, outside)) for i, lit in enumerate(body) if isinstance(lit, Aggregate)]
    bound = set().union(*({*step[2], step[1].result.name} for step in steps))
    steps += [("atom", lit) for lit in body if isinstance(lit, Atom)]
    bound |= _body_variables(lit for lit in body if isinstance(lit, Atom))
    pending = [(i, lit) for i, lit in enumerate(body) if not isinstance(lit, (Atom, Aggregate))]
    while pending:
        ready = [(i, lit, step) for i, lit in pending if (step := _ready(lit, bound, _others(body, i, outside)))]
        if not ready:
            raise ValueError(f"unsafe: cannot bind the inputs of {', '.join(str(lit) for _, lit in pending)}")
        i, lit, step = ready[0]
        pending.remove((i, lit))
        steps.append(step)
        if step[0] == "assign":
            bound.add(step[1])
    return steps, bound


def _ready(lit: Literal, bound: set[str], others: set[str]) -> tuple | None:
    """The step for a non-generating literal if its inputs are bound, else None."""
    if isinstance(lit, Negation):
        return ("not", lit.atom) if literal_variables(lit) & others <= bound else None
    if isinstance(lit, Assignment):
        lit = Comparison("=", lit.variable, lit.expr)
    left, right = ({v.name for v in expr_variables(side)} for side in (lit.left, lit.right))
    if left | right <= bound:
        return ("filter", lit.op, lit.left, lit.right)
    if lit.op == "=" and isinstance(lit.left, Variable) and lit.left.name not in bound and right <= bound:
        return ("assign", lit.left.name, lit.right)
    if lit.op == "=" and isinstance(lit.right, Variable) and lit.right.name not in bound and left <= bound:
        return ("assign", lit.right.name, lit.left)
    return None


def plan_aggregate(agg: Aggregate, others: set[str]) -> tuple:
    """``("aggregate", agg, group variables, body steps)``; ValueError if unsafe."""
    if agg.function not in AGGREGATES or (agg.arg is None and agg.function != "count"):
        raise ValueError(f"bad aggregate {agg}")
    arg = {agg.arg.name} if isinstance(agg.arg, Variable) else set()
    body_vars = _body_variables(agg.body)
    if agg.result.name in body_vars | arg:
        raise ValueError(f"unsafe: aggregate result {agg.result} occurs in its own body")
    steps, bound = plan_body(agg.body, others | arg)
    group = tuple(sorted(body_vars & others))
    if not set(group) | arg <= bound:
        raise ValueError(f"unsafe: aggregate {agg} leaves {(set(group) | arg) - bound} unbound")
    return ("aggregate", agg, group, steps)


def plan_rule(rule: Rule) -> list[tuple]:
    """The evaluation steps of a rule; ValueError if the rule is unsafe."""
    head = literal_variables(rule.head)
    steps, bound = plan_body(rule.body, head)
    if not head <= bound:
        raise ValueError(f"unsafe: head variables {sorted(head - bound)} are not bound in {rule}")
    return steps


def check_program(program: Program) -> dict[str, int]:
    """Raise ValueError unless every rule is safe and the program stratifies; return the strata."""
    for rule in program.rules:
        plan_rule(rule)
    return stratify(program)


# ---------------------------------------------------------------- evaluation


def match(terms: tuple, fact: tuple, binding: Binding) -> Binding | None:
    """Extend ``binding`` so that ``terms`` equal ``fact``, or None."""
    if len(terms) != len(fact):
        return None
    extended = dict(binding)
    for term, value in zip(terms, fact):
        if isinstance(term, Constant):
            if to_value(term) != value:
                return None
        elif extended.setdefault(term.name, value) != value:
            return None
    return extended


def solve(steps: list[tuple], db: Materialisation, binding: Binding) -> Iterator[Binding]:
    """Every binding extending ``binding`` that satisfies the steps, by nested loops."""
    if not steps:
        yield binding
        return
    for extended in _run_step(steps[0], db, binding):
        yield from solve(steps[1:], db, extended)


def _run_step(step: tuple, db: Materialisation, binding: Binding) -> Iterable[Binding]:
    kind = step[0]
    if kind == "atom":
        matches = (match(step[1].terms, fact, binding) for fact in db.get(step[1].predicate, ()))
        return (b for b in matches if b is not None)
    if kind == "aggregate":
        merged = (_merge(binding, row) for row in aggregate_rows(step, db))
        return (b for b in merged if b is not None)
    if kind == "not":
        facts = db.get(step[1].predicate, ())
        return [] if any(match(step[1].terms, fact, binding) is not None for fact in facts) else [binding]
    try:
        if kind == "assign":
            return [{**binding, step[1]: evaluate(step[2], binding)}]
        return [binding] if compare(step[1], evaluate(step[2], binding), evaluate(step[3], binding)) else []
    except NoResult:
        return []


def _merge(binding: Binding, row: Binding) -> Binding | None:
    if any(binding.get(name, value) != value for name, value in row.items()):
        return None
    return {**binding, **row}


def aggregate_rows(step: tuple, db: Materialisation) -> list[Binding]:
    """One binding of (group variables, result) per non-empty group whose aggregate has a value."""
    _, agg, group, steps = step
    distinct = {frozenset(b.items()) for b in solve(steps, db, {})}
    groups: dict[tuple, list[Value]] = defaultdict(list)
    for frozen in distinct:
        b = dict(frozen)
        groups[tuple(b[g] for g in group)].append(evaluate(agg.arg, b) if agg.arg is not None else ("int", 1))
    rows = []
    for key, values in groups.items():
        try:
            rows.append({**dict(zip(group, key)), agg.result.name: aggregate(agg.function, values)})
        except NoResult:
            pass
    return rows


def ground(atom: Atom, binding: Binding) -> tuple[Value, ...]:
    return tuple(to_value(t) if isinstance(t, Constant) else binding[t.name] for t in atom.terms)


def derive(rule: Rule, steps: list[tuple], db: Materialisation) -> set[tuple[Value, ...]]:
    """The head facts of every instance of the rule over ``db``."""
    return {ground(rule.head, b) for b in solve(steps, db, {})}


def fixpoint(rules: list[tuple[Rule, list[tuple]]], db: Materialisation) -> None:
    """Naive fixpoint of one stratum: apply every rule to everything until nothing new appears."""
    while True:
        new = {(r.head.predicate, t) for r, steps in rules for t in derive(r, steps, db)}
        new = {(p, t) for p, t in new if t not in db[p]}
        if not new:
            return
        for p, t in new:
            db[p].add(t)


def naive_materialise(program: Program, facts: Mapping[str, Iterable[tuple]] | None = None) -> Materialisation:
    """Every fact the program derives from its own facts plus ``facts``, for every predicate it mentions.

    ``facts`` maps a predicate to tuples of values (``(kind, value)`` pairs, or plain int/float/str).
    """
    db: Materialisation = defaultdict(set)
    for fact in program.facts:
        db[fact.atom.predicate].add(ground(fact.atom, {}))
    for pred, rows in (facts or {}).items():
        db[pred] |= {tuple(as_value(x) for x in row) for row in rows}
    strata = check_program(program)
    plans = [(rule, plan_rule(rule)) for rule in program.rules]
    for level in sorted({strata[r.head.predicate] for r in program.rules}):
        fixpoint([(r, s) for r, s in plans if strata[r.head.predicate] == level], db)
    return {p: set(db[p]) for p in predicates(program) | set(db)}


def query(materialisation: Mapping[str, set[tuple]], atom: Atom) -> set[tuple[Value, ...]]:
    """The facts of ``atom``'s predicate that match it (constants equal, repeated variables equal)."""
    return {t for t in materialisation.get(atom.predicate, ()) if match(atom.terms, t, {}) is not None}
