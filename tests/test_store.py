"""Persistent stores: init / update / export / stats from the CLI, atomic snapshots, restarts."""

from __future__ import annotations

from pathlib import Path

import pytest

from deltalog.api import Reasoner
from deltalog.cli import main
from deltalog.store.layout import read_pointer as current_snapshot

EXAMPLES = Path(__file__).parent.parent / "examples"


def tsv(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join("\t".join(map(str, r)) + "\n" for r in rows))
    return path


def lines(path: Path) -> set[str]:
    return set(path.read_text().splitlines())


def test_init_update_export_stats(tmp_path, capsys):
    store = tmp_path / "store"
    program = EXAMPLES / "transitive" / "program.dl"
    assert main(["init", str(store), str(program)]) == 0
    tsv(tmp_path / "add" / "edge.tsv", [(5, 6)])
    tsv(tmp_path / "del" / "edge.tsv", [(4, 5)])
    assert main(["update", str(store), "--add", str(tmp_path / "add"), "--delete", str(tmp_path / "del"),
                 "--algorithm", "dred", "--stats"]) == 0
    out = capsys.readouterr().out
    assert "dred:" in out and "overdeletion" in out
    assert main(["export", str(store), "--out", str(tmp_path / "out")]) == 0
    paths = lines(tmp_path / "out" / "path.tsv")
    assert "5\t6" in paths and "4\t5" not in paths and "1\t5" not in paths
    assert main(["stats", str(store)]) == 0
    assert "update" in capsys.readouterr().out


def test_store_survives_restart_and_matches_a_fresh_materialisation(tmp_path):
    store = tmp_path / "store"
    r = Reasoner(EXAMPLES / "transitive" / "program.dl")
    r.save(store)
    reopened = Reasoner.open(store)
    reopened.update(add={"edge": [(7, 1)]}, delete={"edge": [(2, 3)]})
    reopened.save(store)
    again = Reasoner.open(store)
    fresh = Reasoner("path(X, Y) :- edge(X, Y).\npath(X, Z) :- path(X, Y), edge(Y, Z).")
    fresh.load("edge", sorted(again.relation("edge").rows()))
    fresh.materialise()
    assert set(again.relation("path").rows()) == set(fresh.relation("path").rows())


def test_a_crash_while_saving_leaves_the_previous_snapshot_current(tmp_path, monkeypatch):
    store = tmp_path / "store"
    r = Reasoner(EXAMPLES / "transitive" / "program.dl")
    r.save(store)
    before = current_snapshot(store)
    r.update(add={"edge": [(9, 10)]})

    def crash(*args, **kwargs):
        raise OSError("disk full")
    monkeypatch.setattr("deltalog.storage.persist.save_state", crash)
    with pytest.raises(OSError):
        r.save(store)
    assert current_snapshot(store) == before
    assert (9, 10) not in set(Reasoner.open(store).relation("edge").rows())


def test_a_bad_update_batch_leaves_the_store_unchanged(tmp_path, capsys):
    store = tmp_path / "store"
    assert main(["init", str(store), str(EXAMPLES / "transitive" / "program.dl")]) == 0
    before = current_snapshot(store)
    tsv(tmp_path / "add" / "edge.tsv", [(1, 2, 3)])
    assert main(["update", str(store), "--add", str(tmp_path / "add")]) == 2
    assert "edge.tsv:1:1" in capsys.readouterr().err
    assert current_snapshot(store) == before


def test_opening_something_that_is_not_a_store_is_a_clear_error(tmp_path, capsys):
    assert main(["stats", str(tmp_path)]) == 2
    assert "not a deltalog store" in capsys.readouterr().err


