"""Issue 10 item 7: every failure a typed DeltalogError (API) or `error: ...` with exit 2 (CLI), never a
traceback; runaway programs stopped by limits; memory exhaustion reported as such; Ctrl-C exits 130."""

from __future__ import annotations

import pytest

from deltalog.api import Reasoner
from deltalog.cli import main
from deltalog.errors import (DeltalogError, InputError, LimitExceededError, OutOfMemoryError, ParseError,
                             TypeCheckError, UnknownPredicateError, UsageError)

def chain(operators: int) -> str:
    return "e(1).\np(Y) :- e(X), Y = X" + " + 1" * operators + ".\n"


DEEP_SUM = chain(2500)
WIDE_BODY = "p(X) :- " + ", ".join(f"e{i}(X)" for i in range(1000)) + ".\n" + " ".join(f"e{i}(1)." for i in range(1000))


# ---- program files: (file bytes, error class, message part, line, column)
FILES = [
    (b"p(1).\nq(X) :- p(X), X = \"\xff\".\n", ParseError, "invalid UTF-8 (byte 0xff)", 2, 20),
    (b"\xe2\x82\xac(1).\n\x80", ParseError, "invalid UTF-8 (byte 0x80)", 2, 1),
    ("p(1).".encode("utf-16"), InputError, "UTF-16", 0, 0),
    (DEEP_SUM.encode(), ParseError, "nested too deeply (more than 2,000 levels)", 2, 0),
    (("p(X) :- " + ", ".join(f"e{i}(X)" for i in range(2001)) + ".").encode(), ParseError,
     "a body of 2,001 literals", 1, 9),
]


@pytest.mark.parametrize("data, error, message, line, column", FILES, ids=lambda v: "")
def test_bad_program_files_are_typed_errors_with_a_place(tmp_path, capsys, data, error, message, line, column):
    path = tmp_path / "prog.dl"
    path.write_bytes(data)
    with pytest.raises(error) as caught:
        Reasoner(path)
    assert message in caught.value.message and caught.value.span.file == str(path)
    assert caught.value.span.line == line and (column == 0 or caught.value.span.column == column)
    assert main(["check", str(path)]) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("text, expected", [
    (chain(1800), {(1801,)}),   # deep, but within the bound
    (WIDE_BODY, {(1,)}),                                        # a 1,000-atom body evaluates
], ids=["deep-expression", "wide-body"])
def test_deep_but_bounded_programs_run(text, expected):
    reasoner = Reasoner(text)
    assert set(reasoner.relation("p").rows()) == expected


@pytest.mark.parametrize("function", ["min", "max", "sum", "avg", "median"])
def test_a_constant_aggregate_argument_fails_check_not_run(tmp_path, capsys, function):
    path = tmp_path / "agg.dl"
    path.write_text(f"s(M) :- M = {function} 5 : {{ v(X) }}.\nv(1).\n")
    with pytest.raises(TypeCheckError, match="must be a variable of its body"):
        Reasoner(path)
    assert main(["check", str(path)]) == 2
    assert "agg.dl:1:" in capsys.readouterr().err


def test_count_with_a_constant_argument_still_counts():
    assert Reasoner("s(N) :- N = count 5 : { v(X) }. v(1). v(2).").relation("s").rows() == [(2,)]


API_MISUSE = [
    (lambda: Reasoner("missing.dl"), InputError, "no such program file: missing.dl"),
    (lambda: Reasoner("p(1).", backend="gpu"), UsageError, "unknown backend 'gpu'"),
    (lambda: Reasoner("p(1).").update(algorithm="fast"), UsageError, "unknown algorithm 'fast'"),
    (lambda: Reasoner("q(X) :- e(X, Y).").load("e", [(1, 2), (3,)]), UsageError, "row 2 of e has 1 values"),
    (lambda: Reasoner("q(X) :- e(X).").load("e", [1, 2]), UsageError, "rows (tuples of values)"),
    (lambda: Reasoner("q(X) :- e(X).").load("e", "nowhere.tsv"), InputError, "no such file"),
    (lambda: Reasoner.open("no-such-store"), InputError, "not a deltalog store"),
    (lambda: Reasoner("q(X) :- e(X).").relation("r"), UnknownPredicateError, "unknown predicate 'r'"),
    (lambda: Reasoner("p(1).", max_facts=-1), UsageError, "max_facts"),
    (lambda: Reasoner("p(1).", timeout=0), UsageError, "timeout"),
]


