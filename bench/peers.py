"""Peer engines (DuckDB, clingo, Nemo) for the benchmark cases; `python bench/peers.py ENGINE CASE_DIR` runs one."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

PEERS = ("duckdb", "clingo", "nemo")
PEER_MODULES = {"duckdb": "duckdb", "clingo": "clingo", "nemo": "nmo_python"}


def load_meta(case_dir: Path) -> dict:
    """The meta.json of a generated case directory."""
    return json.loads((case_dir / "meta.json").read_text())


def arities(program: str) -> dict[str, int]:
    """Arity of every head predicate in a deltalog program."""
    found = {}
    for m in re.finditer(r"^\s*(\w+)\(([^)]*)\)\s*:-", program, re.M):
        found[m.group(1)] = len([a for a in m.group(2).split(",") if a.strip()])
    return found


# ================================================================ DuckDB

SQL_TYPES = {"int": "BIGINT", "string": "VARCHAR"}


def duckdb_load(con, case_dir: Path, meta: dict) -> None:
    """Read every facts TSV into a table edb_<pred> with columns c0, c1, ..."""
    for pred, info in meta["facts"].items():
        cols = ", ".join(f"'c{i}': '{SQL_TYPES[t]}'" for i, t in enumerate(info["types"]))
        path = case_dir / "facts" / f"{pred}.tsv"
        con.execute(
            f"CREATE TABLE edb_{pred} AS SELECT * FROM read_csv('{path}', delim='\\t', header=false, "
            f"quote='', escape='', auto_detect=false, columns={{{cols}}})"
        )


def sql_closure(name: str, base: str, symmetric: bool, neq: bool) -> str:
    """Nonlinear (and optionally symmetric) transitive closure with USING KEY; Δ joins the full relation."""
    cond = " WHERE d.c0 <> f.c1" if neq else ""
    cond2 = " WHERE f.c0 <> d.c1" if neq else ""
    branches = [
        f"SELECT d.c0, f.c1 FROM {name} d JOIN recurring.{name} f ON d.c1 = f.c0{cond}",
        f"SELECT f.c0, d.c1 FROM recurring.{name} f JOIN {name} d ON f.c1 = d.c0{cond2}",
    ]
    if symmetric:
        branches.insert(0, f"SELECT d.c1, d.c0 FROM {name} d")
    return (
        f"CREATE TABLE {name} AS WITH RECURSIVE {name}(c0, c1) USING KEY (c0, c1) AS (\n"
        f"  {base}\n  UNION\n  ({' UNION '.join(branches)})\n) SELECT * FROM {name}"
    )


def sql_tagged(base: str, steps: list[tuple[int, int, bool]]) -> str:
    """Linear recursion over a tagged relation t(tag, c0, c1); steps are (from_tag, to_tag, swap)."""
    parts = [f"SELECT {dst}, {'c1, c0' if swap else 'c0, c1'} FROM t WHERE tag = {src}" for src, dst, swap in steps]
    return f"WITH RECURSIVE t(tag, c0, c1) AS (\n  {base}\n  UNION\n  ({' UNION '.join(parts)})\n) "


def sql_tc_linear() -> list[str]:
    """path(X,Z) :- edge(X,Y), path(Y,Z): plain UNION is correct for linear recursion."""
    return [
        "CREATE TABLE path AS WITH RECURSIVE path(c0, c1) AS (SELECT c0, c1 FROM edb_edge UNION "
        "SELECT e.c0, p.c1 FROM edb_edge e JOIN path p ON e.c1 = p.c0) SELECT * FROM path"
    ]


def sql_tc_nonlinear() -> list[str]:
    """path(X,Z) :- path(X,Y), path(Y,Z)."""
    return [sql_closure("path", "SELECT c0, c1 FROM edb_edge", symmetric=False, neq=False)]


def sql_symtrans() -> list[str]:
    """r = symmetric transitive closure of e."""
    return [sql_closure("r", "SELECT c0, c1 FROM edb_e", symmetric=True, neq=False)]


def sql_pc() -> list[str]:
    """pc(X,Y) :- cw(X,Z1), ca(X,Z2), pc(Z1,Y), pc(Z2,Y), Δ in either pc atom."""
    b1 = (
        "SELECT cw.c0, d.c1 FROM pc d JOIN edb_cw cw ON cw.c1 = d.c0 JOIN edb_ca ca ON ca.c0 = cw.c0 "
        "JOIN recurring.pc f ON f.c0 = ca.c1 AND f.c1 = d.c1"
    )
    b2 = (
        "SELECT ca.c0, d.c1 FROM pc d JOIN edb_ca ca ON ca.c1 = d.c0 JOIN edb_cw cw ON cw.c0 = ca.c0 "
        "JOIN recurring.pc f ON f.c0 = cw.c1 AND f.c1 = d.c1"
    )
    return [
        "CREATE TABLE pc AS WITH RECURSIVE pc(c0, c1) USING KEY (c0, c1) AS (\n"
        f"  SELECT c0, c1 FROM edb_pc\n  UNION\n  ({b1} UNION {b2})\n) SELECT * FROM pc"
    ]


def sql_rs1() -> list[str]:
    """Rule set 1 of seed 004: symmetric-transitive hasNeighbour, then count/median aggregates."""
    hn, temp = "hasNeighbour", "edb_hasAirTemperatureMeasurement"
    return [
        sql_closure(hn, f"SELECT c0, c1 FROM edb_{hn}", symmetric=True, neq=True),
        f"CREATE TABLE nbt AS SELECT DISTINCT h.c0 AS x, h.c1 AS y, t.c1 AS t FROM {hn} h "
        f"JOIN {temp} t ON h.c1 = t.c0",
        "CREATE TABLE hasNeighbourAirTemperatureMeasurementNumber AS SELECT x AS c0, count(*) AS c1 "
        "FROM nbt GROUP BY x",
        "CREATE TABLE hasMedianAirTemperatureMeasurementNearby AS SELECT x AS c0, median(t) AS c1 "
        "FROM nbt GROUP BY x",
        "CREATE TABLE moreThan3Neighbours AS SELECT DISTINCT c0 FROM hasNeighbourAirTemperatureMeasurementNumber "
        "WHERE c1 >= 3",
        "CREATE TABLE sensorAnomalyWindTurbine AS SELECT DISTINCT m.c0 FROM hasMedianAirTemperatureMeasurementNearby m "
        f"JOIN moreThan3Neighbours USING (c0) JOIN {temp} t ON t.c0 = m.c0 WHERE abs(t.c1 - m.c1) > 5",
    ]


def sql_rs2() -> list[str]:
    """Rule set 2 of seed 004, one statement per recursive component, in stratum order."""
    t1314 = sql_tagged("SELECT 13, c0, c1 FROM edb_p3", [(13, 14, False), (14, 13, True)])
    t2022 = sql_tagged(
        "SELECT 20, c0, c1 FROM (SELECT * FROM p11 UNION SELECT * FROM p12 UNION SELECT * FROM p13)",
        [(20, 21, False), (21, 22, False), (22, 20, False)],
    )
    no_p5 = "NOT EXISTS (SELECT 1 FROM edb_p5 n WHERE n.c0 = {a}.c0 AND n.c1 = {a}.c1)"
    return [
        sql_closure("p11", "SELECT c0, c1 FROM edb_p1", symmetric=True, neq=True),
        sql_closure("p12", "SELECT c0, c1 FROM edb_p2", symmetric=False, neq=True),
        f"CREATE TABLE t1314 AS {t1314} SELECT * FROM t",
        "CREATE TABLE p13 AS SELECT c0, c1 FROM t1314 WHERE tag = 13",
        "CREATE TABLE p14 AS SELECT c0, c1 FROM t1314 WHERE tag = 14",
        f"CREATE TABLE t2022 AS {t2022} SELECT * FROM t",
        *[f"CREATE TABLE p{k} AS SELECT c0, c1 FROM t2022 WHERE tag = {k}" for k in (20, 21, 22)],
        "CREATE TABLE p25 AS SELECT DISTINCT a.c0, b.c1 FROM p11 a JOIN p12 b ON a.c1 = b.c0 WHERE "
        + no_p5.format(a="b"),
        "CREATE TABLE p26 AS SELECT DISTINCT a.c0, b.c0 AS c1 FROM p12 a JOIN p13 b ON a.c1 = b.c1 WHERE "
        + no_p5.format(a="b"),
        "CREATE TABLE p30 AS SELECT DISTINCT a.c0, b.c1 FROM p22 a JOIN p21 b ON a.c1 = b.c0",
        "CREATE TABLE p31 AS SELECT DISTINCT a.c0, a.c1 FROM p25 a "
        "WHERE EXISTS (SELECT 1 FROM p26 b WHERE b.c0 = a.c1)",
    ]


DUCKDB_SQL = {
    "tc-linear": sql_tc_linear,
    "tc-nonlinear": sql_tc_nonlinear,
    "symtrans": sql_symtrans,
    "pc": sql_pc,
    "rs1": sql_rs1,
    "rs2": sql_rs2,
}


def run_duckdb(case_dir: Path, meta: dict) -> dict[str, int]:
    """Load, evaluate with SQL, count each checked table."""
    import duckdb

    con = duckdb.connect()
    duckdb_load(con, case_dir, meta)
    for stmt in DUCKDB_SQL[meta["family"]]():
        con.execute(stmt)
    return {p: con.execute(f"SELECT count(*) FROM {p}").fetchone()[0] for p in meta["check"]}


# ================================================================ clingo

CLINGO_RS1 = """\
hasNeighbour(X, Y) :- hasNeighbour(Y, X).
hasNeighbour(X, Y) :- hasNeighbour(X, Z), hasNeighbour(Z, Y), X != Y.
nbt(X, Y, T) :- hasNeighbour(X, Y), hasAirTemperatureMeasurement(Y, T).
hasNeighbourAirTemperatureMeasurementNumber(X, N) :- nbt(X, _, _), N = #count{ Y, T : nbt(X, Y, T) }.
tv(X, T) :- nbt(X, _, T).
cum(X, T, C) :- tv(X, T), C = #count{ Y, T2 : nbt(X, Y, T2), T2 <= T }.
pos(X, lo, (N + 1) / 2) :- hasNeighbourAirTemperatureMeasurementNumber(X, N), N \\ 2 = 1.
pos(X, hi, (N + 1) / 2) :- hasNeighbourAirTemperatureMeasurementNumber(X, N), N \\ 2 = 1.
pos(X, lo, N / 2) :- hasNeighbourAirTemperatureMeasurementNumber(X, N), N \\ 2 = 0.
pos(X, hi, N / 2 + 1) :- hasNeighbourAirTemperatureMeasurementNumber(X, N), N \\ 2 = 0.
kth(X, W, V) :- pos(X, W, K), V = #min{ T : cum(X, T, C), C >= K }.
hasMedianAirTemperatureMeasurementNearby(X, A + B) :- kth(X, lo, A), kth(X, hi, B).
moreThan3Neighbours(X) :- hasNeighbourAirTemperatureMeasurementNumber(X, N), N >= 3.
sensorAnomalyWindTurbine(X) :- hasMedianAirTemperatureMeasurementNearby(X, M2), moreThan3Neighbours(X),
    hasAirTemperatureMeasurement(X, T), |2 * T - M2| > 10.
