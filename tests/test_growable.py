"""GrowableArray (storage/growable.py): appends of whole arrays and of chosen positions (a compaction's
kept rows, ``extend_at``), across reallocations, read back as a list with the same appends."""

from __future__ import annotations

import numpy as np
from hypothesis import given, strategies as st

from deltalog.storage.growable import GrowableArray

pieces = st.lists(st.tuples(st.booleans(), st.lists(st.integers(-5, 5), max_size=40), st.randoms()), max_size=12)


@given(pieces)
def test_appends_and_kept_positions_read_back_as_a_list(steps):
    grown, model = GrowableArray(np.int64, capacity=2), []
    for by_positions, values, rng in steps:
        array = np.array(values, np.int64)
        if by_positions:
            at = np.array(sorted(rng.sample(range(len(values)), rng.randint(0, len(values)))), np.int64)
            early = grown.view()
            grown.extend_at(array, at)
            model += [values[i] for i in at]
            assert early.tolist() == model[:early.size]   # a reallocation leaves earlier views as they were
        else:
            grown.extend(array)
            model += values
        assert grown.view().tolist() == model and len(grown) == len(model)