@pytest.mark.parametrize("call, error, message", API_MISUSE)
def test_api_misuse_raises_typed_errors(tmp_path, monkeypatch, call, error, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(error) as caught:
        call()
    assert isinstance(caught.value, DeltalogError) and message in str(caught.value)


def test_usage_errors_are_still_value_errors_for_old_callers():
    with pytest.raises(ValueError):
        Reasoner("p(1).", backend="gpu")


RUNAWAY = "n(0).\nn(Y) :- n(X), Y = X + 1.\n"


@pytest.mark.parametrize("limits, message", [
    ({"max_facts": 500}, "passed 500 facts (max_facts)"),
    ({"timeout": 0.3}, "more than 0.3 s (timeout)"),
])
def test_a_runaway_program_is_stopped_and_rolled_back(limits, message):
    reasoner = Reasoner(RUNAWAY, **limits)
    with pytest.raises(LimitExceededError, match=message.replace("(", r"\(").replace(")", r"\)")):
        reasoner.materialise()
    assert reasoner.fact_count() == 1   # only the explicit fact survives


def test_a_stopped_run_can_be_retried_with_a_higher_limit():
    reasoner = Reasoner("n(0).\nn(Y) :- n(X), Y = X + 1, X < 100.\n", max_facts=10)
    with pytest.raises(LimitExceededError):
        reasoner.materialise()
    reasoner.limits = type(reasoner.limits)(max_facts=1000)
    assert reasoner.materialise().derived == 100 and reasoner.relation("n").height == 101


def test_update_limits_roll_the_update_back():
    reasoner = Reasoner("n(Y) :- s(X), n(X), Y = X + 1.\nn(0).\ns(0).\n")
    reasoner.materialise()
    reasoner.limits = type(reasoner.limits)(max_facts=50)
    with pytest.raises(LimitExceededError):
        reasoner.update(add={"s": [(i,) for i in range(1, 100)]})
    assert reasoner.relation("s").height == 1 and reasoner.relation("n").height == 2


@pytest.mark.parametrize("flags, message", [
    (["--max-facts", "500"], "max_facts"),
    (["--timeout", "0.3"], "timeout"),
])
def test_cli_limits(tmp_path, capsys, flags, message):
    program = tmp_path / "runaway.dl"
    program.write_text(RUNAWAY)
    out = tmp_path / "out"
    assert main(["run", str(program), "--out", str(out), "--quiet", *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert not out.exists()


def test_memory_exhaustion_is_reported_with_the_rule(monkeypatch, tmp_path, capsys):
    from deltalog.backends.local.backend import LocalBackend

    def exhausted(self, **kwargs):   # loading facts works; every rule evaluation runs out of memory
        if type(kwargs["plan"]).__name__ == "Values":
            return insert(self, **kwargs)
        raise MemoryError("Unable to allocate 64.0 GiB for an array")

    insert = LocalBackend.insert
    program = tmp_path / "join.dl"
    program.write_text("e(1, 2).\npair(X, Y) :- e(X, _), e(Y, _).\n")
    monkeypatch.setattr(LocalBackend, "insert", exhausted)
    reasoner = Reasoner(program)
    with pytest.raises(OutOfMemoryError, match="out of memory evaluating rule 0"):
        reasoner.materialise()
    assert main(["run", str(program), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    assert "join.dl:2:1: error: out of memory" in capsys.readouterr().err


def test_ctrl_c_exits_130_without_a_traceback(monkeypatch, tmp_path, capsys):
    from deltalog.api import Reasoner as R

    def interrupted(self, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(R, "materialise", interrupted)
    program = tmp_path / "p.dl"
    program.write_text("p(1).\nq(X) :- p(X).\n")
    assert main(["run", str(program), "--out", str(tmp_path / "o"), "--quiet"]) == 130
    assert capsys.readouterr().err == "error: interrupted\n"


def test_the_error_printer_survives_an_invalid_fact_file(tmp_path, capsys):
    facts = tmp_path / "facts"
    facts.mkdir()
    (facts / "e.tsv").write_bytes(b"1\t2\n\xff\xfe\t3\n")
    program = tmp_path / "p.dl"
    program.write_text("q(X) :- e(X, Y).\n")
    code = main(["run", str(program), "--facts", str(facts), "--out", str(tmp_path / "o"), "--quiet"])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if code:   # invalid bytes may be an error (with the file) or read as text; never a crash
        assert code == 2 and "e.tsv" in err


def test_long_source_lines_are_cut_around_the_caret():
    error = ParseError("boom", __import__("deltalog.syntax.ast", fromlist=["Span"]).Span("f.dl", 1, 500, 1, 503))
    rendered = error.render("x" * 499 + "bad" + "y" * 1000)
    line, caret = rendered.splitlines()[1:3]
    assert len(line) < 120 and line[caret.index("^")] == "b" and caret.count("^") == 3


def test_a_real_sigint_exits_130_without_a_traceback(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time
    program = tmp_path / "runaway.dl"
    program.write_text(RUNAWAY)
    root = __import__("pathlib").Path(__file__).parent.parent
    child = subprocess.Popen([sys.executable, "-m", "deltalog", "run", str(program), "--out", str(tmp_path / "o"),
                              "--timeout", "60"], stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(root / "src")},
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    first = child.stderr.readline()   # "loaded 1 facts": the run has started (shells may ignore SIGINT:
    time.sleep(0.5)                   # preexec_fn restores the default, as a terminal would have it)
    child.send_signal(signal.SIGINT)
    err = first + child.communicate(timeout=60)[1]
    assert child.returncode == 130 and "error: interrupted" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()
