"""What an optimizer's construction says about the update it applies (its learning rate)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradlint.model.events import STEPS, Kind
from gradlint.model.frames import constructions, spelled_in
from gradlint.model.names import dotted

if TYPE_CHECKING:
    from gradlint.model import ModuleModel
    from gradlint.model.events import Event
    from gradlint.model.loops import TrainingLoop


def divides_learning_rate(model: "ModuleModel", step: "Event", factor: ast.expr) -> bool:
    """The stepped optimizer was built with its learning rate divided by the window's factor
    (`lr=base_lr`, `base_lr = cfg.lr / batch_size / subdivision`, darknet's convention): the
    window's summed gradients are applied at 1/N of the rate, which is the mean's update (SGD),
    so an undivided loss is compensated, not a bug. Read where the callers build an optimizer
    handed in."""
    call = step.node
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute) or step.scope is None:
        return False
    # `optimizer.step()`, or `scaler.step(optimizer)`
    optimizer = call.func.value if step.kind is Kind.STEP else call.args[0] if call.args else None
    for owner, built, scope, line, wanted in constructions(step.module or model, optimizer, step.scope, call.lineno, factor) if optimizer else ():
        rate = next((k.value for k in built.keywords if k.arg == "lr"), built.args[1] if len(built.args) > 1 else None)
        divisor = ast.dump(wanted)
        if rate is not None and any(_divides_by(node, divisor) for node in spelled_in(owner, rate, scope, line)):
            return True
    return False


def _divides_by(node: ast.AST, divisor: str) -> bool:
    """`x / divisor`, `x / (a * divisor)`: `divisor` (dumped) in the denominator."""
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and any(ast.dump(n) == divisor for n in ast.walk(node.right))


def moved_on_purpose(loop: "TrainingLoop", sched: "Event") -> bool:
    """The code moves the schedule on purpose, not once per update: because of where the
    rate stands, or in a loop of its own that runs no backward and no step (annealing on a
    plateau by advancing the schedule)."""
    return stepped_on_the_rate(sched) or _fast_forwarded(loop, sched)


def _fast_forwarded(loop: "TrainingLoop", sched: "Event") -> bool:
    inner = sched.loops[-1] if sched.loops else None
    if isinstance(inner, ast.For) and isinstance(sched.node.func, ast.Attribute) and dotted(inner.target) == dotted(sched.node.func.value):
        return False  # `for scheduler in self.schedulers: scheduler.step()`: each once, no fast-forward
    return inner is not None and inner is not loop.node and not any(
        e is not sched and inner in e.loops and (e.kind in STEPS or e.kind is Kind.BACKWARD) for e in loop.events
    )


def stepped_on_the_rate(event: "Event") -> bool:
    """A scheduler step under a test of the current learning rate (`if
    optimizer.param_groups[0]["lr"] == 0: scheduler.step()`, `while scheduler.get_last_lr()[0]
    > target:`): the code moves the schedule because of where it stands, on purpose."""
    return any(_reads_the_rate(g.test) for g in event.guards)


def _reads_the_rate(test: ast.expr) -> bool:
    """The test reads the optimizer's param groups (`optimizer.param_groups[0]["lr"]`, also
    through `state_dict()["param_groups"]`) or the scheduler's last rate."""
    return any(
        isinstance(node, ast.Attribute) and node.attr in ("param_groups", "get_last_lr", "get_lr")
        or isinstance(node, ast.Constant) and node.value == "param_groups"
        for node in ast.walk(test)
    )
