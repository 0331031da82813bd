"""The rule catalogue (DESIGN §3) and selection by code or family prefix."""

from __future__ import annotations

from typing import Iterable, Sequence

from gradlint.rules.accumulation import AccumulationWithoutLossScaling, ZeroGradInsideAccumulation
from gradlint.rules.amp import ClipWithoutUnscale
from gradlint.rules.base import Finding, Rule
from gradlint.rules.clearing import MissingZeroGrad
from gradlint.rules.ddp import DdpAccumulationWithoutNoSync
from gradlint.rules.micro_batches import ClipPerMicroBatch, DroppedTailMicroBatches, SchedulerPerMicroBatch
from gradlint.rules.ordering import ClipAfterStep, ClipBeforeBackward, SchedulerBeforeStep, ZeroGradBeforeStep
from gradlint.rules.results import BackwardResultUsed

ALL_RULES: tuple[Rule, ...] = (
    ClipAfterStep(),
    ClipBeforeBackward(),
    ZeroGradBeforeStep(),
    MissingZeroGrad(),
    BackwardResultUsed(),
    SchedulerBeforeStep(),
    AccumulationWithoutLossScaling(),
    ZeroGradInsideAccumulation(),
    ClipPerMicroBatch(),
    SchedulerPerMicroBatch(),
    DroppedTailMicroBatches(),
    ClipWithoutUnscale(),
    DdpAccumulationWithoutNoSync(),
)
BY_CODE = {rule.code: rule for rule in ALL_RULES}

__all__ = ["ALL_RULES", "BY_CODE", "Finding", "Rule", "select_rules", "unknown_selectors"]


def _matches(rule: Rule, selectors: Iterable[str]) -> bool:
    return any(s == "ALL" or rule.code.startswith(s.upper()) for s in selectors)


def select_rules(select: Sequence[str] | None = None, ignore: Sequence[str] = ()) -> list[Rule]:
    """Rules matching `select` (all when None) and not `ignore`; selectors are codes or prefixes."""
    return [
        r for r in ALL_RULES
        if (select is None or _matches(r, select)) and not _matches(r, ignore)
    ]


def unknown_selectors(selectors: Iterable[str]) -> list[str]:
    return [s for s in selectors if s != "ALL" and not any(code.startswith(s.upper()) for code in BY_CODE)]
