"""Which calls compute a classification loss, and on what input: `F.cross_entropy(x, y)`,
`criterion(x, y)` with `criterion = nn.CrossEntropyLoss()`, `self.bce(x, y)` ..."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gradlint.model.callees import Callee, bind_arguments, callers, constructor, parameter_names
from gradlint.model.names import dotted
from gradlint.model.values import iter_calls

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

FUNCTIONAL = {
    "cross_entropy": "cross_entropy", "nll_loss": "nll_loss",
    "binary_cross_entropy_with_logits": "bce_with_logits", "binary_cross_entropy": "bce",
}
MODULES = {
    "CrossEntropyLoss": "cross_entropy", "NLLLoss": "nll_loss",
    "BCEWithLogitsLoss": "bce_with_logits", "BCELoss": "bce",
}


@dataclass(frozen=True)
class LossCall:
    """A call computing loss `kind` on `input`; `functional` when it is a torch function (its
    name can be changed), not an nn.Module object built elsewhere."""

    kind: str
    call: ast.Call
    input: ast.expr
    stmt: ast.stmt
    scope: ast.AST
    functional: bool


def loss_calls(model: "ModuleModel", kinds: frozenset[str]) -> list[LossCall]:
    def compute() -> list[LossCall]:
        objects = _loss_object_names(model)
        words = (*FUNCTIONAL, *(name.rsplit(".", 1)[-1] for name in objects), *MODULES, *_called_parameters(model))
        found = []
        for stmt, call in iter_calls(model, words):
            given = _input(call)
            if given is None:
                continue
            scope = model.parents.scope_of(stmt)
            kind, functional = _kind(model, call, scope)
            if kind is not None:
                found.append(LossCall(kind, call, given, stmt, scope, functional))
        return found

    return [c for c in model.memo(("loss_calls",), compute) if c.kind in kinds]


def _input(call: ast.Call) -> ast.expr | None:
    """The loss's input: its first argument, or `input=` (torch's name for it in the functions
    and the modules' forward)."""
    if call.args:
        return None if isinstance(call.args[0], ast.Starred) else call.args[0]
    return next((k.value for k in call.keywords if k.arg == "input"), None)


def _kind(model: "ModuleModel", call: ast.Call, scope: ast.AST) -> tuple[str | None, bool]:
    qualname = model.imports.qualname(call.func) or ""
    last = qualname.rsplit(".", 1)[-1]
    if qualname.startswith("torch.") and last in FUNCTIONAL:
        return FUNCTIONAL[last], True
    constructor = model.values.module_object(call.func, scope, call.lineno)
    if constructor is not None:
        built = model.imports.qualname(constructor.func) or ""
        if built.startswith("torch.nn."):
            return MODULES.get(built.rsplit(".", 1)[-1]), False
    if (
        isinstance(call.func, ast.Name) and len(call.args) >= 2 and call.func.id in parameter_names(scope)
        and not model.scope(scope).assignments.get(call.func.id)
    ):
        return _handed_in(model, call.func.id, scope), False
    return None, False


def _handed_in(model: "ModuleModel", parameter: str, function: ast.AST) -> str | None:
    """The kind of torch loss module every caller of the function passes for the parameter
    (`train(..., sar_criterion)` called with `nn.BCELoss()`), read where each caller builds it."""
    kinds = set()
    for call, context in callers(model, function):
        argument = bind_arguments(Callee(model, function), call).get(parameter)
        built = context.module.values.module_object(argument, context.scope, call.lineno) if argument is not None else None
        qualname = (context.module.imports.qualname(built.func) or "") if built is not None else ""
        kinds.add(MODULES.get(qualname.rsplit(".", 1)[-1]) if qualname.startswith("torch.nn.") else None)
    return kinds.pop() if len(kinds) == 1 else None


def _called_parameters(model: "ModuleModel") -> set[str]:
    """Names a function of the module takes as a parameter and some code calls like a criterion,
    with an input and a target (`sar_criterion(probs, y)`): a loss module its callers may hand
    in. A superset, read in one pass: `_kind` checks each call's own scope."""
    def compute() -> set[str]:
        parameters = {
            name for function in model.statements if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
            for name in parameter_names(function)
        }
        return {
            n.func.id for n in ast.walk(model.tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and len(n.args) >= 2 and n.func.id in parameters
        }

    return model.memo(("called parameters",), compute)


def _loss_object_names(model: "ModuleModel") -> set[str]:
    names = set()
    for stmt in model.statements:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
            built = model.imports.qualname(constructor(stmt.value).func) or ""
            if built.rsplit(".", 1)[-1] in MODULES:
                names.update(filter(None, map(dotted, stmt.targets)))
    return names
