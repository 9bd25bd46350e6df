"""Usage: PYTHONPATH=src python bench/unfolding_ab.py DATASET K SAMPLES [--no-remat].

Stop 20's two changes to a deletion (DRed's check unfolding a recursive rule into renaming rules,
algorithms/unfolding.py; one-atom rules' plans without the plan cache, reasoning/instances.one_atom_plan)
switched off and on per update in one process, so that a loaded machine's drift hits both alike: one Reasoner
per mode (and one updating by ``remat`` unless ``--no-remat``), each sample of K explicit facts deleted and
re-added in every Reasoner in turn, the order alternating; CPU medians (the first two samples warm up).
Switched off = ``lowerbound.unfolded`` answering no unfolding and ``one_atom`` answering False.
"""
import statistics
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from maint_generators import make, uniform_samples  # noqa: E402
import deltalog.algorithms.lowerbound as lowerbound  # noqa: E402
import deltalog.modules.seminaive as seminaive  # noqa: E402
import deltalog.reasoning.instances as instances  # noqa: E402
from deltalog.api import Reasoner  # noqa: E402

UNFOLDED, ONE_ATOM = lowerbound.unfolded, instances.one_atom


def switch(on: bool) -> None:
    lowerbound.unfolded = UNFOLDED if on else (lambda stratum, head: ())
    instances.one_atom = seminaive.one_atom = ONE_ATOM if on else (lambda info: False)


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--no-remat"]
    name, k, samples = args[0], int(args[1]), int(args[2])
    modes = ["off", "on"] + ([] if "--no-remat" in sys.argv else ["remat"])
    data = make(name)
    reasoners = {}
    for mode in modes:
        switch(mode == "on")
        reasoners[mode] = Reasoner(data.program)
        reasoners[mode].load_tables(data.facts)
        reasoners[mode].materialise()
    cpu: dict[str, tuple[list[float], list[float]]] = {mode: ([], []) for mode in modes}
    for i, chosen in enumerate(uniform_samples(data, k, samples + 2)):
        for mode in modes if i % 2 else [modes[1], modes[0], *modes[2:]]:
            switch(mode == "on")
            rows = {p: f.rows() for p, f in chosen.items()}
            for side, kind in enumerate(("delete", "add")):
                started = time.process_time()
                reasoners[mode].update(**{kind: rows}, algorithm="remat" if mode == "remat" else "auto")
                if i >= 2:
                    cpu[mode][side].append(time.process_time() - started)
    for mode, (deleted, added) in cpu.items():
        print(f"{mode}: delete median {statistics.median(deleted) * 1000:.2f} ms, "
              f"re-add {statistics.median(added) * 1000:.2f} ms ({len(deleted)} samples)")


if __name__ == "__main__":
    main()
