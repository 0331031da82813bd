"""GL3xx: mixed precision with GradScaler used wrongly."""

from __future__ import annotations

import ast
from typing import Iterator

from gradlint.fixplan import FixPlan, InsertStatement, RemoveStatement, ReplaceExpression
from gradlint.model import Kind, ModuleModel
from gradlint.model.amp import (
    apex_scaling, clipped_module, enabling_setting, exclusive, may_update_part_of, scale_call, scaled_by, scaler_enabled,
    visibly_unscaled,
)
from gradlint.model.guards import opposite
from gradlint.model.names import dotted
from gradlint.model.prepared import prepared_names
from gradlint.model.values import iter_calls
from gradlint.rules.base import Finding, Rule
from gradlint.rules.shared import code, contains, loops_by_hand, move


# Only a scaler constructed in the module is known to be enabled (DESIGN: silent when unknown).
SCALER_WORDS = ("GradScaler",)
# the clips an Accelerate accelerator has, and what they take
ACCELERATOR_CLIPS = frozenset({"clip_grad_norm_", "clip_grad_value_"})
ACCELERATOR_CLIP_KEYWORDS = frozenset({"parameters", "max_norm", "norm_type", "clip_value"})


class ClipWithoutUnscale(Rule):
    code = "GL301"
    name = "clip-without-unscale"
    summary = "clipping gradients that GradScaler has scaled, without scaler.unscale_() first"
    fix_applicability = "safe"

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        # as the code orders it; a GAN's turns each (the generator's clip before its scaler's step)
        views = ((unit, view) for unit in model.loops for view in ([unit.ordered_by_hand] if unit.ordered_by_hand else unit.optimizer_phases))
        for unit, loop in views:
            for clip in loop.of(Kind.CLIP):
                if clip.threshold_scaled:
                    continue  # the threshold is scaled too: the clip holds in true units
                apex = apex_scaling(loop.events, clip)
                if apex is not None:
                    yield self._inside_apex_block(model, loop, clip, apex)
                    continue
                related = [e for e in loop.events if not e.exclusive_with(clip)]
                by_optimizer = self._scaled_by_optimizer(model, clip, related)
                if by_optimizer is not None:
                    yield by_optimizer
                    continue
                scaled = [e for e in related if e.kind is Kind.BACKWARD and e.scaler and e.order < clip.order]
                if not scaled:
                    continue
                scaler, accelerator = scaled[-1].scaler, scaled[-1].by_accelerator
                # an fp16 accelerator's prepared optimizer steps through its scaler
                stepping = (Kind.SCALER_STEP, Kind.STEP) if accelerator else (Kind.SCALER_STEP,)
                steps = [e for e in related if e.kind in stepping and e.order > clip.order]
                unscaled = [e for e in related if e.kind is Kind.UNSCALE and e.order < clip.order]
                if steps and unscaled:
                    partly = (
                        self._partly_unscaled(model, unit, loop, clip, related, unscaled, scaler)
                        or self._unscaled_at_window_end_only(model, loop, clip, unscaled, scaler)
                    )
                    if partly is not None:
                        yield partly
                    continue
                if not steps:
                    bypassed = None if accelerator else self._before_plain_step(model, clip, related, scaler)
                    if bypassed is not None:
                        yield bypassed
                    continue
                step = steps[0]
                if accelerator:
                    yield self._accelerator_scaled(model, loop, clip, scaler)
                    continue
                optimizer = step.optimizer or loop.optimizer
                message = (
                    f"{code(model, clip)} clips gradients still multiplied by the loss scale of "
                    f"`{scaler}`: the threshold acts on scaled values, so the true gradients are "
                    f"clipped to max_norm / scale (65536 times too small at the default scale); "
                    f"call `{scaler}.unscale_({optimizer})` first"
                )
                late = [e for e in related if e.kind is Kind.UNSCALE and clip.order < e.order < step.order]
                yield Finding(self.code, model.span(clip.anchor), message, self._fix(model, unit, loop, clip, scaler, optimizer, late))

    def _before_plain_step(self, model, clip, related, scaler) -> Finding | None:
        """The clip between a scaled backward and a plain `optimizer.step()` (GL302's bypass):
        it clips scaled gradients all the same. No fix: `unscale_` without `scaler.step` and
        `update` raises on the next iteration; GL302's fix comes first."""
        step = next((e for e in related if e.kind is Kind.STEP and e.order > clip.order), None)
        if step is None or any(e.kind is Kind.UNSCALE and e.order < clip.order for e in related):
            return None
        if scaler_enabled(model, scaler) is not True or _only_while_disabled(model, scaler, step) or _hands_over(step.node, scaler):
            return None
        message = (
            f"{code(model, clip)} clips gradients still multiplied by the loss scale of `{scaler}` "
            f"before {code(model, step)}: the threshold acts on scaled values, so the true gradients are "
            f"clipped to max_norm / scale; step through `{scaler}` and call "
            f"`{scaler}.unscale_({step.optimizer or 'optimizer'})` before the clip"
        )
        return Finding(self.code, model.span(clip.anchor), message)

    def _partly_unscaled(self, model, unit, loop, clip, related, unscaled, scaler) -> Finding | None:
        """One backward feeds several optimizers the scaler steps, and the clip over a whole
        model's parameters comes after `unscale_` of only some of them (Muon beside AdamW): the
        others' gradients are clipped still multiplied by the loss scale."""
        unscaled_names = {e.optimizer for e in unscaled}
        module = clipped_module(clip)
        if None in unscaled_names or module is None or clip.inlined:
            return None
        later_backward = min((e.order for e in related if e.kind is Kind.BACKWARD and e.order > clip.order), default=None)
        sides = {(id(g.node), g.holds) for g in clip.guards}
        stepped = [
            e for e in related if e.kind is Kind.SCALER_STEP and e.order > clip.order
            and (later_backward is None or e.order < later_backward)
            # runs wherever the clip runs: not behind an option of its own (`if use_embedding_optimizer:`)
            and {(id(g.node), g.holds) for g in e.guards} <= sides
        ]
        if None in {e.optimizer for e in stepped}:
            return None
        left = list(dict.fromkeys(
            e.optimizer for e in stepped if e.optimizer not in unscaled_names
            and may_update_part_of(model, e.optimizer, module, clip.scope or model.tree, clip.node.lineno)
        ))
        if not left:
            return None
        missing = ", ".join(f"`{name}`" for name in left)
        message = (
            f"{code(model, clip)} clips every parameter's gradient, but only "
            f"{', '.join(f'`{name}`' for name in sorted(unscaled_names))} was unscaled before it: the gradients "
            f"{missing} steps are still multiplied by the loss scale of `{scaler}`, so the clip's norm is "
            f"dominated by scaled values and clips the true gradients to about max_norm / scale; call "
            f"{' and '.join(f'`{scaler}.unscale_({name})`' for name in left)} before the clip"
        )
        fix = self._fix(model, unit, loop, clip, scaler, left[0], ()) if len(left) == 1 else None
        return Finding(self.code, model.span(clip.anchor), message, fix)

    def _unscaled_at_window_end_only(self, model, loop, clip, unscaled, scaler) -> Finding | None:
        """The clip runs on every micro-batch (GL203's), `unscale_` only at the window's end: on
        the other micro-batches it clips gradients still multiplied by the loss scale. No fix:
        GL203's, moving the clip to the window's end, mends both."""
        accumulation = loop.accumulation
        if accumulation is None or accumulation.guard is None or not accumulation.runs_every_micro_batch(clip):
            return None
        if any(accumulation.runs_every_micro_batch(u) for u in unscaled):
            return None
        message = (
            f"{code(model, clip)} runs on every micro-batch, but `{scaler}.unscale_` only at the end of "
            f"the window: on the other micro-batches it clips gradients still multiplied by the loss "
            f"scale (to about max_norm / scale); clip once per window, after the unscale_"
        )
        return Finding(self.code, model.span(clip.anchor), message)

    def _accelerator_scaled(self, model, loop, clip, accelerator) -> Finding:
        """A torch clip after the backward of an Accelerator running fp16 mixed precision: its
        own `clip_grad_norm_` unscales first, torch's does not."""
        called = getattr(clip.node.func, "attr", None) or getattr(clip.node.func, "id", "")
        # torch's own clip has the accelerator's counterpart; a partial or a project clipper has none
        function = called if called in ACCELERATOR_CLIPS else "clip_grad_norm_"
        message = (
            f"{code(model, clip)} clips gradients still multiplied by the loss scale of `{accelerator}`, "
            f"which runs fp16 mixed precision: the threshold acts on scaled values, so the true "
            f"gradients are clipped to max_norm / scale; clip with `{accelerator}.{function}(...)`, "
            f"which unscales them first"
        )
        fix = None
        accumulation = loop.accumulation
        plain_call = (
            called in ACCELERATOR_CLIPS and not clip.inlined
            and not (set(k.arg for k in clip.node.keywords) - ACCELERATOR_CLIP_KEYWORDS)
        )
        if plain_call and not loop.accelerated and (accumulation is None or accumulation.at_step(clip)):
            # under accumulate() its unscale would run on every micro-batch: no fix there
            fix = FixPlan(
                f"Clip with `{accelerator}.{function}`",
                (ReplaceExpression(model.position(clip.node.func), model.source(clip.node.func), f"{accelerator}.{function}"),),
            )
        return Finding(self.code, model.span(clip.anchor), message, fix)

    def _scaled_by_optimizer(self, model, clip, related) -> Finding | None:
        """A torch clip between a loss-scaling optimizer's `optimizer.backward(loss)` (apex's
        FP16_Optimizer) and that optimizer's step: the model's fp16 gradients are still
        multiplied by its loss scale; it unscales only the fp32 master copies, in its step."""
        backward = next((
            e for e in reversed(related) if e.kind is Kind.BACKWARD and e.order < clip.order and e.scaling_optimizer
        ), None)
        module = clip.module or model
        if backward is None or not (module.imports.qualname(clip.node.func) or "").startswith("torch."):
            return None  # the optimizer's own clip (`optimizer.clip_grad_norm(...)` in fairseq) unscales
        optimizer = backward.scaling_optimizer
        if not any(e.kind is Kind.STEP and e.optimizer == optimizer and e.order > clip.order for e in related):
            return None
        message = (
            f"{code(model, clip)} clips the model's gradients after {code(model, backward)}, which "
            f"left them multiplied by the loss scale of `{optimizer}` (a loss-scaling fp16 optimizer "
            f"such as apex's FP16_Optimizer): the threshold acts on scaled values, so the true "
            f"gradients are clipped to max_norm / scale; clip with `{optimizer}.clip_master_grads(max_norm)`, "
            f"which clips the unscaled fp32 master gradients"
        )
        return Finding(self.code, model.span(clip.anchor), message, None)

    def _inside_apex_block(self, model, loop, clip, context) -> Finding:
        message = (
            f"{code(model, clip)} clips inside `with {model.source(context)} ...`, where the "
            "gradients are still multiplied by apex's loss scale (apex unscales them when the block "
            "exits): the threshold acts on scaled values, so the true gradients are clipped to "
            "max_norm / scale; clip after the block"
        )
        block = next((s for s in model.parents.chain(clip.stmt) if isinstance(s, ast.With) and any(
            item.context_expr is context for item in s.items)), None)
        # the step (or the clear) inside the block after the clip would then precede it (GL101)
        stepped_inside = block is not None and any(
            e.kind in (Kind.STEP, Kind.SCALER_STEP, Kind.ZERO_GRAD) and e.order > clip.order
            and block.lineno <= (e.site or e.node).lineno <= block.end_lineno
            for e in loop.events
        )
        operation = move(model, loop, clip, block, "after") if block is not None and not clip.inlined and not stepped_inside else None
        fix = FixPlan("Move the clip after the `scale_loss` block", (operation,)) if operation else None
        return Finding(self.code, model.span(clip.anchor), message, fix)

    @staticmethod
    def _fix(model, unit, loop, clip, scaler, optimizer, late_unscales) -> FixPlan | None:
        """`unit`: the whole loop `loop` is a view of (a GAN's turn sees its own events only)."""
        accumulation = loop.accumulation
        if clip.inlined or (accumulation is not None and not accumulation.at_step(clip)):
            return None  # unscale_ on every micro-batch would raise: only fix a clip at the step
        statement = f"{scaler}.unscale_({optimizer})"
        walked = {id(e.node) for e in unit.of(Kind.UNSCALE)}
        if any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "unscale_" and id(n) not in walked
            for n in ast.walk(loop.node)
        ):
            return None  # an unscale_ behind a switch fixed off: a second one would raise once it is turned on
        if late_unscales:  # a second unscale_ before update() raises: move the existing one
            operation = move(model, loop, late_unscales[0], clip.stmt, "before")
            return FixPlan(f"Move `{statement}` before the clip", (operation,)) if operation else None
        return FixPlan(f"Insert `{statement}` before the clip", (InsertStatement(statement, model.position(clip.stmt), "before"),))


