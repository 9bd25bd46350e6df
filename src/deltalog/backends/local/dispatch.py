"""How the local executor finds a plan node's handler (``execute.stream``)."""

from __future__ import annotations

from inspect import signature
from typing import Any, Callable, Iterator, get_type_hints

from deltalog.plan import ir
from deltalog.backends.local.frame import Frame


class NodeDispatch:
    """``stream``: a node's handler looked up by its exact type in a dict. ``functools.singledispatch``
    did the same through three Python-level calls (wrapper, dispatch, a weak-key cache) per node, and
    a small update streams ~400 nodes; a subclass of a node type is resolved once, by its MRO."""

    def __init__(self) -> None:
        self.handlers: dict[type, Callable[[Any, Any], Iterator[Frame]]] = {}

    def register(self, handler_or_type, handler=None):
        """``@stream.register`` on a handler whose first parameter names its node type, or
        ``stream.register(NodeType, handler)``."""
        if handler is None:
            node_type = get_type_hints(handler_or_type)[next(iter(signature(handler_or_type).parameters))]
            self.handlers[node_type] = handler_or_type
            return handler_or_type
        self.handlers[handler_or_type] = handler
        return handler

    def __call__(self, node: ir.Node, ctx: Any) -> Iterator[Frame]:
        handler = self.handlers.get(type(node))
        if handler is None:
            handler = next((self.handlers[t] for t in type(node).__mro__ if t in self.handlers), None)
            if handler is None:
                raise TypeError(f"the local backend cannot execute {type(node).__name__}")
            self.handlers[type(node)] = handler
        return handler(node, ctx)
