"""GL1xx: gradient operations in the wrong order within one iteration."""

from __future__ import annotations

from typing import Iterator

from gradlint.model import Kind, ModuleModel, TrainingLoop
from gradlint.rules.base import Finding, LoopRule
from gradlint.rules.shared import code, move


class ClipAfterStep(LoopRule):
    code = "GL101"
    name = "clip-after-step"
    summary = "gradient clipping runs after optimizer.step() in the same iteration"
    fix_applicability = "safe"

    def check_loop(self, model: ModuleModel, loop: TrainingLoop) -> Iterator[Finding]:
        for clip in loop.of(Kind.CLIP):
            step = _last_step_before(loop, clip)
            if step is None:
                continue
            message = (
                f"{code(model, clip)} runs after {code(model, step)}: the step has already "
                "used the unclipped gradients, and the clipped ones are cleared before any "
                "step uses them"
            )
            fix = self.plan(f"Move the clip before {code(model, step)}", move(model, loop, clip, step.stmt, "before"))
            yield Finding(self.code, model.span(clip.node), message, fix)


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
