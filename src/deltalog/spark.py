"""deltalog on Spark: a pipeline API over Spark DataFrames, and an entry point for spark-submit.

In a pipeline, mid-way::

    from deltalog.spark import materialise
    results = materialise(spark, "path(X, Y) :- edge(X, Y).  path(X, Z) :- edge(X, Y), path(Y, Z).",
                          {"edge": edges})          # any Spark DataFrame whose columns are the arguments
    results["path"].write.parquet("...")            # a Spark DataFrame c0, c1 (long columns here)

On a cluster (this file runs as a script; the arguments are those of ``deltalog``)::

    spark-submit --master yarn $(python -c "import deltalog.spark as m; print(m.__file__)") \\
        run program.dl --facts hdfs:///in --out hdfs:///out --format parquet --distributed
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__" and not __package__:   # spark-submit runs this file: its folder must not shadow the stdlib
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

from typing import Any, Mapping  # noqa: E402


def materialise(spark, program, inputs: Mapping[str, Any], *, outputs: list[str] | None = None,
                offload: Any = "auto", typed: bool = True) -> dict[str, Any]:
    """Materialise ``program`` (text, path or Program) over Spark DataFrames of facts; return the derived
    predicates (or ``outputs``) as Spark DataFrames c0..ck: long / double columns where every value is an
    int / a float, else the text forms of docs/semantics.md (``typed=False``: always text)."""
    from deltalog.api import Reasoner
    from deltalog.backends.spark.backend import SparkBackend
    backend = SparkBackend(spark)
    reasoner = Reasoner(program, backend=backend, offload=offload,
                        extra_arities={p: len(frame.columns) for p, frame in inputs.items()})
    reasoner.load_frames(dict(inputs))
    reasoner.materialise()
    chosen = outputs if outputs is not None else reasoner.derived_predicates()
    return {p: backend.output_frame(relation=p, typed=typed) for p in chosen}


def main(argv: list[str] | None = None) -> int:
    """``deltalog`` with ``--backend spark`` as the default for run and query."""
    from deltalog.cli import main as cli_main
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("run", "query") and "--backend" not in args:
        args += ["--backend", "spark"]
    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
