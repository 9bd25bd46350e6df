"""Whole-process benchmark runner: deltalog vs peers, median wall time and peak process-tree RSS."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psutil

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
sys.path.insert(0, str(BENCH_DIR))

import generators  # noqa: E402
import peers  # noqa: E402

ENGINES = ("deltalog",)
# The Spark backend (local[2]): with the driver offload (default) and without it (the Spark executor alone),
# and a hand-written naive DataFrame loop (bench/spark_naive.py, linear TC only) as the baseline.
SPARK_ENGINES = {"deltalog-spark": [], "deltalog-spark-exec": ["--offload-rows", "0"]}
ALL_ENGINES = ENGINES + tuple(SPARK_ENGINES) + ("spark-naive",)
SPARK_MASTER = os.environ.get("DELTALOG_BENCH_MASTER", "local[2]")
SAMPLE_SECONDS = 0.02


@dataclass
class Measurement:
    """One subprocess run."""

    wall: float
    peak_rss: int
    returncode: int | None
    timed_out: bool
    stdout: str
    stderr: str


@dataclass
class Result:
    """All repeats of one engine on one case, reduced to what the table shows."""

    case: str
    engine: str
    status: str  # ok | timeout | n/a | error | mismatch
    walls: list[float] = field(default_factory=list)
    peak_mb: float | None = None
    counts: dict[str, int] | None = None
    note: str = ""

    @property
    def median(self) -> float | None:
        return statistics.median(self.walls) if self.walls else None


# ---------------------------------------------------------------- measuring


def tree_rss(proc: psutil.Process) -> int:
    """Sum of RSS over a process and all its descendants (0 once it is gone)."""
    total = 0
    try:
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def kill_tree(popen: subprocess.Popen) -> None:
    """Kill the process group that this runner started for one measurement."""
    try:
        os.killpg(popen.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def measure(cmd: list[str], timeout: float, env: dict | None = None, cwd: Path | None = None) -> Measurement:
    """Run cmd in its own process group, sampling tree RSS every 20 ms, killing it after timeout seconds."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        popen = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=cwd, start_new_session=True)
        proc = psutil.Process(popen.pid)
        peak, timed_out = 0, False
        while popen.poll() is None:
            peak = max(peak, tree_rss(proc))
            if time.perf_counter() - start > timeout:
                timed_out = True
                kill_tree(popen)
                popen.wait()
                break
            time.sleep(SAMPLE_SECONDS)
        wall = time.perf_counter() - start
        kill_tree(popen)  # reap any stray children (e.g. a JVM) left in the group
        out.seek(0)
        err.seek(0)
        return Measurement(wall, peak, popen.returncode, timed_out, out.read(), err.read())


# ---------------------------------------------------------------- engines


def deltalog_env() -> dict:
    """Environment for deltalog runs: the repo's src/ on PYTHONPATH unless deltalog is installed."""
    env = dict(os.environ)
    src = str(REPO_DIR / "src")
    env["PYTHONPATH"] = src + os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else src
    return env


def deltalog_available() -> str | None:
    """None if `python -m deltalog` can be run, else the reason it cannot."""
    probe = "import importlib.util as u, sys; sys.exit(0 if u.find_spec('deltalog.__main__') else 3)"
    rc = subprocess.run([sys.executable, "-c", probe], env=deltalog_env(), capture_output=True).returncode
    return None if rc == 0 else "deltalog CLI (deltalog.__main__) not found"


def deltalog_cmd(case_dir: Path, out_dir: Path, engine: str = "deltalog") -> list[str]:
    """Command line of one deltalog run (the Spark engines add --backend spark and their options)."""
    spark = ["--backend", "spark", "--master", SPARK_MASTER, "--driver-memory", "8g", *SPARK_ENGINES[engine]] \
        if engine in SPARK_ENGINES else []
    return [
        sys.executable, "-m", "deltalog", "run", str(case_dir / "program.dl"),
        "--facts", str(case_dir / "facts"), "--out", str(out_dir), "--quiet", *spark,
    ]


def count_lines(path: Path) -> int:
    """Number of non-empty lines in a TSV file (0 if it is missing)."""
    if not path.exists():
        return 0
    with open(path, "rb") as fh:
        return sum(1 for line in fh if line.strip())


