"""The maintenance algorithms' names, importable without the algorithms themselves.

The command line needs them to build its parser (``--algorithm`` choices) before it knows whether
a command will maintain anything, so they live apart from ``strategies.py``, whose imports load the
whole engine. ``tests/test_startup.py`` checks that they match ``maintain.ALGORITHMS``.

>>> "auto" in ALGORITHM_NAMES
True
"""

ALGORITHM_NAMES: tuple[str, ...] = ("dred", "dredc", "counting", "fbf", "bf", "remat", "auto")
