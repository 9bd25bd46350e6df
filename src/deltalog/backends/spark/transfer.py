"""Driver-side Arrow tables into Spark as many small partitions, not one huge task.

``spark.createDataFrame(arrow_table)`` makes a ``LocalRelation``: every row is serialised into the plan,
and the job that reads it ships them inside its tasks (1.1M facts back from the driver offload were one
30 MB task, "task of very large size"). Past ``INLINE_BYTES`` the table is cut into Arrow IPC blobs of
about ``PARTITION_BYTES``, one per partition of an RDD, and decoded on the executors by ``mapInArrow``.
"""

from __future__ import annotations

from typing import Iterator

import pyarrow as pa

INLINE_BYTES = 512 * 1024         # small tables stay in the plan: no job, no Python worker
PARTITION_BYTES = 512 * 1024      # Spark warns about tasks over 1000 KiB


def arrow_frame(spark, table: pa.Table):
    """A Spark DataFrame of ``table``'s rows (string columns), in partitions of bounded size."""
    if table.nbytes <= INLINE_BYTES or table.num_rows < 2:
        return spark.createDataFrame(table)
    rows_per_part = max(1, int(table.num_rows * PARTITION_BYTES / table.nbytes))
    blobs = [_ipc_bytes(table.slice(start, rows_per_part)) for start in range(0, table.num_rows, rows_per_part)]
    carriers = spark.sparkContext.parallelize([(blob,) for blob in blobs], len(blobs))
    schema = ", ".join(f"`{name}` string" for name in table.column_names)
    return spark.createDataFrame(carriers, "blob binary").mapInArrow(decode_blobs, schema)


def _ipc_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def decode_blobs(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """On the executors: each row's blob back into record batches."""
    for batch in batches:
        for blob in batch.column(0).to_pylist():
            yield from pa.ipc.open_stream(blob).read_all().to_batches()