"""
# The median is kept doubled (A + B, the sum of the two middle values) so it stays an integer;
# |T - M| > 5 becomes |2T - 2M| > 10.  Counts are the same as with the real median.

ASP_SYMBOL = re.compile(r"^[a-z][A-Za-z0-9_']*$")


def asp_term(cell: str, kind: str) -> str:
    """One TSV cell as an ASP term: ints as digits, identifier-like strings as symbols, else quoted."""
    if kind == "int" or ASP_SYMBOL.match(cell):
        return cell
    return '"' + cell.replace("\\", "\\\\").replace('"', '\\"') + '"'


def clingo_facts_path(case_dir: Path) -> Path:
    """Where the ASP facts file of a case is cached."""
    return case_dir / "peer" / "clingo_facts.lp"


def prepare_clingo(case_dir: Path, meta: dict) -> None:
    """Write the facts as ASP (untimed preparation, like shipping an .lp file)."""
    out = clingo_facts_path(case_dir)
    if out.exists():
        return
    out.parent.mkdir(exist_ok=True)
    with open(out, "w") as fh:
        for pred, info in meta["facts"].items():
            for line in open(case_dir / "facts" / f"{pred}.tsv"):
                cells = line.rstrip("\n").split("\t")
                fh.write(f"{pred}({','.join(asp_term(c, k) for c, k in zip(cells, info['types']))}).\n")


def clingo_program(case_dir: Path, meta: dict) -> str:
    """The ASP rules: the deltalog program as-is (it is valid ASP) except RS1."""
    if meta["family"] == "rs1":
        return CLINGO_RS1
    return (case_dir / "program.dl").read_text()


def run_clingo(case_dir: Path, meta: dict) -> dict[str, int]:
    """Ground and solve; count the symbolic atoms (all facts, the program is stratified) per predicate."""
    import clingo

    ctl = clingo.Control(["--warn=none"])
    ctl.load(str(clingo_facts_path(case_dir)))
    ctl.add("base", [], clingo_program(case_dir, meta) + "\n#show.\n")
    ctl.ground([("base", [])])
    ctl.solve()
    arity = arities((case_dir / "program.dl").read_text())
    atoms = ctl.symbolic_atoms
    return {p: sum(1 for a in atoms.by_signature(p, arity[p]) if a.is_fact) for p in meta["check"]}


# ================================================================ Nemo

NEMO_RS1 = """\
hasNeighbour(?X, ?Y) :- hasNeighbour(?Y, ?X) .
hasNeighbour(?X, ?Y) :- hasNeighbour(?X, ?Z), hasNeighbour(?Z, ?Y), ?X != ?Y .
nbt(?X, ?Y, ?T) :- hasNeighbour(?X, ?Y), hasAirTemperatureMeasurement(?Y, ?T) .
hasNeighbourAirTemperatureMeasurementNumber(?X, #count(?Y, ?T)) :- nbt(?X, ?Y, ?T) .
tv(?X, ?T) :- nbt(?X, ?Y, ?T) .
cum(?X, ?T, #count(?Y, ?T2)) :- tv(?X, ?T), nbt(?X, ?Y, ?T2), ?T2 <= ?T .
pos(?X, 0, ?K) :- hasNeighbourAirTemperatureMeasurementNumber(?X, ?N), 1 = REM(?N, 2), ?K = (?N + 1) / 2 .
pos(?X, 1, ?K) :- hasNeighbourAirTemperatureMeasurementNumber(?X, ?N), 1 = REM(?N, 2), ?K = (?N + 1) / 2 .
pos(?X, 0, ?K) :- hasNeighbourAirTemperatureMeasurementNumber(?X, ?N), 0 = REM(?N, 2), ?K = ?N / 2 .
pos(?X, 1, ?K) :- hasNeighbourAirTemperatureMeasurementNumber(?X, ?N), 0 = REM(?N, 2), ?K = ?N / 2 + 1 .
kth(?X, ?W, #min(?T)) :- pos(?X, ?W, ?K), cum(?X, ?T, ?C), ?C >= ?K .
hasMedianAirTemperatureMeasurementNearby(?X, ?M) :- kth(?X, 0, ?A), kth(?X, 1, ?B), ?M = ?A + ?B .
moreThan3Neighbours(?X) :- hasNeighbourAirTemperatureMeasurementNumber(?X, ?N), ?N >= 3 .
sensorAnomalyWindTurbine(?X) :- hasMedianAirTemperatureMeasurementNearby(?X, ?M), moreThan3Neighbours(?X),
    hasAirTemperatureMeasurement(?X, ?T), ?D = ABS(2 * ?T - ?M), ?D > 10 .
"""
# Same doubled-median encoding as for clingo.


def nemo_rules(program: str) -> str:
    """Translate deltalog rules without aggregates to Nemo syntax (?Vars, ~ for not, ' .' ends)."""
    out = re.sub(r"\b([A-Z][A-Za-z0-9_]*)\b", r"?\1", program)
    out = re.sub(r"\bnot\s+", "~", out)
    return re.sub(r"\.\s*$", " .", out, flags=re.M)


def nemo_imports(case_dir: Path, meta: dict) -> list[str]:
    """Imports into <pred>__in, copied into <pred> by a rule (works around Nemo 0.10.1 dropping rules)."""
    lines = []
    for pred, info in meta["facts"].items():
        path = (case_dir / "facts" / f"{pred}.tsv").resolve()
        lines.append(f'@import {pred}__in :- tsv{{resource="{path}", format=({",".join(info["types"])})}} .')
        args = ", ".join(f"?A{i}" for i in range(len(info["types"])))
        lines.append(f"{pred}({args}) :- {pred}__in({args}) .")
    return lines


def nemo_program(case_dir: Path, meta: dict) -> str:
    """The case's facts (``nemo_imports``), then its rules and outputs."""
    lines = nemo_imports(case_dir, meta)
    rules = NEMO_RS1 if meta["family"] == "rs1" else nemo_rules((case_dir / "program.dl").read_text())
    outputs = [f"@output {p} ." for p in meta["check"]]
    return "\n".join(lines) + "\n" + rules + "\n".join(outputs) + "\n"


def run_nemo(case_dir: Path, meta: dict) -> dict[str, int]:
    """Reason with nmo_python and count each checked predicate by iterating its result."""
    import nmo_python

    engine = nmo_python.NemoEngine(nmo_python.load_string(nemo_program(case_dir, meta)))
    engine.reason()
    return {p: sum(1 for _ in engine.result(p)) for p in meta["check"]}


# ================================================================ dispatch

RUNNERS = {"duckdb": run_duckdb, "clingo": run_clingo, "nemo": run_nemo}
PREPARERS = {"clingo": prepare_clingo}


def supports(engine: str, family: str) -> bool:
    """Whether a peer has a correct translation of a case family (all do at present)."""
    return engine == "duckdb" and family in DUCKDB_SQL or engine in ("clingo", "nemo")


def prepare(engine: str, case_dir: Path) -> None:
    """Untimed per-engine preparation of a case (e.g. the ASP facts file)."""
    if engine in PREPARERS:
        PREPARERS[engine](case_dir, load_meta(case_dir))


def main(argv: list[str] | None = None) -> int:
    """CLI: run one engine on one case directory and print {"counts": {...}} as JSON."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("engine", choices=PEERS)
    ap.add_argument("case_dir", type=Path)
    ap.add_argument("--prepare", action="store_true", help="only prepare the inputs (untimed step)")
    ap.add_argument("--show", action="store_true", help="print the translated program instead of running")
    args = ap.parse_args(argv)
    meta = load_meta(args.case_dir)
    if args.prepare:
        prepare(args.engine, args.case_dir)
        return 0
    if args.show:
        print(show_program(args.engine, args.case_dir, meta))
        return 0
    print(json.dumps({"counts": RUNNERS[args.engine](args.case_dir, meta)}))
    return 0


def show_program(engine: str, case_dir: Path, meta: dict) -> str:
    """The program text an engine would run on a case."""
    if engine == "duckdb":
        return ";\n".join(DUCKDB_SQL[meta["family"]]()) + ";"
    if engine == "clingo":
        return clingo_program(case_dir, meta)
    return nemo_program(case_dir, meta)


if __name__ == "__main__":
    sys.exit(main())