class StepBypassesScaler(Rule):
    code = "GL302"
    fix_applicability = "unsafe"
    name = "step-bypasses-scaler"
    summary = "optimizer.step() called directly although the loss was scaled by a GradScaler"
    triggers = SCALER_WORDS

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        for loop in loops_by_hand(model):
            for step in loop.of(Kind.STEP):
                scaled = [
                    (b, scaled_by(model, b)) for b in loop.of(Kind.BACKWARD)
                    if b.order < step.order and not exclusive(b, step)
                ]
                scaled = [(b, s) for b, s in scaled if s and not _scaled_on_another_path(model, b, step)]
                if not scaled or any(not exclusive(e, step) for e in loop.of(Kind.SCALER_STEP)):
                    continue
                backward, scaler = scaled[-1]
                if scaler_enabled(model, scaler) is not True or _only_while_disabled(model, scaler, step):
                    continue
                if _hands_over(step.node, scaler):
                    continue  # `self.optim.step(scaler=self.grad_scaler)`: a wrapper that steps through it
                optimizer = step.optimizer
                if backward.by_accelerator and optimizer in prepared_names(model):
                    continue  # the accelerator's own optimizer: its step unscales and skips inf/NaN steps
                unscaled = any(u.order < step.order and not exclusive(u, step) for u in loop.of(Kind.UNSCALE))
                consequence = (
                    "the gradients were unscaled, but steps with inf/NaN gradients (fp16 overflow) are "
                    "not skipped and the loss scale never adapts" if unscaled else
                    "the update uses gradients still multiplied by the loss scale (65536 times too "
                    "large at the default scale) and steps with inf/NaN gradients are not skipped"
                )
                remedy = (
                    f"hand `{optimizer}` to `{scaler}.prepare(...)`, whose optimizer unscales and skips them"
                    if backward.by_accelerator else f"call `{scaler}.step({optimizer})` and `{scaler}.update()`"
                )
                message = (
                    f"{code(model, step)} steps `{optimizer}` directly, but {code(model, backward)} "
                    f"ran on a loss scaled by `{scaler}`: {consequence}; {remedy}"
                )
                yield Finding(self.code, model.span(step.anchor), message, self._fix(model, loop, step, backward, scaler))

    @staticmethod
    def _fix(model, loop, step, backward, scaler) -> FixPlan | None:
        # Edit the code that holds both, with the names it spells them with.
        if step.elsewhere or step.scope is not backward.scope:
            return None
        if not (isinstance(step.stmt, ast.Expr) and step.stmt.value is step.node):
            return None
        scale = scale_call(model, backward)
        if scale is None:
            return None
        scaler, optimizer = model.source(scale.func.value), model.source(step.node.func.value)
        operations = [ReplaceExpression(model.position(step.node), model.source(step.node), f"{scaler}.step({optimizer})")]
        if not any(e.target == scaled_by(model, backward) and not exclusive(e, step) for e in loop.of(Kind.SCALER_UPDATE)):
            operations.append(InsertStatement(f"{scaler}.update()", model.position(step.stmt), "after"))
        return FixPlan(f"Step through `{scaler}`", tuple(operations), applicability="unsafe")


