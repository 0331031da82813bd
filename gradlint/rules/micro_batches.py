"""GL203–GL205: what runs once per micro-batch, or never, while the step waits for N of them."""

from __future__ import annotations

import ast
from typing import Iterator

from gradlint.fixplan import FixPlan, RemoveStatement, ReplaceExpression
from gradlint.model import Kind, ModuleModel, TrainingLoop
from gradlint.model.events import STEPS
from gradlint.model.guards import negated_source, window_part
from gradlint.model.loops import excluded_off_boundary
from gradlint.model.learning_rates import moved_on_purpose
from gradlint.model.prepared import accumulating_accelerator, events_in_accelerate_windows, is_prepared, schedule_counts_micro_batches
from gradlint.model.tail import callers_epoch_tail, epoch_tail
from gradlint.rules.base import Finding, LoopRule
from gradlint.rules.shared import code, contains, end_of_step_run, factor_text, move, per_micro_batch

LOOSER_THAN_OR = (ast.IfExp, ast.Lambda, ast.NamedExpr)


class ClipPerMicroBatch(LoopRule):
    code = "GL203"
    name = "clip-per-micro-batch"
    summary = "gradient clipping on every micro-batch while the step waits for N of them"
    fix_applicability = "safe"
    reads_turns = True  # a GAN's generator clipping every batch while its step waits for a window

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        yield from super().check(model)
        for loop in model.loops:
            if not loop.plain:  # Accelerate accumulates: its clip acts on every micro-batch all the same
                yield from self._in_accelerate_window(model, loop)
        for micro_step in model.framework_micro_steps:
            yield from self._in_framework_micro_step(model, micro_step)

    def _in_framework_micro_step(self, model: ModuleModel, micro_step) -> Iterator[Finding]:
        """A clip in an override of a Trainer's `training_step`, on every call: the Trainer steps
        after `micro_step.window` calls (and clips the window itself, by `max_grad_norm`)."""
        for clip in micro_step.of(Kind.CLIP):
            if clip.guards or clip.inlined:
                continue  # `if self.accelerator.sync_gradients:`: at the step
            message = (
                f"{per_micro_batch(model, clip, micro_step)}, so it clips partial sums of the window, not "
                f"the window's gradient; the Trainer clips that itself before its step "
                f"(`TrainingArguments(max_grad_norm=...)`)"
            )
            yield Finding(self.code, model.span(clip.anchor), message, None)

    def check_loop(self, model: ModuleModel, loop: TrainingLoop) -> Iterator[Finding]:
        for accumulation in loop.accumulations:  # each branch's: one may clip at the step, another not
            yield from self._per_micro_batch(model, loop, accumulation)

    def _in_accelerate_window(self, model: ModuleModel, loop: TrainingLoop) -> Iterator[Finding]:
        """Inside `accelerator.accumulate(model)` the prepared optimizer steps on the window's last
        micro-batch only; a clip not under `if accelerator.sync_gradients:` runs on every one."""
        for clip, window, step in events_in_accelerate_windows(model, loop, Kind.CLIP):
            accelerator = accumulating_accelerator(model, clip)
            message = (
                f"{code(model, clip)} runs on every micro-batch of `{accelerator}.accumulate(...)` while "
                f"{code(model, step)} steps once per `{factor_text(model, window)}` of them: it clips "
                f"partial sums of the window; clip under `if {accelerator}.sync_gradients:`"
            )
            yield Finding(self.code, model.span(clip.anchor), message, None)

    def _per_micro_batch(self, model: ModuleModel, loop: TrainingLoop, accumulation) -> Iterator[Finding]:
        step = next((e for e in loop.of(*STEPS) if accumulation.covers(e)), None)
        if step is None:
            return
        factor = factor_text(model, accumulation.factor)
        backwards = [e for e in loop.of(Kind.BACKWARD) if accumulation.covers(e)]
        for clip in (e for e in loop.of(Kind.CLIP) if accumulation.covers(e)):
            inside, elsewhere = accumulation.runs_inside_the_window(clip), accumulation.runs_off_the_step(clip)
            every = accumulation.runs_every_micro_batch(clip)
            if not (inside or elsewhere or every):
                continue  # at the step
            if not every and not any(b.order < clip.order for b in backwards):
                continue  # before backward once per window (GL102); on every micro-batch it clips the partial sums all the same
            where = (
                "on the window's non-final micro-batches" if inside
                else f"under `{model.inline_source(clip.boundary_guard.test)}`, on another micro-batch of the window than the step," if elsewhere
                else "on every micro-batch"
            )
            placed = _where_tested(clip, clip.boundary_guard) if elsewhere else clip.anchor
            written = code(model, clip) if placed is clip.anchor else f"{code(model, clip)} (in `{model.source(placed.func)}(...)`)"
            message = (
                f"{written} runs {where} while {code(model, step)} waits for "
                f"`{factor}` of them: it clips partial sums of the window, so the step consumes "
                "neither the window's gradient nor its clipped version (up to N × max_norm, and "
                "early micro-batches are clipped harder than late ones)"
            )
            if elsewhere:  # moved to the step, it would keep its own window test around it
                yield Finding(self.code, model.span(placed), message, None)
                continue
            if any(accumulation.at_step(c) and not excluded_off_boundary(clip, c) for c in loop.of(Kind.CLIP)):
                # the step's branch on the clip's path clips already
                yield Finding(self.code, model.span(clip.anchor), message, self._remove(model, loop, clip))
                continue
            # steps on two sides of `if amp: scaler.step(opt) else: opt.step()`: moved before one,
            # the clip would leave the other path unclipped
            later = [s for s in loop.of(*STEPS) if s.order > clip.order and not s.exclusive_with(clip)]
            branched = any(a.exclusive_with(b) for a in later for b in later)
            yield Finding(self.code, model.span(clip.anchor), message, self.plan(
                f"Move the clip before {code(model, step)}", None if branched else move(model, loop, clip, step.stmt, "before", keep_tests=True)
            ))

    def _remove(self, model: ModuleModel, loop: TrainingLoop, clip) -> FixPlan | None:
        """The clip of the non-final micro-batches taken out, where the step's branch has its own."""
        stmt = model.parents.movable(clip.stmt)
        if clip.elsewhere or not isinstance(clip.stmt, ast.Expr) or any(e is not clip and contains(stmt, e.stmt) for e in loop.events):
            return None
        return self.plan("Remove the clip: the step's branch clips the window", RemoveStatement(model.position(stmt)))


