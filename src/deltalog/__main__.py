"""``python -m deltalog``: the command line."""

from deltalog.cli import entry

entry()
