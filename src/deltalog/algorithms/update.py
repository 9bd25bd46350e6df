"""Moved to deltalog.reasoning.update and .workspace (below algorithms/ and modules/); kept for callers
outside the layer (api.py reads ``explicit_relation``)."""

from deltalog.reasoning.update import Update, UpdateViews, lower_changes, predicates_read, tuples_of  # noqa: F401
from deltalog.reasoning.workspace import explicit_relation  # noqa: F401

__all__ = ["Update", "UpdateViews", "explicit_relation", "lower_changes", "predicates_read", "tuples_of"]
