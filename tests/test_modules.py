"""003's modules: chosen per stratum during analysis and recorded on the stratum; maintenance
strategies are objects looked up by name (algorithms/strategies.py)."""

import pytest

from deltalog.algorithms.maintain import ALGORITHMS
from deltalog.algorithms.strategies import STRATEGIES
from deltalog.analysis import analyse
from deltalog.analysis.modules import ModuleKind
from deltalog.modules import modules_of
from deltalog.modules.seminaive import SeminaiveModule
from deltalog.reasoning.workspace import Counters
from deltalog.syntax.parser import parse

PROGRAM = """
path(X, Y) :- edge(X, Y).
path(X, Z) :- edge(X, Y), path(Y, Z).
far(X) :- path(X, Y), !edge(X, Y).
"""


def test_each_recursive_stratum_records_one_seminaive_module_with_its_recursive_rules():
    strata = {s.predicates: s for s in analyse(parse(PROGRAM), modules="none").strata}
    path, far = strata[frozenset({"path"})], strata[frozenset({"far"})]
    assert [(m.kind, m.rules) for m in path.modules] == [(ModuleKind.SEMINAIVE, path.recursive)]
    assert far.modules == () and modules_of(far) == []


def test_modules_are_built_from_the_recorded_choice():
    path = next(s for s in analyse(parse(PROGRAM), modules="none").strata if "path" in s.predicates)
    (module,) = modules_of(path)
    assert isinstance(module, SeminaiveModule)
    assert module.rules == path.modules[0].rules and module.predicates == path.predicates


def test_every_algorithm_but_auto_is_a_strategy_object():
    assert set(ALGORITHMS) == set(STRATEGIES) | {"auto"}
    assert all(name == strategy.name for name, strategy in STRATEGIES.items())
    counters = [s.counters for s in STRATEGIES.values() if s.counters is not None]
    assert sorted(c.name for c in counters) == sorted(c.name for c in Counters)   # each kept by one strategy


@pytest.mark.parametrize("algorithm", sorted(STRATEGIES))
def test_each_strategy_maintains_a_recursive_stratum(algorithm):
    from deltalog.api import Reasoner
    r = Reasoner(PROGRAM + "edge(1, 2). edge(2, 3). edge(3, 4).")
    r.materialise()
    result = r.update(delete={"edge": [(2, 3)]}, algorithm=algorithm)
    assert result.algorithm == algorithm
    assert sorted(r.relation("path").rows()) == [(1, 2), (3, 4)]


class RuleBlindModule:
    """A stand-in for a module that derives without rule instances (a closure module): Add/Del/Red/Diff,
    the overdeletion check ``holds`` and what it says of its Del and Add (``deletes_exactly``,
    ``inserts_exactly``) only (the seminaive module's), so Counting and FBF must fall back
    for its stratum without knowing its kind."""

    def __init__(self, choice, stratum):
        inner = SeminaiveModule(choice.rules, stratum.predicates)
        self.rules, self.predicates = inner.rules, inner.predicates
        self.add, self.diff, self.delete, self.rederive, self.insert = (
            inner.add, inner.diff, inner.delete, inner.rederive, inner.insert)
        self.holds, self.rederive_unheld = inner.holds, inner.rederive_unheld
        self.deletes_exactly, self.inserts_exactly = inner.deletes_exactly, inner.inserts_exactly


def test_capabilities_are_the_plug_ins_a_module_has():
    from deltalog.modules.base import BackwardModule, CountingModule, Module
    from deltalog.analysis.modules import ModuleChoice
    from deltalog.api import Reasoner
    stratum = next(s for s in Reasoner(PROGRAM).analysed.strata if "path" in s.predicates)
    blind = RuleBlindModule(ModuleChoice(ModuleKind.SEMINAIVE, stratum.recursive), stratum)
    seminaive = SeminaiveModule(stratum.recursive, stratum.predicates)
    assert isinstance(blind, Module) and not isinstance(blind, (CountingModule, BackwardModule))
    assert isinstance(seminaive, CountingModule) and isinstance(seminaive, BackwardModule)


@pytest.mark.parametrize("algorithm", ["counting", "fbf", "bf"])
def test_a_module_without_a_capability_gets_the_strategys_fallback(monkeypatch, algorithm):
    import deltalog.modules as modules
    from deltalog.algorithms.dred import dred_stratum
    from deltalog.algorithms.dredc import dredc_stratum
    from deltalog.api import Reasoner
    monkeypatch.setitem(modules.IMPLEMENTATIONS, ModuleKind.SEMINAIVE, RuleBlindModule)
    r = Reasoner(PROGRAM + "edge(1, 2). edge(2, 3). edge(3, 4). edge(4, 2).")
    r.materialise()
    path = next(s for s in r.analysed.strata if "path" in s.predicates)
    far = next(s for s in r.analysed.strata if "far" in s.predicates)
    strategy = STRATEGIES[algorithm]
    assert strategy.for_stratum(path) is (dredc_stratum if algorithm == "counting" else dred_stratum)
    assert strategy.for_stratum(far) is strategy.maintain   # no module: nothing to lack
    for change in ({"delete": {"edge": [(2, 3)]}}, {"add": {"edge": [(3, 1)]}}, {"delete": {"edge": [(4, 2)]}}):
        r.update(**change, algorithm=algorithm)
    expected = Reasoner(PROGRAM + "edge(1, 2). edge(3, 4). edge(3, 1).")
    for p in ("path", "far"):
        assert sorted(r.relation(p).rows()) == sorted(expected.relation(p).rows())


STEP_FROM_R = """
f(0, 1).
f(2, 0).
f(3, 4).
f(4, 3).
g(0).
g(2).
p(X, Y) :- f(X, Y).
p(X, Y) :- q(X, Y).
p(X, Z) :- p(X, Y), q(Y, Z).
q(X, Y) :- p(X, Y), g(X).
q(X, Y) :- p(X, Y), X != 1.
"""


@pytest.mark.parametrize("algorithm", ["dred", "dredc", "counting", "fbf", "bf", "auto", "remat"])
def test_a_linear_step_derived_from_the_closure_itself(algorithm):
    """``q`` is derived from ``p`` in p's stratum: a linear module over it measured its losses against the
    steps still there, which held the steps p's lost pairs had derived, so ``p(2, 1)`` and ``q(2, 1)`` kept
    each other after every ``f`` went (stop 21, which then ran the stratum seminaive). The module is taken
    again (stop 22): its Del measures losses against the steps final facts give, Red brings back the rest."""
    import polars as pl
    from deltalog.api import Reasoner

    kinds = [c.kind.value for s in analyse(parse(STEP_FROM_R)).strata for c in s.modules]
    assert kinds == ["seminaive", "linear-transitive"]
    reasoner = Reasoner(STEP_FROM_R)
    reasoner.materialise()
    reasoner.update(delete={"f": pl.DataFrame({"a": [0, 2, 3], "b": [1, 0, 4]})}, algorithm=algorithm)
    assert sorted(reasoner.query("p(X, Y)").rows()) == [(4, 3)]
    assert sorted(reasoner.query("q(X, Y)").rows()) == [(4, 3)]
