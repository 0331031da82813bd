"""GL2xx: gradient accumulation over micro-batches done wrong."""

from __future__ import annotations

import ast
from typing import Iterator

from gradlint.fixplan import FixPlan, MoveStatement, RemoveStatement, ReplaceExpression
from gradlint.model import Kind, ModuleModel
from gradlint.model.events import STEPS, made_from_gradients
from gradlint.model.guards import negated_source
from gradlint.model.learning_rates import divides_learning_rate
from gradlint.model.loops import counted_between
from gradlint.model.losses import running_counter_divisor
from gradlint.model.prepared import accumulating_accelerator, divides_nothing, events_in_accelerate_windows, is_prepared, runs_under_deepspeed
from gradlint.rules.base import Finding, Rule
from gradlint.rules.shared import code, end_of_step_run, factor_text, move, per_micro_batch

LOW_PRECEDENCE = (ast.BinOp, ast.BoolOp, ast.IfExp, ast.Compare, ast.UnaryOp, ast.Lambda, ast.NamedExpr)


class AccumulationWithoutLossScaling(Rule):
    code = "GL201"
    name = "accumulation-without-loss-scaling"
    summary = "gradients accumulate over N micro-batches but the loss is not divided by N"
    fix_applicability = "unsafe"

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        # a GAN's turns each (the generator accumulating while the discriminator steps every batch)
        for loop in (phase for unit in model.loops for phase in _accumulated_by_hand(model, unit)):
            if loop.plain:  # each accumulating path (`if fp16:` scaled, `else:` plain)
                for accumulation in loop.accumulations:
                    if accumulation.counts_micro_batches:
                        yield from self._check_path(model, loop, accumulation)
        for micro_step in model.framework_micro_steps:
            yield from self._check_framework_micro_step(model, micro_step)
        for stepped in model.stepped_by_base:  # an override whose base class steps once it returns
            accumulation = stepped.unit.window_before([stepped.step])
            if accumulation is not None and accumulation.counts_micro_batches:
                yield from self._check_path(model, stepped.unit, accumulation, stepped)

    def _check_framework_micro_step(self, model: ModuleModel, micro_step) -> Iterator[Finding]:
        """An override of a Trainer's `training_step` backpropagating itself: the framework steps
        after `micro_step.window` calls, and the method it replaces divided the loss by that."""
        rescales = micro_step.of(Kind.GRAD_RESCALE)
        for backward in micro_step.of(Kind.BACKWARD):
            if backward.loss_normalized() is not False or any(not r.exclusive_with(backward) for r in rescales):
                continue
            message = (
                f"{per_micro_batch(model, backward, micro_step)}, but this override does not divide the "
                f"loss by that as the method it replaces did: each update applies the sum of the "
                f"window's gradients, not their mean"
            )
            fix = None if backward.inlined else _divide_loss(model, backward, micro_step.window)
            yield Finding(self.code, model.span(_where(backward, model)), message, fix)

    def _check_path(self, model: ModuleModel, loop, accumulation, stepped_by_base=None) -> Iterator[Finding]:
        """`stepped_by_base`: the unit is an override whose base class steps once it returns."""
        factor = factor_text(model, accumulation.factor)
        if stepped_by_base is not None:
            steps = [stepped_by_base.step]
            taken = f" (in `{stepped_by_base.stepped_in}`, once `{loop.node.name}` returns)"
        else:
            steps, taken = [e for e in loop.of(Kind.STEP, Kind.SCALER_STEP) if accumulation.covers(e)], ""
        for backward in [e for e in loop.of(Kind.BACKWARD) if accumulation.covers(e) and accumulation.in_micro_batch_loop(e)]:
            rescaled = any(not r.exclusive_with(backward) for r in loop.of(Kind.GRAD_RESCALE))
            if rescaled or backward.loss_normalized() is not False:
                continue
            # the step on the backward's path (`scaler.step(opt)` under fp16, `opt.step()` else)
            step = next((e for e in steps if not e.exclusive_with(backward)), steps[0])
            if any(
                accumulation.runs_every_micro_batch(z) and not z.exclusive_with(backward) and loop.restored_after(z, step)
                for z in loop.of(Kind.ZERO_GRAD)
            ):
                continue  # PGD's attack passes: each one's gradients cleared, a backup written back for the step
            if _overwritten_for_the_step(loop, accumulation, backward, step):
                continue  # PCGrad, GradDrop: the step reads a gradient combined by hand, not the window's sum
            if divides_learning_rate(model, step, accumulation.factor):
                continue  # the optimizer's rate is divided by the window instead
            stepping = code(model, step) + taken
            counter = _running_counter(backward)
            if counter is not None:
                message = (
                    f"{code(model, backward)} accumulates gradients over `{factor}` micro-batches, "
                    f"but the loss is divided by the running count `{model.source(counter)}` (1, 2, ... "
                    f"within the window), not by `{factor}`: {stepping} applies a sum that weighs "
                    f"the first micro-batch most, not the gradient of the window's mean loss"
                )
                yield Finding(self.code, model.span(_where(backward, model)), message, None)
                continue
            if accumulation.counts_samples(model, loop.scope):
                message = (
                    f"{code(model, backward)} accumulates gradients until `{factor}` samples are "
                    f"seen, but the loss is not divided by the window's number of micro-batches: "
                    f"{stepping} applies the sum of their gradients, not their mean"
                )
            else:
                message = (
                    f"{code(model, backward)} accumulates gradients over `{factor}` micro-batches, "
                    f"but the loss is not divided by `{factor}`: {stepping} applies the sum "
                    f"of the window's gradients, `{factor}` times the gradient of the mean loss"
                )
            yield Finding(self.code, model.span(_where(backward, model)), message, self._fix(model, loop, accumulation, backward, factor))

    @staticmethod
    def _fix(model, loop, accumulation, backward, factor) -> FixPlan | None:
        if backward.inlined or backward.scope is not loop.scope or accumulation.counts_samples(model, loop.scope):
            return None
        if accumulation.may_be_off:
            return None  # `not N or i % N == 0`: N may be None or 0, the loss cannot be divided by it
        if accumulation.counts_a_generator(model, loop.scope):
            return None  # `len(self._iter_micro_batches(batch))`: a generator has no length
        return _divide_loss(model, backward, factor)


