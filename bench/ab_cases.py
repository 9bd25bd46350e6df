"""The command line of the A/B scripts over bench/data cases (load_ab.py, wall_ab.py): the cases and
how many times each runs; a script adds what it compares."""

from __future__ import annotations

import argparse


def case_arguments(repeat: int) -> argparse.ArgumentParser:
    """A parser of case directories' names under bench/data and ``--repeat`` (default ``repeat``)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="+", help="case directories' names under bench/data")
    ap.add_argument("--repeat", type=int, default=repeat)
    return ap