class MissingScalerUpdate(Rule):
    code = "GL303"
    fix_applicability = "safe"
    name = "missing-scaler-update"
    summary = "scaler.step() is called but scaler.update() never is"
    triggers = SCALER_WORDS

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        found: dict[int, Finding] = {}  # a step function is seen alone and from its callers
        for loop in model.loops:
            for step in loop.of(Kind.SCALER_STEP):
                scaler = step.target
                if scaler_enabled(model, scaler) is not True or _updated_anywhere(model, loop, scaler):
                    continue
                message = (
                    f"{code(model, step)} is never followed by `{scaler}.update()`: the next "
                    f"`{scaler}.step()` raises RuntimeError (\"step() has already been called since "
                    f"the last update()\"), and the loss scale would never adapt"
                )
                fix = None
                if not step.elsewhere and isinstance(step.stmt, ast.Expr):
                    written = model.source(step.node.func.value)  # as the step's own code spells it
                    fix = FixPlan(
                        f"Insert `{written}.update()` after the step",
                        (InsertStatement(f"{written}.update()", model.position(step.stmt), "after"),),
                    )
                if found.get(id(step.node)) is None or found[id(step.node)].fix is None:
                    found[id(step.node)] = Finding(self.code, model.span(step.anchor), message, fix)
        yield from found.values()