def test_query_a_store_with_prefixes_and_set_answers(tmp_path, capsys):
    program = tmp_path / "p.dl"
    program.write_text("@prefix ex: <http://example.org/> .\n"
                       "path(X, Y) :- edge(X, Y).\npath(X, Z) :- path(X, Y), edge(Y, Z).\n"
                       "edge(ex:a, ex:b). edge(ex:b, ex:c). edge(ex:a, ex:d).\n")
    store = tmp_path / "store"
    assert main(["init", str(store), str(program)]) == 0
    capsys.readouterr()
    assert main(["query", str(store), "path(ex:a, Y)"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Y" and sorted(out[1:]) == ["<http://example.org/b>", "<http://example.org/c>",
                                                 "<http://example.org/d>"]
    assert main(["query", str(store), "path(X, _)"]) == 0
    assert sorted(capsys.readouterr().out.splitlines()[1:]) == ["<http://example.org/a>", "<http://example.org/b>"]
    answers = Reasoner.open(store).query("path(X, _)")
    assert sorted(answers["X"].to_list()) == sorted(set(answers["X"].to_list())) and answers.height == 2


def test_stats_json_and_verify(tmp_path, capsys):
    import json
    store = tmp_path / "store"
    assert main(["init", str(store), str(EXAMPLES / "transitive" / "program.dl")]) == 0
    capsys.readouterr()
    assert main(["stats", str(store), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["version"] == 0 and {r["predicate"] for r in stats["predicates"]} >= {"edge", "path"}
    assert stats["history"][0]["event"] == "init"
    assert main(["verify", str(store)]) == 0
    assert capsys.readouterr().out.startswith("ok: ")


def test_opening_a_store_again_does_not_parse_its_program(tmp_path, monkeypatch):
    """A store's program goes through the parse cache (syntax/parsed_cache.py), as a program file does: once
    it was parsed, opening the store again (each ``deltalog update``, ``query``, ``export``) costs no Lark
    import or parse (docs/benchmarks.md, stop 22), and the store answers and updates as before."""
    from unittest import mock

    from deltalog.syntax import parser
    monkeypatch.setenv("DELTALOG_PARSE_CACHE", str(tmp_path / "cache"))
    reasoner = Reasoner("path(X, Y) :- edge(X, Y).\npath(X, Z) :- path(X, Y), edge(Y, Z).\n")
    reasoner.load("edge", [(1, 2), (2, 3)])
    reasoner.save(tmp_path / "store")
    Reasoner.open(tmp_path / "store")
    with mock.patch.object(parser, "parse", side_effect=AssertionError("the program was parsed again")):
        with Reasoner.open(tmp_path / "store", writable=True) as opened:
            opened.update(add={"edge": [(3, 4)]})
            opened.save(tmp_path / "store")
        assert set(Reasoner.open(tmp_path / "store").relation("path").iter_rows()) == {
            (1, 2), (2, 3), (3, 4), (1, 3), (2, 4), (1, 4)}


def test_a_store_of_numbers_saved_without_the_no_texts_flag_still_opens_and_updates(tmp_path, monkeypatch):
    """Stores saved before ``no_texts`` (storage/persist.py: a dictionary part of numbers only, whose texts
    are then checked but not parsed) parse their texts file as before; the flag is written now, and a
    store holding both kinds of parts reads the same facts."""
    import json

    from deltalog.storage import persist
    program = "path(X, Y) :- edge(X, Y).\npath(X, Z) :- path(X, Y), edge(Y, Z).\n"
    written = persist.save_dictionary

    def without_flag(*args):
        entry = written(*args)
        entry.pop("no_texts", None)
        return entry
    store = tmp_path / "store"
    with monkeypatch.context() as patch:
        patch.setattr(persist, "save_dictionary", without_flag)
        old = Reasoner(program)
        old.load("edge", [(1, 2), (2, 3)])
        old.save(store)
    states = [json.loads(p.read_text()) for p in store.rglob("state.json")]
    assert states and not any("no_texts" in s["dictionary"] for s in states)
    with Reasoner.open(store, writable=True) as opened:
        opened.update(add={"edge": [(3, 40)]}, delete={"edge": [(1, 2)]})
        opened.save(store)
    assert any(json.loads(p.read_text())["dictionary"].get("no_texts") for p in store.rglob("state.json"))
    assert set(Reasoner.open(store).relation("path").iter_rows()) == {(2, 3), (3, 40), (2, 40)}