def run_deltalog(case_dir: Path, meta: dict, timeout: float,
                 engine: str = "deltalog") -> tuple[Measurement, dict | None]:
    """One deltalog run into a fresh output directory; counts are the line counts of OUT/<pred>.tsv."""
    out_dir = Path(tempfile.mkdtemp(prefix="deltalog-bench-"))
    try:
        m = measure(deltalog_cmd(case_dir, out_dir, engine), timeout, env=deltalog_env(), cwd=REPO_DIR)
        counts = {p: count_lines(out_dir / f"{p}.tsv") for p in meta["check"]} if m.returncode == 0 else None
        return m, counts
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


def peer_available(engine: str) -> str | None:
    """None if the peer's Python module can be imported, else the reason it cannot."""
    module = peers.PEER_MODULES[engine]
    return None if importlib.util.find_spec(module) else f"{module} not installed"


def run_peer(engine: str, case_dir: Path, timeout: float) -> tuple[Measurement, dict | None]:
    """One peer run in a fresh interpreter; counts come from the JSON line it prints."""
    m = measure([sys.executable, str(BENCH_DIR / "peers.py"), engine, str(case_dir)], timeout, cwd=REPO_DIR)
    return m, parse_counts(m.stdout) if m.returncode == 0 else None


def parse_counts(stdout: str) -> dict | None:
    """The counts dict from the last JSON line of a peer's output."""
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line).get("counts")
    return None


def unavailable(engine: str, family: str) -> str | None:
    """Why an engine cannot run a case family, or None."""
    if engine == "deltalog":
        return deltalog_available()
    if engine in SPARK_ENGINES or engine == "spark-naive":
        if importlib.util.find_spec("pyspark") is None:
            return "pyspark not installed"
        if engine == "spark-naive" and family != "tc-linear":
            return "the naive loop is written for linear TC only"
        return deltalog_available()
    if not peers.supports(engine, family):
        return f"{engine} has no translation of {family}"
    return peer_available(engine)


# ---------------------------------------------------------------- one engine on one case


def last_line(text: str) -> str:
    """The last non-empty line of some output, shortened."""
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return lines[-1][:200] if lines else ""


def run_once(engine: str, case_dir: Path, meta: dict, timeout: float) -> tuple[Measurement, dict | None]:
    """Dispatch one timed run."""
    if engine == "deltalog" or engine in SPARK_ENGINES:
        return run_deltalog(case_dir, meta, timeout, engine)
    if engine == "spark-naive":
        command = [sys.executable, str(BENCH_DIR / "spark_naive.py"), str(case_dir), "--master", SPARK_MASTER]
        m = measure(command, timeout, env=deltalog_env(), cwd=REPO_DIR)
        return m, parse_counts(m.stdout) if m.returncode == 0 else None
    return run_peer(engine, case_dir, timeout)


def bench_engine(engine: str, case_dir: Path, meta: dict, repeat: int, timeout: float, log) -> Result:
    """Repeat one engine on one case; stop early on timeout or error."""
    res = Result(meta["case"], engine, "ok")
    reason = unavailable(engine, meta["family"])
    if reason:
        res.status, res.note = "n/a", reason
        return res
    if engine in peers.PEERS:
        peers.prepare(engine, case_dir)
    peaks = []
    for i in range(repeat):
        m, counts = run_once(engine, case_dir, meta, timeout)
        peaks.append(m.peak_rss)
        log(f"  {meta['case']:16s} {engine:9s} run {i + 1}/{repeat}: "
            f"{'timeout' if m.timed_out else f'{m.wall:.2f} s'}, {m.peak_rss / 2**20:.0f} MB")
        if m.timed_out:
            res.status, res.walls = "timeout", []
            break
        if m.returncode != 0 or counts is None:
            res.status, res.note = "error", f"exit {m.returncode}: {last_line(m.stderr)}"
            break
        res.walls.append(m.wall)
        res.counts = counts
    res.peak_mb = max(peaks) / 2**20 if peaks else None
    if res.status == "ok" and res.counts != meta["expected"]:
        res.status, res.note = "mismatch", f"counts {res.counts} != expected {meta['expected']}"
    return res


# ---------------------------------------------------------------- table


def fmt_cell(res: Result, timeout: float) -> str:
    """'12.3 s / 456 MB', '>300 s', 'n/a', 'error', 'WRONG ...'."""
    if res.status == "timeout":
        return f">{timeout:g} s"
    if res.status in ("n/a", "error"):
        return res.status
    text = f"{res.median:.2f} s / {res.peak_mb:.0f} MB"
    return text if res.status == "ok" else f"WRONG COUNT {text}"


