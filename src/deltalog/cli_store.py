"""The store commands of the CLI: ``init``, ``update``, ``export`` and ``stats`` over a persistent store."""

from __future__ import annotations

import json
import time
from pathlib import Path

from deltalog.algorithms.names import ALGORITHM_NAMES
from deltalog.process import start_up_done


def add_store_commands(commands) -> None:
    from deltalog.cli_args import add_hd_option, add_modules_option
    init = commands.add_parser("init", help="create a store: a program, its facts and their materialisation")
    init.add_argument("store", help="the store directory to create")
    init.add_argument("program", help="the program file (.dl)")
    init.add_argument("--facts", metavar="DIR", help="directory of fact files")
    init.add_argument("--rdf-predicates", action="store_true", help="RDF as one predicate per property")
    add_modules_option(init)
    add_hd_option(init)
    update = commands.add_parser("update", help="add and delete facts, keeping the materialisation exact")
    update.add_argument("store")
    update.add_argument("--add", metavar="DIR", help="fact files to add (same layout as --facts)")
    update.add_argument("--delete", metavar="DIR", help="fact files to delete")
    update.add_argument("--algorithm", choices=ALGORITHM_NAMES, default="auto")
    update.add_argument("--stats", action="store_true", help="print per-phase statistics")
    add_modules_option(update)
    update.add_argument("--wait", type=float, default=0.0, metavar="SECONDS",
                        help="wait this long for another update of the store to finish (default: fail at once)")
    add_hd_option(update)
    export = commands.add_parser("export", help="write the store's derived predicates (or --all)")
    export.add_argument("store")
    export.add_argument("--out", required=True)
    export.add_argument("--format", choices=("tsv", "csv", "parquet"), default="tsv")
    export.add_argument("--all", action="store_true", help="every predicate, explicit ones included")
    stats = commands.add_parser("stats", help="facts per predicate and the store's update history")
    stats.add_argument("store")
    stats.add_argument("--json", action="store_true", help="print the statistics as JSON")
    verify = commands.add_parser("verify", help="check every file of the store's current version")
    verify.add_argument("store")


def cmd_init(args) -> int:
    from deltalog.api import Reasoner
    store = Path(args.store)
    from deltalog.store.layout import CURRENT, StoreError, refuse_foreign
    if (store / CURRENT).exists():
        raise StoreError(f"{store} is a store already (update it with 'deltalog update')")
    refuse_foreign(store)    # before any work is done
    reasoner = Reasoner(Path(args.program), modules=args.modules, hd=args.hd)
    if args.facts:
        reasoner.load_directory(args.facts, rdf_predicates=args.rdf_predicates)
    loaded = reasoner.fact_count()   # program facts, @input files and --facts (nothing derived yet)
    start_up_done()
    summary = reasoner.materialise()
    reasoner.save(store, event={"event": "init", "loaded": loaded, "derived": summary.derived})
    print(f"created {store}: {loaded:,} facts loaded, {summary.derived:,} derived in {summary.seconds:.2f} s")
    return 0


def read_changes(directory: str | None, reasoner) -> dict:
    """The facts of an ``--add``/``--delete`` directory, read as ``--facts`` is (cells typed by form, or
    by the ``@decl`` of their predicate), as tables ``update()`` takes unchanged: a file of canonical ints as
    its IntTable (no text cell to mark, and no Polars import: the local backend encodes it directly), any
    other as a frame whose text cells are marked."""
    if not directory:
        return {}
    from deltalog.io.datasets import read_facts_dir
    from deltalog.io.int_columns import IntTable
    from deltalog.loading import cells_frame
    tables = read_facts_dir(directory, arities=dict(reasoner.predicates()), declarations=reasoner.declarations)
    return {p: t if isinstance(t, IntTable) else cells_frame(t) for p, t in tables.items()}


