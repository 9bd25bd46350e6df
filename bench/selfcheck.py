"""Quick harness self-check: every peer (and deltalog, if present) on tiny versions of each case family."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generators as g  # noqa: E402
import peers  # noqa: E402
import run  # noqa: E402

TINY = {
    "dag-linear": lambda: g.build_dag(200, 1500, 7, True),
    "dag-nonlinear": lambda: g.build_dag(200, 1500, 7, False),
    "chain-nonlinear": lambda: g.build_chain(60, False),
    "cycle-symtrans": lambda: g.build_cycle(40),
    "pc": lambda: g.build_pc(30, 6),
    "rs1-even": lambda: g.build_rs1(9, 3),
    "rs1-odd": lambda: g.build_rs1(30, 11),
    "rs2": lambda: g.build_rs2(60, 90, 3),
}


def check(engine: str, case_dir: Path, meta: dict) -> str:
    """'ok', 'n/a: ...' or a description of what went wrong."""
    reason = run.unavailable(engine, meta["family"])
    if reason:
        return f"n/a: {reason}"
    if engine in peers.PEERS:
        peers.prepare(engine, case_dir)
    m, counts = run.run_once(engine, case_dir, meta, 120)
    if counts == meta["expected"]:
        return "ok"
    return f"FAIL: {counts} != {meta['expected']} {run.last_line(m.stderr)}"


def main() -> int:
    """Run every engine on every tiny case; exit 1 if any available engine disagrees with the reference."""
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for name, build in TINY.items():
            case_dir = g.write_case(name, build(), Path(tmp))
            meta = g.load_meta(case_dir)
            for engine in (*run.ENGINES, *peers.PEERS):
                verdict = check(engine, case_dir, meta)
                failed |= verdict.startswith("FAIL")
                print(f"{name:16s} {engine:9s} {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
