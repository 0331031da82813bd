"""Mixed-precision facts: whether a GradScaler is enabled, whether a backward ran on a scaled
loss, whether gradients are still scaled inside apex's `scale_loss` block, and whether two events
can run in the same iteration (`if amp:` ... `if amp:` ... `else`)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradlint.model.events import Event, Kind, is_apex_scale_loss
from gradlint.model.guards import opposite
from gradlint.model.names import dotted, parameters_owner, within
from gradlint.model.roles import Role
from gradlint.model.values import constant_setting, keyword

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

MAX_DEPTH = 4


def scaler_enabled(model: "ModuleModel", name: str | None) -> bool | None:
    """True when every GradScaler assigned to `name` here is enabled: no `enabled=`, one that is
    visibly true, or one given by a setting (`enabled=args.amp`: like `GradScaler() if args.amp
    else None`, it scales exactly when AMP is on, which is when the rules' bugs bite); False when
    visibly disabled; None when it cannot tell (`**kwargs`, or a scaler handed in from elsewhere)."""
    constructors = model.roles.constructors.get(name or "", [])
    if not constructors:
        return None
    verdicts = {_enabled(model, call) for call in constructors}
    return verdicts.pop() if len(verdicts) == 1 else None


def enabling_setting(model: "ModuleModel", name: str | None) -> ast.expr | None:
    """The setting every GradScaler assigned to `name` is enabled by (`GradScaler(enabled=
    self.use_amp)`): where it is off, `scale()` returns the loss as it is and a plain
    `optimizer.step()` is right."""
    constructors = model.roles.constructors.get(name or "", [])
    settings = [_enabled_argument(model, call) for call in constructors]
    if not settings or any(s is None or isinstance(s, ast.Constant) for s in settings):
        return None
    return settings[0] if len({ast.dump(s) for s in settings}) == 1 else None


def _enabled_argument(model: "ModuleModel", call: ast.Call) -> ast.expr | None:
    qualname = model.imports.qualname(call.func) or ""
    position = 4 if "cuda.amp" in qualname else 5  # torch.amp's first parameter is the device
    value = next((k.value for k in call.keywords if k.arg == "enabled"), None)
    if value is None and len(call.args) > position:
        value = call.args[position]
    return value


def _enabled(model: "ModuleModel", call: ast.Call) -> bool | None:
    value = _enabled_argument(model, call)
    if value is None:
        return None if any(k.arg is None for k in call.keywords) else True  # **kwargs: unknown
    if isinstance(value, ast.Constant):
        return bool(value.value)
    known = constant_setting(model, value)
    return True if known is None else known  # a setting: enabled when AMP is on


def scaled_by(model: "ModuleModel", backward: Event) -> str | None:
    """The scaler whose `scale()` the loss of a BACKWARD went through: `scaler.scale(loss)
    .backward()`, or `loss = scaler.scale(loss)` before `loss.backward()`."""
    if backward.scaler:
        return backward.scaler
    call = scale_call(model, backward)
    return dotted(call.func.value) if call is not None else None


def scale_call(model: "ModuleModel", backward: Event) -> ast.Call | None:
    """The `scaler.scale(...)` call, in the code that holds the backward, its loss went through."""
    module = backward.module or model  # a helper's module holds its code
    node = backward.node
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        direct = _scale_call(module, node.func.value, backward.scope, node.lineno, MAX_DEPTH)
        if direct is not None:
            return direct
    return _scale_call(module, backward.loss, backward.scope, node.lineno, 0)


def visibly_unscaled(model: "ModuleModel", backward: Event) -> bool:
    """The loss reaches backward() with no `scale()` anywhere on its way (through plain
    assignments), and no local helper computed it (one might scale inside)."""
    if backward.scaler or backward.loss is None or _given_gradient(backward.node, backward.loss):
        return False  # `features.backward(scaler.scale(grad))`: the gradient given may carry the scale
    return _unscaled(backward.module or model, backward.loss, backward.scope, backward.node.lineno, 0)


def _given_gradient(node: ast.AST, loss: ast.expr) -> bool:
    """`tensor.backward(grad)`, `torch.autograd.backward(tensor, grad)`: it backpropagates the
    gradient it is given, not the loss's own."""
    if not isinstance(node, ast.Call):
        return False
    return any(a is not loss for a in node.args) or any(k.arg in ("gradient", "grad_tensors") for k in node.keywords)


def _unscaled(model: "ModuleModel", expr: ast.expr, scope: ast.AST, line: int, depth: int) -> bool:
    if depth > MAX_DEPTH:
        return False
    for node in ast.walk(expr):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr == "scale":
                return False
            helper = _local_helper(model, node.func, scope)
            if helper is not None and model.touches_gradients(helper):
                return False
    if isinstance(expr, (ast.Name, ast.Attribute)) and dotted(expr):
        value, value_scope, value_line = model.values.reaching_value(expr, scope, line)
        if value is None and isinstance(expr, ast.Attribute):  # `outputs.loss`: what built `outputs`
            return _unscaled(model, expr.value, scope, line, depth + 1)
        return value is not None and _unscaled(model, value, value_scope, value_line, depth + 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Div, ast.FloorDiv)):
        # `scaled_loss / accumulation_steps` of `scaled_loss = scaler.scale(loss)`
        return _scale_call(model, expr.left, scope, line, depth + 1) is None
    return True


