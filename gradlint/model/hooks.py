"""Optimizer hooks of mmcv and mmengine runners (DESIGN §2.1, frameworks that hand control back).

A hook's `after_train_iter(self, runner)` runs once per iteration, after the runner has run
`runner.model`'s forward on the batch: the backward, the window's test (`self.every_n_iters(runner,
N)`) and the step are the hook's, the forward is the runner's. In a project that wraps its
models in (MM)DistributedDataParallel, that forward runs on the DDP wrapper.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradlint.model.callees import class_hierarchy
from gradlint.model.roles import Role

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

HOOK_LIBRARIES = ("mmcv.", "mmengine.")
ITERATION_HOOK = "after_train_iter"
# a hook's own tests, true after every n-th iteration of the runner: `(runner.iter + 1) % n == 0`
RUNNER_PERIOD_TESTS = frozenset({"every_n_iters", "every_n_inner_iters", "every_n_train_iters"})


def runner_of_hook(module: "ModuleModel", function: ast.AST, cls: ast.ClassDef | None) -> str | None:
    """The runner parameter of an mmcv/mmengine hook's `after_train_iter(self, runner)`; None
    for any other function."""
    if cls is None or getattr(function, "name", None) != ITERATION_HOOK:
        return None
    params = function.args.args
    if len(params) < 2 or not _derives_from_library_hook(module, cls):
        return None
    return params[1].arg


def runner_model_is_ddp(module: "ModuleModel") -> bool:
    """Whether the runner's model is a DDP wrapper when training is distributed: the module, or
    another module of its project, wraps models in (MM)DistributedDataParallel."""
    if module.roles.named(Role.DDP_MODEL):
        return True
    return module.project is not None and module.project.wraps_models_in_ddp()


def _derives_from_library_hook(module: "ModuleModel", cls: ast.ClassDef) -> bool:
    for owner, known in class_hierarchy(module, cls):
        for base in known.bases:
            qualname = owner.imports.qualname(base) or ""
            if qualname.startswith(HOOK_LIBRARIES) and qualname.endswith("Hook"):
                return True
    return False