def _under_flag_of_the_stepping_call(model: ModuleModel, loop: TrainingLoop, sched, steps) -> bool:
    """The scheduler runs under a flag that the call running the step hands back (`loss,
    did_step, n = train_step(...)` with the step inside it): it says whether that call stepped."""
    sites = {id(s.site) for s in steps if s.site is not None}
    for guard in sched.guards:
        if not (guard.holds and isinstance(guard.test, ast.Name)):
            continue
        for stmt in model.scope(loop.scope).assignments.get(guard.test.id, ()):
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and id(stmt.value) in sites:
                return True
    return False


def _where_tested(event, guard) -> ast.AST:
    """Where the user placed the event under `guard`: the call of the helper holding it under
    that test (`self.clip_gradients(...)` under the window's test), when the test is a caller's,
    not the helper's."""
    scope = event.scope
    if not event.inlined or event.elsewhere or scope is None or scope.lineno <= guard.node.lineno <= scope.end_lineno:
        return event.anchor
    name = getattr(scope, "name", None)
    calls = (
        n for n in ast.walk(guard.node) if isinstance(n, ast.Call)
        and (getattr(n.func, "attr", None) == name or getattr(n.func, "id", None) == name)
    )
    return next(calls, event.anchor)


class SchedulerPerMicroBatch(LoopRule):
    code = "GL204"
    name = "scheduler-per-micro-batch"
    summary = "scheduler.step() on every micro-batch while the optimizer steps every N"
    fix_applicability = "safe"

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        yield from super().check(model)
        for loop in model.loops:
            if not loop.plain:  # Accelerate accumulates for the objects it prepared only
                yield from self._not_prepared(model, loop)

    def check_loop(self, model: ModuleModel, loop: TrainingLoop) -> Iterator[Finding]:
        accumulation = loop.accumulation
        if accumulation is None:
            return
        step = loop.on_path(*STEPS)[-1]
        factor = factor_text(model, accumulation.factor)
        for sched in loop.on_path(Kind.SCHED_STEP):
            if not advances_per_micro_batch(model, loop, sched):
                continue
            message = (
                f"`{sched.target}.step()` runs on every micro-batch while {code(model, step)} waits "
                f"for `{factor}` of them: the learning rate advances `{factor}` times per update, so "
                f"warm-up ends and decay finishes `{factor}` times too early (in updates)"
            )
            yield Finding(self.code, model.span(sched.anchor), message, self.plan(
                f"Move `{sched.target}.step()` after the step", move(model, loop, sched, once_per_update(model, loop), "after", keep_tests=True)
            ))

    def _not_prepared(self, model: ModuleModel, loop: TrainingLoop) -> Iterator[Finding]:
        """Inside `accelerator.accumulate(model)` the prepared optimizer skips its step until the
        window's last micro-batch; a scheduler never handed to `prepare` steps every time."""
        for sched, window, step in events_in_accelerate_windows(model, loop, Kind.SCHED_STEP):
            if is_prepared(model, sched) or sched.node.args or sched.node.keywords:
                continue
            if schedule_counts_micro_batches(model, sched, window):
                continue
            factor, accelerator = factor_text(model, window), accumulating_accelerator(model, sched)
            message = (
                f"`{sched.target}.step()` runs on every micro-batch of `{accelerator}.accumulate(...)` while "
                f"{code(model, step)} steps once per `{factor}` of them: `{sched.target}` was not "
                f"passed to `{accelerator}.prepare`, so the learning rate advances `{factor}` times per "
                f"update and the schedule ends `{factor}` times too early; prepare it with the optimizer"
            )
            yield Finding(self.code, model.span(sched.anchor), message, None)


