"""The vocabulary of predictions: what one is, what checking it returns, and the step
helpers every prediction module uses (pure Python, no torch)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from gradlint.verify.trace import Run, Step


class PredictionError(Exception):
    """The traces lack what the prediction needs (e.g. no step was recorded)."""


@dataclass
class Outcome:
    passed: bool
    measured: str  # what was measured, in numbers: never a restatement of the prediction
    details: dict[str, Any] = field(default_factory=dict)


Check = Callable[[Run, Run], Outcome]


@dataclass(frozen=True)
class Prediction:
    code: str
    name: str
    text: str  # what is predicted, in words (shown in the report)
    check: Check
    world_size: int = 1  # >1: the fixture is a DDP script launched on that many ranks


def steps(run: Run, label: str) -> list[Step]:
    if not run.steps:
        raise PredictionError(f"{label} run made no optimizer step")
    return run.steps


def window_size(run_steps: list[Step], label: str) -> int:
    """The number of backward passes every step of the run accumulates (one value, or an error)."""
    sizes = {len(s.backwards) for s in run_steps}
    if len(sizes) != 1 or 0 in sizes:
        raise PredictionError(f"{label} run: backward passes per step vary or are zero: {sorted(sizes)}")
    return sizes.pop()
