"""Methods a training framework runs once per micro-batch, stepping after a window of them itself:
an override of transformers' `Trainer.training_step`. The Trainer clips, steps and clears after
every `args.gradient_accumulation_steps` calls, and the stock method divides the loss by that
number; an override is one micro-batch's code, judged against that window."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gradlint.model.events import STEPS, Event, Kind, unit_events
from gradlint.model.names import dotted

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

HF_TRAINER_WINDOW = "self.args.gradient_accumulation_steps"  # how a Trainer's method names its window
HF_TRAINER_STEPPED = ("optimizer", "model", "model_wrapped")  # a Trainer's attributes its step covers


@dataclass(frozen=True)
class FrameworkMicroStep:
    """A method a framework runs once per micro-batch, stepping after every `window` of them
    itself: the method's events are one micro-batch's, the step is not among them."""

    function: ast.FunctionDef
    window: str
    events: list[Event]
    stepped: frozenset[str]  # what the framework's step and clear cover, as the method names it

    def of(self, *kinds: Kind) -> list[Event]:
        return [e for e in self.events if e.kind in kinds]


def framework_micro_steps(model: "ModuleModel") -> list[FrameworkMicroStep]:
    """The module's overrides of a transformers Trainer's `training_step` that leave the step to
    the Trainer and accept its window."""
    from gradlint.model.callees import class_hierarchy

    found = []
    for cls in model.classes.values():
        method = model.methods(cls).get("training_step")
        if method is None or not derives_from_hf_trainer(class_hierarchy(model, cls)):
            continue
        events = unit_events(model, method)
        if any(e.kind in STEPS for e in events) or _refuses_accumulation(method):
            continue  # one stepping itself is a training loop; one refusing a window has none
        # `self.deepspeed.backward(loss)`: an engine the Trainer built, which divides itself
        own = model.class_attributes(cls)
        events = [e for e in events if not _trainer_engine_backward(e, own)]
        stepped = {f"self.{name}" for name in HF_TRAINER_STEPPED if name not in own}
        if len(method.args.args) > 1:
            stepped.add(method.args.args[1].arg)  # `training_step(self, model, inputs)`
        found.append(FrameworkMicroStep(method, HF_TRAINER_WINDOW, events, frozenset(stepped)))
    return found


def derives_from_hf_trainer(hierarchy) -> bool:
    """A class of the hierarchy names transformers' `Trainer` (or one of its subclasses) as a base."""
    return any(
        (module.imports.qualname(base) or "").startswith("transformers.") and dotted(base).endswith("Trainer")
        for module, known in hierarchy for base in known.bases if dotted(base)
    )


def _trainer_engine_backward(event: Event, own_attributes) -> bool:
    """`self.X.backward(loss)` where no class of the project sets `self.X`: the backward of an
    engine the framework's Trainer holds (DeepSpeed's, Accelerate's)."""
    func = event.node.func if isinstance(event.node, ast.Call) else None
    if event.kind is not Kind.BACKWARD or not isinstance(func, ast.Attribute) or not event.node.args:
        return False
    receiver = func.value
    return (
        isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name)
        and receiver.value.id == "self" and receiver.attr not in own_attributes
    )


def _refuses_accumulation(method: ast.FunctionDef) -> bool:
    """`if self.args.gradient_accumulation_steps > 1: raise ValueError` (or `assert ... == 1`)
    in the method's own body: the window is 1, every call steps."""
    for stmt in method.body:
        if isinstance(stmt, ast.Assert):
            test, refused_when = stmt.test, False
        elif isinstance(stmt, ast.If) and stmt.body and isinstance(stmt.body[-1], ast.Raise):
            test, refused_when = stmt.test, True
        else:
            continue
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and dotted(test.left) == HF_TRAINER_WINDOW):
            continue
        op, bound = test.ops[0], test.comparators[0]
        if not (isinstance(bound, ast.Constant) and bound.value in (1, 2)):
            continue
        above_one = {ast.Gt: bound.value == 1, ast.GtE: bound.value == 2, ast.NotEq: bound.value == 1}.get(type(op))
        exactly_one = isinstance(op, ast.Eq) and bound.value == 1
        if (refused_when and above_one) or (not refused_when and exactly_one):
            return True
    return False
