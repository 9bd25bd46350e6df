"""Radix headroom of packed keys, one decision A/B (docs/design.md): 25% at every re-pack, 25% then twice
the ids once they have outgrown a radix (the engine's choice), or twice from the start; in-process
materialisation CPU seconds, variants interleaved, medians.

    PYTHONPATH=src python bench/ab_radix.py exp-300 3      # a case of bench/hd_generators.py
"""
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from deltalog.api import Reasoner  # noqa: E402
from deltalog.storage import index, tupleset  # noqa: E402
from hd_generators import CASES  # noqa: E402

chosen = tupleset.radix_for
VARIANTS = {"25% always": lambda m, growing=False: chosen(m), "25%, then 2x (chosen)": chosen,
            "2x always": lambda m, growing=False: chosen(m, True)}


def main() -> None:
    case = CASES[sys.argv[1]]()
    times: dict[str, list[float]] = {k: [] for k in VARIANTS}
    for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 3):
        for name, radix_for in VARIANTS.items():
            tupleset.radix_for = index.radix_for = radix_for
            reasoner = Reasoner(case.program, hd="off")
            for predicate, frame in case.facts.items():
                reasoner.load(predicate, frame)
            start = time.process_time()
            reasoner.materialise()
            times[name].append(time.process_time() - start)
    print(sys.argv[1], {k: round(statistics.median(v), 3) for k, v in times.items()})


if __name__ == "__main__":
    main()
