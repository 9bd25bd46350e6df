"""deltalog: a Datalog reasoning engine that keeps its materialisation exact while facts and rules change."""

__version__ = "0.1.0"
