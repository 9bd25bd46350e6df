"""Usage: PYTHONPATH=src python bench/compaction_micro.py  (stop 19, helper h4)

Compaction of a Claros-like relation alone: 4.8M pairs, 9 cycles of deleting 470k and re-adding 470k
(fresh rows, new generations), indexes on (0,), (1,) and the full key probed every cycle; then time
compact() and the first index refresh + 1,000-row deletion after it (CPU seconds)."""
import time

import numpy as np

from deltalog.storage.deaths import ALIVE
from deltalog.storage.relation import Relation

SIDE = 130_000


def probe(relation: Relation) -> None:
    """Probe (and so build or refresh) the indexes on (0,), (1,) and the full key."""
    for positions in ((0,), (1,), (0, 1)):
        relation.index(positions).probe([np.arange(10)] * len(positions), 0, len(relation))


def main() -> None:
    rng = np.random.default_rng(1)
    relation = Relation("relatedPlaces", 2)
    keys = np.unique(rng.integers(0, SIDE, 4_800_000) * SIDE + rng.integers(0, SIDE, 4_800_000))
    relation.insert([keys // SIDE, keys % SIDE], generation=1)
    generation = 2
    probe(relation)
    for _ in range(9):
        columns = relation.columns()
        live = np.flatnonzero(relation.died() == ALIVE) if relation.deleted_rows else np.arange(len(relation))
        pick = rng.choice(live, 470_000, replace=False)
        rows = [columns[0][pick].copy(), columns[1][pick].copy()]
        relation.delete(rows, generation=generation)
        relation.insert(rows, generation=generation + 1)
        generation += 2
        probe(relation)
    print("rows", len(relation), "dead", relation.deleted_rows)
    started = time.process_time()
    relation.compact()
    compact = time.process_time() - started
    columns = relation.columns()
    pick = rng.choice(len(relation), 1000, replace=False)
    started = time.process_time()
    probe(relation)
    relation.delete([columns[0][pick].copy(), columns[1][pick].copy()], generation=generation)
    after = time.process_time() - started
    print(f"compact {compact:.3f} s, then refresh 3 indexes + delete 1,000: {after:.3f} s, "
          f"total {compact + after:.3f}")


if __name__ == "__main__":
    main()
