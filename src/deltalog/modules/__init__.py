"""The modules of 003 section 4: which class implements each kind analysis chose (analysis/modules.py)."""

from __future__ import annotations

from typing import Callable

from deltalog.analysis.modules import ModuleChoice, ModuleKind
from deltalog.analysis.program import Stratum
from deltalog.modules.base import Module
from deltalog.modules.seminaive import SeminaiveModule
from deltalog.modules.symmetric import SymmetricModule
from deltalog.modules.transitive import LinearModule, TransitiveModule

IMPLEMENTATIONS: dict[ModuleKind, Callable[[ModuleChoice, Stratum], Module]] = {
    ModuleKind.SEMINAIVE: lambda choice, stratum: SeminaiveModule(choice.rules, stratum.predicates),
    ModuleKind.TRANSITIVE: TransitiveModule,
    ModuleKind.SYMMETRIC: SymmetricModule,
    ModuleKind.LINEAR: LinearModule,
}

ALL_ALGORITHMS = frozenset({"dred", "dredc", "counting", "fbf", "bf"})


def modules_of(stratum: Stratum) -> list[Module]:
    """The modules recorded on the stratum at analysis, ready to run."""
    return [IMPLEMENTATIONS[choice.kind](choice, stratum) for choice in stratum.modules]


def supports(stratum: Stratum, algorithm: str) -> bool:
    """Whether every module of the stratum can be maintained by ``algorithm`` (a module's
    ``capabilities``; the seminaive module supports them all). A closure module is maintained
    through 003 Algorithm 3's plug-ins only, i.e. by DRed and DRed^c."""
    return all(algorithm in getattr(m, "capabilities", ALL_ALGORITHMS) for m in modules_of(stratum))
