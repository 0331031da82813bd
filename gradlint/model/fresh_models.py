"""Models a helper builds for itself: their gradients are not the training loop's.

A helper the loop calls may construct a model of its own and backpropagate through it (a FLOP
count on a meta-device copy, learning-dynamics statistics on a reloaded copy, a probe): its
backward and zero_grad touch that object only. Built during the call, such a local cannot be the
model the loop trains across its iterations; a name a parameter hands in, or an accessor of an
existing model (`get_model()`), may be."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from gradlint.model.callees import parameter_names
from gradlint.model.names import dotted

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

# what builds an object, by the called name's words (`construct_model`, `initialize_model`, `build_net`)
BUILDER_WORDS = frozenset({"construct", "build", "init", "initialize", "create", "make", "new", "instantiate"})
MODEL_WORDS = re.compile(r"model|net|module|ddp", re.IGNORECASE)


def on_fresh_model(model: "ModuleModel", scope: ast.AST, expr: ast.expr, line: int) -> bool:
    """`expr` (a loss, a module) is a local model the function builds for itself, or is computed
    by calling one, directly or through one assignment (`loss = crit(meta_model(x), y)`)."""
    reached = [expr]
    for name in {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}:
        value, where, _ = model.values.reaching_value(ast.Name(name, ast.Load()), scope, line)
        if value is not None and where is scope:
            reached.append(value)
    callees = {
        n.func.id for part in reached for n in ast.walk(part) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }
    heads = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)} if isinstance(expr, (ast.Name, ast.Attribute)) else set()
    return any(_built_here(model, scope, name, line) for name in callees | heads)


def _built_here(model: "ModuleModel", scope: ast.AST, name: str, line: int) -> bool:
    """Every assignment of the local `name` before `line` builds an object (a class call or a
    builder), given no model the function was handed, or rewraps the local itself
    (`_model = fabric.setup(_model)`)."""
    parameters = parameter_names(scope)
    if name in parameters or name == "self" or isinstance(scope, ast.Module):
        return False
    assignments = model.scope(scope).before(name, line)
    if not assignments:
        return False
    for stmt in assignments:
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)):
            return False
        call = stmt.value
        given = [*call.args, *(k.value for k in call.keywords)]
        if any(isinstance(a, ast.Name) and a.id == name for a in given):
            continue  # rewraps what was built
        if stmt is assignments[0] and not _builds(call):
            return False
        handed_models = {a.id for a in given if isinstance(a, ast.Name) and a.id in parameters and MODEL_WORDS.search(a.id)}
        head = (dotted(call.func) or "").split(".")[0]
        if handed_models or (head in parameters and MODEL_WORDS.search(head)):
            return False
    return True


def _builds(call: ast.Call) -> bool:
    last = (dotted(call.func) or "").rsplit(".", 1)[-1]
    return last[:1].isupper() or not BUILDER_WORDS.isdisjoint(last.lower().split("_"))
