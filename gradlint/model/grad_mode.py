"""Whether autograd is off where a statement runs: under `with torch.no_grad():`,
`torch.inference_mode()`, `torch.set_grad_enabled(False)`, or in a function decorated with
`@torch.no_grad()` / `@torch.inference_mode()`, or in the evaluation hooks of a LightningModule,
which Lightning runs in inference mode (rules about gradients have nothing to say there)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

GRAD_OFF = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad", "torch.autograd.inference_mode"})
GRAD_SWITCHES = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"})
LIGHTNING_EVALUATION_HOOKS = frozenset({"validation_step", "test_step", "predict_step"})


def gradients_off(model: "ModuleModel", stmt: ast.stmt) -> bool:
    """True when every way into `stmt` that the module shows runs with autograd off."""
    for node in model.parents.ancestors(stmt):
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(turns_off(model, i.context_expr) for i in node.items):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return any(turns_off(model, d) for d in node.decorator_list) or _lightning_evaluation(model, node)
    return False


def _lightning_evaluation(model: "ModuleModel", function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`validation_step` / `test_step` / `predict_step` of a class derived from LightningModule."""
    if function.name not in LIGHTNING_EVALUATION_HOOKS:
        return False
    cls = model.parents.parent.get(function)
    return isinstance(cls, ast.ClassDef) and any(
        (model.imports.qualname(base) or "").endswith("LightningModule") for base in cls.bases
    )


def turns_off(model: "ModuleModel", expr: ast.expr) -> bool:
    """`torch.no_grad()`, `torch.inference_mode()` / `(True)`, `torch.set_grad_enabled(False)`."""
    call = expr if isinstance(expr, ast.Call) else None
    name = model.imports.qualname(call.func if call else expr) or ""
    argument = call.args[0] if call is not None and call.args else None
    if name in GRAD_OFF:
        return argument is None or _literal(argument) is True
    return name in GRAD_SWITCHES and argument is not None and _literal(argument) is False


def _literal(expr: ast.expr) -> bool | None:
    return expr.value if isinstance(expr, ast.Constant) and isinstance(expr.value, bool) else None