def _scaled_on_another_path(model: ModuleModel, backward, step) -> bool:
    """The loss is scaled under a flag the step's branch rules out (`if self.scaler is not None:
    loss = self.scaler.scale(loss)` ... `if self.scaler is None: self.optimizer.step()`)."""
    call = scale_call(model, backward)
    if call is None or backward.node is call or any(call is n for n in ast.walk(backward.node)):
        return False  # `scaler.scale(loss).backward()`: scaled wherever the backward runs
    module = backward.module or model
    sides = [
        (node.test, holds) for node in ast.walk(backward.scope) if isinstance(node, ast.If)
        for block, holds in ((node.body, True), (node.orelse, False))
        if block and block[0].lineno <= call.lineno <= block[-1].end_lineno
    ] if module is (step.module or model) else []
    return any(opposite(test, holds, g.test, g.holds) for test, holds in sides for g in step.guards)


def _hands_over(step: ast.AST, scaler: str) -> bool:
    """The step call is given the scaler (`optim.step(scaler=self.grad_scaler)`): torch's
    optimizers take no scaler, so a project wrapper steps through it."""
    if not isinstance(step, ast.Call):
        return False
    return any(dotted(a) == scaler for a in step.args) or any(
        k.arg is not None and (dotted(k.value) == scaler or "scaler" in k.arg) and not (
            isinstance(k.value, ast.Constant) and k.value.value is None
        )
        for k in step.keywords
    )


