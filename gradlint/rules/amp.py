"""GL3xx: mixed precision with GradScaler used wrongly."""

from __future__ import annotations

from typing import Iterator

from gradlint.fixplan import FixPlan, InsertStatement
from gradlint.model import Kind, ModuleModel
from gradlint.rules.base import Finding, Rule
from gradlint.rules.shared import code, move


class ClipWithoutUnscale(Rule):
    code = "GL301"
    name = "clip-without-unscale"
    summary = "clipping gradients that GradScaler has scaled, without scaler.unscale_() first"
    fix_applicability = "safe"

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        for loop in model.loops:
            if not loop.plain:
                continue
            for clip in loop.of(Kind.CLIP):
                related = [e for e in loop.events if not e.exclusive_with(clip)]
                scaled = [e for e in related if e.kind is Kind.BACKWARD and e.scaler and e.order < clip.order]
                steps = [e for e in related if e.kind is Kind.SCALER_STEP and e.order > clip.order]
                unscaled = [e for e in related if e.kind is Kind.UNSCALE and e.order < clip.order]
                if not scaled or not steps or unscaled:
                    continue
                scaler, step = scaled[-1].scaler, steps[0]
                optimizer = step.optimizer or loop.optimizer
                message = (
                    f"{code(model, clip)} clips gradients still multiplied by the loss scale of "
                    f"`{scaler}`: the threshold acts on scaled values, so the true gradients are "
                    f"clipped to max_norm / scale (65536 times too small at the default scale); "
                    f"call `{scaler}.unscale_({optimizer})` first"
                )
                late = [e for e in related if e.kind is Kind.UNSCALE and clip.order < e.order < step.order]
                yield Finding(self.code, model.span(clip.anchor), message, self._fix(model, loop, clip, scaler, optimizer, late))

    @staticmethod
    def _fix(model, loop, clip, scaler, optimizer, late_unscales) -> FixPlan | None:
        accumulation = loop.accumulation
        if clip.inlined or (accumulation is not None and not accumulation.at_step(clip)):
            return None  # unscale_ on every micro-batch would raise: only fix a clip at the step
        statement = f"{scaler}.unscale_({optimizer})"
        if late_unscales:  # a second unscale_ before update() raises: move the existing one
            operation = move(model, loop, late_unscales[0], clip.stmt, "before")
            return FixPlan(f"Move `{statement}` before the clip", (operation,)) if operation else None
        return FixPlan(f"Insert `{statement}` before the clip", (InsertStatement(statement, model.position(clip.stmt), "before"),))
