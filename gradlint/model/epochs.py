"""What the loop around a training loop does before it: an epoch loop that steps a scheduler
before the epoch's optimizer steps (GL106's epoch-level shape)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gradlint.model.callees import CallContext, class_of_scope, own_schedule
from gradlint.model.roles import Role

if TYPE_CHECKING:
    from gradlint.model import ModuleModel, TrainingLoop

LOOPS = (ast.For, ast.AsyncFor, ast.While)


@dataclass(frozen=True)
class EarlySchedulerStep:
    call: ast.Call  # `scheduler.step()`, no argument
    stmt: ast.stmt  # the statement of the epoch loop's body that holds it
    training: ast.stmt  # the statement of the same body that holds the training loop


def scheduler_steps_before_training(model: "ModuleModel", loop: "TrainingLoop") -> list[EarlySchedulerStep]:
    """`scheduler.step()` calls in the enclosing loop's body before the statement holding the
    training loop, with no optimizer or scaler step before them in that body."""
    if not isinstance(loop.node, LOOPS):
        return []
    chain = model.parents.chain(loop.node)
    outer_index = next((i for i, s in enumerate(chain[1:], 1) if isinstance(s, LOOPS)), None)
    if outer_index is None:
        return []
    outer, holder = chain[outer_index], chain[outer_index - 1]
    if model.parents.block.get(holder) is not outer.body:
        return []
    found = []
    scope = model.parents.scope_of(outer)
    context = CallContext(model, scope, class_of_scope(model, scope))
    for stmt in outer.body[: outer.body.index(holder)]:
        for node in ast.walk(stmt):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "step"):
                continue
            role = model.roles.of(node.func.value)
            if role in (Role.OPTIMIZER, Role.SCALER):
                return []  # something steps first: the scheduler may well be meant for it
            if role is Role.SCHEDULER and not node.args and not node.keywords and not own_schedule(model, node.func.value, context):
                found.append(EarlySchedulerStep(node, stmt, holder))
    return found