def advances_per_micro_batch(model: ModuleModel, loop: TrainingLoop, sched) -> bool:
    """A plain `scheduler.step()` runs on every micro-batch of the loop's window while the
    schedule is counted in updates (GL204)."""
    accumulation = loop.accumulation
    if accumulation is None or sched.node.args or sched.node.keywords or not accumulation.runs_every_micro_batch(sched):
        return False
    steps = [s for s in loop.on_path(*STEPS) if accumulation.covers(s)]
    if steps and all(sched.exclusive_with(s) for s in steps):
        return False  # `if args.deepspeed: ... scheduler.step()` beside a hand-counted window it never runs with
    if _under_flag_of_the_stepping_call(model, loop, sched, steps):
        return False  # `loss, did_step = train_step(...)`, then `if did_step: scheduler.step()`
    if is_prepared(model, sched):
        return False  # Accelerate's scheduler wrapper steps only when the optimizer did
    if moved_on_purpose(loop, sched):
        return False  # `while scheduler.get_lr()[0] > target: scheduler.step()`: annealing by hand
    if schedule_counts_micro_batches(model, sched, accumulation.factor):
        return False  # built with `num_training_steps * accum`: counted in micro-batches
    if _bounded_by_micro_batch_count(model, loop, sched):
        return False  # `if n_itr < warmup_total: scheduler.step()`: its length is counted in micro-batches
    step = loop.on_path(*STEPS)[-1]
    # `self.train_batch(x, apply_gradients)`, `optimizer_step(loss, ..., is_update)`: the caller
    # counts its schedule in calls of a helper that it tells when to apply (the scheduler stepped
    # by the caller or by the helper on every call); whether that is wrong depends on how the
    # schedule was built, which this loop does not show
    return not (step.inlined and _told_when(step))


def once_per_update(model: ModuleModel, loop: TrainingLoop) -> ast.stmt:
    """Where a scheduler stepped once per update goes: after the window's step."""
    return end_of_step_run(model, loop, loop.on_path(*STEPS)[-1])


def _bounded_by_micro_batch_count(model: ModuleModel, loop: TrainingLoop, sched) -> bool:
    """The scheduler steps only while a count of the loop's micro-batches stays below a bound
    (`n_itr = epoch * n_batches + idx`, then `if n_itr < warmup_iters: scheduler.step()`): the
    code measures the schedule's length in micro-batches itself."""
    if not isinstance(loop.node, (ast.For, ast.AsyncFor)) or sched.scope is not loop.scope:
        return False
    index = {n.id for n in ast.walk(loop.node.target) if isinstance(n, ast.Name)}
    counts = set(index)
    for stmt in ast.walk(loop.node):  # names computed from the index in the loop
        if isinstance(stmt, ast.Assign) and any(isinstance(n, ast.Name) and n.id in index for n in ast.walk(stmt.value)):
            counts |= {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    return any(
        guard.holds and isinstance(guard.test, ast.Compare) and len(guard.test.ops) == 1
        and isinstance(guard.test.ops[0], (ast.Lt, ast.LtE))
        and isinstance(guard.test.left, ast.Name) and guard.test.left.id in counts
        for guard in sched.guards
    )


def _told_when(step) -> bool:
    """The step's boundary is a flag the helper was handed by its caller."""
    guard, function = step.boundary_guard, step.scope
    if guard is None or not isinstance(guard.test, ast.Name) or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return guard.test.id in {a.arg for a in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]}


