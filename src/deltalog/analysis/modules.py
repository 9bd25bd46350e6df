"""Which modules (003 section 4) evaluate a stratum's recursive rules, chosen by rule shape at analysis.

003 splits Π_r^s into modules Π_r^{s,1} .. Π_r^{s,n}, each with its own Add/Del/Red/Diff plug-ins
(modules/). The choice is made here, once per program, and recorded on the :class:`Stratum`, so
materialisation and every maintenance algorithm use the same modules. Today every recursive rule
goes to one seminaive module; a closure module (003 section 5: a transitivity rule ``R(x, z) :-
R(x, y), R(y, z)``) would be recognised in :func:`choose_modules` and claim its rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deltalog.analysis.program import RuleInfo


class ModuleKind(Enum):
    """An implementation of the plug-ins (modules/ maps each kind to its class)."""

    SEMINAIVE = "seminaive"   # 003 section 4.1: Add by seminaive evaluation, DRed's Del and Red


@dataclass(frozen=True)
class ModuleChoice:
    """One module of a stratum: its kind and the recursive rules it evaluates."""

    kind: ModuleKind
    rules: tuple[RuleInfo, ...]


def choose_modules(recursive: tuple[RuleInfo, ...]) -> tuple[ModuleChoice, ...]:
    """Split Π_r^s into modules by rule shape: every rule no specialised module claims is seminaive."""
    if not recursive:
        return ()
    return (ModuleChoice(ModuleKind.SEMINAIVE, recursive),)
