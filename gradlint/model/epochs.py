"""What the loop around a training loop does before it: an epoch loop that steps a scheduler
before the epoch's optimizer steps (GL106's epoch-level shape), or a function its callers run
once per epoch that steps one before its training loop."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gradlint.model.callees import CallContext, Callee, bind_arguments, callers, class_of_scope, own_schedule, parameter_defaults, resolve_callee
from gradlint.model.events import STEPS, Event, Kind, unit_events
from gradlint.model.grad_mode import turns_off
from gradlint.model.guards import settled_by
from gradlint.model.learning_rates import stepped_on_the_rate
from gradlint.model.names import dotted
from gradlint.model.roles import Role
from gradlint.model.values import iter_calls

if TYPE_CHECKING:
    from gradlint.model import ModuleModel, TrainingLoop

LOOPS = (ast.For, ast.AsyncFor, ast.While)


@dataclass(frozen=True)
class EarlySchedulerStep:
    call: ast.Call  # `scheduler.step()`, no argument
    stmt: ast.stmt  # the statement of the epoch loop's body that holds it
    training: ast.stmt  # the statement of the same body that holds the training loop
    # a function run once per epoch: a caller's module and the loop calling it there
    per_epoch_call: tuple["ModuleModel", ast.stmt] | None = None


def scheduler_steps_before_training(model: "ModuleModel", loop: "TrainingLoop") -> list[EarlySchedulerStep]:
    """`scheduler.step()` calls in the enclosing loop's body before the statement holding the
    training loop, with no optimizer or scaler step before them in that body."""
    if not isinstance(loop.node, LOOPS):
        return []
    chain = model.parents.chain(loop.node)
    outer_index = next((i for i, s in enumerate(chain[1:], 1) if isinstance(s, LOOPS)), None)
    if outer_index is None:
        return _at_start_of_epoch_function(model, loop, chain[-1])
    return _early_in_epoch(model, chain[outer_index], chain[outer_index - 1])


def scheduler_steps_before_imported_training(model: "ModuleModel") -> list[tuple[EarlySchedulerStep, "ModuleModel", Event]]:
    """`for epoch ...: scheduler.step(); train_one_epoch(model, loader, optimizer)` where the
    function holding the batch loop is in another module of the project: that module has no
    scheduler to report, so this one reports its epoch loop. Each early step comes with the
    other module and the first optimizer step of the training loop the call runs there."""
    if model.project is None:
        return []
    found = []
    for stmt, call in iter_calls(model, (".step(",)):
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == "step" and model.roles.of(call.func.value) is Role.SCHEDULER):
            continue
        chain = model.parents.chain(stmt)
        index = next((i for i, s in enumerate(chain[1:], 1) if isinstance(s, LOOPS)), None)
        if index is None or chain[index - 1] not in chain[index].body:
            continue
        outer = chain[index]
        scope = model.parents.scope_of(outer)
        context = CallContext(model, scope, class_of_scope(model, scope))
        for holder in outer.body[outer.body.index(chain[index - 1]) + 1 :]:
            callee = _imported_function(model, holder, context)
            early = [e for e in _early_in_epoch(model, outer, holder) if e.call is call] if callee is not None else []
            step = _training_step(callee) if early else None
            if step is not None:
                found += [(e, callee.module, step) for e in early]
                break
    return found


def _imported_function(model: "ModuleModel", holder: ast.stmt, context: CallContext):
    """The function of another project module the statement calls (`train_loss =
    train_one_epoch(...)`), when it is one."""
    value = getattr(holder, "value", None)
    if not isinstance(value, ast.Call):
        return None
    callee = resolve_callee(model, value, context)
    if callee is None or callee.module is model or not isinstance(callee.function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return callee


def _training_step(callee) -> Event | None:
    """The first optimizer step of a training loop of the callee's function, in its module."""
    for loop in callee.module.loops:
        if callee.module.parents.scope_of(loop.node) is callee.function and (view := loop.ordered_by_hand) is not None:
            steps = view.of(*STEPS)
            if steps:
                return steps[0]
    return None


