"""A store cannot lose or silently corrupt data: concurrent writers and readers, kills at any moment,
damaged files, foreign directories, full disks (issue 9)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from deltalog.api import Reasoner
from deltalog.cli import main
from deltalog.store import StoreDamaged, StoreError
from deltalog.store.layout import read_pointer
from deltalog.store.locks import StoreBusy

PROGRAM = "path(X, Y) :- edge(X, Y).\npath(X, Z) :- path(X, Y), edge(Y, Z).\n"
SRC = str(Path(__file__).parent.parent / "src")


def cli(*args: str, check: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=SRC)
    done = subprocess.run([sys.executable, "-m", "deltalog", *args], capture_output=True, text=True, env=env)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def popen(*args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=SRC)
    return subprocess.Popen([sys.executable, "-m", "deltalog", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def closure(edges: set[tuple]) -> set[tuple]:
    """The transitive closure, by a search from every node (the obviously-correct reference)."""
    successors: dict = {}
    for x, y in edges:
        successors.setdefault(x, set()).add(y)
    paths = set()
    for start in successors:
        seen, frontier = set(), [start]
        while frontier:
            for y in successors.get(frontier.pop(), ()):
                if y not in seen:
                    seen.add(y)
                    frontier.append(y)
        paths |= {(start, y) for y in seen}
    return paths


def make_store(tmp_path: Path, edges) -> Path:
    program = tmp_path / "program.dl"
    program.write_text(PROGRAM)
    facts = tmp_path / "facts"
    facts.mkdir(exist_ok=True)
    (facts / "edge.tsv").write_text("".join(f"{a}\t{b}\n" for a, b in edges))
    store = tmp_path / "store"
    assert main(["init", str(store), str(program), "--facts", str(facts)]) == 0
    return store


def state(store: Path) -> tuple[set, set]:
    r = Reasoner.open(store)
    return exact(r, "edge"), exact(r, "path")


def exact(r: Reasoner, predicate: str) -> set:
    """The rows with their kinds kept (ints as ints, every other kind tagged)."""
    return {tuple(v if k == "int" else f"{k}:{v}" for k, v in row) for row in r.backend.typed_rows(relation=predicate)}


def consistent(store: Path) -> set:
    edges, paths = state(store)
    assert paths == closure(edges), "the stored closure is not the closure of the stored facts"
    return edges


def changes_dir(tmp_path: Path, name: str, rows) -> Path:
    directory = tmp_path / name
    directory.mkdir()
    (directory / "edge.tsv").write_text("".join(f"{a}\t{b}\n" for a, b in rows))
    return directory


# ---- writers and readers -------------------------------------------------------------------------

def test_a_second_writer_fails_at_once_or_waits(tmp_path):
    store = make_store(tmp_path, [(1, 2)])
    holder = Reasoner.open(store, writable=True)
    try:
        with pytest.raises(StoreBusy, match=rf"being updated by process {os.getpid()}"):
            Reasoner.open(store, writable=True)
        done = cli("update", str(store), "--add", str(changes_dir(tmp_path, "a", [(2, 3)])))
        assert done.returncode == 2 and f"is being updated by process {os.getpid()}" in done.stderr
        assert "Traceback" not in done.stderr
    finally:
        holder.close()
    waiting = popen("update", str(store), "--add", str(changes_dir(tmp_path, "b", [(2, 3)])), "--wait", "30")
    assert waiting.wait(60) == 0, waiting.stderr.read()
    assert consistent(store) == {(1, 2), (2, 3)}


def test_concurrent_writers_lose_no_update(tmp_path):
    store = make_store(tmp_path, [(0, 1)])
    writers = [popen("update", str(store), "--add", str(changes_dir(tmp_path, f"w{i}", [(i, i + 1)])),
                     "--wait", "60") for i in range(1, 7)]
    for w in writers:
        assert w.wait(120) == 0, w.stderr.read()
    assert consistent(store) == {(i, i + 1) for i in range(7)}


def test_readers_see_one_consistent_version_while_writers_work(tmp_path):
    store = make_store(tmp_path, [(i, i + 1) for i in range(30)])
    writers = [popen("update", str(store), "--add", str(changes_dir(tmp_path, f"a{i}", [(100 + i, i)])),
                     "--delete", str(changes_dir(tmp_path, f"d{i}", [(i, i + 1)])), "--wait", "60")
               for i in range(0, 12, 2)]
    reads = 0
    while any(w.poll() is None for w in writers) or reads < 3:
        consistent(store)
        out = tmp_path / f"out{reads}"
        done = cli("export", str(store), "--out", str(out), "--all")
        assert done.returncode == 0, done.stderr
        reads += 1
    for w in writers:
        assert w.wait(120) == 0, w.stderr.read()
    edges = consistent(store)
    assert {(100 + i, i) for i in range(0, 12, 2)} <= edges
    assert not {(i, i + 1) for i in range(0, 12, 2)} & edges


def test_saving_a_reasoner_opened_before_another_update_is_refused(tmp_path):
    store = make_store(tmp_path, [(1, 2)])
    first, second = Reasoner.open(store), Reasoner.open(store)
    first.update(add={"edge": [(2, 3)]})
    first.save(store)
    second.update(add={"edge": [(3, 4)]})
    with pytest.raises(StoreError, match="updated by another writer"):
        second.save(store)
    assert consistent(store) == {(1, 2), (2, 3)}


@pytest.mark.parametrize("seed", range(12))
def test_kill_9_at_any_moment_leaves_the_old_or_the_new_state(tmp_path, seed):
    rng = random.Random(seed)
    before_edges = {(i, i + 1) for i in range(200)}
    store = make_store(tmp_path, sorted(before_edges))
    added, deleted = {(500 + seed, 7)}, {(100, 101)}
    update = popen("update", str(store), "--add", str(changes_dir(tmp_path, "a", added)),
                   "--delete", str(changes_dir(tmp_path, "d", deleted)))
    time.sleep(rng.uniform(0.2, 1.6))   # python start-up + imports + the update + the save
    update.send_signal(signal.SIGKILL)
    update.wait(30)
    edges = consistent(store)
    assert edges in (before_edges, (before_edges | added) - deleted)
    follow = cli("update", str(store), "--add", str(changes_dir(tmp_path, "b", [(900, 901)])))
    assert follow.returncode == 0, follow.stderr
    assert (900, 901) in consistent(store)
    assert not [p for p in store.rglob("*.tmp")], "a later writer removes what a killed one staged"


# ---- damage --------------------------------------------------------------------------------------

def store_with_segments(tmp_path: Path) -> Path:
    store = make_store(tmp_path, [(i, i + 1) for i in range(300)] + [(i, f"s{i}") for i in range(50)])
    for step in range(2):
        r = Reasoner.open(store)
        r.update(add={"edge": [(1000 + step, 1)]}, delete={"edge": [(10 * step, 10 * step + 1)]}, algorithm="dred")
        r.save(store)
    assert read_pointer(store)[1] == 2, "two incremental segments"
    return store


def data_files(store: Path) -> list[Path]:
    return sorted(p for p in store.rglob("*") if p.is_file() and p.name not in ("LOCK", "READERS"))


def expect_damaged(store: Path, via_cli: bool = True) -> None:
    with pytest.raises(StoreDamaged):
        Reasoner.open(store)
    if not via_cli:
        return
    done = cli("export", str(store), "--out", str(store.parent / "out"))
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: store {store} is damaged: "), done.stderr
    assert "Traceback" not in done.stderr


def test_every_file_is_covered_by_a_checksum(tmp_path):
    store = store_with_segments(tmp_path)
    files = data_files(store)
    assert {"CURRENT", "state.json", "program.dl", "texts.arrow", "dictionary.npz"} <= {p.name for p in files}
    rng = random.Random(1)
    shown_by_cli = set()     # the CLI's message is checked once per kind of file (each run costs a start-up)
    for path in files:
        current = (store / "CURRENT").read_text()
        if path.name == "deltalog-store" or path.name.startswith("v-") and path.name not in current:
            continue     # the marker carries nothing; an older manifest is not read
        original = path.read_bytes()
        for damage in ("flip", "truncate", "empty", "remove"):
            if damage == "flip":
                at = rng.randrange(len(original))
                path.write_bytes(original[:at] + bytes([original[at] ^ 0x10]) + original[at + 1:])
            elif damage == "truncate":
                path.write_bytes(original[: len(original) // 2])
            elif damage == "empty":
                path.write_bytes(b"")
            else:
                path.unlink()
            if path.name == "CURRENT" and damage == "remove":
                with pytest.raises(StoreError):
                    Reasoner.open(store)
            else:
                expect_damaged(store, via_cli=damage == "flip" and path.suffix not in shown_by_cli)
                shown_by_cli.add(path.suffix)
            path.write_bytes(original)
    consistent(store)
    assert cli("verify", str(store)).returncode == 0


def test_current_must_name_a_snapshot_of_the_store(tmp_path):
    store = store_with_segments(tmp_path)
    (tmp_path / "other").mkdir()
    other = store_with_segments(tmp_path / "other")
    name, version, digest = read_pointer(other)
    (store / "CURRENT").write_text(f"../../other/store/{name}/v-{version:06d}.json {digest}\n")
    expect_damaged(store)


def test_verify_reports_a_damaged_store(tmp_path):
    store = store_with_segments(tmp_path)
    assert cli("verify", str(store)).returncode == 0
    target = next(p for p in data_files(store) if p.suffix == ".npz" and "seg-" in str(p))
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 1
    target.write_bytes(bytes(data))
    done = cli("verify", str(store))
    assert done.returncode == 2 and "is damaged" in done.stderr and target.name in done.stderr


# ---- directories that are not stores ------------------------------------------------------------

def test_init_and_save_refuse_a_directory_with_foreign_content(tmp_path):
    foreign = tmp_path / "photos"
    (foreign / "snap-2023").mkdir(parents=True)
    (foreign / "snap-2023" / "photo.txt").write_text("keep me")
    program = tmp_path / "p.dl"
    program.write_text(PROGRAM + "edge(1, 2).\n")
    done = cli("init", str(foreign), str(program))
    assert done.returncode == 2 and "not empty and not a deltalog store" in done.stderr
    r = Reasoner(program)
    with pytest.raises(StoreError, match="not a deltalog store"):
        r.save(foreign)
    assert (foreign / "snap-2023" / "photo.txt").read_text() == "keep me"
    assert sorted(p.name for p in foreign.iterdir()) == ["snap-2023"]


def test_a_store_keeps_files_it_did_not_make(tmp_path):
    store = make_store(tmp_path, [(1, 2)])
    (store / "notes.txt").write_text("mine")
    (store / "snap-backup").mkdir()
    for i in range(3):
        r = Reasoner.open(store)
        r.update(add={"edge": [(i + 2, i + 3)]})
        r.save(store)
    Reasoner(PROGRAM + "edge(7, 8).").save(store)       # a whole new snapshot replaces the old ones
    assert (store / "notes.txt").read_text() == "mine" and (store / "snap-backup").is_dir()
    assert consistent(store) == {(7, 8)}


def test_init_twice_is_refused(tmp_path):
    store = make_store(tmp_path, [(1, 2)])
    done = cli("init", str(store), str(tmp_path / "program.dl"))
    assert done.returncode == 2 and "is a store already" in done.stderr


# ---- full disk -----------------------------------------------------------------------------------

@pytest.fixture
def small_disk(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=600k", "tmpfs", str(mount)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    yield mount
    subprocess.run(["umount", str(mount)], check=False)


def test_a_full_disk_fails_the_update_and_changes_nothing(tmp_path, small_disk):
    store = small_disk / "store"
    r = Reasoner(PROGRAM)
    r.load("edge", [(i, i + 1) for i in range(20)])
    r.save(store)
    before = consistent(store)
    big = tmp_path / "big"
    big.mkdir()
    (big / "edge.tsv").write_text("".join(f"{i}\t{i + 1}\n" for i in range(1000, 1000 + 4000)))
    done = cli("update", str(store), "--add", str(big), "--algorithm", "dred")
    assert done.returncode == 2 and "No space left on device" in done.stderr, done.stderr
    assert consistent(store) == before
    assert not [p for p in store.rglob("*.tmp")] and not [p for p in store.rglob("seg-*")]
    free_after = os.statvfs(small_disk).f_bavail
    assert free_after > 0


CRASHING_UPDATE = """
import os, signal, sys
from deltalog.storage import checked_files
from deltalog.store import layout
import deltalog.store as store_module
limit, calls = int(sys.argv[1]), [0]
def step(function):
    def wrapped(*args, **kwargs):
        calls[0] += 1
        if calls[0] == limit:
            os.kill(os.getpid(), signal.SIGKILL)
        result = function(*args, **kwargs)
        return result
    return wrapped
