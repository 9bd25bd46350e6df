"""Columns of declared predicates (``@decl``): typed by the declaration instead of by form, and named.

A declared column is read by its type, never guessed (docs/semantics.md, Declarations): a
``string`` cell is the string exactly as written, an ``int`` cell must be a decimal integer,
an ``iri`` cell ``<iri>`` or a bare IRI. Typed columns (Parquet, DataFrames) must have a dtype
of the declared type; nothing is converted between kinds. Every function here works on whole
Polars columns; a bad value raises :class:`BadCell` with its row, and the readers turn that into
an error naming the file, line and column.
"""

from __future__ import annotations

import polars as pl

from deltalog.errors import InputError
from deltalog.io.cells import classify, iri_cells, string_cells
from deltalog.io.writers import float_strings
from deltalog.storage.values import FLOAT, INT, IRI, IRI_CELL, STRING

KIND_CODES = {"int": {INT}, "float": {FLOAT}, "number": {INT, FLOAT}, "string": {STRING}, "iri": {IRI}}
INT_TEXT = r"^-?[0-9]+$"
FLOAT_TEXT = r"^-?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][-+]?[0-9]+)?$"
BARE_IRI = r'^[^<>"{}|^`\\\x00-\x20]+$'
CELLS_SUFFIX = ":cells"


class BadCell(ValueError):
    """A value that does not fit its declared column: ``row`` is 0-based, the message says why."""

    def __init__(self, row: int, message: str):
        super().__init__(message)
        self.row = row


def _refuse(bad: pl.Series, cells: pl.Series, why: str) -> None:
    if bad.any():
        row = int(bad.arg_true()[0])
        raise BadCell(row, f"{cells[row]!r} {why}")


def _ints(cells: pl.Series) -> pl.Series:
    ints = cells.cast(pl.Int64, strict=False)
    form = cells.str.contains(INT_TEXT)
    _refuse(~form, cells, "is not an int")
    _refuse(ints.is_null(), cells, "does not fit 64 bits")
    return ints


def _floats(cells: pl.Series, form: pl.Series) -> pl.Series:
    floats = cells.cast(pl.Float64, strict=False)
    _refuse(~form, cells, "is not a number")
    _refuse(~floats.fill_null(float("nan")).is_finite(), cells, "is no value (NaN and infinities are refused)")
    return floats + 0.0   # -0.0 is 0.0 (docs/semantics.md)


def text_column(cells: pl.Series, type_name: str) -> pl.Series:
    """Text cells of a column declared ``type_name`` (not ``any``) as a decoded column: Int64, Float64
    or text cells that the engine types back to exactly these values."""
    cells = cells.cast(pl.String)
    if type_name == "string":
        return string_cells(cells)
    if type_name == "int":
        return _ints(cells).rename(cells.name)
    if type_name == "float":
        return _floats(cells, cells.str.contains(FLOAT_TEXT)).rename(cells.name)
    if type_name == "number":
        is_int = cells.str.contains(INT_TEXT)
        if is_int.all():
            return _ints(cells).rename(cells.name)
        floats = _floats(cells, cells.str.contains(FLOAT_TEXT))
        ints = _ints(pl.select(pl.when(is_int).then(cells).otherwise(pl.lit("0"))).to_series())
        mixed = pl.select(pl.when(is_int).then(ints.cast(pl.String)).otherwise(float_strings(floats)))
        return floats.rename(cells.name) if not is_int.any() else mixed.to_series().rename(cells.name)
    if type_name == "iri":
        bracketed, bare = cells.str.contains(IRI_CELL), cells.str.contains(BARE_IRI)
        _refuse(~(bracketed | bare), cells, "is not an IRI (<...> or a text without spaces, <, >, \", {, }, |, ^, "
                                            "` or \\)")
        return pl.select(pl.when(bracketed).then(cells).otherwise(iri_cells(cells))).to_series().rename(cells.name)
    raise ValueError(f"unknown type {type_name!r}")