def _overwritten_for_the_step(loop, accumulation, backward, step) -> bool:
    """`param.grad = combined.clone()` once per window, after its backwards and before the step
    (a multi-task gradient surgery over each task's backward): what the step applies is
    written by hand, so no sum of the backwards reaches it."""
    return any(
        isinstance(e.node, ast.Assign) and backward.order < e.order < step.order
        and not accumulation.runs_every_micro_batch(e) and not e.exclusive_with(step)
        and not made_from_gradients(e.module or loop.model, e.scope, e.node.value)  # an all-reduce by hand keeps the sum
        for e in loop.of(Kind.GRAD_WRITE)
    )


def _accumulated_by_hand(model: ModuleModel, unit):
    """The unit's optimizer turns; for a loop whose backward is `accelerator.backward(loss)` of
    an Accelerator with no accumulation window, the turns with that call as the backward: a
    window written by hand around it divides by nothing either."""
    framework = unit.of(Kind.FRAMEWORK)
    if framework and all(e.by_accelerator and divides_nothing(model, e) for e in framework):
        return unit.turns_ordered_by_hand
    return unit.optimizer_phases


def _divide_loss(model: ModuleModel, backward, factor: str) -> FixPlan:
    """The backward's loss divided by `factor`, where the backward names it."""
    loss = backward.loss
    text = model.source(loss)
    if isinstance(loss, LOW_PRECEDENCE):
        text = f"({text})"
    divided = f"{text} / {factor}"
    # As the receiver of `.backward()` the quotient needs parentheses; as an argument not.
    receiver = isinstance(backward.node.func, ast.Attribute) and backward.node.func.value is loss
    replacement = f"({divided})" if receiver else divided
    # unsafe (DESIGN §2.2): every update becomes N times smaller than the run was tuned with
    operation = ReplaceExpression(model.position(loss), model.source(loss), replacement)
    return FixPlan(f"Divide the loss by `{factor}`", (operation,), applicability="unsafe")


