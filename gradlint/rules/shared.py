"""What several rules ask of the model: how to name an event, and how to move one."""

from __future__ import annotations

import ast

from gradlint.fixplan import MoveStatement, Where
from gradlint.model import Event, Kind, ModuleModel, TrainingLoop

STEP_RUN = (Kind.STEP, Kind.SCALER_STEP, Kind.SCALER_UPDATE, Kind.SCHED_STEP)


def loops_by_hand(model: ModuleModel) -> list[TrainingLoop]:
    """Each loop as far as the code manages its gradients (TrainingLoop.by_hand)."""
    return [view for view in (loop.by_hand for loop in model.loops) if view is not None]


def code(model: ModuleModel, event: Event) -> str:
    """How the user wrote the call, short: `optimizer.step()`, `clip_grad_norm_(...)`."""
    written = call_text(event.module or model, event.node)
    if event.anchor is not event.node:
        return f"{written} (in `{model.source(event.anchor.func)}(...)`)"
    return written


def per_micro_batch(model: ModuleModel, event: Event, micro_step) -> str:
    """`X` runs once per micro-batch of a framework's window (a Trainer's `training_step`)."""
    return (
        f"{code(model, event)} runs on every micro-batch: the Trainer calls `{micro_step.function.name}` "
        f"for each and steps after every `{micro_step.window}` of them"
    )


def call_text(module: ModuleModel, node: ast.AST) -> str:
    """A call as `module` spells it, short."""
    if isinstance(node, ast.Call):
        func = module.source(node.func)
        inner = module.source(node.args[0]) if len(node.args) == 1 and not node.keywords else "..."
        return f"`{func}({inner if node.args or node.keywords else ''})`"
    return f"`{module.source(node)}`"


def contains(outer: ast.AST, inner: ast.AST) -> bool:
    return any(node is inner for node in ast.walk(outer))


def move(
    model: ModuleModel, loop: TrainingLoop, event: Event, anchor: ast.stmt, where: Where, keep_tests: bool = False,
) -> MoveStatement | None:
    """Move the statement of `event` before/after `anchor`, when that moves nothing else; with
    `keep_tests`, only where every `if` it sits in holds at the anchor too (a move that only
    changes how often it runs, not whether)."""
    # Within one function of this module the move is the same for every caller; code of
    # another module or another object's method is never edited from here.
    if event.elsewhere or event.scope is not model.parents.scope_of(anchor):
        return None
    stmt = model.parents.movable(event.stmt)
    if contains(stmt, anchor) or any(e is not event and contains(stmt, e.stmt) for e in loop.events):
        return None
    if keep_tests and not _tests_hold_at(model, stmt, anchor):
        return None
    return MoveStatement(model.position(stmt), model.position(anchor), where)


def _tests_hold_at(model: ModuleModel, stmt: ast.stmt, anchor: ast.stmt) -> bool:
    """Whether every `if` the moved statement sits in holds at the anchor too: enclosing both, or
    tested the same way around the anchor (loops and contexts it leaves are what the move is
    for). A clip under `if args.clip > 0:` beside an unscale is moved alone, and out of that
    `if` it would clip where the user asked for none."""
    around_anchor = model.parents.chain(anchor)[1:]
    shared = {id(node) for node in around_anchor}
    tests_at_anchor = {_side(node, inner) for node, inner in zip(around_anchor, model.parents.chain(anchor))}
    chain = model.parents.chain(stmt)
    for node, inner in zip(chain[1:], chain):
        if id(node) in shared:
            return True
        if isinstance(node, ast.If) and _side(node, inner) not in tests_at_anchor:
            return False
    return True


def _side(node: ast.stmt, inner: ast.stmt) -> tuple[str, bool] | None:
    """(test, which side) of the `if` `node` holding `inner`."""
    if not isinstance(node, ast.If):
        return None
    return ast.dump(node.test), any(s is inner for s in node.body)


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
    text = model.inline_source(factor) if own else ast.unparse(factor)  # one line: a message never spans lines
    return f"({text})" if isinstance(factor, ast.BinOp) else text
