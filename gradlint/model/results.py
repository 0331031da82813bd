"""Uses of the value of a tensor's `backward()` call, which is always None (GL105).

Only torch's `Tensor.backward` is meant: the module imports torch, the call looks like torch's
(no positional argument, or torch's keywords), its receiver is no framework object (DeepSpeed's
`engine.backward(loss)` returns the loss), and the module defines no `backward` method of its
own (hand-written layers whose `backward(dout)` returns a gradient).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

from gradlint.model.names import dotted
from gradlint.model.roles import Role

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

TORCH_BACKWARD_KEYWORDS = frozenset({"gradient", "retain_graph", "create_graph", "inputs"})
FRAMEWORK_ROLES = (Role.ACCELERATOR, Role.ENGINE)
DISCARD = "_"


@dataclass(frozen=True)
class BackwardResultUse:
    """`call` (a backward) whose None is used: assigned to `name`, or passed to `consumer`."""

    call: ast.Call
    name: str | None = None
    consumer: ast.Call | None = None
    uses: tuple[ast.Call, ...] = ()  # calls that later receive `name`


def backward_result_uses(model: "ModuleModel") -> list[BackwardResultUse]:
    return model.memo(("backward results",), lambda: list(_uses(model)))


def _uses(model: "ModuleModel") -> Iterator[BackwardResultUse]:
    if not any(q == "torch" or q.startswith("torch.") for q in model.imports.aliases.values()):
        return
    if any(
        isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "backward" and not _static(s)
        for s in model.statements
    ):
        return
    for stmt in model.statements:
        if not model.calls_backward_in(stmt):
            continue  # no `backward(` on its lines
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None and _is_backward(model, stmt.value):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            name = dotted(targets[0]) if len(targets) == 1 else None
            if name == DISCARD:
                continue  # `_ = y.sum().backward()`: the None is thrown away, as the name says
            yield BackwardResultUse(stmt.value, name=name, uses=tuple(_later_uses(model, stmt, name)))
        elif isinstance(stmt, (ast.Expr, ast.Assign, ast.Return)) and stmt.value is not None:
            for node in ast.walk(stmt.value):
                if isinstance(node, ast.Call):
                    for argument in (*node.args, *(k.value for k in node.keywords)):
                        if _is_backward(model, argument):
                            yield BackwardResultUse(argument, consumer=node)


def _is_backward(model: "ModuleModel", expr: ast.expr) -> bool:
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "backward"):
        return False
    if model.roles.of(expr.func.value) in FRAMEWORK_ROLES:
        return False
    if any(k.arg not in TORCH_BACKWARD_KEYWORDS for k in expr.keywords):
        return False  # `weight_method.backward(losses=..., shared_parameters=...)`: not a tensor's
    return not expr.args or any(k.arg in TORCH_BACKWARD_KEYWORDS for k in expr.keywords)


def _later_uses(model: "ModuleModel", stmt: ast.stmt, name: str | None) -> Iterator[ast.Call]:
    """Calls after `stmt` in its block that pass `name` as an argument (`optimizer.step(grads)`)."""
    if name is None:
        return
    block = model.parents.block.get(stmt, [])
    for later in block[block.index(stmt) + 1 :]:
        for node in ast.walk(later):
            if isinstance(node, ast.Call) and any(dotted(a) == name for a in node.args):
                yield node


def _static(function: ast.FunctionDef) -> bool:
    """autograd.Function's `@staticmethod def backward(ctx, ...)` is torch's, not a layer's."""
    return any(dotted(d) in ("staticmethod", "once_differentiable") for d in function.decorator_list)
