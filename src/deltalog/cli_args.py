"""The ``deltalog`` command line's arguments: the parser of every command and the options they share."""

from __future__ import annotations

import argparse

from deltalog import __version__


def build_parser() -> argparse.ArgumentParser:
    common = _logging_options()
    parser = argparse.ArgumentParser(prog="deltalog", description="Datalog materialisation, kept exact and fast.",
                                     parents=[common])
    parser.add_argument("--version", action="version", version=f"deltalog {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", parents=[common],
                              help="materialise a program over fact files and write the results")
    _add_inputs(run)
    run.add_argument("--out", required=True, help="directory for OUT/<predicate>.<format>, or '-': the one "
                     "output relation on stdout")
    run.add_argument("--format", choices=("tsv", "csv", "parquet", "nt"), default="tsv",
                     help="nt: N-Triples, for predicates of arity 3 (subject, predicate, object)")
    run.add_argument("--distributed", action="store_true", help="Spark: write with the executors, as "
                     "OUT/predicate=<p>/ (Parquet, one dataset) or OUT/<p>/ (CSV, TSV) of part files")
    run.add_argument("--stats", action="store_true", help="print per-stratum and per-rule statistics")
    run.add_argument("--json", action="store_true", help="print the statistics as JSON (implies --stats)")
    run.add_argument("--quiet", action="store_true", help="print nothing but errors")
    query = commands.add_parser("query", parents=[common],
                                help="print the answers to a query atom: from a store (deltalog query "
                                "STORE ATOM), or after materialising a program over fact files")
    _add_inputs(query, "the program file (.dl), or a store directory")
    query.add_argument("atom", help='a query atom such as "path(1, Y)"')
    check = commands.add_parser("check", parents=[common], help="parse and analyse a program, report errors")
    check.add_argument("program")
    graph = commands.add_parser("graph", parents=[common], help="print the predicate dependency graph and strata")
    graph.add_argument("program")
    graph.add_argument("--dot", metavar="FILE", help="write Graphviz DOT to FILE ('-' for stdout)")
    add_modules_option(graph)
    from deltalog.cli_plan import add_plan_command
    from deltalog.cli_store import add_store_commands
    add_plan_command(commands)
    add_store_commands(commands)
    return parser


def add_modules_option(command: argparse.ArgumentParser) -> None:
    command.add_argument("--modules", choices=("auto", "none"), default="auto",
                         help="auto: closure modules (003) evaluate the transitive and symmetric-transitive rules "
                         "they recognise; none: every recursive rule seminaive")


def _logging_options() -> argparse.ArgumentParser:
    """-v/--log-level, accepted before and after the command (SUPPRESS: a later default never undoes them)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                        help="log progress (-v: strata and files, -vv: debugging detail)")
    common.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default=argparse.SUPPRESS,
                        help="the log level (overrides -v)")
    return common


def _add_inputs(command: argparse.ArgumentParser, program: str = "the program file (.dl)") -> None:
    command.add_argument("program", help=program)
    command.add_argument("--facts", metavar="DIR", help="directory of fact files (p.tsv, p.csv, p.parquet, *.nt)")
    command.add_argument("--rdf-predicates", action="store_true",
                         help="load RDF files as one binary predicate per property instead of triple(S, P, O)")
    command.add_argument("--rdf-map", metavar="FILE", help="predicate names for RDF properties: lines "
                         "IRI<TAB>predicate (implies --rdf-predicates; other properties are named automatically)")
    command.add_argument("--backend", default="local", choices=("local", "spark"), help="execution backend")
    add_modules_option(command)
    add_hd_option(command)
    spark = command.add_argument_group("Spark backend (--backend spark)")
    spark.add_argument("--master", help="Spark master URL (default: spark-submit's or spark-defaults.conf's, "
                       "else local[2])")
    spark.add_argument("--driver-memory", help="JVM heap of the Spark driver, e.g. 8g (default: the user's "
                       "Spark settings, else 4g)")
    spark.add_argument("--checkpoint-dir", help="reliable checkpoints in this directory, shared by every node "
                       "(default on clusters: spark.checkpoint.dir, else next to --out); removed at the end")
    spark.add_argument("--offload-rows", type=int, help="run strata whose inputs hold at most this many rows "
                       "on the driver's embedded backend (default 2,000,000; 0: never)")
    checks = command.add_argument_group("checks and limits")
    checks.add_argument("--strict", action="store_true", help="make warnings errors: body predicates with no "
                        "rules and no facts, fact files that match no predicate")
    checks.add_argument("--max-facts", type=_count, metavar="N", help="stop when the materialisation holds N facts")
    checks.add_argument("--timeout", type=_seconds, metavar="SECONDS", help="stop a run that takes longer")


def add_hd_option(command: argparse.ArgumentParser) -> None:
    from deltalog.plan.combined import DEFAULT_HD, HD_MODES
    command.add_argument("--hd", choices=HD_MODES, default=DEFAULT_HD,
                         help="plan rules over hypertree decompositions (000): auto = complex rules only, off = "
                         f"never, all = every rule of 2+ atoms (default {DEFAULT_HD})")


def _count(text: str) -> int:
    value = int(text.replace(",", "").replace("_", ""))
    if value < 0:
        raise argparse.ArgumentTypeError("must be at least 0")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return value
