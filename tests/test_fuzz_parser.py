"""The parser (and the analysis behind it) fuzzed with mutated programs and random bytes: never a
traceback, never a hang; always a DeltalogError or a program (issue 10, item 7)."""

from __future__ import annotations

import signal
from contextlib import contextmanager
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deltalog.analysis import analyse
from deltalog.errors import DeltalogError
from deltalog.syntax import parse, parse_atom
from deltalog.syntax.parser import parse_file

ROOT = Path(__file__).parent.parent
SEEDS = [p.read_text() for p in sorted(ROOT.glob("examples/*/program.dl"))]
SEEDS += [p.read_text() for p in sorted((ROOT / "tests" / "programs").glob("*/program.dl"))]
PIECES = list(":-.,()[]{}<>=!?%/\"'\\@_ \n\t") + ["not", "count", "sum", "min", "X", "_", "1", "-1", "1.5e3",
                                                 "\"s\"", "<http://a>", "ex:b", "@prefix", "@input", "@output",
                                                 "@name", "p(X)", ":- q(X)", "Y = X + 1", "\x00", "é", "\u2028"]
SECONDS = 10   # per example: far above any real parse; a hang fails the test instead of stalling CI
FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@contextmanager
def time_limit(seconds: int):
    def stop(signum, frame):
        raise TimeoutError(f"no answer within {seconds} s")
    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def parse_and_analyse(text: str) -> None:
    with time_limit(SECONDS):
        try:
            analyse(parse(text, source_name="fuzz.dl"))
        except DeltalogError as error:
            assert error.message and error.render(text)   # renders without crashing, with the source


@st.composite
def mutated(draw) -> str:
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "duplicate", "swap"]))
        if kind == "insert":
            text = text[:at] + draw(st.sampled_from(PIECES)) + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 20)):]
        elif kind == "duplicate":
            end = min(len(text), at + draw(st.integers(1, 80)))
            text = text[:end] + text[at:end] + text[end:]
        else:
            other = draw(st.integers(0, len(text)))
            lo, hi = sorted((at, other))
            text = text[hi:] + text[lo:hi] + text[:lo]
    return text


@FUZZ
@given(mutated())
def test_mutated_programs_parse_or_fail_cleanly(text):
    parse_and_analyse(text)


@FUZZ
@given(st.lists(st.sampled_from(PIECES), max_size=60).map("".join))
def test_token_soup_parses_or_fails_cleanly(text):
    parse_and_analyse(text)


@FUZZ
@given(st.text(max_size=200))
def test_random_text_parses_or_fails_cleanly(text):
    parse_and_analyse(text)
    with time_limit(SECONDS):
        try:
            parse_atom(text)
        except DeltalogError:
            pass


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_in_a_file_parse_or_fail_cleanly(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "bytes.dl"
    path.write_bytes(data)
    with time_limit(SECONDS):
        try:
            analyse(parse_file(path))
        except DeltalogError as error:
            assert error.span.file == str(path)


def test_deep_nesting_of_every_kind_is_refused_cleanly():
    for text in ["p(Y) :- e(X), Y = " + "(" * 5000 + "X" + ")" * 5000 + ".",
                 "p(Y) :- e(X), Y = X" + " * 2" * 5000 + ".",
                 "p(Y) :- e(X), Y = " + "abs(" * 3000 + "X" + ")" * 3000 + ".",
                 "p(X) :- " + ", ".join(["e(X)"] * 3000) + ".",
                 "p(N) :- N = count : { " + ", ".join(["e(X)"] * 3000) + " }."]:
        parse_and_analyse(text)
