"""Reading and writing fact files (TSV/.facts, CSV, Parquet, RDF) as decoded Polars tables with columns c0..ck.

The names are imported on first use (PEP 562): the engine's own int-file path (io/formats.py,
io/int_columns.py) lives in this package and must not pull in Polars with it.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_HOMES = {"RdfTables": "rdf", "read_rdf": "rdf", "read_facts_dir": "readers", "read_table": "readers",
          "write_relations": "writers", "write_table": "writers"}
__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
