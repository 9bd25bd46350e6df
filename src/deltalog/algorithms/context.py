"""Moved to deltalog.reasoning.context (below algorithms/ and modules/); kept for callers outside the layer."""

from deltalog.reasoning.context import (Live, PhaseStats, Reasoning, RuleStats, Stats, StratumStats,  # noqa: F401
                                        rule_label)

__all__ = ["Live", "PhaseStats", "Reasoning", "RuleStats", "Stats", "StratumStats", "rule_label"]