def _only_while_disabled(model: ModuleModel, scaler: str, step) -> bool:
    """The step runs only where the setting that enables the scaler is off (`GradScaler(enabled=
    self.use_amp)`, then `if self.use_amp: scaler.step(opt) else: opt.step()`): `scale()` left
    the loss as it was there."""
    setting = enabling_setting(model, scaler)
    return setting is not None and any(
        opposite(setting, True, g.test, g.holds) or opposite(setting, True, g.compared, g.holds) for g in step.guards
    )


def _updated_anywhere(model: ModuleModel, loop, scaler: str) -> bool:
    """Any `<scaler>.update(...)` in the module or in what the loop calls (by the same last name:
    `self.scaler` and a `scaler` handed to a helper are one object, an inherited `after_step`
    updates it): a caller may well update."""
    last = scaler.rsplit(".", 1)[-1]
    if any((e.target or "").rsplit(".", 1)[-1] == last for e in loop.of(Kind.SCALER_UPDATE)):
        return True
    return any(
        isinstance(call.func, ast.Attribute) and call.func.attr == "update"
        and (dotted(call.func.value) or "").rsplit(".", 1)[-1] == last
        for _, call in iter_calls(model, (".update",))
    )


# torch's record of where each optimizer is between unscale_ and update: its enum and the table.
SCALER_STATE_NAMES = frozenset({"OptState", "_per_optimizer_states"})


