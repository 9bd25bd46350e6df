"""The modules of 003 section 4: which class implements each kind analysis chose (analysis/modules.py)."""

from __future__ import annotations

from deltalog.analysis.modules import ModuleKind
from deltalog.analysis.program import Stratum
from deltalog.modules.base import Module
from deltalog.modules.seminaive import SeminaiveModule

IMPLEMENTATIONS = {ModuleKind.SEMINAIVE: SeminaiveModule}


def modules_of(stratum: Stratum) -> list[Module]:
    """The modules recorded on the stratum at analysis, ready to run."""
    return [IMPLEMENTATIONS[choice.kind](choice.rules, stratum.predicates) for choice in stratum.modules]
