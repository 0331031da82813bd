"""GL1xx: gradient operations in the wrong order within one iteration."""

from __future__ import annotations

from typing import Iterator

from gradlint.fixplan import FixPlan
from gradlint.model import Kind, ModuleModel
from gradlint.rules.base import Finding, Rule
from gradlint.rules.shared import code, move


class ClipAfterStep(Rule):
    code = "GL101"
    name = "clip-after-step"
    summary = "gradient clipping runs after optimizer.step() in the same iteration"

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        for loop in model.loops:
            if not loop.plain:
                continue
            for clip in loop.of(Kind.CLIP):
                step = _last_step_before(loop, clip)
                if step is None:
                    continue
                message = (
                    f"{code(model, clip)} runs after {code(model, step)}: the step has already "
                    "used the unclipped gradients, and the clipped ones are cleared before any "
                    "step uses them"
                )
                # With a closure, backward runs inside step(): a clip moved before it would
                # clip the previous iteration's gradients.
                closure = step.kind is Kind.STEP and (step.node.args or step.node.keywords)
                operation = None if closure else move(model, loop, clip, step.stmt, "before")
                fix = FixPlan(f"Move the clip before {code(model, step)}", (operation,)) if operation else None
                yield Finding(self.code, model.span(clip.anchor), message, fix)


def _last_step_before(loop, clip):
    """The step this clip follows in the same iteration, with a backward before that step and
    none between step and clip (so the clip cannot be meant for the next step)."""
    earlier = [e for e in loop.events if e.order < clip.order and not e.exclusive_with(clip)]
    steps = [e for e in earlier if e.kind in (Kind.STEP, Kind.SCALER_STEP)]
    if not steps:
        return None
    step = steps[-1]
    between = [e for e in earlier if e.order > step.order and e.kind is Kind.BACKWARD]
    before = [e for e in earlier if e.order < step.order and e.kind is Kind.BACKWARD]
    return step if before and not between else None
