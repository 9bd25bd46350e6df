"""Frames: the unit of data flowing through the local executor (named int64 id columns plus a length)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Frame:
    """A batch of rows: one int64 numpy array of dictionary ids per named column."""

    columns: dict[str, np.ndarray]
    length: int

    @classmethod
    def empty(cls, names) -> "Frame":
        return cls({n: np.empty(0, np.int64) for n in names}, 0)

    def take(self, rows: np.ndarray) -> "Frame":
        """The rows at the given positions (or where a boolean mask is true)."""
        if rows.dtype == bool:
            return Frame({n: c[rows] for n, c in self.columns.items()}, int(np.count_nonzero(rows)))
        return Frame({n: c[rows] for n, c in self.columns.items()}, int(rows.size))

    def select(self, names) -> "Frame":
        return Frame({n: self.columns[n] for n in names}, self.length)


def concat_frames(frames: list[Frame], names) -> Frame:
    """One frame holding all rows of ``frames`` (which share the columns ``names``)."""
    frames = [f for f in frames if f.length]
    if not frames:
        return Frame.empty(names)
    if len(frames) == 1:
        return frames[0].select(names)
    columns = {n: np.concatenate([f.columns[n] for f in frames]) for n in names}
    return Frame(columns, sum(f.length for f in frames))
