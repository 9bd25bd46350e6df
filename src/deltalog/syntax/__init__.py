"""The deltalog language: the AST (:mod:`deltalog.syntax.ast`) and the parser (``parse``, ``parse_file``,
``parse_atom``).

The parser is imported lazily, so that ``deltalog.syntax.ast`` (which errors and analysis
use) does not pull in Lark, and so that ``deltalog.errors`` can import the AST's Span.
"""

__all__ = ["parse", "parse_file", "parse_atom"]


def __getattr__(name: str):
    if name in __all__:
        from deltalog.syntax import parser
        return getattr(parser, name)
    raise AttributeError(f"module 'deltalog.syntax' has no attribute {name!r}")
