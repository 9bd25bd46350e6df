"""The update's workspace (reasoning/workspace.py): scratch relations by role, told from user relations
by membership, every relation name spelt in one place."""

import polars as pl

from deltalog.algorithms import maintain
from deltalog.api import Reasoner
from deltalog.backends.local.backend import LocalBackend
from deltalog.reasoning.workspace import Counters, Role, Workspace, explicit_relation

TC = "path(X, Y) :- edge(X, Y).\npath(X, Z) :- edge(X, Y), path(Y, Z).\nedge(1, 2). edge(2, 3).\n"


def test_scratch_relations_are_told_apart_by_membership():
    backend = LocalBackend()
    backend.create_relation(relation="edge", arity=2)
    workspace = Workspace(backend)
    name = workspace.relation(Role.ADDED, "edge", 2)
    assert name in workspace and "edge" not in workspace and name in backend.relations()
    assert workspace.get(Role.ADDED, "edge") == name and workspace.get(Role.DELETED, "edge") is None
    assert workspace.relation(Role.ADDED, "edge", 2) == name   # one relation per role and predicate
    workspace.drop_all()
    assert name not in backend.relations() and "edge" in backend.relations()


def test_predicates_by_role_ignore_other_roles():
    workspace = Workspace(LocalBackend())
    workspace.relation(Role.RAW_ADDED, "b", 1)
    workspace.relation(Role.ADDED, "b", 1)
    workspace.relation(Role.ADDED, "a", 1)
    workspace.relation(Role.LOST_DERIVATION, "c", 1)
    assert workspace.predicates(Role.ADDED) == ["a", "b"]
    assert workspace.predicates(Role.LOST_DERIVATION) == ["c"]


def test_every_name_is_distinct_and_clear_of_predicate_names():
    names = [role.of("p") for role in Role] + [c.relation("p") for c in Counters] + [explicit_relation("p")]
    assert len(set(names)) == len(names)
    assert all(not n.isidentifier() for n in names)   # a predicate name is an identifier


def test_set_aside_and_restore():
    backend = LocalBackend()
    backend.create_relation(relation="path", arity=2)
    workspace = Workspace(backend)
    aside = workspace.set_aside("path")
    assert aside in workspace and "path" not in backend.relations()
    backend.create_relation(relation="path", arity=2)
    workspace.restore_set_aside()
    assert aside not in backend.relations() and "path" in backend.relations() and aside not in workspace


def test_an_update_leaves_no_scratch_relation_behind(monkeypatch):
    r = Reasoner(TC)
    r.materialise()
    before = set(r.backend.relations())
    seen = {}
    original = maintain.collect_changes

    def spy(update, result):
        seen.update(scratch=list(update.workspace))
        return original(update, result)

    monkeypatch.setattr(maintain, "collect_changes", spy)
    r.update(add={"edge": pl.DataFrame({"c0": [3], "c1": [4]})}, delete={"edge": [(1, 2)]}, algorithm="dred")
    assert Role.RAW_ADDED.of("edge") in seen["scratch"] and Role.REDERIVED.of("path") in seen["scratch"]
    assert set(r.backend.relations()) == before