def _scale_call(model: "ModuleModel", expr: ast.expr | None, scope: ast.AST, line: int, depth: int) -> ast.Call | None:
    if expr is None or depth > MAX_DEPTH:
        return None
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr == "scale" and model.roles.of(func.value) is Role.SCALER:
            return expr
        return None
    if isinstance(expr, (ast.Name, ast.Attribute)) and dotted(expr):
        value, value_scope, value_line = model.values.reaching_value(expr, scope, line)
        return _scale_call(model, value, value_scope, value_line, depth + 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Div, ast.Mult)):  # the scaled loss divided by N
        return _scale_call(model, expr.left, scope, line, depth + 1)
    return None


def _local_helper(model: "ModuleModel", func: ast.expr, scope: ast.AST) -> ast.AST | None:
    if isinstance(func, ast.Name):
        return model.functions.get(func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        cls = model.parents.enclosing_class(scope)
        return model.methods(cls).get(func.attr) if cls else None
    return None


def exclusive(a: Event, b: Event) -> bool:
    """The two never run in the same iteration: the two branches of one `if`, or of two `if`s
    testing the same condition (`if use_amp: scaled backward` ... `if use_amp: ... else: step`)."""
    if a.exclusive_with(b):
        return True
    return any(opposite(x.compared, x.holds, y.compared, y.holds, flags_only=False) for x in a.guards for y in b.guards)


def apex_scaling(events: list[Event], clip: Event) -> ast.Call | None:
    """The apex `amp.scale_loss(...)` block a clip runs in after a backward of that block: its
    gradients are still multiplied by apex's loss scale (apex unscales them on leaving it)."""
    for context in clip.contexts:
        if is_apex_scale_loss(context) and any(
            e.kind is Kind.BACKWARD and e.order < clip.order and any(c is context for c in e.contexts) for e in events
        ):
            return context
    return None


def clipped_module(clip: Event) -> str | None:
    """The module a clip covers whole (`clip_grad_norm_(model.parameters(), ...)`): `model`."""
    return parameters_owner(keyword(clip.node, "parameters", 0))


def may_update_part_of(model: "ModuleModel", optimizer: str, module: str, scope: ast.AST, line: int) -> bool:
    """Whether the optimizer built here may update parameters of `module`: its constructor is
    seen, and does not take another module's `.parameters()` (a list filled from
    `module.named_parameters()`, param groups: it may). Unknown construction: no."""
    built, _, _ = model.values.reaching_value(ast.Name(optimizer), scope, line) if "." not in optimizer else (None, None, None)
    if not isinstance(built, ast.Call) or not built.args and not built.keywords:
        return False
    over = parameters_owner(keyword(built, "params", 0))
    return over is None or within(over, module)