class DoubleUnscale(Rule):
    code = "GL304"
    fix_applicability = "safe"
    name = "double-unscale"
    summary = "scaler.unscale_(optimizer) runs twice before scaler.update()"
    triggers = SCALER_WORDS

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        for loop in loops_by_hand(model):
            unscales = loop.of(Kind.UNSCALE)
            for second in unscales:
                if scaler_enabled(model, second.target) is not True or _asks_whether_unscaled(second):
                    continue
                first = next((u for u in unscales if _same_unscale(u, second) and u.order < second.order
                              and not exclusive(u, second) and not _update_between(loop, u, second)), None)
                if first is not None:
                    yield self._twice(model, loop, first, second)
                elif (skip := _continue_before_update(model, loop, second)) is not None:
                    message = (
                        f"`continue` at line {skip.lineno} leaves the iteration after {code(model, second)} "
                        f"without `{second.target}.update()`: the next iteration's unscale_() raises "
                        f"RuntimeError (\"unscale_() has already been called on this optimizer since the "
                        f"last update()\"); call `{second.target}.update()` before skipping the step"
                    )
                    yield Finding(self.code, model.span(second.anchor), message)
                elif _every_micro_batch(loop, second):
                    message = (
                        f"{code(model, second)} runs on every micro-batch while `{second.target}.update()` "
                        f"waits for the accumulation boundary: the second micro-batch's unscale_() raises "
                        f"RuntimeError (\"unscale_() has already been called on this optimizer since the "
                        f"last update()\"); unscale only at the boundary, just before the step"
                    )
                    yield Finding(self.code, model.span(second.anchor), message)

    def _twice(self, model, loop, first, second) -> Finding:
        message = (
            f"{code(model, second)} unscales `{second.optimizer}` a second time since "
            f"`{second.target}.update()`: {code(model, first)} already did, and torch raises "
            f"RuntimeError (\"unscale_() has already been called on this optimizer since the last "
            f"update()\")"
        )
        fix = None
        stmt = model.parents.movable(second.stmt)
        if not second.elsewhere and isinstance(second.stmt, ast.Expr) and len(model.parents.block.get(stmt, ())) > 1 and not any(
            e is not second and contains(stmt, e.stmt) for e in loop.events
        ):  # (a block holding only the call would be left empty)
            fix = FixPlan(f"Remove the second {code(model, second)}", (RemoveStatement(model.position(stmt)),))
        return Finding(self.code, model.span(second.anchor), message, fix)


def _asks_whether_unscaled(unscale) -> bool:
    """The unscale_ runs only when the scaler's own record says this optimizer is not unscaled
    yet (`if state["stage"] is not OptState.UNSCALED:`, read off `scaler._per_optimizer_states`):
    a second call is then skipped at run time."""
    return any(
        isinstance(node, (ast.Name, ast.Attribute)) and (getattr(node, "id", None) or getattr(node, "attr", None))
        in SCALER_STATE_NAMES
        for guard in unscale.guards for node in ast.walk(guard.test)
    )


def _same_unscale(a, b) -> bool:
    return a.target == b.target and a.optimizer == b.optimizer and a.optimizer is not None


def _update_between(loop, first, second) -> bool:
    return any(
        first.order < e.order < second.order and e.target == first.target and not exclusive(e, second)
        for e in loop.of(Kind.SCALER_UPDATE)
    )


def _continue_before_update(model: ModuleModel, loop, unscale) -> ast.Continue | None:
    """A `continue` of the loop's own body after the unscale_ (on its path) and before the first
    update of its scaler (`if not torch.isfinite(norm): zero_grad(); continue`): that
    iteration ends with the optimizer still unscaled."""
    if unscale.elsewhere or unscale.scope is not loop.scope or not isinstance(loop.node, (ast.For, ast.While)):
        return None
    updates = [e.node.lineno for e in loop.of(Kind.SCALER_UPDATE) if e.target == unscale.target and not e.elsewhere]
    if not updates:
        return None
    line = unscale.node.lineno
    return next((
        node for node in _own_continues(loop.node)
        if line < node.lineno < min(updates) and not model.parents.on_other_branch(node, line)
    ), None)


def _own_continues(loop: ast.stmt):
    """The `continue` statements that go on with this loop (not those of a loop or function
    nested in it)."""
    pending = [*loop.body]
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, ast.Continue):
            yield stmt
        elif not isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            pending.extend(child for child in ast.iter_child_nodes(stmt) if isinstance(child, ast.stmt))
            pending.extend(s for handler in getattr(stmt, "handlers", ()) for s in handler.body)


