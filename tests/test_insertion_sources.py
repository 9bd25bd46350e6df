"""DRed's INSERT collects a stratum's rederived facts (R) only when there are some: a deletion whose
overdeleted facts all stay deleted makes no insertion-round relations, and one whose overdeleted
facts are rederived still brings them back."""

from __future__ import annotations

from deltalog.api import Reasoner
from deltalog.reasoning.workspace import Role

MEMBERS = """
memberOf(X, Y) :- worksFor(X, Y).
member(Y, X) :- memberOf(X, Y).
memberOf(X, Y) :- member(Y, X).
"""


def spied(program: str) -> tuple[Reasoner, list[str]]:
    """A materialised reasoner and the list of relations its backend creates from now on."""
    r = Reasoner(program)
    r.materialise()
    created: list[str] = []
    backend = r.reasoning.backend
    create = backend.create_relation

    def recording(*, relation: str, arity: int, representation: str | None = None) -> None:
        created.append(relation)
        create(relation=relation, arity=arity, representation=representation)

    backend.create_relation = recording
    return r, created


def test_nothing_rederived_makes_no_insertion_rounds():
    r, created = spied(MEMBERS + "worksFor(a, d). worksFor(b, d).")
    result = r.update(delete={"worksFor": [("a", "d")]}, algorithm="dred")
    assert set(result.removed["memberOf"].rows()) == {("a", "d")}
    assert set(result.removed["member"].rows()) == {("d", "a")}
    assert set(r.relation("memberOf").rows()) == {("b", "d")}
    assert result.overdeleted == {"memberOf": 1, "member": 1}
    deltas = {Role.INSERTION_DELTA.of(p) for p in ("member", "memberOf")}
    # (the check before deleting decides every candidate of these inverse renamings: no REDERIVE either,
    # algorithms/unfolding.decides_every_candidate)
    assert Role.REDERIVED.of("memberOf") not in created and not deltas & set(created)


def test_a_rederived_fact_comes_back():
    """member(d, a) is derived by a rule reading lower strata, so memberOf(a, d), overdeleted with
    worksFor(a, d), is rederived. (Were member(d, a) explicit or derived by a renaming rule, the check
    before deleting would keep memberOf(a, d): algorithms/unfolding.py.)"""
    r, created = spied(MEMBERS + "member(Y, X) :- leads(X, Y), active(Y). worksFor(a, d). leads(a, d). active(d).")
    result = r.update(delete={"worksFor": [("a", "d")]}, algorithm="dred")
    assert result.overdeleted == {"memberOf": 1}
    assert "memberOf" not in result.removed and "member" not in result.removed
    assert set(r.relation("memberOf").rows()) == {("a", "d")}
    assert set(r.relation("member").rows()) == {("d", "a")}
    assert Role.INSERTION_DELTA.of("memberOf") in created
