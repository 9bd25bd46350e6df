"""deltalog: a Datalog reasoning engine that keeps its materialisation exact while facts and rules change."""

__version__ = "0.1.0"

from deltalog.storage.values import Iri as IRI  # noqa: E402  (a plain str is always a string)

__all__ = ["IRI"]