def _early_in_epoch(model: "ModuleModel", outer: ast.stmt, holder: ast.stmt) -> list[EarlySchedulerStep]:
    """Scheduler steps in the body of the epoch loop `outer` before `holder`, the statement of
    that body that trains (the batch loop, or the call of the function holding it)."""
    if model.parents.block.get(holder) is not outer.body:
        return []
    found = []
    scope = model.parents.scope_of(outer)
    context = CallContext(model, scope, class_of_scope(model, scope))
    counters = _epoch_counters(outer)
    for stmt in outer.body[: outer.body.index(holder)]:
        for node in ast.walk(stmt):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "step"):
                continue
            if _under_epoch_test(stmt, node, counters):
                continue  # `if epoch > start_epoch: scheduler.step()`: the end of the epoch before
            role = model.roles.of(node.func.value)
            if role in (Role.OPTIMIZER, Role.SCALER):
                return []  # something steps first: the scheduler may well be meant for it
            if role is Role.SCHEDULER and not node.args and not node.keywords and not own_schedule(model, node.func.value, context):
                if not _rewound_by_one(model, node.func.value, context):
                    found.append(EarlySchedulerStep(node, stmt, holder))
    return found


def _rewound_by_one(model: "ModuleModel", scheduler: ast.expr, context: CallContext) -> bool:
    """`scheduler.last_epoch = start_epoch - 1` in the function or (for `self.scheduler`) in its
    class: the count is set one behind on purpose, so the step at an epoch's start brings it to
    that epoch's rate (ultralytics' trainers)."""
    name = dotted(scheduler)
    where = context.cls if name is not None and name.startswith("self.") and context.cls is not None else context.scope
    return name is not None and any(
        isinstance(node, ast.Assign) and isinstance(node.value, ast.BinOp) and isinstance(node.value.op, ast.Sub)
        and isinstance(node.value.right, ast.Constant) and node.value.right.value == 1
        and any(isinstance(t, ast.Attribute) and t.attr == "last_epoch" and dotted(t.value) == name for t in node.targets)
        for node in ast.walk(where)
    )


def skips_first_epoch(event) -> bool:
    """The event runs only after the first epoch (`if epoch > 0: scheduler.step()`): a scheduler
    stepped as a later epoch begins closes the epoch before it, after that epoch's steps."""
    return any(_after_epoch_zero(g.test) == g.holds for g in event.guards)  # None equals neither side


def _after_epoch_zero(test: ast.expr) -> bool | None:
    """True for `epoch > 0`, `epoch != 0`, `epoch >= 1`; False for `epoch == 0`; None for any
    other test (a name whose last part speaks of epochs, compared with a literal)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant)):
        return None
    name, bound, op = dotted(test.left) or "", test.comparators[0].value, test.ops[0]
    if "epoch" not in name.rsplit(".", 1)[-1].lower() or isinstance(bound, bool) or not isinstance(bound, int):
        return None
    if (isinstance(op, (ast.Gt, ast.NotEq)) and bound == 0) or (isinstance(op, ast.GtE) and bound == 1):
        return True
    return False if isinstance(op, ast.Eq) and bound == 0 else None


def _epoch_counters(outer: ast.stmt) -> set[str]:
    """Names counting the epoch loop's passes: its `for` target, or what its body counts up.
    A loop over written-out phases (`for phase in ["train", "val"]`) counts none: `if phase ==
    "train"` runs on every epoch, the first one too."""
    counts = isinstance(outer, (ast.For, ast.AsyncFor)) and not _phases(outer.iter)
    names = {n.id for n in ast.walk(outer.target) if isinstance(n, ast.Name)} if counts else set()
    return names | {
        s.target.id for s in ast.walk(outer) if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name)
    }


def _phases(iterable: ast.expr) -> bool:
    """A list or tuple of constants written out: the phases of one epoch."""
    return isinstance(iterable, (ast.List, ast.Tuple)) and bool(iterable.elts) and all(
        isinstance(e, ast.Constant) for e in iterable.elts
    )


def _under_epoch_test(stmt: ast.stmt, call: ast.Call, counters: set[str]) -> bool:
    """The call sits under an `if` of the epoch body whose test reads the epoch's count: it may
    well skip the first epoch."""
    return any(
        isinstance(node, ast.If) and _holds(node, call)
        and any(isinstance(n, ast.Name) and n.id in counters for n in ast.walk(node.test))
        for node in ast.walk(stmt)
    )


def _at_start_of_epoch_function(model: "ModuleModel", loop: "TrainingLoop", holder: ast.stmt) -> list[EarlySchedulerStep]:
    """`def train_one_epoch(...): scheduler.step()` and then the batch loop, in a function that
    every caller runs inside a loop (once per epoch): the first epoch's scheduler step comes
    before any optimizer step, as in an epoch loop's body."""
    function = model.parents.scope_of(loop.node)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or model.parents.block.get(holder) is not function.body:
        return []
    return _at_start_of_function(model, loop, function, holder) or _before_call_in_epoch(model, function)