def _every_micro_batch(loop, unscale) -> bool:
    """The unscale_ runs on each micro-batch of an accumulation window, the update once (the
    updates on its own path: not those of a branch that steps every batch)."""
    accumulation = loop.accumulation
    updates = [e for e in loop.of(Kind.SCALER_UPDATE) if e.target == unscale.target and not exclusive(e, unscale)]
    if accumulation is None or not updates:
        return False
    if accumulation.inner_loop is not None:
        # in the micro-batch loop, not under a test that picks its last pass
        return accumulation.runs_every_micro_batch(unscale) and all(accumulation.inner_loop not in u.loops for u in updates)
    guard = accumulation.guard

    def of_this_window(side) -> bool:  # not another counter's test (`if global_step >= max_steps: break`)
        return side is not None and (guard.boundary is None or bool(side.counters & guard.boundary.counters))

    # an `if` of its own repeating the window's test (`if (step + 1) % N == 0: scaler.unscale_(opt)`)
    # runs it once per window, as the step's does
    return guard not in unscale.guards and not any(
        of_this_window(g.inside_window) or of_this_window(g.boundary) for g in unscale.guards
    ) and all(guard in u.guards for u in updates)


class UnscaledBackwardWithScaler(Rule):
    code = "GL305"
    fix_applicability = "unsafe"
    name = "unscaled-backward-with-scaler"
    summary = "scaler.step() unscales gradients that backward() computed from the unscaled loss"
    triggers = SCALER_WORDS

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        for loop in loops_by_hand(model):
            steps = loop.of(Kind.SCALER_STEP)
            # the backwards on the scaler step's path (not the other side of `if fp16:`)
            # (not one whose gradients are used and cleared before any step: SAM's ascent pass)
            backwards = [b for b in loop.of(Kind.BACKWARD) if not steps or not (b.exclusive_with(steps[-1]) or loop.consumed_by_hand(b))]
            if not steps or not backwards:
                continue
            scaler = steps[-1].target
            unscaled = [b for b in backwards if visibly_unscaled(model, b)]
            if len(unscaled) < len(backwards):  # beside a scaled backward: only one that runs whenever it does
                scaled = [b for b in backwards if b not in unscaled]
                unscaled = [b for b in unscaled if any(_runs_with(b, s) for s in scaled)]
            if scaler_enabled(steps[-1].module or model, scaler) is not True or not unscaled:  # where the step is written
                continue
            scales = [c for _, c in iter_calls(model, (".scale(",)) if _scale_of(c, scaler)]
            consequence = (
                "its gradients are divided by the loss scale while the scaled backward's are not, so "
                "this term counts 65536 times less than written (at the default scale)"
                if len(unscaled) < len(backwards) else
                "every update is divided by the loss scale (65536 times too small at the default scale)"
                if scales else "with no `scale()` call at all, `scaler.step()` fails on its first call"
            )
            for backward in unscaled:
                loss = (backward.module or model).source(backward.loss)
                message = (
                    f"{code(model, backward)} backpropagates the unscaled loss, but "
                    f"{code(model, steps[-1])} divides the gradients by the loss scale: "
                    f"{consequence}; backpropagate `{scaler}.scale({loss})`"
                )
                fix = None
                if not backward.inlined and not steps[-1].inlined:
                    scaled = _scaled_variable(model, backward, scaler, loss) or f"{scaler}.scale({loss})"
                    fix = FixPlan(
                        f"Backpropagate `{scaled}`",
                        (ReplaceExpression(model.position(backward.loss), loss, scaled),),
                        applicability="unsafe",
                    )
                yield Finding(self.code, model.span(backward.anchor), message, fix)


def _runs_with(event, other) -> bool:
    """`event` runs in every pass `other` runs in: under all of its tests (an FGM's adversarial
    backward under `if fgm:` after the scaled one), not on the other side of a test or of a
    conditional expression (`scaler.scale(loss).backward() if scaler else loss.backward()`)."""
    held = {id(g) for g in event.guards}
    return event.stmt is not other.stmt and all(id(g) in held for g in other.guards)


def _scaled_variable(model: ModuleModel, backward, scaler: str, loss: str) -> str | None:
    """`scaled_loss` when the code computed `scaled_loss = scaler.scale(loss)` just before and
    left it unused."""
    line = backward.node.lineno
    for name, assignments in model.scope(backward.scope).assignments.items():
        last = assignments[-1]
        if (
            last.lineno < line and isinstance(last, ast.Assign) and isinstance(last.value, ast.Call)
            and _scale_of(last.value, scaler) and len(last.value.args) == 1
            and model.source(last.value.args[0]) == loss
        ):
            return name
    return None


def _scale_of(call: ast.Call, scaler: str) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr == "scale" and dotted(call.func.value) == scaler
