"""GL402: `no_sync()` around backward() alone, which DDP ignores."""

from __future__ import annotations

import ast
from typing import Iterator

from gradlint.fixplan import FixPlan, MoveStatement
from gradlint.model import Kind, ModuleModel, TrainingLoop
from gradlint.model.names import dotted
from gradlint.rules.base import Finding, Rule
from gradlint.rules.shared import code, contains

# Calls a with-body may make without running the model: backward and arithmetic on the loss.
INERT_METHODS = frozenset({"backward", "scale", "mean", "sum", "item", "detach", "float", "div", "mul", "div_", "mul_"})
INERT_FUNCTIONS = frozenset({"print", "len", "float"})
FORWARD_MOVES_PAST = (Kind.STEP, Kind.SCALER_STEP, Kind.ZERO_GRAD, Kind.CLIP, Kind.UNSCALE, Kind.SCALER_UPDATE)


class NoSyncWithoutForward(Rule):
    code = "GL402"
    name = "no-sync-without-forward"
    summary = "`with model.no_sync():` wraps only backward(); the DDP forward runs outside it"
    triggers = ("no_sync",)

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        seen = set()
        for loop in model.loops:
            for backward in loop.of(Kind.BACKWARD):
                for context in backward.contexts:
                    ddp = _no_sync_owner(model, context, backward)
                    with_stmt = _with_of(model, backward.stmt, context)
                    if ddp is None or with_stmt is None or id(with_stmt) in seen:
                        continue
                    if not _only_backward(with_stmt, ddp):
                        continue
                    forward = _forward_before(model, loop, with_stmt, ddp)
                    if forward is None:
                        continue
                    seen.add(id(with_stmt))
                    message = (
                        f"`{model.source(context)}` wraps {code(model, backward)} but not the forward "
                        f"(`{model.source(forward)}`): DDP decides in the forward whether the backward "
                        f"all-reduces, so gradients are still synchronised on every micro-batch; run "
                        f"the forward inside the context too"
                    )
                    yield Finding(self.code, model.span(context), message, _fix(model, loop, forward, with_stmt))


def _no_sync_owner(model: ModuleModel, context: ast.expr, backward) -> str | None:
    """`model` of `model.no_sync()`, also through `ctx = model.no_sync() if ... else nullcontext()`."""
    value = context
    if isinstance(context, ast.Name):
        value, _, _ = model.values.reaching_value(context, backward.scope, context.lineno)
    for node in ast.walk(value) if value is not None else ():
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "no_sync":
            return dotted(node.func.value)
    return None


def _with_of(model: ModuleModel, stmt: ast.stmt, context: ast.expr) -> ast.With | None:
    for node in model.parents.chain(stmt):
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(i.context_expr is context for i in node.items):
            return node
    return None


def _only_backward(with_stmt: ast.With, ddp: str) -> bool:
    """The body calls nothing that could run the model (only backward and arithmetic)."""
    for stmt in with_stmt.body:
        for node in ast.walk(stmt):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in INERT_METHODS and dotted(func.value) != ddp:
                continue
            if isinstance(func, ast.Name) and func.id in INERT_FUNCTIONS:
                continue
            return False
    return True


def _forward_before(model: ModuleModel, loop: TrainingLoop, with_stmt: ast.stmt, ddp: str) -> ast.Call | None:
    """The call that runs the DDP model before the `with`, in the loop: `ddp(x)`, `ddp.forward(x)`
    or a helper given `ddp`."""
    body = getattr(loop.node, "body", [])
    calls = [
        n for stmt in body for n in ast.walk(stmt)
        if isinstance(n, ast.Call) and n.lineno < with_stmt.lineno
    ]
    for call in reversed(calls):
        if dotted(call.func) in (ddp, f"{ddp}.forward") or any(dotted(a) == ddp for a in call.args):
            return call
    return None


def _fix(model: ModuleModel, loop: TrainingLoop, forward: ast.Call, with_stmt: ast.stmt) -> FixPlan | None:
    """Move the statements from the forward to the `with` into its body, when they share a block
    and no step, clip or zero_grad would move with them."""
    block = model.parents.block.get(with_stmt)
    first = next((s for s in block or () if contains(s, forward)), None)
    if first is None or block.index(first) > block.index(with_stmt):
        return None
    moved = block[block.index(first) : block.index(with_stmt)]
    if any(e.kind in FORWARD_MOVES_PAST and any(contains(s, e.stmt) for s in moved) for e in loop.events):
        return None
    anchor = model.position(with_stmt.body[0])
    operations = tuple(MoveStatement(model.position(s), anchor, "before") for s in moved)
    return FixPlan("Move the forward into the no_sync context", operations)