checked_files.write_durably = step(checked_files.write_durably)
layout.fsync_directory = step(layout.fsync_directory)
store_module.os.replace = step(os.replace)
from deltalog.cli import main
code = main(sys.argv[2:])
print("steps", calls[0])
sys.exit(code)
"""


@pytest.mark.parametrize("whole", [False, True], ids=["segment", "snapshot"])
def test_a_kill_between_any_two_durable_steps_leaves_the_old_or_the_new_state(tmp_path, whole):
    """Every write, fsync and rename of a save is a point where the writer may die."""
    before_edges = {(i, i + 1) for i in range(40)}
    store = make_store(tmp_path, sorted(before_edges))
    if whole:     # a segment as large as the base: the next save writes a whole new snapshot
        r = Reasoner.open(store)
        r.update(add={"edge": [(100, 101)]}, algorithm="remat")
        r.save(store)
        before_edges.add((100, 101))
    added, deleted = {(77, 3)}, {(10, 11)}
    args = ["update", str(store), "--add", str(changes_dir(tmp_path, "a", added)),
            "--delete", str(changes_dir(tmp_path, "d", deleted))]
    args += ["--algorithm", "remat" if whole else "dred"]
    env = dict(os.environ, PYTHONPATH=SRC)
    steps = None
    limit = 1
    while steps is None or limit <= steps:
        done = subprocess.run([sys.executable, "-c", CRASHING_UPDATE, str(limit), *args], capture_output=True,
                              text=True, env=env)
        edges = consistent(store)
        if done.returncode == 0:      # the limit lay past the last step: the update went through
            steps = int(done.stdout.split("steps")[-1])
            assert edges == (before_edges | added) - deleted
            assert (read_pointer(store)[1] == 0) == whole, "a whole snapshot, or a segment"
            break
        assert done.returncode == -signal.SIGKILL, done.stderr
        assert edges == before_edges or edges == (before_edges | added) - deleted, f"killed at step {limit}"
        if edges != before_edges:      # the kill came after CURRENT switched: start again from the old state
            (tmp_path / f"again{limit}").mkdir()
            store_again = make_store(tmp_path / f"again{limit}", sorted(before_edges))
            if whole:
                r = Reasoner.open(store_again)
                r.update(add={"edge": [(0, 1)]}, algorithm="remat")   # (already there: same state, new segment)
                r.save(store_again)
            store, args[1] = store_again, str(store_again)
        limit += 1
    assert limit > 3, "the save went through several durable steps"


# ---- incremental persistence -----------------------------------------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

ALGORITHMS = ["dred", "dredc", "counting", "fbf", "remat", "auto"]
edge = st.tuples(st.integers(0, 7), st.integers(0, 7))
step = st.tuples(st.sets(edge, max_size=4), st.sets(edge, max_size=4), st.sampled_from(ALGORITHMS),
                 st.booleans())


@settings(max_examples=25, deadline=None)
@given(initial=st.sets(edge, max_size=12), steps=st.lists(step, min_size=1, max_size=8),
       max_segments=st.integers(1, 4))
def test_saved_segments_reopen_to_the_state_in_memory(tmp_path_factory, initial, steps, max_segments):
    """Whatever mix of segments and whole snapshots a sequence of updates leaves, opening the store gives
    exactly the reasoner's state in memory, which is the closure of the explicit facts."""
    import deltalog.store as store_module
    old = store_module.MAX_SEGMENTS
    store_module.MAX_SEGMENTS = max_segments
    try:
        store = tmp_path_factory.mktemp("store") / "s"
        r = Reasoner(PROGRAM + "".join(f"edge({a}, {b}).\n" for a, b in sorted(initial)))
        r.save(store)
        explicit = set(initial)
        for add, delete, algorithm, reopen in steps:
            r.update(add={"edge": sorted(add)}, delete={"edge": sorted(delete)}, algorithm=algorithm)
            explicit = (explicit - delete) | add
            r.save(store)
            if reopen:
                r = Reasoner.open(store)
            stored = Reasoner.open(store)
            for predicate in ("edge", "path"):
                assert exact(stored, predicate) == exact(r, predicate)
            assert exact(stored, "edge") == explicit and exact(stored, "path") == closure(explicit)
    finally:
        store_module.MAX_SEGMENTS = old


def test_an_update_writes_a_small_segment(tmp_path):
    store = make_store(tmp_path, [(i, i + 1) for i in range(300)] + [(1000 + i, 2000 + i) for i in range(3000)])
    base = sum(p.stat().st_size for p in (store / read_pointer(store)[0] / "base").iterdir())
    with Reasoner.open(store, writable=True) as r:
        r.update(add={"edge": [(5000, 5001)]}, delete={"edge": [(1000, 2000)]}, algorithm="dred")
        r.save(store)
    snapshot, version, _ = read_pointer(store)
    assert version == 1
    segment = sum(p.stat().st_size for p in (store / snapshot / "seg-000001").iterdir())
    assert segment < 0.05 * base, (segment, base)
    assert {(5000, 5001)} <= consistent(store)
