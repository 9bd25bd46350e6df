"""Stable rule identities (analysis/identity.py): independent of position, label wins, content-sensitive."""

from deltalog.api import Reasoner
import json

from deltalog.analysis import analyse
from deltalog.analysis.identity import compare_rules
from deltalog.store import layout
from deltalog.syntax.parser import parse

TC = "path(X, Y) :- edge(X, Y).\npath(X, Z) :- edge(X, Y), path(Y, Z).\n"
SWAPPED = "path(X, Z) :- edge(X, Y), path(Y, Z).\npath(X, Y) :- edge(X, Y).\n"


def ids(text: str) -> dict[str, str]:
    return {str(info.rule): info.id for info in analyse(parse(text)).rules}


def test_ids_do_not_depend_on_rule_order():
    assert ids(TC) == ids(SWAPPED)


def test_label_wins_over_content():
    found = ids("base: path(X, Y) :- edge(X, Y).\n")
    assert list(found.values()) == ["base"]


def test_id_changes_when_the_rule_changes():
    before, after = ids(TC), ids("path(X, Y) :- edge(Y, X).\npath(X, Z) :- edge(X, Y), path(Y, Z).\n")
    assert set(before.values()) != set(after.values())
    assert len(set(before.values()) & set(after.values())) == 1   # the unchanged recursive rule keeps its id


def test_identical_rules_get_distinct_ids():
    rules = analyse(parse("p(X) :- q(X).\np(X) :- q(X).\nr: s(X) :- q(X).\nr: t(X) :- q(X).\n")).rules
    assert len({info.id for info in rules}) == 4


def test_statistics_and_metrics_are_keyed_by_rule_id():
    stats = {}
    for text in (TC, SWAPPED):
        r = Reasoner(text + "edge(1, 2). edge(2, 3). edge(3, 4).", modules="none")   # seminaive instances
        r.materialise()
        stats[text] = {key: (s.derived, s.instances) for key, s in r.reasoning.stats.rules.items()}
        assert set(stats[text]) == {info.id for info in r.analysed.rules}
    assert stats[TC] == stats[SWAPPED]
    assert all(instances > 0 for _, instances in stats[TC].values())


def test_compare_rules_maps_a_changed_rule_set_onto_the_old_one():
    old = analyse(parse(TC + "big(X) :- path(X, Y), Y > 2.\nq(X) :- edge(X, X).\n"))
    new = analyse(parse(SWAPPED + "big(X) :- path(X, Y), Y > 3.\nq(X) :- edge(X, X).\n"))
    change = compare_rules(old, new)
    assert len(change.kept) == 3 and len(change.added) == 1 and len(change.removed) == 1
    assert change.unchanged_predicates == {"path", "q"}


def test_the_store_records_the_rule_ids(tmp_path):
    r = Reasoner("base: " + TC + "edge(1, 2).")
    r.save(tmp_path / "store")
    snapshot, version, _ = layout.read_pointer(tmp_path / "store")
    manifest = json.loads((tmp_path / "store" / snapshot / layout.manifest_name(version)).read_text())
    assert manifest["rules"] == [info.id for info in r.analysed.rules] and manifest["rules"][0] == "base"


def test_saving_a_changed_program_over_a_store_records_how_its_rules_map(tmp_path):
    store = tmp_path / "store"
    Reasoner(TC + "big(X) :- path(X, Y), Y > 2.\nedge(1, 2). edge(2, 3).").save(store)
    Reasoner.open(store).save(store, event={"event": "same program"})
    assert "rules" not in Reasoner.open(store).store_session.history[-1]
    Reasoner(SWAPPED + "big(X) :- path(X, Y), Y > 3.\nedge(1, 2). edge(2, 3).").save(store)
    rules = Reasoner.open(store).store_session.history[-1]["rules"]
    assert rules["kept"] == 2 and len(rules["added"]) == 1 and len(rules["removed"]) == 1
    assert rules["unchanged_predicates"] == ["path"]
