"""The modules of 003 section 4: which class implements each kind analysis chose (analysis/modules.py)."""

from __future__ import annotations

from typing import Callable

from deltalog.analysis.modules import ModuleChoice, ModuleKind
from deltalog.analysis.program import Stratum
from deltalog.modules.base import BackwardModule, CountingModule, Module
from deltalog.modules.seminaive import SeminaiveModule
from deltalog.modules.symmetric import SymmetricModule
from deltalog.modules.transitive import LinearModule, TransitiveModule

IMPLEMENTATIONS: dict[ModuleKind, Callable[[ModuleChoice, Stratum], Module]] = {
    ModuleKind.SEMINAIVE: lambda choice, stratum: SeminaiveModule(choice.rules, stratum.predicates),
    ModuleKind.TRANSITIVE: TransitiveModule,
    ModuleKind.SYMMETRIC: SymmetricModule,
    ModuleKind.LINEAR: LinearModule,
}



def modules_of(stratum: Stratum) -> list[Module]:
    """The modules recorded on the stratum at analysis, ready to run."""
    return [IMPLEMENTATIONS[choice.kind](choice, stratum) for choice in stratum.modules]


def counting_modules(stratum: Stratum) -> list[CountingModule]:
    """The stratum's modules, each able to enumerate its rule instances (the strategy checked it)."""
    out: list[CountingModule] = []
    for module in modules_of(stratum):
        if not isinstance(module, CountingModule):
            raise _lacks(module, CountingModule)
        out.append(module)
    return out


def backward_modules(stratum: Stratum) -> list[BackwardModule]:
    """The stratum's modules, each able to chain backward and forward (the strategy checked it)."""
    out: list[BackwardModule] = []
    for module in modules_of(stratum):
        if not isinstance(module, BackwardModule):
            raise _lacks(module, BackwardModule)
        out.append(module)
    return out


def _lacks(module: Module, capability: type) -> TypeError:
    return TypeError(f"{type(module).__name__} is not a {capability.__name__}: the strategy should have "
                     "maintained this stratum with its fallback")
