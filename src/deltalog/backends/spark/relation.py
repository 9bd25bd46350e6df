"""A stored relation on Spark: materialised chunks (one per insert) plus deletion records, never rewritten per round.

Each insert appends one chunk: a checkpointed DataFrame of tagged columns c0..ck with its
generation and row count. A delete appends a record: the deleted rows with the key of the
chunk they lived in (a row deleted and re-inserted is a new row of a new chunk) and how many
rows it took from each chunk. A scan unions the chunks of its generation window and applies
the death conditions; counts come from the metadata alone, so planning costs no Spark job.
Old chunks are compacted into one (with per-row generation and chunk key columns) when the
list grows long, so plans stay shallow however many rounds a stratum runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce

from pyspark.sql import DataFrame, functions as F

GEN, KEY = "_gen", "_key"
COMPACT_AT = 48      # chunks before the older ones are merged (keeps union plans shallow)
KEEP_RECENT = 8      # the newest chunks stay separate: seminaive reads them as deltas


def fresh(frame: DataFrame) -> DataFrame:
    """The same checkpointed rows under new attribute ids. A plan that reads one chunk twice (a self-join,
    a negation of the relation it joins) otherwise holds the same ids on both sides, which Spark 4's
    planner can fail on ("key not found: c2#..."); checkpointed data is a LogicalRDD, which can re-instance."""
    plan = frame._jdf.queryExecution().analyzed()
    if plan.getClass().getSimpleName() != "LogicalRDD":
        return frame
    spark = frame.sparkSession
    assert spark._jvm is not None   # a live session has its JVM gateway
    jdf = spark._jvm.org.apache.spark.sql.classic.Dataset.ofRows(spark._jsparkSession, plan.newInstance())
    return DataFrame(jdf, spark)


@dataclass
class Chunk:
    """Rows inserted at one generation by one insert; a compacted chunk spans several (then it
    stores per-row ``_gen`` and ``_key`` columns)."""

    frame: DataFrame
    rows: int
    generation: int
    last: int
    keys: dict[int, int] = field(default_factory=dict)   # chunk key -> rows, for each merged insert

    @property
    def compacted(self) -> bool:
        return len(self.keys) > 1


@dataclass
class Deletion:
    """Rows (c0..ck plus the chunk key) deleted at ``generation``, counted per chunk key."""

    frame: DataFrame
    generation: int
    per_key: dict[int, int]


class SparkRelation:
    """Chunks and deletions of one predicate (arity 0 keeps one hidden all-empty column)."""

    def __init__(self, name: str, arity: int) -> None:
        self.name, self.arity = name, arity
        self.names = [f"c{i}" for i in range(max(arity, 1))]
        self.chunks: list[Chunk] = []
        self.deletions: list[Deletion] = []
        self._next_key = 0

    def add_chunk(self, frame: DataFrame, rows: int, generation: int) -> None:
        key, self._next_key = self._next_key, self._next_key + 1
        self.chunks.append(Chunk(frame, rows, generation, generation, {key: rows}))

    def add_deletion(self, frame: DataFrame, generation: int, per_key: dict[int, int]) -> None:
        self.deletions.append(Deletion(frame, generation, per_key))

    def window(self, since: int, until: int | None) -> list[Chunk]:
        """Chunks holding rows inserted at since <= g < until."""
        hi = until if until is not None else float("inf")
        return [c for c in self.chunks if c.last >= since and c.generation < hi]

    def frame(self, since: int = 0, until: int | None = None, *, visible: int | None = None,
              deleted: tuple[int, int | None] | None = None, with_key: bool = False) -> DataFrame | None:
        """The rows a Scan reads (columns c0..ck, and the chunk key if asked); None when there are none."""
        parts = [self._part(c, since, until) for c in self.window(since, until)]
        if not parts:
            return None
        rows = reduce(DataFrame.unionAll, parts)
        doomed = self._deaths(visible, deleted)
        if doomed is not None:
            rows = rows.join(doomed, self.names + [KEY], "left_semi" if deleted is not None else "left_anti")
        return rows if with_key else rows.select(*self.names)

    def _part(self, chunk: Chunk, since: int, until: int | None) -> DataFrame:
        """A chunk's rows in the window, with the chunk key column (a literal unless compacted)."""
        if not chunk.compacted:
            return fresh(chunk.frame).select(*self.names, F.lit(next(iter(chunk.keys))).alias(KEY))
        rows = fresh(chunk.frame)
        if since > chunk.generation or (until is not None and until <= chunk.last):
            rows = rows.where((F.col(GEN) >= since) & (F.col(GEN) < until if until is not None else F.lit(True)))
        return rows.select(*self.names, KEY)

    def _deaths(self, visible: int | None, deleted) -> DataFrame | None:
        """Deleted rows a scan must drop (or, for ``deleted``, keep); None when no record applies."""
        if deleted is not None:
            lo, hi = deleted
            chosen = [d for d in self.deletions if d.generation >= lo and (hi is None or d.generation < hi)]
            return reduce(DataFrame.unionAll, [fresh(d.frame) for d in chosen]) if chosen else self._none()
        chosen = [d for d in self.deletions if visible is None or d.generation <= visible]
        return reduce(DataFrame.unionAll, [fresh(d.frame) for d in chosen]) if chosen else None

    def _none(self) -> DataFrame:
        """An empty set of deletion rows (a ``deleted`` scan with no record reads nothing)."""
        frame = self.chunks[0].frame
        return frame.select(*self.names, F.lit(0).alias(KEY)).limit(0)

    def count(self, since: int = 0, until: int | None = None, visible: int | None = None,
              deleted: tuple[int, int | None] | None = None) -> int | None:
        """Rows a scan reads, from the metadata (None only for a window that cuts a compacted chunk)."""
        total = 0
        for chunk in self.window(since, until):
            if chunk.compacted and (since > chunk.generation or (until is not None and until <= chunk.last)):
                return None
            for key, rows in chunk.keys.items():
                total += self._surviving(key, rows, visible, deleted)
        return total

    def _surviving(self, key: int, rows: int, visible: int | None, deleted) -> int:
        if deleted is not None:
            lo, hi = deleted
            return sum(d.per_key.get(key, 0) for d in self.deletions
                       if d.generation >= lo and (hi is None or d.generation < hi))
        gone = sum(d.per_key.get(key, 0) for d in self.deletions if visible is None or d.generation <= visible)
        return rows - gone

    def needs_compaction(self) -> bool:
        return len(self.chunks) > COMPACT_AT

    def compact(self, checkpoint) -> None:
        """Merge all but the newest chunks into one, keeping per-row generation and chunk key."""
        old, recent = self.chunks[:-KEEP_RECENT], self.chunks[-KEEP_RECENT:]
        parts = [c.frame if c.compacted else c.frame.select(
            *self.names, F.lit(c.generation).alias(GEN), F.lit(next(iter(c.keys))).alias(KEY)) for c in old]
        merged = checkpoint(reduce(DataFrame.unionAll, parts))
        keys = {k: n for c in old for k, n in c.keys.items()}
        chunk = Chunk(merged, sum(c.rows for c in old), old[0].generation, max(c.last for c in old), keys)
        self.chunks = [chunk] + recent