class ZeroGradInsideAccumulation(Rule):
    code = "GL202"
    name = "zero-grad-inside-accumulation"
    summary = "zero_grad() runs on every micro-batch while the step waits for N of them"
    fix_applicability = "safe"

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        for loop in (phase for unit in model.loops for phase in unit.optimizer_phases):
            accumulation = loop.accumulation
            if not loop.plain or accumulation is None:
                continue
            steps = loop.on_path(Kind.STEP, Kind.SCALER_STEP)
            step = steps[-1]
            factor = f"`{factor_text(model, accumulation.factor)}`"
            for zero in loop.on_path(Kind.ZERO_GRAD):
                if zero.optimizer not in (*loop.optimizers, None) or not accumulation.runs_every_micro_batch(zero):
                    continue
                if zero.recovering or zero.drops_skipped_window(step):
                    continue  # `except OOM: zero_grad()`, an overflow: dropping a failed window's gradients
                if loop.restored_after(zero, step):
                    continue  # a backup written back before the step (PGD's `restore_grad()`): the step reads that
                message = (
                    f"{code(model, zero)} runs on every micro-batch while {code(model, step)} waits "
                    f"for {factor} of them: each step sees only the gradients of the micro-batches "
                    "since the last zero_grad, not the whole window"
                )
                yield Finding(self.code, model.span(zero.anchor), message, self._fix(model, loop, zero, steps))
            for zero, cleared in _cleared_before_the_last_backward(model, loop, accumulation, steps):
                guard = zero.boundary_guard
                test = model.inline_source(guard.test) if guard.holds else negated_source(guard.test)
                message = (
                    f"{code(model, zero)} runs under `{test}`, the window test of the step, before that "
                    f"micro-batch's backward: it clears the gradients of the window's earlier "
                    f"micro-batches, so {code(model, cleared)} sees only the last one's, not the "
                    f"{factor} of the window; clear after the step"
                )
                yield Finding(self.code, model.span(zero.anchor), message, self._clear_at_the_step(model, loop, zero, steps))
        for unit in model.loops:
            if not unit.plain:  # Accelerate accumulates: each optimizer's turn, its backward Accelerate's
                for turn in unit.turns_ordered_by_hand:
                    yield from self._in_accelerate_window(model, turn)
        for micro_step in model.framework_micro_steps:
            yield from self._check_framework_micro_step(model, micro_step)

    def _in_accelerate_window(self, model: ModuleModel, loop) -> Iterator[Finding]:
        """Inside `accelerator.accumulate(model)` a prepared optimizer's zero_grad clears only on
        the micro-batch that steps: run before that micro-batch's backward, it clears the
        gradients of the window's earlier micro-batches."""
        if runs_under_deepspeed(model, loop.node):
            return  # the engine clears and steps on its own schedule; the prepared optimizer's calls are no-ops
        for zero, window, _ in events_in_accelerate_windows(model, loop, Kind.ZERO_GRAD):
            if zero.recovering or not is_prepared(model, zero):
                continue
            own = [s for s in loop.of(*STEPS) if zero.target in (s.optimizer, s.target)]
            steps = [s for s in own if zero.order < s.order]
            if len(steps) < len(own):
                continue  # after a step of its own in the iteration (img2img-turbo's second loss): that step took the window
            if not steps or not any(zero.order < b.order < steps[0].order and not b.exclusive_with(zero) for b in loop.of(Kind.BACKWARD)):
                continue
            message = (
                f"{code(model, zero)} runs before the backward inside `{accumulating_accelerator(model, zero)}.accumulate(...)`: "
                f"the prepared optimizer clears only on the micro-batch that steps (one in "
                f"`{factor_text(model, window)}`), so there it clears the gradients of the window's earlier "
                f"micro-batches and {code(model, steps[0])} sees only the last one's; clear after the step"
            )
            yield Finding(self.code, model.span(zero.anchor), message, self._fix(model, loop, zero, steps))

    def _check_framework_micro_step(self, model: ModuleModel, micro_step) -> Iterator[Finding]:
        """A clear in an override of a Trainer's `training_step`, on every call: the Trainer
        steps after `micro_step.window` calls and clears after its step itself."""
        for zero in micro_step.of(Kind.ZERO_GRAD):
            if zero.guards or zero.recovering or zero.inlined or zero.target not in micro_step.stepped:
                continue
            message = (
                f"{per_micro_batch(model, zero, micro_step)}, so each step sees only the last "
                f"micro-batch's gradients, not the window's; the Trainer clears them after its step itself"
            )
            fix = self.plan(f"Remove {code(model, zero)}: the Trainer clears after its step", RemoveStatement(model.position(zero.stmt)))
            yield Finding(self.code, model.span(zero.anchor), message, fix)

    @staticmethod
    def _clear_at_the_step(model, loop, zero, steps) -> FixPlan | None:
        """The clear taken out of its `if` (the step's own test) and put after the step, inside
        the step's branch, where that test already holds."""
        holder = model.parents.movable(zero.stmt)
        anchor = _after_every_step(model, loop, steps)
        if holder is zero.stmt or anchor is None or zero.elsewhere or zero.scope is not model.parents.scope_of(anchor):
            return ZeroGradInsideAccumulation._fix(model, loop, zero, steps)
        return FixPlan(f"Move {code(model, zero)} after the step", (
            MoveStatement(model.position(zero.stmt), model.position(anchor), "after"),
            RemoveStatement(model.position(holder)),
        ))

    @staticmethod
    def _fix(model, loop, zero, steps) -> FixPlan | None:
        anchor = _after_every_step(model, loop, steps)
        operation = move(model, loop, zero, anchor, "after") if anchor is not None else None
        return FixPlan(f"Move {code(model, zero)} after the step", (operation,)) if operation else None


