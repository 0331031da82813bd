"""Overrides that backpropagate and leave the step to their base class: guided-diffusion's
`forward_backward`, abstract in a base `TrainLoop` and written anew by each subclass, whose
`run_step` calls `self.forward_backward(batch)` and then steps (`self.mp_trainer.optimize(self.opt)`).
The walk of the base method cannot tell which subclass's override runs, and the override holds
no step of its own: it is judged here, in its own module, with the step its base class takes
once it returns."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gradlint.model.callees import CallContext, class_hierarchy, inherited_self_calls, is_abstract
from gradlint.model.events import STEPS, Event, unit_events
from gradlint.model.loops import TrainingLoop

if TYPE_CHECKING:
    from gradlint.model import ModuleModel


@dataclass(frozen=True)
class SteppedByBase:
    """An override's own events (`unit`), and the step the base class takes after it returns,
    as an event of the base module's code (`step`, reported at its own call)."""

    unit: TrainingLoop
    step: Event
    stepped_in: str  # the base class method taking that step (`TrainLoop.run_step`)


def stepped_by_base(model: "ModuleModel") -> list[SteppedByBase]:
    """The module's methods that override an abstract method of a project base class, call
    backward, take no step (nor does a helper of theirs), and are called by the base class's own
    methods, each of which steps right after the call returns (unguarded, in the same block)."""
    found = []
    for cls in model.classes.values():
        backpropagating = {name: m for name, m in model.methods(cls).items() if model.calls_backward_in(m)}
        bases = class_hierarchy(model, cls)[1:] if backpropagating and cls.bases else []
        for name, method in backpropagating.items():
            if not any(is_abstract(module.methods(base).get(name)) for module, base in bases):
                continue
            unit = TrainingLoop(model, method, unit_events(model, method))
            if unit.of(*STEPS):
                continue  # a step function of its own, judged with its callers as a unit
            callers = [context for _, context in inherited_self_calls(model, cls, name)]
            steps = [_step_after(context) for context in callers]
            if steps and all(steps):
                caller = callers[0]
                found.append(SteppedByBase(unit, steps[0], f"{caller.cls.name}.{caller.scope.name}" if caller.cls else caller.scope.name))
    return found


def _step_after(context: CallContext) -> Event | None:
    """The step the caller's code takes after the call's statement, in the same block, under no
    test; as the caller's module reads it, reported where it stands."""
    module, statement = context.module, context.statement
    block = module.parents.block.get(statement) or []
    later = block[block.index(statement) + 1 :] if statement in block else []
    for event in unit_events(module, context.scope):
        anchor = event.anchor
        own_tests = [g for g in event.guards if g.node in module.parents.parent]  # not a helper's own `if fp16:`
        if event.kind in STEPS and not own_tests and any(s.lineno <= anchor.lineno <= s.end_lineno for s in later):
            return dataclasses.replace(event, elsewhere=False, reported_at=None)
    return None
