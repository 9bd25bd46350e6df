"""Would stored node relations (000 section 4's Add^r/Del^r/Red^r) pay here? An experiment, not the engine.

000 keeps, per tree node p of a complex rule's decomposition, the node relation
N_p = π_χ(p)(⋈ λ(p) ⋉ filters(p)), maintained incrementally, and derives the head from the acyclic
join of the N_p. The same evaluation is obtained *in Datalog* by rewriting each complex rule into one
rule per node and a head rule over the node predicates:

    hdn_r_p(χ(p)) :- λ(p) atoms, filter atoms of p, negations and comparisons attached to p.
    head          :- hdn_r_0(χ(0)), ..., hdn_r_k(χ(k)), ground atoms, BINDs, later filters.

Every algorithm then stores and maintains the node relations as ordinary relations: seminaive is
000's Add^r, DRed's overdeletion and rederivation its Del^r and Red^r. This script applies the rewrite
to a bench case and runs both programs side by side in one process (CPU seconds, interleaved, medians):
materialisation, then deleting and re-adding ``--batch`` explicit facts with DRed, checking that both
programs derive the same facts of the original predicates.

    PYTHONPATH=src python bench/hd_nodes.py --cases exp,lubm-lc-3,pc --repeats 3 --batch 1000
    PYTHONPATH=src python bench/hd_nodes.py --show exp     # the rewritten program
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def node_rewrite(text: str) -> tuple[str, int]:
    """The program with every complex rule (decomposition width > 1, two or more nodes, no aggregate)
    split into node rules and a head rule; and how many rules were split."""
    from deltalog.analysis.hypergraph import constraints, rule_decomposition
    from deltalog.analysis.normalise import atom_variables
    from deltalog.analysis.program import analyse
    from deltalog.syntax import parse

    program = parse(text)
    analysed = analyse(program, modules="none")
    out, split = [str(fact) for fact in program.facts], 0
    for info in analysed.rules:
        decomposition = rule_decomposition(info)
        if not decomposition.complex or len(decomposition.nodes) < 2 or info.aggregates:
            out.append(str(info.rule))
            continue
        split += 1
        enforced = constraints(info)
        texts = [("not " if i < len(info.negative) else "") + t for i, (t, _) in enumerate(enforced)]
        placed = {t for i, (t, _) in enumerate(enforced) if i >= len(info.negative)}
        heads = []
        for p, node in enumerate(decomposition.nodes):
            name = f"hdn_{info.index}_{p}({', '.join(sorted(node.chi))})"
            body = [str(info.positive[i]) for i in node.cover + node.filters]
            body += [texts[c] for c in node.constraints]
            out.append(f"{name} :- {', '.join(body)}.")
            heads.append(name)
        ground = [str(a) for a in info.positive if not atom_variables(a)]
        later = [str(c) for c in info.filters if str(c) not in placed]
        tail = ground + [str(a) for a in info.assignments] + later
        out.append(f"{info.head} :- {', '.join(heads + tail)}.")
    return "\n".join(out) + "\n", split


def run(program: str, facts: dict, samples: list[dict], algorithm: str) -> dict:
    from deltalog.api import Reasoner
    reasoner = Reasoner(program, modules="none")
    for predicate, frame in facts.items():
        reasoner.load(predicate, frame)
    timed = {}
    start = time.process_time()
    reasoner.materialise()
    timed["materialise"] = time.process_time() - start
    from hd_run import delete_then_add
    deletes, adds = zip(*(delete_then_add(reasoner, sample, algorithm, time.process_time) for sample in samples))
    timed["delete"], timed["add"] = statistics.median(deletes), statistics.median(adds)
    timed["counts"] = {p: reasoner.relation(p).height for p in reasoner.analysed.idb if not p.startswith("hdn_")}
    timed["nodes"] = sum(reasoner.relation(p).height for p in reasoner.analysed.idb if p.startswith("hdn_"))
    return timed


def samples_of(case, batch: int, updates: int) -> list[dict]:
    import numpy as np
    rng = np.random.default_rng(7)
    out = []
    for _ in range(updates):
        predicates = case.update_predicates
        sample = {}
        for predicate in predicates:
            frame = case.facts[predicate]
            pick = rng.choice(frame.height, min(batch // len(predicates), frame.height), replace=False)
            sample[predicate] = frame[np.sort(pick)]
        out.append(sample)
    return out


def main() -> None:
    from hd_generators import CASES
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", default="exp,lubm-lc-3,pc")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--updates", type=int, default=3)
    parser.add_argument("--algorithm", default="dred")
    parser.add_argument("--show", metavar="CASE")
    args = parser.parse_args()
    if args.show:
        print(node_rewrite(CASES[args.show]().program)[0], end="")
        return
    print("| case | rules split | program | node facts | materialise s | delete s | add s |")
    print("|---|---|---|---|---|---|---|")
    for name in args.cases.split(","):
        case = CASES[name]()
        rewritten, split = node_rewrite(case.program)
        samples = samples_of(case, args.batch, args.updates)
        results: dict[str, list[dict]] = {"standard": [], "node relations": []}
        for _ in range(args.repeats):
            for label, program in (("standard", case.program), ("node relations", rewritten)):
                results[label].append(run(program, case.facts, samples, args.algorithm))
        if results["standard"][0]["counts"] != results["node relations"][0]["counts"]:
            sys.exit(f"{name}: the rewritten program derives different facts")
        for label, runs in results.items():
            med = {k: statistics.median(r[k] for r in runs) for k in ("materialise", "delete", "add")}
            print(f"| {name} | {split} | {label} | {runs[0]['nodes']:,} | {med['materialise']:.3f} | "
                  f"{med['delete']:.3f} | {med['add']:.3f} |", flush=True)


if __name__ == "__main__":
    main()