def cmd_update(args) -> int:
    from deltalog.api import Reasoner
    started = time.perf_counter()
    # the writer lock is held from reading the store to switching CURRENT: no concurrent update is lost
    with Reasoner.open(args.store, writable=True, wait=args.wait, modules=args.modules) as reasoner:
        reasoner.set_hd(args.hd)
        start_up_done()
        add, delete = read_changes(args.add, reasoner), read_changes(args.delete, reasoner)
        result = reasoner.update(add=add, delete=delete, algorithm=args.algorithm, strict=True)
        event = {"event": "update", "algorithm": result.algorithm, "abandoned": result.abandoned,
                 "seconds": result.seconds,
                 "added": result.added.counts(), "removed": result.removed.counts()}
        reasoner.save(args.store, event=event)
    print_update(result, time.perf_counter() - started)
    if args.stats:
        print_phases(reasoner)
    return 0


def print_update(result, total: float) -> None:
    added, removed = result.added.counts(), result.removed.counts()   # (counts: no frame is made)
    print(f"{result.algorithm}: +{sum(added.values()):,} -{sum(removed.values()):,} facts in {result.seconds:.3f} s "
          f"({total:.2f} s with I/O)")
    if result.abandoned:   # auto gave up on DRed and rematerialised
        print(f"  (abandoned {result.abandoned})")
    for predicate in sorted(set(added) | set(removed)):
        print(f"  {predicate}: +{added.get(predicate, 0):,} -{removed.get(predicate, 0):,}")
    ignored = {p: n for p, n in result.ignored_additions.items() if n}
    skipped = {p: n for p, n in result.ignored_deletions.items() if n}
    if ignored or skipped:
        print(f"  no-ops: {sum(ignored.values())} additions of existing facts, "
              f"{sum(skipped.values())} deletions of absent or derived-only facts")


def print_phases(reasoner) -> None:
    print("phase                 rule instances        facts     seconds")
    for phase, entry in reasoner.reasoning.stats.phases.items():
        print(f"{phase:<20} {entry.instances:>15,} {entry.facts:>12,} {entry.seconds:>11.3f}")


def cmd_export(args) -> int:
    from deltalog.api import Reasoner
    reasoner = Reasoner.open(args.store)
    chosen = sorted(reasoner.predicates()) if args.all else None
    written = reasoner.write(args.out, format=args.format, predicates=chosen)
    print(f"wrote {len(written)} predicates to {args.out}")
    return 0


def cmd_stats(args) -> int:
    from deltalog.api import Reasoner
    reasoner = Reasoner.open(args.store)
    link = reasoner.store_session.link
    rows = [{"predicate": p, "arity": a, "facts": reasoner.backend.count(relation=p),
             "kind": "derived" if p in reasoner.analysed.idb else "explicit"}
            for p, a in sorted(reasoner.predicates().items())]
    files = link.manifest["files"]
    summary = {"store": str(args.store), "snapshot": link.snapshot, "version": link.version,
               "segments": len(link.manifest["parts"]) - 1, "bytes": sum(size for size, _ in files.values()),
               "predicates": rows, "history": reasoner.store_session.history}
    if args.json:
        print(json.dumps(summary, indent=1))
        return 0
    width = max([len("predicate")] + [len(f"{r['predicate']}/{r['arity']}") for r in rows])
    print(f"{'predicate':<{width}}  {'facts':>12}  kind")
    for r in rows:
        name = f"{r['predicate']}/{r['arity']}"
        print(f"{name:<{width}}  {r['facts']:>12,}  {r['kind']}")
    print(f"\n{link.snapshot}, version {link.version} ({summary['segments']} update segments), "
          f"{summary['bytes']:,} bytes")
    for entry in summary["history"][-20:]:
        details = {k: v for k, v in entry.items() if k not in ("event", "time")}
        print(f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(entry['time']))}  {entry['event']}  {details}")
    return 0


def cmd_verify(args) -> int:
    from deltalog.store import verify_store
    summary = verify_store(args.store)
    print(f"ok: {args.store} {summary['snapshot']} version {summary['version']}: {summary['files']} files, "
          f"{summary['bytes']:,} bytes, {summary['facts']:,} facts in {summary['predicates']} predicates")
    return 0


def cmd_query_store(args) -> int:
    """``deltalog query STORE ATOM``: answers from the stored materialisation, nothing recomputed."""
    from deltalog.api import Reasoner
    from deltalog.cli import print_answers
    print_answers(Reasoner.open(args.program).query(args.atom))
    return 0


STORE_COMMANDS = {"init": cmd_init, "update": cmd_update, "export": cmd_export, "stats": cmd_stats,
                  "verify": cmd_verify}
