"""GL2xx: gradient accumulation over micro-batches done wrong."""

from __future__ import annotations

import ast
from typing import Iterator

from gradlint.fixplan import FixPlan, ReplaceExpression
from gradlint.model import Kind, ModuleModel, TrainingLoop
from gradlint.model.losses import loss_normalized
from gradlint.rules.base import Finding, LoopRule
from gradlint.rules.shared import code, end_of_step_run, factor_text, move

LOW_PRECEDENCE = (ast.BinOp, ast.BoolOp, ast.IfExp, ast.Compare, ast.UnaryOp, ast.Lambda, ast.NamedExpr)


class AccumulationWithoutLossScaling(LoopRule):
    code = "GL201"
    name = "accumulation-without-loss-scaling"
    summary = "gradients accumulate over N micro-batches but the loss is not divided by N"
    fix_applicability = "unsafe"

    def check_loop(self, model: ModuleModel, loop: TrainingLoop) -> Iterator[Finding]:
        accumulation = loop.accumulation
        if accumulation is None or loop.of(Kind.GRAD_RESCALE):
            return
        factor = factor_text(model, accumulation.factor)
        step = loop.of(Kind.STEP, Kind.SCALER_STEP)[0]
        for backward in loop.of(Kind.BACKWARD):
            if loss_normalized(model, backward.loss, backward.scope, backward.node.lineno) is not False:
                continue
            message = (
                f"{code(model, backward)} accumulates gradients over `{factor}` micro-batches, "
                f"but the loss is not divided by `{factor}`: {code(model, step)} applies the sum "
                f"of the window's gradients, `{factor}` times the gradient of the mean loss"
            )
            yield Finding(self.code, model.span(backward.node), message, self._fix(model, loop, backward, factor))

    def _fix(self, model, loop, backward, factor) -> FixPlan | None:
        if backward.inlined or backward.scope is not loop.scope:
            return None
        loss = backward.loss
        text = model.source(loss)
        if isinstance(loss, LOW_PRECEDENCE):
            text = f"({text})"
        divided = f"{text} / {factor}"
        # As the receiver of `.backward()` the quotient needs parentheses; as an argument not.
        receiver = isinstance(backward.node.func, ast.Attribute) and backward.node.func.value is loss
        replacement = f"({divided})" if receiver else divided
        return self.plan(f"Divide the loss by `{factor}`", ReplaceExpression(model.position(loss), model.source(loss), replacement))


class ZeroGradInsideAccumulation(LoopRule):
    code = "GL202"
    name = "zero-grad-inside-accumulation"
    summary = "zero_grad() runs on every micro-batch while the step waits for N of them"
    fix_applicability = "safe"

    def check_loop(self, model: ModuleModel, loop: TrainingLoop) -> Iterator[Finding]:
        accumulation = loop.accumulation
        if accumulation is None:
            return
        step = loop.of(Kind.STEP, Kind.SCALER_STEP)[-1]
        factor = f"`{factor_text(model, accumulation.factor)}`"
        for zero in loop.of(Kind.ZERO_GRAD):
            if zero.optimizer not in (loop.optimizer, None) or not accumulation.runs_every_micro_batch(zero):
                continue
            message = (
                f"{code(model, zero)} runs on every micro-batch while {code(model, step)} waits "
                f"for {factor} of them: each step sees only the gradients of the micro-batches "
                "since the last zero_grad, not the whole window"
            )
            anchor = end_of_step_run(model, loop, step)
            fix = self.plan(f"Move {code(model, zero)} after the step", move(model, loop, zero, anchor, "after"))
            yield Finding(self.code, model.span(zero.node), message, fix)
