"""GL1xx: gradient operations in the wrong order within one iteration."""

from __future__ import annotations

import ast
from typing import Iterator

from gradlint.fixplan import MoveStatement
from gradlint.model import Kind, ModuleModel, TrainingLoop
from gradlint.model.epochs import EarlySchedulerStep, scheduler_steps_before_imported_training, scheduler_steps_before_training, skips_first_epoch
from gradlint.model.events import STEPS
from gradlint.model.learning_rates import moved_on_purpose
from gradlint.model.loops import flushes_at_exit
from gradlint.model.names import dotted
from gradlint.model.scopes import innermost
from gradlint.rules.base import Finding, LoopRule
from gradlint.rules.micro_batches import advances_per_micro_batch, once_per_update
from gradlint.rules.shared import code, contains, end_of_step_run, move


class ClipAfterStep(LoopRule):
    code = "GL101"
    name = "clip-after-step"
    summary = "gradient clipping runs after optimizer.step() in the same iteration"
    fix_applicability = "safe"
    reads_order_only = True

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
            # With a closure, backward runs inside step(): a clip moved before it would
            # clip the previous iteration's gradients. Under Accelerate's accumulate() a clip
            # next to the step would run on every micro-batch: it belongs under
            # `if accelerator.sync_gradients`, which the fix cannot know to write.
            closure = step.kind is Kind.STEP and (step.node.args or step.node.keywords)
            operation = None if closure or loop.accelerated else move(model, loop, clip, step.stmt, "before")
            fix = self.plan(f"Move the clip before {code(model, step)}", operation)
            yield Finding(self.code, model.span(clip.anchor), message, fix)


def _last_step_before(loop, clip):
    """The step this clip follows in the same iteration, with a backward before that step and
    none between step and clip (so the clip cannot be meant for the next step)."""
    earlier = [e for e in loop.events if e.order < clip.order and not e.exclusive_with(clip)]
    # a step in a `try` body the clip's handler catches may have failed: the handler retries it
    steps = [e for e in earlier if e.kind in (Kind.STEP, Kind.SCALER_STEP) and not clip.handles_failure_of(e)]
    if not steps:
        return None
    step = steps[-1]
    if any(e.kind is Kind.ZERO_GRAD and e.order > step.order and _clears_for_it(e, clip) for e in earlier):
        return None  # a helper run after the step clears the gradients, then clips its own (a MAML adaptation)
    between = [e for e in earlier if e.order > step.order and e.kind is Kind.BACKWARD]
    before = [e for e in earlier if e.order < step.order and e.kind is Kind.BACKWARD]
    later = [e for e in loop.events if e.order > clip.order and not e.exclusive_with(clip) and e.kind in (Kind.BACKWARD, *STEPS)]
    if later and later[0].kind is not Kind.BACKWARD and later[0].optimizer != step.optimizer:
        return None  # another optimizer steps before any backward: the clip is its (`d.step(); clip(g); g.step()`)
    return step if before and not between else None


def _clears_for_it(zero_grad, clip) -> bool:
    """The clearing and the clip are one helper's code, run through the same call of the unit:
    the helper starts from cleared gradients, so its clip is no clip of what the unit's step used."""
    return zero_grad.inlined and zero_grad.site is clip.site and zero_grad.scope is clip.scope


class ClipBeforeBackward(LoopRule):
    code = "GL102"
    name = "clip-before-backward"
    summary = "gradient clipping runs before this iteration's backward(), on stale or no gradients"
    fix_applicability = "safe"
    reads_order_only = True
    reads_turns = True  # a GAN's second turn clipping before its own backward, after the first's step

    def check_loop(self, model: ModuleModel, loop: TrainingLoop) -> Iterator[Finding]:
        for clip in loop.of(Kind.CLIP):
            related = [e for e in loop.events if not e.exclusive_with(clip)]
            if any(e.order < clip.order and e.kind in (Kind.BACKWARD, *STEPS) for e in related):
                continue  # after a backward (GL101 or fine) or after a step
            step = next((e for e in related if e.order > clip.order and e.kind in STEPS), None)
            backwards = [e for e in related if e.kind is Kind.BACKWARD and clip.order < e.order < (step.order if step else -1)]
            if not backwards:
                continue  # the step right after the clip uses the previous iteration's backward
            backward = backwards[-1]
            message = (
                f"{code(model, clip)} runs before {code(model, backward)}: it clips what `.grad` held "
                f"before that backward (gradients already stepped, cleared, or another optimizer's), then "
                f"{code(model, step)} consumes this iteration's gradients unclipped"
            )
            yield Finding(self.code, model.span(clip.anchor), message, self._fix(model, loop, clip, backward))

    def _fix(self, model, loop, clip, backward):
        pair = model.parents.common_block(clip.stmt, backward.stmt)
        if pair is None or backward.inlined or loop.accelerated:
            return None
        return self.plan(f"Move the clip after {code(model, backward)}", move(model, loop, clip, pair[1], "after"))