def _cleared_before_the_last_backward(model, loop, accumulation, steps):
    """(clear, the step it spoils) for `if i % N == 0: zero_grad()` before the backward and
    `if i % N == 0: step()` after it: on the window's last micro-batch the clear comes first."""
    backwards = [b for b in loop.on_path(Kind.BACKWARD) if accumulation.runs_every_micro_batch(b)]
    for zero in loop.on_path(Kind.ZERO_GRAD):
        if zero.inlined or not accumulation.on_the_steps_micro_batch(zero):
            continue  # (a helper's clear is spelled with its own names: which optimizer it clears is not read)
        if counted_between(model, zero.boundary_guard, accumulation.guard):
            continue  # the count moved on between the two tests: the clear opens the next window
        # on the clear's own path: `if helper: helper(loss, opt, update_grad=...); zero_grad()`
        # beside `else: loss.backward(); ...; opt.step()` never clears before the other arm's backward
        stepped = [
            s for s in steps
            if accumulation.on_the_steps_micro_batch(s) and s.optimizer in (zero.optimizer, zero.target) and not s.exclusive_with(zero)
        ]
        if stepped and any(zero.order < b.order < stepped[-1].order and not b.exclusive_with(zero) for b in backwards):
            yield zero, stepped[-1]


def _after_every_step(model, loop, steps):
    """The statement after which every step has run: the step run of a single step, or the
    statement holding all of them (`if scaler: scaler.step(...) else: optimizer.step()`)."""
    statements = {id(s.stmt): s for s in steps if not s.elsewhere}
    if len(statements) != len({id(s.stmt) for s in steps}):
        return None
    if len({id(model.parents.block.get(s.stmt)) for s in steps}) == 1:
        return end_of_step_run(model, loop, steps[-1])
    pair = model.parents.common_block(steps[0].stmt, steps[-1].stmt)
    return pair[1] if pair is not None and pair[0] is pair[1] else None


def _running_counter(backward) -> ast.expr | None:
    """The counter the loss is divided by (`loss / accum_n_steps`, counted up per micro-batch):
    dividing again by the factor would not fix it, so such a finding has no fix."""
    source = backward.loss_source
    if source is None:
        return None
    return running_counter_divisor(source.module, source.expr, source.scope, source.line)


def _where(backward, model):
    """A helper that was handed the loss (`loss_scaler(loss, ...)`) is right for every caller
    that divides: report the call that passes the raw loss."""
    source = backward.loss_source
    if backward.inlined and source is not None and source.passed_at is not None and source.module is model:
        return source.passed_at
    return backward.anchor
