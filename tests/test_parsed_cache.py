"""The on-disk cache of parsed program files (syntax/parsed_cache.py): a hit gives the very AST the
parser gives, a changed file or parser is parsed again, errors still come from the parser, and a
cache that cannot be used is never an error."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from deltalog.errors import ParseError
from deltalog.sources import read_program
from deltalog.syntax import parse
from deltalog.syntax import parsed_cache

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = sorted(ROOT.glob("examples/*/*.dl")) + sorted(ROOT.glob("bench/data/*/program.dl"))
VARIED = """@prefix ex: <http://example.org/> .
@input edge "edges.tsv" .
@output path.
edge(1, 2). edge(2, -3). name(ex:a, "x\\ty", 1.5e3, -0.0, "é", <http://x/y>).
path(X, Y) :- edge(X, Y).
path(X, Z) :- path(X, Y), edge(Y, Z), X != Z, not blocked(X).
degree(X, N) :- node(X), N = count Y : { edge(X, Y) }.
far(X, D) :- path(X, Y), D = X * 2 + Y.
"""


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("DELTALOG_PARSE_CACHE", str(directory))
    return directory


def entries(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.pickle")) if directory.exists() else []


@pytest.mark.parametrize("path", PROGRAMS + ["varied"], ids=lambda p: getattr(p, "parent", Path(p)).name)
def test_a_cached_program_is_the_parsed_program(cache, tmp_path, path):
    if path == "varied":
        path = tmp_path / "varied.dl"
        path.write_text(VARIED, encoding="utf-8")
    parsed = parse(path.read_text(encoding="utf-8-sig"), source_name=str(path))
    first, _, _ = read_program(path)     # a miss: parsed and stored
    assert len(entries(cache)) == 1
    second, _, _ = read_program(path)    # a hit
    assert first == parsed and second == parsed and str(second) == str(parsed)
    assert [r.span for r in second.rules] == [r.span for r in parsed.rules]


def test_a_changed_file_is_parsed_again(cache, tmp_path):
    path = tmp_path / "p.dl"
    path.write_text("p(X) :- q(X).\n")
    assert str(read_program(path)[0]) == "p(X) :- q(X).\n"
    path.write_text("p(X) :- r(X).\n")
    assert str(read_program(path)[0]) == "p(X) :- r(X).\n"
    assert len(entries(cache)) == 2


def test_the_name_as_given_is_part_of_the_key(cache, tmp_path, monkeypatch):
    """Spans carry the program's name as given, so the same text under another name is another entry."""
    (tmp_path / "p.dl").write_text("p(X) :- q(X).\n")
    monkeypatch.chdir(tmp_path)
    assert read_program(Path("p.dl"))[0].rules[0].span.file == "p.dl"
    assert read_program(tmp_path / "p.dl")[0].rules[0].span.file == str(tmp_path / "p.dl")


def test_errors_still_come_from_the_parser_and_are_not_kept(cache, tmp_path):
    path = tmp_path / "bad.dl"
    path.write_text("p(X) :- q(X)\n")
    for _ in range(2):
        with pytest.raises(ParseError) as error:
            read_program(path)
        assert error.value.span.file == str(path)
    assert entries(cache) == []


def test_an_unreadable_entry_is_parsed_again(cache, tmp_path):
    path = tmp_path / "p.dl"
    path.write_text("p(X) :- q(X).\n")
    read_program(path)
    (entry,) = entries(cache)
    entry.write_bytes(b"not a pickle")
    assert str(read_program(path)[0]) == "p(X) :- q(X).\n"
    assert entry.read_bytes() != b"not a pickle"   # stored again


def test_a_cache_that_cannot_be_written_or_is_off_is_no_error(tmp_path, monkeypatch):
    path = tmp_path / "p.dl"
    path.write_text("p(X) :- q(X).\n")
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("DELTALOG_PARSE_CACHE", str(blocker / "cache"))   # under a file: cannot be made
    assert str(read_program(path)[0]) == "p(X) :- q(X).\n"
    monkeypatch.setenv("DELTALOG_PARSE_CACHE", "off")
    assert parsed_cache.cache_directory() is None
    assert str(read_program(path)[0]) == "p(X) :- q(X).\n"


def test_a_write_that_fails_half_way_leaves_no_file(cache, tmp_path, monkeypatch):
    path = tmp_path / "p.dl"
    path.write_text("p(X) :- q(X).\n")

    def full_disk(source, target):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(parsed_cache.os, "replace", full_disk)
    assert str(read_program(path)[0]) == "p(X) :- q(X).\n"
    assert cache.is_dir() and not list(cache.iterdir())


def test_the_directory_is_private_and_trimmed(cache, tmp_path, monkeypatch):
    monkeypatch.setattr(parsed_cache, "MAX_ENTRIES", 4)
    for i in range(6):
        path = tmp_path / f"p{i}.dl"
        path.write_text(f"p{i}(X) :- q(X).\n")
        read_program(path)
    assert len(entries(cache)) <= 4
    assert os.stat(cache).st_mode & 0o077 == 0


def test_no_home_directory_means_no_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("DELTALOG_PARSE_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)

    def homeless():
        raise RuntimeError("Could not determine home directory.")
    monkeypatch.setattr(Path, "home", staticmethod(homeless))
    assert parsed_cache.cache_directory() is None
    path = tmp_path / "p.dl"
    path.write_text("p(X) :- q(X).\n")
    assert str(read_program(path)[0]) == "p(X) :- q(X).\n"