def fmt_ratio(ours: Result, peer: Result, timeout: float) -> str:
    """deltalog median / peer median (<= 1.0: deltalog faster); bounds when one side timed out."""
    if ours.status == "ok" and peer.status == "ok":
        return f"{ours.median / peer.median:.2f}"
    if ours.status == "ok" and peer.status == "timeout":
        return f"<{ours.median / timeout:.2f}"
    if ours.status == "timeout" and peer.status == "ok":
        return f">{timeout / peer.median:.2f}"
    return "–"


def table_rows(cases: list[str], results: dict, engines: list[str], peer_names: list[str], timeout: float):
    """Header and rows of the summary table."""
    main = engines[0] if engines else None
    header = ["case", "facts derived"] + [f"{e} s / MB" for e in engines + peer_names]
    if main:
        header += [f"{main}/{p}" for p in peer_names]
    rows = []
    for case in cases:
        meta = results[case]["meta"]
        by = results[case]["results"]
        row = [case, f"{meta['expected_total']:,}"] + [fmt_cell(by[e], timeout) for e in engines + peer_names]
        if main:
            row += [fmt_ratio(by[main], by[p], timeout) for p in peer_names]
        rows.append(row)
    return header, rows


def print_table(header: list[str], rows: list[list[str]]) -> None:
    """Print with rich if it is installed, else as plain aligned text."""
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        for r in [header, *rows]:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
        return
    table = Table(title="deltalog vs peers: whole-process median wall time / peak RSS of the process tree")
    for i, h in enumerate(header):
        table.add_column(h, justify="left" if i == 0 else "right")
    for r in rows:
        table.add_row(*r)
    Console(width=None if sys.stdout.isatty() else 240).print(table)


# ---------------------------------------------------------------- main


def machine_info() -> dict:
    """What the numbers were measured on."""
    return {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "loadavg_at_start": os.getloadavg(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "versions": package_versions(),
    }


def package_versions() -> dict[str, str | None]:
    """Installed versions of the peers' distributions."""
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for dist in ("duckdb", "clingo", "nemo-python", "deltalog"):
        try:
            found[dist] = version(dist)
        except PackageNotFoundError:
            found[dist] = None
    return found


def parse_list(text: str, known, what: str) -> list[str]:
    """Comma-separated names, checked against the known ones ('' gives an empty list)."""
    names = [x.strip() for x in text.split(",") if x.strip()]
    bad = [n for n in names if n not in known]
    if bad:
        raise SystemExit(f"unknown {what}: {', '.join(bad)}; known: {', '.join(known)}")
    return names


def parse_args(argv: list[str] | None):
    """Command-line options."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", default=",".join(generators.CASES), help="comma-separated case names")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per run")
    ap.add_argument("--peers", default=",".join(peers.PEERS), help="comma-separated peers ('' for none)")
    ap.add_argument("--engines", default=",".join(ENGINES), help="our engines ('' for none)")
    ap.add_argument("--json", type=Path, help="save all results here")
    ap.add_argument("--data", type=Path, default=generators.DATA_DIR, help="case data root")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Generate missing data, run every engine on every case, print the table (and save JSON)."""
    args = parse_args(argv)
    cases = parse_list(args.cases, generators.CASES, "case")
    peer_names = parse_list(args.peers, peers.PEERS, "peer")
    engines = parse_list(args.engines, ALL_ENGINES, "engine")
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    results = {}
    for case in cases:
        case_dir = generators.ensure_case(case, args.data)
        meta = generators.load_meta(case_dir)
        by = {e: bench_engine(e, case_dir, meta, args.repeat, args.timeout, log) for e in engines + peer_names}
        for r in by.values():
            if r.note:
                log(f"  {case:16s} {r.engine:9s} {r.status}: {r.note}")
        results[case] = {"meta": meta, "results": by}
    print_table(*table_rows(cases, results, engines, peer_names, args.timeout))
    if args.json:
        save_json(args.json, results, args)
    return 0


def save_json(path: Path, results: dict, args) -> None:
    """Write machine info, options and every result (with all repeat walls) as JSON."""
    doc = {
        "machine": machine_info(),
        "options": {"repeat": args.repeat, "timeout": args.timeout},
        "cases": {
            case: {
                "meta": {k: v for k, v in r["meta"].items() if k != "facts"},
                "engines": {e: {**asdict(x), "median": x.median} for e, x in r["results"].items()},
            }
            for case, r in results.items()
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())
