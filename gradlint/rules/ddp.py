"""GL4xx: DistributedDataParallel synchronising gradients when it should not."""

from __future__ import annotations

import ast
from typing import Iterator

from gradlint.fixplan import EnsureImport, FixPlan, WrapStatements
from gradlint.model import Accumulation, Kind, ModuleModel, TrainingLoop
from gradlint.model.hooks import runner_of_hook
from gradlint.model.pinned_window import pinned_to_one_under_ddp
from gradlint.model.sync_phase import unsynced_step
from gradlint.model.tail import epoch_tail
from gradlint.rules.base import Finding, Rule
from gradlint.rules.shared import code, contains, factor_text

CONTEXT_NAME = "sync_context"


class DdpAccumulationWithoutNoSync(Rule):
    code = "GL401"
    name = "ddp-accumulation-without-no-sync"
    summary = "DDP all-reduces gradients on every micro-batch of an accumulation window"
    fix_applicability = "safe"

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        reported = set()  # backwards already reported from another unit (a step method and its driver)
        for loop in (phase for unit in model.loops for phase in unit.optimizer_phases):  # a GAN's turns each
            accumulation = loop.accumulation
            forwards = loop.on_path(Kind.FORWARD)
            backwards = loop.on_path(Kind.BACKWARD)
            if not loop.plain or accumulation is None or not forwards or not backwards:
                continue
            if loop.controls_sync:
                yield from self._sync_off_the_step(model, loop)
                continue
            forwards = [f for f in forwards if not f.without_grad] or forwards  # not a frozen encoder's
            ddp = forwards[0].target
            if forwards[0].module in (None, model) and pinned_to_one_under_ddp(model, loop.node, ddp):
                continue  # `if args.distributed: assert args.accumsteps == 1`: DDP runs one micro-batch windows
            factor = f"`{factor_text(model, accumulation.factor)}`"
            roles = (forwards[0].module or model).roles
            # a model `accelerator.prepare` wrapped is DDP only when several processes run: its
            # accelerator's `no_sync(model)` works either way, the model's own only under DDP
            accelerator = roles.prepared_by.get(ddp or "")
            no_sync = f"{accelerator}.no_sync({ddp})" if accelerator else f"{ddp}.no_sync()"
            wrapper = roles.wrapped_by.get(ddp or "")
            what = f"wrapped in DistributedDataParallel by `{wrapper}` when several processes run" if wrapper else "DistributedDataParallel"
            runner = runner_of_hook(model, loop.node, model.parents.enclosing_class(loop.node))
            remedy = (
                f"run the forward and backward of non-final micro-batches under `{no_sync}`" if runner is None
                # the runner runs the forward before the hook: the hook can only switch the sync
                else f"the runner runs the forward, so turn the sync off for non-final iterations in "
                f"`before_train_iter` (`{ddp}.require_backward_grad_sync = {_window_end(model, accumulation)}`)"
            )
            message = (
                f"`{ddp}` is {what} and gradients accumulate over {factor} "
                f"micro-batches, but {code(model, backwards[0])} all-reduces them on every one: {remedy}"
            )
            # where the window's backward runs in this unit: a helper's backward shared by two
            # loops (`loss_scaler(loss, ...)` in each) is reported at each loop's call
            where = _in_loop(model, backwards[0], accumulation)
            if id(where) in reported:
                continue
            reported.add(id(where))
            # one `no_sync()` per model: a fix for the first of several DDP models would leave the others syncing
            several = len({f.target for f in forwards}) > 1
            # a model that may run bare (wrapped on some paths only, or given by callers) has no
            # `no_sync()` then: the fix asks for it, else syncs as before
            in_fix = no_sync if accelerator or ddp in roles.surely_ddp else f'getattr({ddp}, "no_sync", contextlib.nullcontext)()'
            fix = None if several or ddp is None else _wrap_fix(model, loop, accumulation, forwards[0], backwards[-1], no_sync, in_fix)
            yield Finding(self.code, model.span(where), message, fix)


    def _sync_off_the_step(self, model: ModuleModel, loop: TrainingLoop) -> Iterator[Finding]:
        """Sync left on for a micro-batch of the window other than the one that steps, and off
        for the one that steps (`no_sync` on the wrong residue, or `require_backward_grad_sync`
        assigned the window's test turned around)."""
        unsynced = unsynced_step(loop)
        if unsynced is None or unsynced.switch.elsewhere:
            return
        switch, test = unsynced.switch, model.source(unsynced.sync_test)
        where = f"where `{test}`" if unsynced.syncs_when else f"where `{test}` is false"
        message = (
            f"`{switch.target}` synchronises gradients only {where}, but the step runs where "
            f"`{model.source(unsynced.step_test)}`: the micro-batch "
            f"that steps does not synchronise, so each rank steps with gradients the others never "
            f"averaged and the replicas drift apart; synchronise on the micro-batch that steps"
        )
        yield Finding(self.code, model.span(switch.anchor), message, None)


def _window_end(model: ModuleModel, accumulation: Accumulation) -> str:
    """The test that holds on the window's last micro-batch, as written, where there is one."""
    guard = accumulation.guard
    return model.source(guard.test) if guard is not None and guard.holds else "<the window's last iteration>"


def _in_loop(model: ModuleModel, backward, accumulation: Accumulation) -> ast.AST:
    """Where the window's micro-batches run the backward: inside the micro-batch loop when the
    backward (or the call leading to it) sits there, else the call of the helper holding it in
    the loop, since the all-reduce it starts belongs to the loop's window, not to the helper."""
    anchor, inner = backward.anchor, accumulation.inner_loop
    if inner is not None and inner in model.parents.parent and inner.lineno <= anchor.lineno <= inner.end_lineno:
        return anchor
    return backward.site if backward.inlined and not backward.elsewhere else anchor


def _wrap_fix(
    model: ModuleModel, loop: TrainingLoop, accumulation: Accumulation, forward, backward, no_sync: str, context: str
) -> FixPlan | None:
    """Non-final micro-batches' forward through backward wrapped in `context` (which is
    `no_sync`, or a lookup of it that a bare model survives)."""
    if forward.inlined or backward.inlined or forward.scope is not loop.scope:
        return None
    pair = model.parents.common_block(forward.stmt, backward.stmt)
    if pair is None:
        return None
    first, last = pair
    block = model.parents.block[first]
    if block.index(first) > block.index(last):
        return None
    wrapped = block[block.index(first) : block.index(last) + 1]
    if any(e.kind in (Kind.STEP, Kind.SCALER_STEP) and any(contains(s, e.stmt) for s in wrapped) for e in loop.events):
        return None
    boundary = accumulation.boundary_test(model, block, first)
    if boundary is None:
        return None
    # the epoch's last micro-batch syncs too: a step GL205's fix adds there must see the
    # gradients of every rank (syncing a window twice averages what is already averaged)
    tail = epoch_tail(model, loop)
    position = tail.position_of_last() if tail is not None else None
    if position is not None:
        boundary = f"{boundary} or {position} == {tail.length(model)}"
    prelude = f"{CONTEXT_NAME} = contextlib.nullcontext() if {boundary} else {context}"
    return FixPlan(
        f"Run non-final micro-batches under `{no_sync}`",
        (
            WrapStatements(model.position(first), model.position(last), f"with {CONTEXT_NAME}:", (prelude,)),
            EnsureImport("contextlib"),
        ),
    )
