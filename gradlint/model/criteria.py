"""Which calls compute a classification loss, and on what input: `F.cross_entropy(x, y)`,
`criterion(x, y)` with `criterion = nn.CrossEntropyLoss()`, `self.bce(x, y)` ..."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gradlint.model.callees import constructor
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
        words = (*FUNCTIONAL, *(name.rsplit(".", 1)[-1] for name in objects), *MODULES)
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
    return None, False


def _loss_object_names(model: "ModuleModel") -> set[str]:
    names = set()
    for stmt in model.statements:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
            built = model.imports.qualname(constructor(stmt.value).func) or ""
            if built.rsplit(".", 1)[-1] in MODULES:
                names.update(filter(None, map(dotted, stmt.targets)))
    return names