class DroppedTailMicroBatches(LoopRule):
    code = "GL205"
    name = "dropped-tail-micro-batches"
    summary = "the epoch's last partial accumulation window never reaches a step"
    fix_applicability = "unsafe"
    reads_turns = True

    def check_loop(self, model: ModuleModel, loop: TrainingLoop) -> Iterator[Finding]:
        tail, around = epoch_tail(model, loop), loop
        if tail is None:  # a step function: the epoch its caller's loop runs
            around, tail = callers_epoch_tail(model, loop) or (loop, None)
        if tail is None:
            return
        guard = loop.accumulation.guard
        factor = factor_text(model, loop.accumulation.factor)
        length = tail.length(around.model)
        step = next((e for e in loop.on_path(*STEPS) if guard in e.guards), None)
        elsewhere = step is not None and step.elsewhere
        if elsewhere:  # tested in another object's helper the loop hands its boundary to (`loss_scaler(..., update_grad=...)`)
            when, span = f"{code(model, step)} runs only every `{factor}` micro-batches", model.span(step.anchor)
        else:
            test = model.inline_source(guard.test) if guard.holds else negated_source(guard.test)
            when, span = f"the step runs only when `{test}`", model.span(guard.test)
        fate = (
            "the gradients are cleared before the next epoch, so those batches are dropped"
            if tail.cleared_before else
            "nothing clears them, so they leak into the first step of the next epoch (a window "
            f"of more than `{factor}` micro-batches) and the last epoch's are lost"
        )
        if _steps_first(guard.test, tail):  # `i % n == 0` from 0: steps on a window's first micro-batch
            which = (
                f"the step comes on the first micro-batch of each window, so when `{length} - 1` is not a "
                f"multiple of `{factor}`, the micro-batches after the epoch's last step never reach one"
            )
        elif tail.start is None:
            which = (
                f"`{tail.counter}` counts on across epochs, so an epoch ends inside a window unless the "
                f"micro-batches counted so far are a multiple of `{factor}`, and the micro-batches "
                "since its last step never reach one"
            )
        else:
            which = f"when `{length}` is not a multiple of `{factor}`, the last micro-batches of every epoch never reach a step"
        if tail.unreached_flush == "length":  # `is_last = i == len(loader)`: an index from 0 stops at `len - 1`
            which += f" (its last-batch test never holds: `{tail.counter}` counts from 0 and ends at `{length} - 1`)"
        elif tail.unreached_flush == "updates":
            which += (
                f" (its last-batch test compares `{tail.counter}` with the number of updates per epoch, "
                "which the index reaches early in the epoch, not at its end)"
            )
        if around is not loop:
            which += f" (the epoch `{_holder_name(around)}` runs)"
        message = f"{when}: {which}; {fate}"
        fix = None if elsewhere or around is not loop else self._fix(model, loop, guard, tail, length)
        yield Finding(self.code, span, message, fix)

    def _fix(self, model, loop, guard, tail, length):
        counter = tail.position_of_last()
        if model.parents.scope_of(guard.node) is not loop.scope or counter is None:
            return None
        backwards = loop.of(Kind.BACKWARD)
        if any(guard in b.guards for b in backwards) and any(all(g.node is not guard.node for g in b.guards) for b in backwards):
            return None  # the step's `if` runs its own backward beside another's: widened, the last micro-batch runs both
        # `i % N == 0 and not skip`: the tail joins the window's test, the other conditions stay
        test = window_part(guard.test) if guard.holds else guard.test
        original = model.source(test)
        if guard.holds:  # the step's branch: also take it on the last micro-batch
            loose = isinstance(test, LOOSER_THAN_OR)
            new = f"{f'({original})' if loose else original} or {counter} == {length}"
            new = f"({new})" if test is not guard.test else new
        else:  # the test holds inside the window (`if (i + 1) % N != 0: continue`)
            loose = isinstance(guard.test, LOOSER_THAN_OR) or (isinstance(guard.test, ast.BoolOp) and isinstance(guard.test.op, ast.Or))
            new = f"{f'({original})' if loose else original} and {counter} != {length}"
        return self.plan(
            "Also step on the epoch's last micro-batch",
            ReplaceExpression(model.position(test), original, new),
        )


def _holder_name(loop: TrainingLoop) -> str:
    """`BaseTrainer._train_epoch`: the function holding a loop, by its class where it has one."""
    scope = loop.scope
    cls = loop.model.parents.enclosing_class(scope) if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) else None
    name = getattr(scope, "name", "<module>")
    return f"{cls.name}.{name}" if cls is not None else name


def _steps_first(test: ast.expr, tail) -> bool:
    """`i % n == 0` (not `(i + 1) % n`) on an index counted from 0: the step comes on the first
    micro-batch of each window, so the epoch always ends inside one."""
    def counts_mod(node: ast.expr) -> bool:
        return (
            isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)
            and isinstance(node.left, ast.Name) and node.left.id == tail.counter
        )

    def zero(node: ast.expr) -> bool:
        return isinstance(node, ast.Constant) and node.value == 0

    return tail.start == 0 and any(
        (isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.Eq) and (
            (counts_mod(node.left) and zero(node.comparators[0])) or (zero(node.left) and counts_mod(node.comparators[0]))
        )) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and counts_mod(node.operand))
        for node in ast.walk(test)
    )
