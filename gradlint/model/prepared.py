"""Objects handed to a framework's `prepare(...)` (Accelerate, Fabric's setup): the framework's
wrapper decides when they act (an AcceleratedScheduler steps only when gradients synchronise)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradlint.model.names import dotted
from gradlint.model.roles import Role

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

PREPARE_METHODS = frozenset({"prepare", "prepare_scheduler", "setup", "setup_optimizers"})


def prepared_names(model: "ModuleModel") -> frozenset[str]:
    """Names passed to, or assigned from, an accelerator's `prepare(...)`."""

    def compute() -> frozenset[str]:
        names: set[str] = set()
        for stmt in model.statements:
            value = getattr(stmt, "value", None)
            if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
                continue
            if value.func.attr not in PREPARE_METHODS or model.roles.of(value.func.value) is not Role.ACCELERATOR:
                continue
            names.update(n for n in map(dotted, value.args) if n)
            for target in getattr(stmt, "targets", [getattr(stmt, "target", None)]):
                elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
                names.update(n for n in map(dotted, elements) if n)
        return frozenset(names)

    return model.memo(("prepared",), compute)