def check_kinds(column: pl.Series, type_name: str) -> None:
    """Refuse a decoded column (Int64, Float64 or text cells) holding a kind the type does not allow."""
    allowed = KIND_CODES.get(type_name)
    if allowed is None or column.len() == 0:
        return
    if column.dtype.is_integer() or column.dtype.is_float():
        kind = INT if column.dtype.is_integer() else FLOAT
        if kind not in allowed:
            raise BadCell(0, f"{column[0]!r} is {'an int' if kind == INT else 'a float'}, not {type_name}")
        return
    kinds = classify(column)["kind"]
    _refuse(~kinds.is_in(list(allowed)), column, f"is not {type_name}")


def value_column(column: pl.Series, type_name: str, typed) -> pl.Series:
    """A typed column (Parquet, a DataFrame) for an attribute declared ``type_name``: its dtype must be
    the type's (integers for int, floats for float, either for number, text for string and iri);
    ``*:cells`` columns are text cells whose kinds must fit. ``typed`` types a column as undeclared."""
    if column.name.endswith(CELLS_SUFFIX) and column.dtype == pl.String:
        check_kinds(column, type_name)
        return column
    dtype = column.dtype
    text = dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum)
    fits = {"int": dtype.is_integer(), "float": dtype.is_float(), "number": dtype.is_numeric() and
            not dtype.is_decimal(), "string": text, "iri": text}[type_name]
    if not fits:
        raise BadCell(-1, f"the column has dtype {dtype}, but the attribute is declared {type_name} "
                          "(values are not converted between kinds: cast the column)")
    if type_name == "iri":
        return text_column(column.cast(pl.String), "iri")
    return typed(column)


def match_columns(names: list[str], declared: tuple[str, ...]) -> list[str]:
    """The columns in declared order when their names (``:cells`` aside) are the declared ones, in any
    order; else the columns as they are (matched by position)."""
    bare = {name.removesuffix(CELLS_SUFFIX): name for name in names}
    if len(bare) == len(names) and set(bare) == set(declared):
        return [bare[name] for name in declared]
    return names


def checked(table: pl.DataFrame, decl, source: str) -> pl.DataFrame:
    """A decoded table whose kinds must fit a declaration (Python rows, RDF triples)."""
    if decl is None:
        return table
    for j, (column, attribute) in enumerate(zip(table.get_columns(), decl.attributes)):
        try:
            check_kinds(column, attribute.type)
        except BadCell as bad:
            raise InputError(f"{source}: row {bad.row + 1}, column {j + 1}: {bad}; {decl.predicate}."
                             f"{attribute.name} is declared {attribute.type}") from None
    return table


# ---- output: declared names and types -----------------------------------------------------------

def present(table: pl.DataFrame, decl) -> pl.DataFrame:
    """A decoded relation (c0..ck) with the declared names: int columns Int64 and float columns Float64
    (also when empty), string columns the strings themselves, iri/number/any columns as undeclared."""
    columns = []
    for column, attribute in zip(table.get_columns(), decl.attributes):
        if attribute.type == "int":
            column = column.cast(pl.Int64)
        elif attribute.type == "float":
            column = column.cast(pl.Float64)
        elif attribute.type == "string":
            column = classify(column)["text"] if column.dtype == pl.String else column.cast(pl.String)
        columns.append(column.rename(attribute.name))
    return pl.DataFrame(columns) if columns else table


def parquet_columns(table: pl.DataFrame, decl) -> pl.DataFrame:
    """A decoded relation as Parquet columns named by the declaration: int, float and string attributes
    typed columns, the others as undeclared (``deltalog.io.writers.parquet_frame``)."""
    from deltalog.io.writers import parquet_frame
    named = present(table, decl)
    columns = []
    for column, attribute in zip(table.get_columns(), decl.attributes):
        if attribute.type in ("int", "float", "string"):
            columns.append(named[attribute.name])
        else:
            columns.extend(parquet_frame(pl.DataFrame([column.rename(attribute.name)])).get_columns())
    return pl.DataFrame(columns) if columns else table
