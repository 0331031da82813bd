"""GL4xx: DistributedDataParallel synchronising gradients when it should not."""

from __future__ import annotations

import ast
import re
from typing import Iterator

from gradlint.fixplan import EnsureImport, FixPlan, WrapStatements
from gradlint.model import Accumulation, Kind, ModuleModel, TrainingLoop
from gradlint.rules.base import Finding, LoopRule
from gradlint.rules.shared import code, contains, factor_text

# no_sync(), nanoGPT's flag, FSDP2's switch, and wrappers' own (`disable_allreduce()` ...)
SYNC_CONTROL = re.compile(r"no_sync|require_backward_grad_sync|set_requires_gradient_sync|allreduce")
CONTEXT_NAME = "sync_context"


class DdpAccumulationWithoutNoSync(LoopRule):
    code = "GL401"
    name = "ddp-accumulation-without-no-sync"
    summary = "DDP all-reduces gradients on every micro-batch of an accumulation window"
    fix_applicability = "safe"

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        if SYNC_CONTROL.search(model.text):
            return  # the module controls gradient sync somewhere: trust it
        yield from super().check(model)

    def check_loop(self, model: ModuleModel, loop: TrainingLoop) -> Iterator[Finding]:
        accumulation = loop.accumulation
        forwards = loop.of(Kind.FORWARD)
        backwards = loop.of(Kind.BACKWARD)
        if accumulation is None or not forwards or not backwards:
            return
        ddp = forwards[0].target
        factor = f"`{factor_text(model, accumulation.factor)}`"
        message = (
            f"`{ddp}` is DistributedDataParallel and gradients accumulate over {factor} "
            f"micro-batches, but {code(model, backwards[0])} all-reduces them on every one: "
            f"run the forward and backward of non-final micro-batches under `{ddp}.no_sync()`"
        )
        fix = _wrap_fix(self, model, loop, accumulation, forwards[0], backwards[-1], ddp)
        yield Finding(self.code, model.span(backwards[0].node), message, fix)


def _wrap_fix(rule: LoopRule, model: ModuleModel, loop: TrainingLoop, accumulation: Accumulation, forward, backward, ddp) -> FixPlan | None:
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
    boundary = _boundary_test(model, accumulation, block, first)
    if boundary is None:
        return None
    prelude = f"{CONTEXT_NAME} = contextlib.nullcontext() if {boundary} else {ddp}.no_sync()"
    return rule.plan(
        f"Run non-final micro-batches under `{ddp}.no_sync()`",
        WrapStatements(model.position(first), model.position(last), f"with {CONTEXT_NAME}:", (prelude,)),
        EnsureImport("contextlib"),
    )


def _boundary_test(model: ModuleModel, accumulation: Accumulation, block: list[ast.stmt], first: ast.stmt) -> str | None:
    """Source of a test true on the window's last micro-batch, valid where `first` stands."""
    guard = accumulation.guard
    if guard is not None:
        counters = guard.boundary.counters
        start = block.index(first)
        guard_stmt = next((s for s in block[start:] if contains(s, guard.node)), None)
        stop = block.index(guard_stmt) if guard_stmt is not None else len(block)
        if any(_assigns(s, counters) for s in block[start:stop]):
            return None  # the counter moves between here and the test
        return model.source(guard.test) if guard.holds else _negation(guard.test)
    loop = accumulation.inner_loop
    target = loop.target
    if isinstance(target, ast.Tuple) and isinstance(loop.iter, ast.Call) and getattr(loop.iter.func, "id", "") == "enumerate":
        target = target.elts[0]
    elif not (isinstance(loop.iter, ast.Call) and getattr(loop.iter.func, "id", "") == "range"):
        return None
    if not isinstance(target, ast.Name):
        return None
    return f"{target.id} == {factor_text(model, accumulation.factor)} - 1"


def _assigns(stmt: ast.stmt, names: frozenset[str]) -> bool:
    for node in ast.walk(stmt):
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)] if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) else []
        if any(t is not None and ast.unparse(t) in names for t in targets):
            return True
    return False


def _negation(test: ast.expr) -> str:
    """`a == b` for `a != b` and the like; `not (...)` otherwise."""
    flipped = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt}
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in flipped:
        return ast.unparse(ast.Compare(test.left, [flipped[type(test.ops[0])]()], test.comparators))
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return ast.unparse(test.operand)
    return f"not ({ast.unparse(test)})"
