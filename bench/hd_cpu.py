"""Materialisation CPU of the hypertree cases per --hd mode, modes interleaved in one process, medians.

    PYTHONPATH=src python bench/hd_cpu.py exp-300,exp,lubm-lc-3,pc off,auto 3
"""
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from deltalog.api import Reasoner  # noqa: E402
from hd_generators import CASES  # noqa: E402


def main() -> None:
    cases, modes, repeats = sys.argv[1].split(","), sys.argv[2].split(","), int(sys.argv[3])
    for name in cases:
        case = CASES[name]()
        times: dict[str, list[float]] = {mode: [] for mode in modes}
        for _ in range(repeats):
            for mode in modes:
                reasoner = Reasoner(case.program, hd=mode)
                for predicate, frame in case.facts.items():
                    reasoner.load(predicate, frame)
                start = time.process_time()
                reasoner.materialise()
                times[mode].append(time.process_time() - start)
        print(name, {mode: round(statistics.median(v), 4) for mode, v in times.items()}, flush=True)


if __name__ == "__main__":
    main()
