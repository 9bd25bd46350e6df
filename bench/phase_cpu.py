"""CPU of each step of a ``deltalog run`` of a bench case, in fresh processes (issue 15: where the wall goes).

    PYTHONPATH=src python bench/phase_cpu.py --repeat 5 wl-reach-tiny wl-reach-1m wl-pipeline
    PYTHONPATH=src python bench/phase_cpu.py --nodes wl-pipeline          # exclusive CPU per plan node
    PYTHONPATH=src python bench/phase_cpu.py --scan-min-rows 524288 wl-reach-1m

Each process takes the command line's steps in order (process settings, ``import deltalog.api``, the
program, ``read_facts_dir``, ``load_tables``, ``materialise``, ``write``) and prints the CPU of each
(``time.process_time``); ``--repeat`` runs that many processes per case and prints the medians. ``--nodes``
times every plan node's handler of the materialisation (``execute.stream``), exclusive of the nodes it
streams from, by relation written and node type. ``--scan-min-rows`` lowers ``storage.row_scan``'s
scan-or-build threshold (docs/benchmarks.md, Stop 20).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
STEPS = ("import", "program", "read", "load", "materialise", "write")


def one_run(case: str, scan_min_rows: int | None, nodes: bool) -> dict:
    """The steps' CPU seconds of one run in this process (and the plan nodes', with ``nodes``)."""
    from deltalog.process import configure_command_process, start_up_done
    configure_command_process()
    marks = [time.process_time()]
    from deltalog.api import Reasoner
    from deltalog.io.datasets import read_facts_dir
    marks.append(time.process_time())
    if scan_min_rows is not None:
        from deltalog.storage import row_scan
        row_scan.SCAN_MIN_ROWS = scan_min_rows
    by_node = _time_nodes() if nodes else None
    reasoner = Reasoner(DATA / case / "program.dl")
    marks.append(time.process_time())
    tables = read_facts_dir(DATA / case / "facts", arities=reasoner._arities, declarations=reasoner.declarations)
    marks.append(time.process_time())
    reasoner.load_tables(tables)
    start_up_done()
    marks.append(time.process_time())
    reasoner.materialise()
    marks.append(time.process_time())
    out = Path("/tmp/phase_cpu_out")
    shutil.rmtree(out, ignore_errors=True)
    reasoner.write(out)
    marks.append(time.process_time())
    result: dict = {step: b - a for step, a, b in zip(STEPS, marks, marks[1:])}
    if by_node is not None:
        result["nodes"] = {" ".join(key): seconds for key, seconds in by_node.items()}
    return result


def _time_nodes() -> collections.Counter:
    """Wrap ``execute.stream`` so that each handler's CPU, minus that of the handlers it calls, is counted."""
    from deltalog.backends.local import execute
    spent: collections.Counter = collections.Counter()
    open_frames: list[float] = []   # per active handler: CPU of the handlers it called
    dispatch = type(execute.stream).__call__

    def timed(key: tuple[str, str], step):
        started = time.process_time()
        open_frames.append(0.0)
        try:
            return step()
        finally:
            elapsed = time.process_time() - started
            spent[key] += elapsed - open_frames.pop()
            if open_frames:
                open_frames[-1] += elapsed

    def frames(key, handler):
        while True:
            try:
                frame = timed(key, lambda: next(handler))
            except StopIteration:
                return
            yield frame

    class Timed(type(execute.stream)):
        def __call__(self, node, ctx):
            key = (str(ctx.writing), type(node).__name__ + ":" + str(getattr(node, "relation", "")))
            return frames(key, iter(timed(key, lambda: dispatch(self, node, ctx))))

    execute.stream.__class__ = Timed
    return spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("cases", nargs="+")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--nodes", action="store_true")
    ap.add_argument("--scan-min-rows", type=int)
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)   # a child process: one run, as JSON
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one_run(args.cases[0], args.scan_min_rows, args.nodes)))
        sys.stdout.flush()
        os._exit(0)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    for case in args.cases:
        command = [sys.executable, __file__, case, "--one"] + (["--nodes"] if args.nodes else []) + \
            ([f"--scan-min-rows={args.scan_min_rows}"] if args.scan_min_rows is not None else [])
        runs = [json.loads(subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout)
                for _ in range(args.repeat)]
        steps = {step: statistics.median(run[step] for run in runs) for step in STEPS}
        print(case, " ".join(f"{step} {1000 * s:.1f}" for step, s in steps.items()),
              f"total {1000 * sum(steps.values()):.1f} ms CPU (medians of {args.repeat})")
        if args.nodes:
            keys = {key for run in runs for key in run["nodes"]}
            nodes = {key: statistics.median(run["nodes"].get(key, 0.0) for run in runs) for key in keys}
            for key, seconds in sorted(nodes.items(), key=lambda item: -item[1])[:12]:
                print(f"    {1000 * seconds:7.1f} ms  {key}")


if __name__ == "__main__":
    main()
