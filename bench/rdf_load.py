"""Loading RDF: the LUBM-like data (bench/maint_generators.py, ``lubm``: 1,051,601 facts) as one
N-Triples file of IRIs, read by ``deltalog run`` with a two-rule program over ``triple`` (whole
process, user + system CPU seconds, median of ``--repeat``; ``--baseline-src`` alternates with
another checkout's src/).

    python bench/rdf_load.py --repeat 5 [--baseline-src /path/to/other/src]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
CASE = BENCH / "data" / "rdf-lubm"
PROGRAM = """@prefix ex: <http://ex.org/> .
sub(X, Y) :- triple(X, ex:advisor, Y).
chain(X, Z) :- sub(X, Y), triple(Y, ex:worksFor, Z).
@output chain
"""


def generate() -> None:
    sys.path.insert(0, str(BENCH))
    import polars as pl
    from maint_generators import make
    parts = []
    for predicate, frame in make("lubm").facts.items():
        subject = "<http://ex.org/i" + frame["c0"].cast(pl.String) + ">"
        if frame.width == 2:
            line = subject + f" <http://ex.org/{predicate}> <http://ex.org/i" + frame["c1"].cast(pl.String) + "> ."
        else:
            line = subject + f" <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex.org/{predicate}> ."
        parts.append(pl.DataFrame({"line": line}))
    (CASE / "facts").mkdir(parents=True, exist_ok=True)
    pl.concat(parts).write_csv(CASE / "facts" / "triple.nt", include_header=False, quote_style="never")
    (CASE / "program.dl").write_text(PROGRAM)


def cpu_of_run(src: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "deltalog", "run", str(CASE / "program.dl"), "--facts", str(CASE / "facts"),
                    "--out", "/tmp/rdf-lubm-out", "--quiet"], env={**os.environ, "PYTHONPATH": str(src)}, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline-src", type=Path)
    args = parser.parse_args()
    if not (CASE / "facts" / "triple.nt").exists():
        generate()
    trees = {"deltalog": BENCH.parent / "src"}
    if args.baseline_src:
        trees["baseline"] = args.baseline_src
    times: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.repeat):
        for name, src in trees.items():
            times[name].append(cpu_of_run(src))
    for name, values in times.items():
        print(f"{name}: {statistics.median(values):.2f} s CPU (median of {len(values)})")


if __name__ == "__main__":
    main()
