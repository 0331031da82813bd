"""The rule catalogue (DESIGN §3) and selection by code or family prefix."""

from __future__ import annotations

import functools
from typing import Iterable, Sequence

from gradlint.rules.accumulation import AccumulationWithoutLossScaling, ZeroGradInsideAccumulation
from gradlint.rules.amp import (
    ClipWithoutUnscale,
    DoubleUnscale,
    MissingScalerUpdate,
    StepBypassesScaler,
    UnscaledBackwardWithScaler,
)
from gradlint.rules.amp_api import DeprecatedCudaAmp
from gradlint.rules.base import Finding, Rule
from gradlint.rules.clearing import MissingZeroGrad
from gradlint.rules.ddp import DdpAccumulationWithoutNoSync
from gradlint.rules.memory import LossKeptWithGraph
from gradlint.rules.micro_batches import ClipPerMicroBatch, DroppedTailMicroBatches, SchedulerPerMicroBatch
from gradlint.rules.no_sync import NoSyncWithoutForward
from gradlint.rules.numerics import LogOfSoftmax, SigmoidWithLogitsLoss, SoftmaxBeforeCrossEntropy
from gradlint.rules.ordering import ClipAfterStep, ClipBeforeBackward, SchedulerBeforeStep, ZeroGradBeforeStep
from gradlint.rules.results import BackwardResultUsed
from gradlint.rules.suppressions import UnusedSuppression

ALL_RULES: tuple[Rule, ...] = (
    UnusedSuppression(),
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
    StepBypassesScaler(),
    MissingScalerUpdate(),
    DoubleUnscale(),
    UnscaledBackwardWithScaler(),
    DeprecatedCudaAmp(),
    DdpAccumulationWithoutNoSync(),
    NoSyncWithoutForward(),
    LogOfSoftmax(),
    SoftmaxBeforeCrossEntropy(),
    SigmoidWithLogitsLoss(),
    LossKeptWithGraph(),
)
BY_CODE = {rule.code: rule for rule in ALL_RULES}
BY_NAME = {rule.name: rule for rule in ALL_RULES}

__all__ = [
    "ALL_RULES", "BY_CODE", "BY_NAME", "Finding", "Rule", "code_of", "select_rules", "selects", "unknown_selectors",
]


def code_of(selector: str) -> str:
    """A selector as a code or code prefix: rule names (`clip-after-step`) become their code."""
    rule = BY_NAME.get(selector.strip().lower())
    return rule.code if rule else selector.strip().upper()


def selects(selector: str, code: str) -> bool:
    """Whether `selector` (ALL, a code, a family prefix such as GL2, or a rule name) covers `code`."""
    return selector == "ALL" or code.startswith(code_of(selector))


def _matches(rule: Rule, selectors: Iterable[str]) -> bool:
    return any(selects(s, rule.code) for s in selectors)


def select_rules(
    select: Sequence[str] | None = None, ignore: Sequence[str] = (), extend_select: Sequence[str] = ()
) -> list[Rule]:
    """Rules matching `select` (when None: every rule on by default) or `extend_select`, and not
    `ignore`. Rules off by default (GL001) run only when a selector names them."""
    return list(_selected(None if select is None else tuple(select), tuple(ignore), tuple(extend_select)))


@functools.lru_cache(maxsize=64)
def _selected(select: tuple[str, ...] | None, ignore: tuple[str, ...], extend_select: tuple[str, ...]) -> tuple[Rule, ...]:
    """Asked once per checked file with the same few selector lists."""
    return tuple(
        r for r in ALL_RULES
        if ((r.default_enabled if select is None else _matches(r, select)) or _matches(r, extend_select))
        and not _matches(r, ignore)
    )


def unknown_selectors(selectors: Iterable[str]) -> list[str]:
    return [s for s in selectors if s != "ALL" and not any(selects(s, code) for code in BY_CODE)]