def _at_start_of_function(model: "ModuleModel", loop: "TrainingLoop", function: ast.AST, holder: ast.stmt) -> list[EarlySchedulerStep]:
    events = unit_events(model, function)
    start = min((e.order for e in events if any(l is loop.node for l in e.loops)), default=None)
    if start is None:
        return []
    before = [e for e in events if e.order < start]
    if any(e.kind in STEPS for e in before):
        return []  # something steps first: the scheduler may well be meant for it
    early = [
        e for e in before
        if e.kind is Kind.SCHED_STEP and not e.loops and not e.inlined and not e.own_schedule
        and not e.node.args and not e.node.keywords and not stepped_on_the_rate(e)
    ]
    call = _per_epoch_call(model, function) if early else None
    if call is None:
        return []
    statements = function.body[: function.body.index(holder)]
    return [
        EarlySchedulerStep(e.node, stmt, holder, call)
        for e in early for stmt in statements if _holds(stmt, e.node)
    ]


def _before_call_in_epoch(model: "ModuleModel", function: ast.AST, hops: int = 2) -> list[EarlySchedulerStep]:
    """`for epoch ...: scheduler.step(); train(model, loader, optimizer)`: an epoch loop of
    this module stepping a scheduler before it calls the function holding the batch loop,
    directly or through a function that calls it outside any loop (`loop` -> `self.train()`
    -> `self.train_iteration()`); callers in other modules are left alone: the step would be
    reported there."""
    found = []
    for call, context in callers(model, function):
        if context.module is not model or context.statement is None or not _may_step(model, function, call):
            continue
        chain = model.parents.chain(context.statement)
        index = next((i for i, s in enumerate(chain[1:], 1) if isinstance(s, LOOPS)), None)
        if index is not None:
            found += _early_in_epoch(model, chain[index], chain[index - 1])
        elif hops > 1 and isinstance(context.scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and context.scope is not function:
            found += _before_call_in_epoch(model, context.scope, hops - 1)
    return found


def _may_step(model: "ModuleModel", function: ast.AST, call: ast.Call) -> bool:
    """Whether running `function` from `call` may take an optimizer step: not where every step
    waits for a test the call's literal argument settles the other way (`if mode == "train":`
    in `iterate(..., mode="val")`), nor in a function decorated `@torch.no_grad()`."""
    if any(turns_off(model, d) for d in getattr(function, "decorator_list", ())):
        return False  # `@torch.no_grad()` on an evaluation run through the same step function
    passed, defaults = bind_arguments(Callee(model, function), call), parameter_defaults(function)
    rebound = model.scope(function).assignments

    def constant_of(name: str) -> ast.Constant | None:
        value = None if name in rebound else passed.get(name, defaults.get(name))
        return value if isinstance(value, ast.Constant) else None

    steps = [e for e in unit_events(model, function) if e.kind in STEPS]
    return not steps or any(all(settled_by(g.test, constant_of) in (None, g.holds) for g in e.guards) for e in steps)


def _per_epoch_call(model: "ModuleModel", function: ast.AST) -> tuple["ModuleModel", ast.stmt] | None:
    """(caller's module, its loop) calling `function`, when every caller calls it in a loop
    (but those whose literal arguments rule its steps out: `train(..., partition='test')`)."""
    found = [(call, context) for call, context in callers(model, function) if context.module is not model or _may_step(model, function, call)]
    looped = [
        (context.module, loop) for _, context in found if context.statement is not None
        for loop in [next((s for s in context.module.parents.chain(context.statement)[1:] if isinstance(s, LOOPS)), None)]
        if loop is not None
    ]
    return looped[0] if found and len(looped) == len(found) else None


def _holds(stmt: ast.stmt, node: ast.AST) -> bool:
    return stmt.lineno <= node.lineno and node.end_lineno <= stmt.end_lineno