class ZeroGradBeforeStep(LoopRule):
    code = "GL103"
    name = "zero-grad-before-step"
    summary = "zero_grad() runs between backward() and step(): the step sees zero gradients"
    fix_applicability = "safe"
    reads_order_only = True

    def check_loop(self, model: ModuleModel, loop: TrainingLoop) -> Iterator[Finding]:
        accumulation = loop.accumulation
        for zero in loop.of(Kind.ZERO_GRAD):
            if zero.optimizer not in (loop.optimizer, None):
                continue
            if zero.inlined and isinstance(zero.node, ast.stmt):
                continue  # `p.grad = None` in a helper may clear a few parameters on purpose (DINO)
            if accumulation is not None and accumulation.runs_every_micro_batch(zero):
                continue  # GL202: zeroing every micro-batch of a window
            if zero.recovering:
                continue  # `except RuntimeError: zero_grad()`: dropping a failed batch's gradients
            if loop.clears_a_part(zero):
                continue  # `model.generator.zero_grad()`: that part sits this step out
            related = [e for e in loop.events if not e.exclusive_with(zero)]
            step = next((e for e in related if e.order > zero.order and e.kind in STEPS), None)
            if step is None or any(e.kind is Kind.BACKWARD and zero.order < e.order < step.order for e in related):
                continue
            backward = next((e for e in reversed(related) if e.kind is Kind.BACKWARD and e.order < zero.order), None)
            if backward is None or flushes_at_exit(step) and _follows_its_own_step(related, backward, zero):
                continue  # an early stop's last step finds the window already stepped and cleared
            if any(e.kind is Kind.GRAD_COPY and backward.order < e.order < zero.order for e in related):
                continue  # copied onto fp32 master weights first: the step reads the copies
            if loop.restored_after(zero, step):
                continue  # written back after the clear (a backup restored): the step reads those
            message = (
                f"{code(model, zero)} runs after {code(model, backward)} and before {code(model, step)}: "
                "it clears the gradients backward just computed, so the step sees zero gradients "
                "(or none) and the parameters do not move (only momentum and weight decay act)"
            )
            anchor = end_of_step_run(model, loop, step)
            yield Finding(self.code, model.span(zero.anchor), message, self.plan(
                f"Move {code(model, zero)} after the step", move(model, loop, zero, anchor, "after")
            ))


def _follows_its_own_step(related, backward, zero) -> bool:
    """A step runs between the backward and the clear wherever the clear runs (`if boundary:
    step(); zero_grad()`): that step used the gradients."""
    at_zero = {(id(g.node), g.holds) for g in zero.guards}
    return any(
        e.kind in STEPS and backward.order < e.order < zero.order and {(id(g.node), g.holds) for g in e.guards} <= at_zero
        for e in related
    )


