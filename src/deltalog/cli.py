"""The ``deltalog`` command line: run, query, check and graph a program."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from deltalog.errors import DeltalogError

EXIT_USER_ERROR = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="deltalog", description="Datalog materialisation, kept exact and fast.")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="on errors, also print the trace")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="materialise a program over fact files and write the results")
    _add_inputs(run)
    run.add_argument("--out", required=True, help="directory for OUT/<predicate>.<format>")
    run.add_argument("--format", choices=("tsv", "csv", "parquet"), default="tsv")
    run.add_argument("--distributed", action="store_true", help="Spark: write with the executors, as "
                     "OUT/predicate=<p>/ (Parquet, one dataset) or OUT/<p>/ (CSV, TSV) of part files")
    run.add_argument("--stats", action="store_true", help="print per-stratum and per-rule statistics")
    run.add_argument("--quiet", action="store_true", help="print nothing but errors")
    query = commands.add_parser("query", help="print the answers to a query atom: from a store (deltalog query "
                                "STORE ATOM), or after materialising a program over fact files")
    _add_inputs(query, "the program file (.dl), or a store directory")
    query.add_argument("atom", help='a query atom such as "path(1, Y)"')
    check = commands.add_parser("check", help="parse and analyse a program, report errors")
    check.add_argument("program")
    graph = commands.add_parser("graph", help="print the predicate dependency graph and strata")
    graph.add_argument("program")
    graph.add_argument("--dot", metavar="FILE", help="write Graphviz DOT to FILE ('-' for stdout)")
    from deltalog.cli_store import add_store_commands
    add_store_commands(commands)
    return parser


def _add_inputs(command: argparse.ArgumentParser, program: str = "the program file (.dl)") -> None:
    command.add_argument("program", help=program)
    command.add_argument("--facts", metavar="DIR", help="directory of fact files (p.tsv, p.csv, p.parquet, *.nt)")
    command.add_argument("--rdf-predicates", action="store_true",
                         help="load RDF files as one binary predicate per property instead of triple(S, P, O)")
    command.add_argument("--backend", default="local", choices=("local", "spark"), help="execution backend")
    spark = command.add_argument_group("Spark backend (--backend spark)")
    spark.add_argument("--master", help="Spark master URL (default: spark-submit's or spark-defaults.conf's, "
                       "else local[2])")
    spark.add_argument("--driver-memory", help="JVM heap of the Spark driver, e.g. 8g (default: the user's "
                       "Spark settings, else 4g)")
    spark.add_argument("--checkpoint-dir", help="reliable checkpoints in this directory, shared by every node "
                       "(default on clusters: spark.checkpoint.dir, else next to --out); removed at the end")
    spark.add_argument("--offload-rows", type=int, help="run strata whose inputs hold at most this many rows "
                       "on the driver's embedded backend (default 2,000,000; 0: never)")


def main(argv: list[str] | None = None) -> int:
    from deltalog.cli_store import STORE_COMMANDS
    args = build_parser().parse_args(argv)
    try:
        return {**COMMANDS, **STORE_COMMANDS}[args.command](args)
    except DeltalogError as error:
        print(error.render(_source_of(error, args)), file=sys.stderr)
        _trace(args, error.__cause__)
        return EXIT_USER_ERROR
    except OSError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USER_ERROR
    except Exception as error:
        failure = _backend_failure(error)
        if failure is None:
            raise
        print(failure.render(), file=sys.stderr)
        _trace(args, error)
        return EXIT_USER_ERROR
    finally:
        if getattr(args, "spark_backend", None) is not None:
            args.spark_backend.close()      # its checkpoint files


def _backend_failure(error: Exception) -> DeltalogError | None:
    """A Spark failure no backend call translated, as a deltalog error (never a Py4J dump)."""
    if "pyspark" not in sys.modules:
        return None
    from deltalog.backends.spark.errors import is_spark_failure, translate_any
    return translate_any(error) if is_spark_failure(error) else None


def _trace(args, error: BaseException | None) -> None:
    if error is not None and getattr(args, "verbose", 0):
        import traceback
        traceback.print_exception(error, file=sys.stderr)


def _source_of(error: DeltalogError, args) -> str | None:
    path = Path(error.span.file)
    try:
        return path.read_text() if error.span.line and path.is_file() else None
    except OSError:
        return None


def _reasoner(args, console=None):
    from deltalog.api import Reasoner
    reasoner = Reasoner(Path(args.program), backend=_backend(args), offload=_offload(args))
    if args.facts:
        loaded = reasoner.load_directory(args.facts, rdf_predicates=args.rdf_predicates)
        if console is not None:
            console.log(f"loaded {loaded:,} facts from {args.facts}")
    return reasoner


def _backend(args):
    if args.backend != "spark":
        return args.backend
    from deltalog.backends.spark.backend import SparkBackend
    args.spark_backend = SparkBackend(master=args.master, driver_memory=args.driver_memory,
                                      checkpoint_dir=args.checkpoint_dir, checkpoint_near=getattr(args, "out", None),
                                      quiet=getattr(args, "quiet", False))
    return args.spark_backend


def _offload(args):
    if args.offload_rows is None:
        return "auto"
    from deltalog.algorithms.offload import OffloadPolicy
    return OffloadPolicy(args.offload_rows) if args.offload_rows > 0 else None


def cmd_run(args) -> int:
    from deltalog.report import Progress, console_for, print_stats
    console = console_for(args.quiet)
    started = time.perf_counter()
    reasoner = _reasoner(args, console)
    with Progress(console, len(reasoner.analysed.strata)) as progress:
        summary = reasoner.materialise(progress=progress.advance)
    if args.distributed:
        if args.backend != "spark":
            raise DeltalogError("--distributed needs --backend spark")
        written = reasoner.derived_predicates()
        reasoner.backend.write_datasets(relations=written, out=args.out, format=args.format)
    else:
        written = reasoner.write(args.out, format=args.format)
    if console is not None:
        console.log(f"derived {summary.derived:,} facts in {summary.seconds:.2f} s; "
                    f"wrote {len(written)} predicates to {args.out} ({time.perf_counter() - started:.2f} s total)")
    if args.stats:
        print_stats(reasoner, summary)
    return 0


def cmd_query(args) -> int:
    if Path(args.program).is_dir():
        from deltalog.cli_store import cmd_query_store
        return cmd_query_store(args)
    reasoner = _reasoner(args)
    reasoner.materialise()
    answers = reasoner.query(args.atom)
    answers.write_csv(sys.stdout, separator="\t", include_header=True)
    return 0


def cmd_check(args) -> int:
    from deltalog.api import read_program
    from deltalog.analysis import analyse
    program, _, _ = read_program(Path(args.program))
    analysed = analyse(program)
    for predicate, span in analysed.warnings:
        print(f"{span}: warning: predicate {predicate} is never defined (no rule, fact or input)", file=sys.stderr)
    print(f"ok: {len(analysed.rules)} rules, {len(analysed.strata)} strata")
    return 0


def cmd_graph(args) -> int:
    from deltalog.api import read_program
    from deltalog.analysis import analyse
    program, _, _ = read_program(Path(args.program))
    graph = analyse(program).graph
    if args.dot:
        dot = graph.to_dot()
        if args.dot == "-":
            sys.stdout.write(dot)
        else:
            Path(args.dot).write_text(dot)
    else:
        print(graph.to_text())
    return 0


COMMANDS = {"run": cmd_run, "query": cmd_query, "check": cmd_check, "graph": cmd_graph}

if __name__ == "__main__":
    sys.exit(main())
