"""The ``deltalog`` command line: run, query, check, graph and plan a program; store commands in cli_store."""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

from deltalog.cli_args import build_parser
from deltalog.errors import DeltalogError
from deltalog.process import configure_command_process, exit_command, restore_collector, start_up_done

EXIT_USER_ERROR = 2
MAX_WARNINGS = 10   # more would bury the first, which is usually the cause
EXIT_INTERRUPTED = 130   # the shell's convention for a process ended by SIGINT
log = logging.getLogger("deltalog")


def _configure_logging(args) -> None:
    verbose = getattr(args, "verbose", 0)
    level = getattr(args, "log_level", None) or ("debug" if verbose >= 2 else "info" if verbose else "warning")
    logging.basicConfig(level=level.upper(), stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")


def main(argv: list[str] | None = None) -> int:
    configure_command_process()   # the collector paused until the command's modules are loaded (process.py)
    try:   # Ctrl-C while the imports behind the parser still load is an interruption too
        args = build_parser().parse_args(argv)
        _configure_logging(args)
        return _dispatch(args)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        restore_collector()


def entry() -> None:
    """The ``deltalog`` script and ``python -m deltalog``: ``main``, then the process ends without the
    interpreter's teardown (``process.exit_command``)."""
    exit_command(main())


def _dispatch(args) -> int:
    """Run the command; every failure becomes ``error: ...`` (with file:line:col where known) and exit 2."""
    from deltalog.cli_plan import cmd_plan
    from deltalog.cli_store import STORE_COMMANDS
    try:
        return {**COMMANDS, **STORE_COMMANDS, "plan": cmd_plan}[args.command](args)
    except DeltalogError as error:
        print(error.render(_source_of(error)), file=sys.stderr)
        _trace(args, error.__cause__)
    except MemoryError:   # outside a rule evaluation (those are OutOfMemoryError, with the rule)
        print("error: out of memory", file=sys.stderr)
    except RecursionError:
        print("error: the program is nested too deeply to evaluate", file=sys.stderr)
    except OSError as error:
        print(f"error: {error}", file=sys.stderr)
    except Exception as error:
        failure = _backend_failure(error)
        if failure is None:
            raise
        print(failure.render(), file=sys.stderr)
        _trace(args, error)
    finally:
        if getattr(args, "spark_backend", None) is not None:
            args.spark_backend.close()      # its checkpoint files
    return EXIT_USER_ERROR


def _backend_failure(error: Exception) -> DeltalogError | None:
    """A Spark failure no backend call translated, as a deltalog error (never a Py4J dump)."""
    if "pyspark" not in sys.modules:
        return None
    from deltalog.backends.spark.errors import is_spark_failure, translate_any
    return translate_any(error) if is_spark_failure(error) else None


def _trace(args, error: BaseException | None) -> None:
    if error is not None and bool(getattr(args, "verbose", 0)):
        import traceback
        traceback.print_exception(error, file=sys.stderr)


def _source_of(error: DeltalogError) -> str | None:
    """The text of the file an error points into, for the caret line (undecodable bytes replaced)."""
    path = Path(error.span.file)
    try:
        return path.read_text(encoding="utf-8-sig", errors="replace") if error.span.line and path.is_file() else None
    except OSError:
        return None


def _reasoner(args, console=None):
    from deltalog.api import Reasoner
    reasoner = Reasoner(Path(args.program), backend=_backend(args), offload=_offload(args),
                        max_facts=args.max_facts, timeout=args.timeout, modules=args.modules, hd=args.hd)
    if args.facts:
        reasoner.load_directory(args.facts, rdf_predicates=args.rdf_predicates, rdf_map=args.rdf_map)
    if console is not None:   # program facts and @input files count too
        where = f" (program, @input and {args.facts})" if args.facts else " (program and @input)"
        console.log(f"loaded {reasoner.fact_count():,} facts{where}")
    _report_diagnostics(reasoner, args.strict)
    start_up_done()   # the work from here on may make garbage for the collector
    return reasoner


def _report_diagnostics(reasoner, strict: bool) -> None:
    """Print why the result may be silently empty; under --strict these are errors (exit 2)."""
    warnings = reasoner.diagnostics()
    for warning in warnings[:MAX_WARNINGS]:
        if strict:
            warning.kind = "error"
        print(warning.render(_source_of(warning)), file=sys.stderr)
    if len(warnings) > MAX_WARNINGS:
        print(f"... and {len(warnings) - MAX_WARNINGS} more", file=sys.stderr)
    if strict and warnings:
        raise DeltalogError(f"{len(warnings)} warning{'s' if len(warnings) > 1 else ''} "
                            "made errors by --strict")


def _backend(args):
    if args.backend != "spark":
        return args.backend
    from deltalog.backends.spark.backend import SparkBackend
    args.spark_backend = SparkBackend(master=args.master, driver_memory=args.driver_memory,
                                      checkpoint_dir=args.checkpoint_dir, checkpoint_near=getattr(args, "out", None),
                                      quiet=getattr(args, "quiet", False))
    if getattr(args, "offload_rows", None) is not None:   # closure nodes on the driver obey the same bound
        args.spark_backend.closure_driver_rows = max(args.offload_rows, 0)
    return args.spark_backend


def _offload(args):
    if args.offload_rows is None:
        return "auto"
    from deltalog.algorithms.offload import OffloadPolicy
    return OffloadPolicy(args.offload_rows) if args.offload_rows > 0 else None


def cmd_run(args) -> int:
    from deltalog.diagnostics import refuse_overlap
    from deltalog.report import Progress, console_for, print_stats, print_stats_json
    _check_run_options(args)
    console = console_for(args.quiet)
    started = time.perf_counter()
    reasoner = _reasoner(args, console)
    if args.out != "-":
        refuse_overlap(args.out, reasoner.inputs)   # before the run, not after it
    with Progress(console, len(reasoner.analysed.strata)) as progress:
        summary = reasoner.materialise(progress=progress.advance, on_round=progress.round)
    written = _write_outputs(reasoner, args)
    if console is not None:
        where = "stdout" if args.out == "-" else args.out
        console.log(f"derived {summary.derived:,} facts in {summary.seconds:.2f} s; "
                    f"wrote {len(written)} predicates to {where} ({time.perf_counter() - started:.2f} s total)")
    if args.json:
        print_stats_json(reasoner, summary)
    elif args.stats:
        print_stats(reasoner, summary)
    return 0


def _check_run_options(args) -> None:
    if args.distributed and args.backend != "spark":
        raise DeltalogError("--distributed needs --backend spark")
    if args.out == "-" and (args.stats or args.json):
        raise DeltalogError("--out - writes the relation to stdout, where --stats would print too")
    if args.out == "-" and (args.distributed or args.format == "parquet"):
        raise DeltalogError("--out - writes TSV or CSV text to stdout")


def _write_outputs(reasoner, args) -> list[str]:
    if args.distributed:
        written = reasoner.derived_predicates()
        reasoner.backend.write_datasets(relations=written, out=args.out, format=args.format)
        return written
    if args.out != "-":
        return reasoner.write(args.out, format=args.format)
    chosen = reasoner.derived_predicates()
    if len(chosen) != 1:
        raise DeltalogError(f"--out - writes one relation, but the program writes {len(chosen)}"
                            f"{': ' + ', '.join(chosen) if chosen else ''}",
                            notes=("choose one with @output p in the program",))
    _write_stdout(reasoner.relation(chosen[0]), args.format)
    return chosen


def _write_stdout(table, format: str) -> None:
    """The same bytes a file would get (the writer's cell forms), copied to stdout."""
    import shutil
    import tempfile
    from deltalog.io.writers import write_table
    with tempfile.TemporaryDirectory(prefix="deltalog-stdout-") as scratch:
        path = Path(scratch) / f"out.{format}"
        write_table(table, path, format=format)
        sys.stdout.flush()
        with path.open("rb") as data:
            shutil.copyfileobj(data, sys.stdout.buffer)
        sys.stdout.buffer.flush()


def cmd_query(args) -> int:
    if Path(args.program).is_dir():
        from deltalog.cli_store import cmd_query_store
        return cmd_query_store(args)
    reasoner = _reasoner(args)
    reasoner.materialise()
    print_answers(reasoner.query(args.atom))
    return 0


def print_answers(answers) -> None:
    """A header of the query's variables, then the answers in the cells ``--out`` writes (the TSV
    writer's: ``"7"``, ``""``, ``"chat"@fr`` as in a facts file, never CSV-quoted again); a ground
    query's one Boolean column ``present`` as it is."""
    import polars as pl
    if answers.width == 0 or any(dtype == pl.Boolean for dtype in answers.dtypes):
        answers.write_csv(sys.stdout, separator="\t", include_header=True)
        return
    print("\t".join(answers.columns), flush=True)
    _write_stdout(answers, "tsv")


def cmd_check(args) -> int:
    from deltalog.sources import read_program
    from deltalog.analysis import analyse
    program, _, _ = read_program(Path(args.program))
    analysed = analyse(program)
    for predicate, span in analysed.warnings:
        print(f"{span}: warning: predicate {predicate} is never defined (no rule, fact or input)", file=sys.stderr)
    print(f"ok: {len(analysed.rules)} rules, {len(analysed.strata)} strata")
    for predicate, decl in analysed.declarations.items():
        late = [decl.names[i] for i in analysed.unproven.get(predicate, ())]
        note = f"  (checked on derived facts: {', '.join(late)})" if late else ""
        print(f"{str(decl).removesuffix(' .')}{note}")
    return 0


def cmd_graph(args) -> int:
    from deltalog.sources import read_program
    from deltalog.analysis import analyse
    program, _, _ = read_program(Path(args.program))
    analysed = analyse(program, modules=args.modules)
    graph = analysed.graph
    if args.dot:
        dot = graph.to_dot()
        if args.dot == "-":
            sys.stdout.write(dot)
        else:
            Path(args.dot).write_text(dot)
    else:
        print(graph.to_text() + "".join(line + "\n" for line in module_lines(analysed)))
    return 0


def module_lines(analysed) -> list[str]:
    """Which rules a closure module took over (analysis/modules.py), one line per module."""
    return [f"stratum {s.index} module {choice.describe()}" for s in analysed.strata for choice in s.modules
            if choice.predicate]


COMMANDS = {"run": cmd_run, "query": cmd_query, "check": cmd_check, "graph": cmd_graph}

if __name__ == "__main__":
    sys.exit(main())