class SchedulerBeforeStep(LoopRule):
    code = "GL106"
    name = "scheduler-before-step"
    summary = "scheduler.step() runs before optimizer.step() in the iteration"
    fix_applicability = "safe"
    reads_order_only = True
    # a scheduler stepped before every step of the iteration is early whichever optimizer it drives
    reads_several_optimizers = True

    def check_loop(self, model: ModuleModel, loop: TrainingLoop) -> Iterator[Finding]:
        for sched in loop.of(Kind.SCHED_STEP):
            if sched.node.args or sched.node.keywords or sched.own_schedule or _fallback_of_explicit_step(sched.module or model, sched.stmt, sched.node):
                continue  # ReduceLROnPlateau's metric, an explicit epoch, a project's own class: their own convention
            if skips_first_epoch(sched):
                continue  # `if epoch > 0:` as a new epoch begins: after the previous epoch's steps
            if _built_each_iteration(model, loop, sched):
                continue  # `scheduler = PolyLR(optimizer, cur_iter=it)` in the body: a value, no schedule kept
            if moved_on_purpose(loop, sched):
                continue  # `while scheduler.get_lr()[0] > target: scheduler.step()`: the schedule moved on purpose
            related = [e for e in loop.events if not e.exclusive_with(sched)]
            if any(e.kind in STEPS and e.order < sched.order for e in related):
                continue
            later = [e for e in related if e.kind in STEPS and e.order > sched.order]
            if not later:
                continue
            message = (
                f"{code(model, sched)} runs before {code(model, later[0])}: every update uses the "
                "learning rate meant for the next one, and the schedule's first value is never "
                "used (warm-up starts one step late, decay comes one step early)"
            )
            # stepped on every micro-batch of a window counted in updates (GL204 too): one move
            # after the window's step mends both
            anchor = once_per_update(model, loop) if advances_per_micro_batch(model, loop, sched) else _after_the_steps(model, loop, sched, later[-1])
            yield Finding(self.code, model.span(sched.anchor), message, self.plan(
                f"Move `{sched.target}.step()` after the step", anchor and move(model, loop, sched, anchor, "after")
            ))
        yield from self._epoch_level(model, loop)

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        yield from super().check(model)
        for early, module, step in scheduler_steps_before_imported_training(model):
            called = model.source(early.training.value.func)
            where = f" of {module.project.path.name}" if module.project else ""
            yield self._early_finding(
                model, early, "at the start of every epoch", f"the epoch's {code(module, step)} calls (in `{called}(...)`{where})",
            )

    def _epoch_level(self, model: ModuleModel, loop: TrainingLoop) -> Iterator[Finding]:
        """`for epoch ...: scheduler.step()` and then the epoch's training loop."""
        step = loop.of(*STEPS)[0]
        for early in scheduler_steps_before_training(model, loop):
            if early.per_epoch_call is None:
                start = "at the start of every epoch"
            else:
                caller, epochs = early.per_epoch_call
                where = f" of {caller.project.path.name}" if caller is not model and caller.project else ""
                start = (
                    f"at the start of `{model.parents.scope_of(early.stmt).name}`, which the loop at line "
                    f"{epochs.lineno}{where} runs once per epoch,"
                )
            yield self._early_finding(model, early, start, f"the epoch's {code(model, step)} calls")

    def _early_finding(self, model: ModuleModel, early: EarlySchedulerStep, start: str, steps: str) -> Finding:
        scheduler = model.source(early.call.func.value)
        message = (
            f"`{scheduler}.step()` runs {start} before {steps}: each epoch trains with the "
            "learning rate meant for the next one, and the schedule's first value is never used"
        )
        # only a statement that is there for the step moves: `if phase == "train":
        # scheduler.step(); model.train()` must keep `model.train()` where it is
        movable = model.parents.movable(innermost(early.stmt, early.call))
        operation = None if movable is not early.stmt or contains(movable, early.training) else MoveStatement(
            model.position(movable), model.position(early.training), "after"
        )
        return Finding(self.code, model.span(early.call), message, self.plan(
            f"Move `{scheduler}.step()` after the epoch's training loop", operation
        ))


def _fallback_of_explicit_step(model: ModuleModel, stmt: ast.stmt, call: ast.Call) -> bool:
    """`try: scheduler.step(it) except: scheduler.step()`: the bare call only stands in for the
    explicit one when that fails, and follows its convention."""
    receiver = dotted(call.func.value) if isinstance(call.func, ast.Attribute) else None
    for node in model.parents.chain(stmt)[1:]:
        if isinstance(node, ast.Try) and any(h.lineno <= stmt.lineno <= h.end_lineno for h in node.handlers):
            return receiver is not None and any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "step"
                and dotted(n.func.value) == receiver and (n.args or n.keywords)
                for body_stmt in node.body for n in ast.walk(body_stmt)
            )
    return False


def _after_the_steps(model: ModuleModel, loop: TrainingLoop, sched, last) -> ast.stmt | None:
    """Where a scheduler step goes: after the iteration's last step (every optimizer's, every
    branch's: `if amp: scaler.step(opt) else: opt.step()`), in the scheduler's own block."""
    stmt = model.parents.movable(sched.stmt)
    pair = model.parents.common_block(stmt, last.stmt)
    if pair is None or pair[0] is not stmt:
        return None
    return end_of_step_run(model, loop, last) if pair[1] is last.stmt else pair[1]


def _built_each_iteration(model: ModuleModel, loop, sched) -> bool:
    """The scheduler is built anew in the loop's body before its step (from the iteration's
    index): it keeps no schedule across iterations, so stepping it before the optimizer skips
    nothing."""
    if sched.elsewhere or sched.target is None or not isinstance(loop.node, (ast.For, ast.AsyncFor, ast.While)):
        return False
    body = loop.node
    return any(
        body.lineno < s.lineno < sched.node.lineno and isinstance(s, ast.Assign) and isinstance(s.value, ast.Call)
        for s in model.scope(loop.scope).before(sched.target, sched.node.lineno)
    )
