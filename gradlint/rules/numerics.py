"""GL5xx: numerically unstable or doubled activations around the loss."""

from __future__ import annotations

import ast
from typing import Iterator

from gradlint.fixplan import FixPlan, ReplaceExpression
from gradlint.model import BCE_CALL, CROSS_ENTROPY_CALL, LOG_CALL, ModuleModel
from gradlint.model.criteria import loss_calls
from gradlint.model.grad_mode import gradients_off
from gradlint.model.names import dotted
from gradlint.model.values import Origin, iter_calls, keyword
from gradlint.rules.base import Finding, Rule

LOGIT_LOSSES = frozenset({"cross_entropy", "bce_with_logits"})  # the losses that apply the activation themselves


class LogOfSoftmax(Rule):
    code = "GL501"
    fix_applicability = "safe"
    name = "log-of-softmax"
    summary = "torch.log(softmax(x)): use log_softmax(x), which stays finite for large logits"
    triggers = ("softmax", "Softmax")
    trigger_pattern = LOG_CALL
    triggers_through_imports = True

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        for stmt, call in iter_calls(model, ("log(",)):  # torch.log(p), p.log()
            operand = _log_operand(model, call)
            if operand is None or gradients_off(model, stmt):
                continue  # under no_grad there are no gradients to turn NaN
            scope = model.parents.scope_of(stmt)
            origin = model.values.origin(operand, scope, call.lineno)
            if origin is None or origin.function != "softmax":
                continue
            message = (
                f"`{model.source(call)}` takes the log of a softmax: probabilities that underflow "
                f"to 0 give -inf and NaN gradients (already for logits 100 apart in float32); "
                f"`log_softmax` computes the same values stably"
            )
            yield Finding(self.code, model.span(call), message, _log_softmax_fix(model, call, origin, scope))


def _log_operand(model: ModuleModel, call: ast.Call) -> ast.expr | None:
    """`p` of `torch.log(p)` or `p.log()`."""
    func = call.func
    if model.imports.qualname(func) == "torch.log" and len(call.args) == 1 and not call.keywords:
        return call.args[0]
    head = (model.source(func).split(".")[0]) if isinstance(func, ast.Attribute) else ""
    if isinstance(func, ast.Attribute) and func.attr == "log" and not call.args and head not in model.imports.aliases:
        return func.value
    return None


def _log_softmax_fix(model: ModuleModel, call: ast.Call, origin: Origin, scope) -> FixPlan | None:
    softmax = origin.call
    if not origin.whole:
        return None
    if not origin.direct and not _recomputable(model, softmax.args, scope, softmax.lineno, call.lineno):
        return None
    if origin.module is not None:
        dim = keyword(origin.module, "dim", 0)
        if dim is None or model.imports.aliases.get("torch") != "torch" or origin.argument is None:
            return None
        text = f"torch.log_softmax({model.source(origin.argument)}, dim={model.source(dim)})"
    elif isinstance(softmax.func, ast.Attribute) and softmax.func.attr == "softmax":
        text = _renamed(model, softmax, "log_softmax")
        if text is None:
            return None
    else:
        return None
    return FixPlan("Use log_softmax", (ReplaceExpression(model.position(call), model.source(call), text),))


def _recomputable(model: ModuleModel, inputs: list[ast.expr], scope, computed: int, used: int) -> bool:
    """Reached through a variable, the activation's inputs can be named again where the value is
    used: plain names (no call would run twice) that nothing reassigned in between, the
    activation's own statement included (`y = torch.sigmoid(y)` leaves the logits no name)."""
    return all(
        not any(isinstance(n, ast.Call) for n in ast.walk(e)) and model.values.unchanged(e, scope, computed, used)
        and not any(s.lineno == computed for s in model.scope(scope).assignments.get(dotted(e) or "", ()))
        for e in inputs
    )


def _renamed(model: ModuleModel, call: ast.Call, name: str) -> str | None:
    """The call's text with its method/function name replaced: `F.softmax(x, -1)` -> `F.log_softmax(x, -1)`."""
    text, func = model.source(call), model.source(call.func)
    if not text.startswith(func):
        return None
    return f"{model.source(call.func.value)}.{name}{text[len(func):]}"


