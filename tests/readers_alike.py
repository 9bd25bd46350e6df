"""What the differential reader tests compare: a read's table (as a DataFrame) or its error message."""

from __future__ import annotations

from deltalog.errors import InputError
from deltalog.io.int_columns import as_polars


def outcome(read, *args, **options):
    """``read(*args, **options)`` as a DataFrame, or the ``InputError`` it raises, as text."""
    try:
        return as_polars(read(*args, **options))
    except InputError as error:
        return f"InputError: {error}"


def same(a, b) -> bool:
    """The same error text, or frames with the same schema and the same rows in the same order."""
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return a.schema == b.schema and a.rows() == b.rows()
