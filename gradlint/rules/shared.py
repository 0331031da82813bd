"""What several rules ask of the model: how to name an event, and how to move one."""

from __future__ import annotations

import ast

from gradlint.fixplan import MoveStatement, Where
from gradlint.model import Event, Kind, ModuleModel, TrainingLoop

STEP_RUN = (Kind.STEP, Kind.SCALER_STEP, Kind.SCALER_UPDATE, Kind.SCHED_STEP)


def code(model: ModuleModel, event: Event) -> str:
    """How the user wrote the call, short: `optimizer.step()`, `clip_grad_norm_(...)`."""
    written = call_text(event.module or model, event.node)
    if event.anchor is not event.node:
        return f"{written} (in `{model.source(event.anchor.func)}(...)`)"
    return written


def call_text(module: ModuleModel, node: ast.AST) -> str:
    """A call as `module` spells it, short."""
    if isinstance(node, ast.Call):
        func = module.source(node.func)
        inner = module.source(node.args[0]) if len(node.args) == 1 and not node.keywords else "..."
        return f"`{func}({inner if node.args or node.keywords else ''})`"
    return f"`{module.source(node)}`"


def contains(outer: ast.AST, inner: ast.AST) -> bool:
    return any(node is inner for node in ast.walk(outer))


def move(model: ModuleModel, loop: TrainingLoop, event: Event, anchor: ast.stmt, where: Where) -> MoveStatement | None:
    """Move the statement of `event` before/after `anchor`, when that moves nothing else."""
    # Within one function of this module the move is the same for every caller; code of
    # another module or another object's method is never edited from here.
    if event.elsewhere or event.scope is not model.parents.scope_of(anchor):
        return None
    stmt = model.parents.movable(event.stmt)
    if contains(stmt, anchor) or any(e is not event and contains(stmt, e.stmt) for e in loop.events):
        return None
    return MoveStatement(model.position(stmt), model.position(anchor), where)


def end_of_step_run(model: ModuleModel, loop: TrainingLoop, step: Event) -> ast.stmt:
    """The last of the contiguous statements that step, update the scaler or the scheduler,
    starting at `step` in its block (the step itself when it is another module's code)."""
    block = model.parents.block.get(step.stmt)
    if block is None:
        return step.stmt
    stepping = {id(e.stmt) for e in loop.events if e.kind in STEP_RUN}
    index = block.index(step.stmt)
    while index + 1 < len(block) and id(block[index + 1]) in stepping:
        index += 1
    return block[index]


def factor_text(model: ModuleModel, factor: ast.expr) -> str:
    """The window's factor as written: from this module's source, or unparsed when it was
    read in another module (a boundary tested in a helper of `train_utils.py`) or made up."""
    own = hasattr(factor, "lineno") and id(factor) in model.memo(("node ids",), lambda: {id(n) for n in ast.walk(model.tree)})
    text = model.source(factor) if own else ast.unparse(factor)
    return f"({text})" if isinstance(factor, ast.BinOp) else text