class _ActivationBeforeLoss(Rule):
    """A loss fed the output of the activation it applies itself."""

    losses: frozenset[str]
    activations: frozenset[str]
    triggers_through_imports = True

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        for loss in loss_calls(model, self.losses):
            if gradients_off(model, loss.stmt):
                continue  # an evaluation: the value is off, but no gradient is
            origin = model.values.origin(loss.input, loss.scope, loss.call.lineno)
            if origin is None or origin.function not in self.activations or origin.switched and loss.kind in LOGIT_LOSSES:
                continue  # a switch choosing logits or probabilities: the logits reach the loss that wants them
            yield Finding(self.code, model.span(loss.input), self.message(model, loss, origin), self.fix(model, loss, origin))

    def message(self, model, loss, origin) -> str:
        raise NotImplementedError

    def fix(self, model, loss, origin) -> FixPlan | None:
        raise NotImplementedError


def _pass_argument(model: ModuleModel, loss, origin: Origin) -> ReplaceExpression | None:
    """Replace the loss's input by what the activation was applied to."""
    argument = origin.argument
    if argument is None or not origin.whole:
        return None
    if not origin.direct and not _recomputable(model, [argument], loss.scope, origin.call.lineno, loss.call.lineno):
        return None
    return ReplaceExpression(model.position(loss.input), model.source(loss.input), model.source(argument))


class SoftmaxBeforeCrossEntropy(_ActivationBeforeLoss):
    code = "GL502"
    fix_applicability = "unsafe"
    name = "softmax-before-cross-entropy"
    summary = "cross-entropy fed probabilities (a softmax or sigmoid output) instead of logits"
    triggers = ("softmax", "Softmax", "sigmoid", "Sigmoid")
    trigger_pattern = CROSS_ENTROPY_CALL
    losses = frozenset({"cross_entropy"})
    activations = frozenset({"softmax", "sigmoid"})

    def message(self, model, loss, origin) -> str:
        return (
            f"`{model.source(loss.input)}` is a {origin.function} output, but cross-entropy applies "
            f"log_softmax itself: the loss sees softmax({origin.function}(x)), whose gradients shrink "
            f"toward 0 as the model grows confident; pass the logits"
        )

    def fix(self, model, loss, origin) -> FixPlan | None:
        replaced = _pass_argument(model, loss, origin)
        return FixPlan("Pass the logits", (replaced,), applicability="unsafe") if replaced else None


class SigmoidWithLogitsLoss(_ActivationBeforeLoss):
    code = "GL503"
    fix_applicability = "unsafe"
    name = "sigmoid-with-logits-loss"
    summary = "a with-logits BCE loss fed sigmoid(x), or BCELoss(sigmoid(x)) instead of BCEWithLogitsLoss(x)"
    triggers = ("sigmoid", "Sigmoid")
    trigger_pattern = BCE_CALL
    losses = frozenset({"bce_with_logits", "bce"})
    activations = frozenset({"sigmoid"})

    def message(self, model, loss, origin) -> str:
        if loss.kind == "bce_with_logits":
            return (
                f"`{model.source(loss.input)}` is a sigmoid output, but the with-logits loss applies "
                f"sigmoid itself: gradients are multiplied by sigmoid'(x) and vanish for large |x| "
                f"(hundreds of times smaller where |x| = 6 and the label disagrees); pass the logits"
            )
        return (
            f"binary cross-entropy on `{model.source(loss.input)}`: sigmoid then log saturates in "
            f"float32 (and is refused under autocast); `binary_cross_entropy_with_logits` / "
            f"`BCEWithLogitsLoss` on the logits computes the same loss stably"
        )

    def fix(self, model, loss, origin) -> FixPlan | None:
        replaced = _pass_argument(model, loss, origin)
        if replaced is None:
            return None
        if loss.kind == "bce_with_logits":
            return FixPlan("Pass the logits", (replaced,), applicability="unsafe")
        func = loss.call.func
        if not loss.functional or not isinstance(func, ast.Attribute):
            return None  # an nn.BCELoss object: its constructor is elsewhere
        renamed = ReplaceExpression(
            model.position(func), model.source(func), f"{model.source(func.value)}.binary_cross_entropy_with_logits"
        )
        return FixPlan("Use binary_cross_entropy_with_logits on the logits", (renamed, replaced), applicability="unsafe")
