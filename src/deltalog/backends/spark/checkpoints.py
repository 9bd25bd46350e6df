"""Where a backend checkpoints, and cleaning up what it wrote.

``localCheckpoint`` keeps blocks in the executors: fastest, but a lost executor loses them and the job
fails (``CHECKPOINT_RDD_BLOCK_ID_NOT_FOUND``). On a local master there is nothing else to lose, so
that is the default there; on a cluster master checkpoints are reliable (``checkpoint()`` into a
directory every node shares): the one given, the session's (``spark.checkpoint.dir`` or
``setCheckpointDir``), or one derived from the output location. What deltalog created is removed by
``Checkpoints.close``; a directory the user configured on their own session is left to them (the
DataFrames deltalog returns still read from it).
"""

from __future__ import annotations

import uuid
import warnings
from dataclasses import dataclass, field

from deltalog.errors import InputError

NEEDS_DIR = ("a cluster master needs reliable checkpoints in a directory that the driver and every executor "
             "share (hdfs://, s3a://, NFS): give --checkpoint-dir DIR, set spark.checkpoint.dir, or call "
             "spark.sparkContext.setCheckpointDir(DIR) on your session (checkpoint='local' accepts that a lost "
             "executor fails the job)")


@dataclass
class Checkpoints:
    mode: str                                        # "local" or "reliable"
    owned: list[str] = field(default_factory=list)   # directories to remove at close

    def close(self, spark) -> None:
        """Remove the checkpoint files deltalog created (through Hadoop's FileSystem: any storage)."""
        while self.owned:
            directory = self.owned.pop()
            try:
                remove(spark, directory)
            except Exception as exc:     # the results are written; say what is left behind
                warnings.warn(f"could not remove checkpoint directory {directory}: {str(exc).splitlines()[0]}")


def choose(spark, *, mode: str | None, directory: str | None, near: str | None, owns_session: bool) -> Checkpoints:
    """The checkpoint mode and directory for a backend (see the module's docstring)."""
    from deltalog.backends.spark.session import is_local
    if mode not in (None, "local", "reliable"):
        raise ValueError(f"checkpoint must be 'local' or 'reliable', not {mode!r}")
    sc = spark.sparkContext
    if mode == "local" or (mode is None and directory is None and is_local(sc.master)):
        return Checkpoints("local")
    if directory:
        sc.setCheckpointDir(directory)              # Spark makes a fresh <directory>/<uuid> inside
        return Checkpoints("reliable", [sc.getCheckpointDir()])
    if sc.getCheckpointDir():
        return Checkpoints("reliable", [sc.getCheckpointDir()] if owns_session else [])
    if near:
        derived = f"{str(near).rstrip('/')}.deltalog-checkpoints-{uuid.uuid4().hex[:8]}"
        sc.setCheckpointDir(derived)
        return Checkpoints("reliable", [derived])
    raise InputError(NEEDS_DIR)


def remove(spark, directory: str) -> None:
    jvm = spark.sparkContext._jvm
    path = jvm.org.apache.hadoop.fs.Path(directory)
    path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()).delete(path, True)
