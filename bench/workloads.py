"""Classic Datalog workloads of issue 15, deltalog beside DuckDB, clingo and Nemo (whole process).

    python bench/workloads.py                          # generate missing data, run every case
    python bench/workloads.py --cases andersen,sg-forest --repeat 3 --timeout 300
    python bench/workloads.py --baseline-src /tmp/base/src   # also the engine from another checkout
    python bench/workloads.py generate [CASE ...] [--force]
    python bench/workloads.py peer duckdb bench/data/wl-andersen   # one peer run, prints {"counts": ...}
    python bench/workloads.py show nemo bench/data/wl-pipeline     # the translated program

Runs are interleaved (repeat i of every engine before repeat i + 1 of any) so that the load of a
shared machine hits all engines alike; the table shows medians and ratios deltalog/peer.
Measurement (process tree, peak RSS) is bench/run.py's; counts are checked against the
reference counts in meta.json (computed when the case is generated: by numpy where cheap,
else by DuckDB, cross-checked against deltalog on the small cases).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

import peers  # noqa: E402

DATA_DIR = BENCH_DIR / "data"
FORMAT = 1
ENGINES = ("deltalog", "duckdb", "clingo", "nemo")

# ---------------------------------------------------------------- programs (deltalog syntax)

ANDERSEN = """\
pt(V, O) :- new(V, O).
pt(V, O) :- assign(V, W), pt(W, O).
hpt(O1, F, O2) :- store(V, F, W), pt(V, O1), pt(W, O2).
pt(V, O2) :- load(V, W, F), pt(W, O1), hpt(O1, F, O2).
"""
SG = """\
sg(X, Y) :- par(X, P), par(Y, P), X != Y.
sg(X, Y) :- par(X, A), sg(A, B), par(Y, B).
"""
REACH = """\
reach(X) :- source(X).
reach(Y) :- reach(X), edge(X, Y).
"""
PIPELINE = REACH + """\
unreached(X) :- node(X), not reach(X).
fanin(Y, N) :- reach(Y), N = count X : { edge(X, Y), reach(X) }.
minpred(Y, M) :- unreached(Y), M = min X : { edge(X, Y) }.
"""
PROGRAMS = {"andersen": ANDERSEN, "sg": SG, "reach": REACH, "pipeline": PIPELINE}
CHECK = {"andersen": ["pt", "hpt"], "sg": ["sg"], "reach": ["reach"],
         "pipeline": ["reach", "unreached", "fanin", "minpred"]}

# ---------------------------------------------------------------- generators


def andersen_facts(n_vars: int, seed: int, module: int = 2048, cross: float = 0.4) -> dict[str, np.ndarray]:
    """Synthetic program facts: variables grouped into methods of 32 and modules of ``module``;
    allocations, assignments (mostly within a method, a fraction ``cross`` across methods of the
    same module: calls), field stores and loads over 16 fields.  Modules do not share variables,
    so the derived facts grow linearly with n_vars."""
    rng = np.random.default_rng(seed)
    method = 32
    n_new = n_vars // 2
    n_assign = n_vars
    n_store = n_vars // 8
    n_load = n_vars // 8
    fields = 16

    def near(v: np.ndarray, cross: float) -> np.ndarray:
        base = v // method * method + rng.integers(0, method, v.size)
        far = np.minimum(v // module * module + rng.integers(0, module, v.size), n_vars - 1)
        return np.where(rng.random(v.size) < cross, far, base)

    new_v = rng.integers(0, n_vars, n_new)
    new = np.stack([new_v, np.arange(n_new)], 1)
    av = rng.integers(0, n_vars, n_assign)
    assign = np.stack([av, near(av, cross)], 1)
    sv = rng.integers(0, n_vars, n_store)
    store = np.stack([sv, rng.integers(0, fields, n_store), near(sv, 2 * cross)], 1)
    lv = rng.integers(0, n_vars, n_load)
    load = np.stack([lv, near(lv, 2 * cross), rng.integers(0, fields, n_load)], 1)
    return {p: np.unique(a, axis=0) for p, a in
            {"new": new, "assign": assign, "store": store, "load": load}.items()}


def forest(n: int, seed: int, window: int | None, branch: float = 1.0) -> np.ndarray:
    """par(child, parent): node i > roots picks a parent among earlier nodes (within ``window``;
    with probability 1 - ``branch`` simply i - 1)."""
    rng = np.random.default_rng(seed)
    roots = max(1, n // 1000)
    child = np.arange(roots, n)
    lo = np.zeros(child.size, np.int64) if window is None else np.maximum(child - window, 0)
    parent = lo + (rng.random(child.size) * (child - lo)).astype(np.int64)
    parent = np.where(rng.random(child.size) < branch, parent, child - 1)
    return np.stack([child, parent], 1)


def digraph(n: int, m: int, seed: int) -> np.ndarray:
    """m distinct random edges (x, y), x != y, over n nodes."""
    rng = np.random.default_rng(seed)
    x, y = rng.integers(0, n, 2 * m), rng.integers(0, n, 2 * m)
    keep = x != y
    keys = np.unique(x[keep] * n + y[keep])
    keys = rng.permutation(keys)[:m]
    return np.stack([keys // n, keys % n], 1)


def reach_count(n: int, edges: np.ndarray, source: int) -> np.ndarray:
    """Boolean mask of nodes reachable from source (BFS over a CSR)."""
    order = np.argsort(edges[:, 0], kind="stable")
    dst = edges[order, 1]
    start = np.searchsorted(edges[order, 0], np.arange(n + 1))
    seen = np.zeros(n, bool)
    seen[source] = True
    frontier = np.array([source])
    while frontier.size:
        lo, hi = start[frontier], start[frontier + 1]
        counts = hi - lo
        idx = np.repeat(lo - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
        nxt = np.unique(dst[idx])
        nxt = nxt[~seen[nxt]]
        seen[nxt] = True
        frontier = nxt
    return seen


def sg_count_forest(par: np.ndarray, n: int) -> int:
    """Same-generation pairs of a forest: ordered pairs x != y at equal depth with a common ancestor
    at the same height, i.e. distinct nodes whose ancestors at some level coincide; in a forest
    that is: same depth and same root."""
    parent = np.full(n, -1)
    parent[par[:, 0]] = par[:, 1]
    depth = np.zeros(n, np.int64)
    root = np.arange(n)
    for i in range(n):  # parents precede children
        if parent[i] >= 0:
            depth[i] = depth[parent[i]] + 1
            root[i] = root[parent[i]]
    # x, y share a parent chain of equal length up to a common ancestor iff same depth and same root
    # and depth >= 1 (a root has no parent, so it is in no sg fact).
    keys = (root * (depth.max() + 1) + depth)[depth >= 1]
    _, sizes = np.unique(keys, return_counts=True)
    return int((sizes * (sizes - 1)).sum())


def reach_case(n: int, m: int, seed: int, tiny: bool, family: str) -> tuple[dict, dict, dict]:
    edges = digraph(n, m, seed)
    rng = np.random.default_rng(seed + 1)
    if tiny:
        source = n
        extra = np.array([[n, n + 1], [n, n + 2], [n + 1, n + 3]])
        edges = np.concatenate([edges, extra])
        total = n + 4
    else:
        out = np.bincount(edges[:, 0], minlength=n)
        candidates = np.flatnonzero(out >= 2)
        for source in rng.permutation(candidates)[:50]:  # a source in the giant out-component
            if reach_count(n, edges, int(source)).sum() > n // 10:
                break
        total = n
    seen = reach_count(total, edges, int(source))
    facts = {"edge": edges, "source": np.array([[source]])}
    expected = {"reach": int(seen.sum())}
    if family == "pipeline":
        facts["node"] = np.arange(total)[:, None]
        unreached = ~seen
        has_in = np.bincount(edges[:, 1], minlength=total) > 0
        reached_in = np.bincount(edges[:, 1], weights=seen[edges[:, 0]], minlength=total) > 0
        expected |= {"unreached": int(unreached.sum()), "fanin": int((seen & reached_in).sum()),
                     "minpred": int((unreached & has_in).sum())}
    params = {"nodes": total, "edges": int(edges.shape[0]), "source": int(source), "seed": seed}
    return facts, expected, params


def case_andersen(n_vars: int, seed: int, module: int = 2048, cross: float = 0.4):
    params = {"vars": n_vars, "seed": seed, "module": module, "cross": cross}
    return "andersen", andersen_facts(n_vars, seed, module, cross), None, params


def case_sg_forest(n: int, seed: int, window: int | None, branch: float = 1.0):
    par = forest(n, seed, window, branch)
    return "sg", {"par": par}, {"sg": sg_count_forest(par, n)}, {"nodes": n, "window": window, "seed": seed}


def case_sg_digraph(n: int, m: int, seed: int):
    return "sg", {"par": digraph(n, m, seed)}, None, {"nodes": n, "edges": m, "seed": seed}


def case_reach(n: int, m: int, seed: int, tiny: bool = False, family: str = "reach"):
    facts, expected, params = reach_case(n, m, seed, tiny, family)
    return family, facts, expected, params


CASES: dict[str, Callable[[], tuple]] = {
    "andersen": lambda: case_andersen(32_768, 7),
    "sg-forest": lambda: case_sg_forest(31_000, 3, None),
    "sg-digraph": lambda: case_sg_digraph(7_600, 9_120, 4),
    "reach-1m": lambda: case_reach(800_000, 1_000_000, 5),
    "pipeline": lambda: case_reach(800_000, 1_000_000, 5, family="pipeline"),
    "sg-small": lambda: case_sg_forest(50_001, 6, 3, 0.08),
    "reach-tiny": lambda: case_reach(800_000, 1_000_000, 5, tiny=True),
    # small instances for checking the translations against each other (bench/workloads.py check)
    "andersen-m": lambda: case_andersen(3_000, 7),
    "andersen-xs": lambda: case_andersen(1_024, 7, 1_024, 0.5),
    "sg-digraph-xs": lambda: case_sg_digraph(300, 330, 4),
    "pipeline-xs": lambda: case_reach(2_000, 2_500, 5, family="pipeline"),
}
MAIN_CASES = ["andersen", "sg-forest", "sg-digraph", "reach-1m", "pipeline", "sg-small", "reach-tiny"]


def write_tsv(path: Path, rows: np.ndarray) -> None:
    np.savetxt(path, rows, fmt="%d", delimiter="\t")


def generate(name: str, root: Path = DATA_DIR, force: bool = False) -> Path:
    """Write bench/data/wl-<name>/{program.dl,facts/,meta.json} unless present."""
    case_dir = root / f"wl-{name}"
    meta_path = case_dir / "meta.json"
    if not force and meta_path.exists() and json.loads(meta_path.read_text()).get("format") == FORMAT:
        return case_dir
    family, facts, expected, params = CASES[name]()
    (case_dir / "facts").mkdir(parents=True, exist_ok=True)
    shutil.rmtree(case_dir / "peer", ignore_errors=True)
    (case_dir / "program.dl").write_text(PROGRAMS[family])
    for pred, rows in facts.items():
        write_tsv(case_dir / "facts" / f"{pred}.tsv", rows)
    meta = {"format": FORMAT, "case": name, "family": family, "params": params, "check": CHECK[family],
            "facts": {p: {"rows": int(r.shape[0]), "types": ["int"] * r.shape[1]} for p, r in facts.items()},
            "expected": expected, "expected_by": "numpy" if expected else None}
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    if expected is None:  # reference counts from DuckDB (its SQL is cross-checked on the -xs cases)
        meta["expected"], meta["expected_by"] = run_duckdb(case_dir, meta), "duckdb"
    meta["expected_total"] = sum(meta["expected"].values())
    meta["input_facts"] = sum(f["rows"] for f in meta["facts"].values())
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    return case_dir


# ---------------------------------------------------------------- DuckDB (recursive CTEs)


def sql_andersen() -> list[str]:
    """pt and hpt are mutually recursive: one tagged CTE t(tag, a, b, c) with USING KEY (set semantics);
    each rule with two recursive atoms has one branch per position of the delta (the working table),
    the other atom reading the recurring (whole) table."""
    delta_pt, full_pt = "t {a} ON {a}.tag = 0", "recurring.t {a} ON {a}.tag = 0"
    store = ("SELECT 1, p1.b, s.c1, p2.b FROM edb_store s JOIN {p1} AND p1.a = s.c0 "
             "JOIN {p2} AND p2.a = s.c2")
    load = ("SELECT 0, l.c0, h.c, -1 FROM edb_load l JOIN {p} AND p.a = l.c1 "
            "JOIN {h} ON h.tag = 1 AND h.a = p.b AND h.b = l.c2")
    branches = [
        "SELECT 0, a.c0, d.b, -1 FROM edb_assign a JOIN t d ON d.tag = 0 AND d.a = a.c1",
        store.format(p1=delta_pt.format(a="p1"), p2=full_pt.format(a="p2")),
        store.format(p1=full_pt.format(a="p1"), p2=delta_pt.format(a="p2")),
        load.format(p=delta_pt.format(a="p"), h="recurring.t h"),
        load.format(p=full_pt.format(a="p"), h="t h"),
    ]
    return [
        "CREATE TABLE t AS WITH RECURSIVE t(tag, a, b, c) USING KEY (tag, a, b, c) AS (\n"
        "  SELECT 0, c0, c1, -1 FROM edb_new\n  UNION\n  (" + "\n   UNION ".join(branches) + ")\n) SELECT * FROM t",
        "CREATE TABLE pt AS SELECT a AS c0, b AS c1 FROM t WHERE tag = 0",
        "CREATE TABLE hpt AS SELECT a AS c0, b AS c1, c AS c2 FROM t WHERE tag = 1",
    ]


def sql_sg() -> list[str]:
    """Linear recursion: plain UNION (the working table is the delta)."""
    return [
        "CREATE TABLE sg AS WITH RECURSIVE sg(c0, c1) AS (\n"
        "  SELECT a.c0, b.c0 FROM edb_par a JOIN edb_par b ON a.c1 = b.c1 WHERE a.c0 <> b.c0\n  UNION\n"
        "  SELECT a.c0, b.c0 FROM edb_par a JOIN sg s ON a.c1 = s.c0 JOIN edb_par b ON b.c1 = s.c1\n"
        ") SELECT * FROM sg"
    ]


def sql_reach() -> list[str]:
    return [
        "CREATE TABLE reach AS WITH RECURSIVE reach(c0) AS (SELECT c0 FROM edb_source UNION "
        "SELECT e.c1 FROM reach r JOIN edb_edge e ON e.c0 = r.c0) SELECT * FROM reach"
    ]


def sql_pipeline() -> list[str]:
    return sql_reach() + [
        "CREATE TABLE unreached AS SELECT DISTINCT c0 FROM edb_node n WHERE NOT EXISTS "
        "(SELECT 1 FROM reach r WHERE r.c0 = n.c0)",
        "CREATE TABLE fanin AS SELECT e.c1 AS c0, count(DISTINCT e.c0) AS c1 FROM edb_edge e "
        "JOIN reach a ON a.c0 = e.c0 JOIN reach b ON b.c0 = e.c1 GROUP BY e.c1",
        "CREATE TABLE minpred AS SELECT e.c1 AS c0, min(e.c0) AS c1 FROM edb_edge e "
        "JOIN unreached u ON u.c0 = e.c1 GROUP BY e.c1",
    ]


DUCKDB_SQL = {"andersen": sql_andersen, "sg": sql_sg, "reach": sql_reach, "pipeline": sql_pipeline}


def run_duckdb(case_dir: Path, meta: dict) -> dict[str, int]:
    import duckdb

    con = duckdb.connect()
    peers.duckdb_load(con, case_dir, meta)
    for stmt in DUCKDB_SQL[meta["family"]]():
        con.execute(stmt)
    return {p: con.execute(f"SELECT count(*) FROM {p}").fetchone()[0] for p in meta["check"]}


# ---------------------------------------------------------------- clingo and Nemo

CLINGO_PIPELINE = REACH + """\
unreached(X) :- node(X), not reach(X).
fanin(Y, N) :- reach(Y), edge(X0, Y), reach(X0), N = #count{ X : edge(X, Y), reach(X) }.
minpred(Y, M) :- unreached(Y), edge(X0, Y), M = #min{ X : edge(X, Y) }.
"""
NEMO_PIPELINE = """\
reach(?X) :- source(?X) .
reach(?Y) :- reach(?X), edge(?X, ?Y) .
unreached(?X) :- node(?X), ~reach(?X) .
fanin(?Y, #count(?X)) :- reach(?Y), edge(?X, ?Y), reach(?X) .
minpred(?Y, #min(?X)) :- unreached(?Y), edge(?X, ?Y) .
"""


def clingo_program(meta: dict) -> str:
    return CLINGO_PIPELINE if meta["family"] == "pipeline" else PROGRAMS[meta["family"]]


def run_clingo(case_dir: Path, meta: dict) -> dict[str, int]:
    import clingo

    ctl = clingo.Control(["--warn=none"])
    ctl.load(str(peers.clingo_facts_path(case_dir)))
    ctl.add("base", [], clingo_program(meta) + "\n#show.\n")
    ctl.ground([("base", [])])
    ctl.solve()
    arity = peers.arities(PROGRAMS[meta["family"]])
    return {p: sum(1 for a in ctl.symbolic_atoms.by_signature(p, arity[p]) if a.is_fact) for p in meta["check"]}


def nemo_program(case_dir: Path, meta: dict) -> str:
    lines = []
    for pred, info in meta["facts"].items():
        path = (case_dir / "facts" / f"{pred}.tsv").resolve()
        lines.append(f'@import {pred}__in :- tsv{{resource="{path}", format=({",".join(info["types"])})}} .')
        args = ", ".join(f"?A{i}" for i in range(len(info["types"])))
        lines.append(f"{pred}({args}) :- {pred}__in({args}) .")
    rules = NEMO_PIPELINE if meta["family"] == "pipeline" else peers.nemo_rules(PROGRAMS[meta["family"]])
    return "\n".join(lines) + "\n" + rules + "".join(f"@output {p} .\n" for p in meta["check"])


def run_nemo(case_dir: Path, meta: dict) -> dict[str, int]:
    import nmo_python

    engine = nmo_python.NemoEngine(nmo_python.load_string(nemo_program(case_dir, meta)))
    engine.reason()
    return {p: sum(1 for _ in engine.result(p)) for p in meta["check"]}


PEER_RUNNERS = {"duckdb": run_duckdb, "clingo": run_clingo, "nemo": run_nemo}


# ---------------------------------------------------------------- runner


def engine_cmd(engine: str, case_dir: Path, out_dir: Path, baseline: Path | None):
    """(command, environment) of one timed run."""
    import run as runner

    if engine in ("deltalog", "deltalog-base"):
        env = runner.deltalog_env()
        if engine == "deltalog-base":
            assert baseline is not None
            env["PYTHONPATH"] = str(baseline)
        cmd = [sys.executable, "-m", "deltalog", "run", str(case_dir / "program.dl"),
               "--facts", str(case_dir / "facts"), "--out", str(out_dir), "--quiet"]
        return cmd, env
    return [sys.executable, str(Path(__file__).resolve()), "peer", engine, str(case_dir)], None


def run_once(engine: str, case_dir: Path, meta: dict, timeout: float, baseline: Path | None):
    import run as runner

    out_dir = Path(tempfile.mkdtemp(prefix="deltalog-wl-"))
    try:
        cmd, env = engine_cmd(engine, case_dir, out_dir, baseline)
        m = runner.measure(cmd, timeout, env=env, cwd=runner.REPO_DIR)
        if m.returncode != 0:
            return m, None
        if engine.startswith("deltalog"):
            return m, {p: runner.count_lines(out_dir / f"{p}.tsv") for p in meta["check"]}
        return m, runner.parse_counts(m.stdout)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


def bench(cases: list[str], engines: list[str], repeat: int, timeout: float, baseline: Path | None,
          log) -> dict:
    import run as runner

    results: dict = {}
    for case in cases:
        if case in CASES:
            case_dir = generate(case)
        else:  # a case of bench/run.py (deltalog engines only: its peer translations live in peers.py)
            import generators

            case_dir = generators.ensure_case(case)
        meta = json.loads((case_dir / "meta.json").read_text())
        meta.setdefault("input_facts", sum(f["rows"] for f in meta["facts"].values()))
        if "clingo" in engines:
            peers.prepare_clingo(case_dir, meta)
        by = {e: runner.Result(case, e, "ok") for e in engines}
        for i in range(repeat):
            for e in engines:
                res = by[e]
                if case not in CASES and not e.startswith("deltalog"):
                    res.status = "n/a"
                if res.status != "ok":
                    continue
                m, counts = run_once(e, case_dir, meta, timeout, baseline)
                res.peak_mb = max(res.peak_mb or 0, m.peak_rss / 2**20)
                log(f"  {case:12s} {e:13s} run {i + 1}/{repeat}: "
                    f"{'timeout' if m.timed_out else f'{m.wall:.2f} s'}, {m.peak_rss / 2**20:.0f} MB")
                if m.timed_out:
                    res.status, res.walls = "timeout", []
                elif counts is None:
                    res.status, res.note = "error", f"exit {m.returncode}: {runner.last_line(m.stderr)}"
                elif counts != meta["expected"]:
                    res.status, res.note = "mismatch", f"counts {counts} != expected {meta['expected']}"
                else:
                    res.walls.append(m.wall)
                    res.counts = counts
        for r in by.values():
            if r.note:
                log(f"  {case:12s} {r.engine:13s} {r.status}: {r.note}")
        results[case] = {"meta": meta, "results": by}
    return results


def table(results: dict, engines: list[str], timeout: float) -> str:
    """A markdown table: facts, median wall per engine, ratios deltalog/peer."""
    import run as runner

    main = engines[0]
    others = engines[1:]
    head = ["case", "input facts", "derived facts"] + engines + [f"{main}/{o}" for o in others]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case, r in results.items():
        by, meta = r["results"], r["meta"]

        def cell(res) -> str:
            if res.status == "timeout":
                return f"> {timeout:g} s"
            if res.status != "ok":
                return res.status
            return f"{res.median:.2f} s"

        row = [case, f"{meta['input_facts']:,}", f"{meta['expected_total']:,}"]
        row += [cell(by[e]) for e in engines]
        row += [runner.fmt_ratio(by[main], by[o], timeout) for o in others]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("peer", "show"):
        what, engine, case_dir = argv[0], argv[1], Path(argv[2])
        meta = json.loads((case_dir / "meta.json").read_text())
        if what == "show":
            print({"duckdb": lambda: ";\n".join(DUCKDB_SQL[meta["family"]]()) + ";",
                   "clingo": lambda: clingo_program(meta),
                   "nemo": lambda: nemo_program(case_dir, meta)}[engine]())
            return 0
        if engine == "clingo":
            peers.prepare_clingo(case_dir, meta)
        print(json.dumps({"counts": PEER_RUNNERS[engine](case_dir, meta)}))
        return 0
    if argv and argv[0] == "generate":
        ap = argparse.ArgumentParser()
        ap.add_argument("cases", nargs="*")
        ap.add_argument("--force", action="store_true")
        args = ap.parse_args(argv[1:])
        for name in args.cases or MAIN_CASES:
            meta = json.loads((generate(name, force=args.force) / "meta.json").read_text())
            print(f"{name:14s} {meta['input_facts']:>10,d} in {meta['expected_total']:>12,d} out  {meta['expected']}")
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default=",".join(MAIN_CASES))
    ap.add_argument("--engines", default=",".join(ENGINES),
                    help="deltalog, deltalog-base (needs --baseline-src), duckdb, clingo, nemo")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--baseline-src", type=Path, help="src/ of another deltalog checkout (engine deltalog-base)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    results = bench(cases, engines, args.repeat, args.timeout, args.baseline_src, log)
    text = table(results, engines, args.timeout)
    print(text)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "loadavg": os.getloadavg(),
            "options": vars(args) | {"json": str(args.json), "baseline_src": str(args.baseline_src)},
            "cases": {c: {"meta": r["meta"], "walls": {e: x.walls for e, x in r["results"].items()},
                          "status": {e: x.status for e, x in r["results"].items()}}
                      for c, r in results.items()}}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
