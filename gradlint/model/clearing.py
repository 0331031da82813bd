"""Where gradients get cleared, for the rules about clearing that is missing (GL104).

Clearing is looked for generously (precision first): anywhere in the function that holds a
training loop, in closures defined there, in the local helpers and methods it calls (a few levels
deep), and, for an optimizer kept on `self`, in every method of the class. What counts as
clearing: `zero_grad()` on anything (an optimizer, a model), `p.grad = None`, `p.grad.zero_()` /
`.fill_(0)` / `.detach_()`, `torch._foreach_zero_`, and a `zero_grad=True` / `set_to_none=`
keyword (SAM's `first_step(zero_grad=True)`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gradlint.model.callees import CallContext, resolve_callee
from gradlint.model.events import STEPS
from gradlint.model.names import dotted, parameters_owner, within
from gradlint.model.roles import Role
from gradlint.model.values import built_only, keyword

if TYPE_CHECKING:
    from gradlint.model import ModuleModel, TrainingLoop

HELPER_DEPTH = 3
CLEARING_KEYWORDS = frozenset({"zero_grad", "set_to_none"})
CLEARING_GRAD_METHODS = frozenset({"zero_", "fill_", "detach_", "requires_grad_"})


@dataclass(frozen=True)
class Clearing:
    """One place that clears gradients; `optimizer` is the optimizer it clears, None when it
    clears parameters the model cannot attribute (a model's zero_grad, a `p.grad = None` loop)."""

    node: ast.AST
    optimizer: str | None


def clearings_around(model: "ModuleModel", loop: "TrainingLoop") -> list[Clearing]:
    """Every clearing the loop's code can run: in its scope (before, inside or after the loop),
    the helpers that scope calls, and the class's methods when the unit is a method."""

    def compute() -> list[Clearing]:
        roots = [loop.scope]
        cls = model.parents.enclosing_class(loop.scope)
        if cls is not None:
            roots.extend(model.methods(cls).values())
        found: list[Clearing] = []
        seen: set[int] = set()
        pending = [(model, root, cls, 0) for root in roots]
        # a step in another object's method (`agent.finish_episode()`) is cleared there as often as not
        for step in loop.of(*STEPS):
            if step.elsewhere and step.module is not None and step.scope is not None:
                pending.append((step.module, step.scope, step.module.parents.enclosing_class(step.scope), 0))
        while pending:
            module, node, owner, depth = pending.pop()
            if id(node) in seen or (node is not loop.scope and not _may_clear(module, node)):
                continue
            seen.add(id(node))
            for child, clearing in _clearing_nodes(module, node):
                if clearing is not None:
                    found.append(clearing)
                if depth < HELPER_DEPTH and isinstance(child, ast.Call):
                    helper = _helper(module, child, node, owner)
                    if helper is not None:
                        callee_module, function = helper
                        callee_class = owner if callee_module is module else None
                        pending.append((callee_module, function, callee_class, depth + 1))
        return found

    return model.memo(("clearings", id(loop.node)), compute)


def _clearing_nodes(module: "ModuleModel", node: ast.AST) -> list[tuple[ast.AST, Clearing | None]]:
    """The calls and clearings under `node`, each with the clearing it is, in walk order; read
    once per function however many loops look around it (a trainer class's every method)."""

    def compute():
        return [
            (child, clearing) for child in _live_nodes(module, node)
            if (clearing := clearing_of(module, child)) is not None or isinstance(child, ast.Call)
        ]

    return module.memo(("clearing nodes", id(node)), compute)


def _live_nodes(module: "ModuleModel", node: ast.AST):
    """Every node under `node`, but for a module's functions and classes that nothing in it
    names (a cleanup whose call is commented out): they never run for a module-level loop, and
    those that run are followed from their calls."""
    if not isinstance(node, ast.Module):
        yield from ast.walk(node)
        return
    named = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    for statement in node.body:
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or statement.name in named:
            yield from ast.walk(statement)


def clears_for(model: "ModuleModel", clearings: list[Clearing], optimizer: str, stepping: set[str]) -> bool:
    """Whether any clearing can clear `optimizer`'s gradients: one on that optimizer, one the
    model cannot attribute, or one on a name this loop does not step (an alias, perhaps: not
    when both are built here, each by its own constructor, as a GAN's two optimizers are)."""
    return any(
        c.optimizer in (None, optimizer) or c.optimizer not in stepping and not _apart(model, c.optimizer, optimizer)
        for c in clearings
    )


def _apart(model: "ModuleModel", first: str, second: str) -> bool:
    """Two optimizers built here, each by its own constructor, over the parameters of two
    modules neither of which holds the other (`Adam(generator.parameters())`,
    `Adam(evaluator.parameters())`): clearing one leaves the other's gradients."""
    if not (built_only(model, first) and built_only(model, second)):
        return False
    owners = [{parameters_owner(keyword(call, "params", 0)) for call in model.roles.constructors[name]} for name in (first, second)]
    if any(None in found for found in owners):
        return False
    return not any(within(a, b) or within(b, a) for a in owners[0] for b in owners[1])


def clearing_of(model: "ModuleModel", node: ast.AST) -> Clearing | None:
    if isinstance(node, ast.Call):
        func = node.func
        if any(k.arg in CLEARING_KEYWORDS for k in node.keywords):
            return Clearing(node, _optimizer(model, func.value) if isinstance(func, ast.Attribute) else None)
        if isinstance(func, ast.Attribute):
            if func.attr == "zero_grad":
                return Clearing(node, _optimizer(model, func.value))
            if func.attr in CLEARING_GRAD_METHODS and _is_grad(func.value):
                return Clearing(node, None)
            if func.attr == "_foreach_zero_":
                return Clearing(node, None)
    elif isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(_is_grad(t) for t in targets):
            return Clearing(node, None)
    return None


def _may_clear(module: "ModuleModel", function: ast.AST) -> bool:
    """Whether a method or helper can clear gradients, itself or through what it calls: every
    clearing spells `grad` (a gradient word), but for `_foreach_zero_` and `set_to_none=`."""
    if module.touches_gradients(function):
        return True
    text = module.source(function)
    return "_foreach_zero_" in text or "set_to_none" in text


def _optimizer(model: "ModuleModel", receiver: ast.expr) -> str | None:
    return dotted(receiver) if model.roles.of(receiver) is Role.OPTIMIZER else None


def _is_grad(expr: ast.AST) -> bool:
    while isinstance(expr, ast.Attribute):
        if expr.attr == "grad":
            return True
        expr = expr.value
    return False


def _helper(module: "ModuleModel", call: ast.Call, scope: ast.AST, cls: ast.ClassDef | None):
    """(module, function) that `call` runs: a function or method of this module, or a function
    imported from another module of the project (`from .fp16_util import zero_grad`)."""
    local = _local_callee(module, call.func, cls)
    if local is not None:
        return module, local
    name = dotted(call.func)
    if name is None or module.imports.origin(name.partition(".")[0]) is None:
        return None
    callee = resolve_callee(module, call, CallContext(module, scope))
    return (callee.module, callee.function) if callee is not None else None


def _local_callee(model: "ModuleModel", func: ast.expr, cls: ast.ClassDef | None) -> ast.AST | None:
    if isinstance(func, ast.Name):
        return model.functions.get(func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" and cls is not None:
        return model.methods(cls).get(func.attr)
    return None
