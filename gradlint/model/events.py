"""Gradient events of one training loop, in program order, each with its guards and contexts."""

from __future__ import annotations

import ast
import bisect
import itertools
import re
from dataclasses import dataclass, field, replace
from enum import Enum, auto
from collections.abc import Callable
from typing import TYPE_CHECKING

from gradlint.model.callees import Callee, CallContext, bind_arguments, callers, class_of_instance, constructor, class_hierarchy, class_of_scope, constructor_attributes, constructor_parameter, defines_class, find_method, held_parameter, holds_only_none, is_abstract, own_schedule, is_static, parameter_names, resolve_callee, returned_value, sole_override
from gradlint.model.hooks import runner_model_is_ddp, runner_of_hook
from gradlint.model.fresh_models import on_fresh_model
from gradlint.model.frames import FUNCTION_TYPES, Frame, combined_role, left_at_default, inherited_role, wrapped_by_subclass, constructor_role, ddp_object_fields, passed_for, role_in_frame, switch_every_caller_sets, value_outside
from gradlint.model.guards import Guard, conjunction_excludes, flags_set, make_guard, runs_once, settled_by, truthy_flag
from gradlint.model.grad_mode import turns_off
from gradlint.model.flags import countdown_test, exclusive_flags, set_in_branches, skipped_below_test
from gradlint.model.losses import loss_normalized
from gradlint.model.names import BUILTIN_NAMES, dotted, from_dotted, is_literal, with_names_replaced
from gradlint.model.roles import Role
from gradlint.model.spelling import occurrences
from gradlint.model.values import branch_setting, element_target, keyword

if TYPE_CHECKING:
    from gradlint.model import ModuleModel


class Kind(Enum):
    ZERO_GRAD = auto()
    FORWARD = auto()
    BACKWARD = auto()
    UNSCALE = auto()
    CLIP = auto()
    STEP = auto()
    SCALER_STEP = auto()
    SCALER_UPDATE = auto()
    SCHED_STEP = auto()
    NO_SYNC = auto()
    GRAD_RESCALE = auto()
    # Gradients copied onto other tensors (`master.grad = p.grad.float()`, fp32 master weights):
    # clearing the originals afterwards leaves the copies for the step.
    GRAD_COPY = auto()
    # Gradients written from a store (`p.grad = backup[name]`, a sum kept aside over adversarial
    # rounds): written after a clear, they are what the step reads.
    GRAD_WRITE = auto()
    # Gradients handled by a framework (Accelerate, DeepSpeed, Lightning, closures): hands off.
    FRAMEWORK = auto()


STEPS = (Kind.STEP, Kind.SCALER_STEP)
SELF_CALL = re.compile(r"self(?<!\wself)\.(\w+)\(")  # `self.model(x)`: an attribute called
SELF_ARGUMENT = re.compile(r"[(,=]\s*self\.(\w+)\s*[,)]")  # `f(self.model, x)`: an attribute handed over
CLIPPER_CLASS = re.compile(r"clipper|grad\w*clip", re.IGNORECASE)  # `GradientClipper`, not CLIP the model
CLIP_FUNCTIONS = frozenset({"clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_grad_value"})
NO_SYNC_ATTRIBUTES = frozenset({"no_sync", "require_backward_grad_sync", "set_requires_gradient_sync", "no_backward_sync"})
LOOP_TYPES = (ast.For, ast.AsyncFor, ast.While)
COMPOUND_TYPES = (ast.If, *LOOP_TYPES, ast.With, ast.AsyncWith, ast.Try, ast.Match)
SYNC_SWITCH_WORDS = ("allreduce", "all_reduce", "sync")  # `model.disable_allreduce()` ...
LIGHTNING_CLIPS = frozenset({"clip_gradients"})
# methods a trainer class may define itself (a guarded clear, a clip that unscales first)
OVERRIDABLE_EVENT_METHODS = frozenset({"zero_grad", *LIGHTNING_CLIPS, *CLIP_FUNCTIONS})
MAX_HELPER_DEPTH = 6  # how many calls deep the walk follows helpers
GRAD_RESCALE_METHODS = frozenset({"mul_", "div_"})
# builtins that call what they are given (`map(ddp_model, chunks)`)
CALLING_BUILTINS = frozenset({"map", "filter", "sorted", "min", "max", "iter"})
FRAMEWORK_ROLES = (Role.ACCELERATOR, Role.ENGINE)
# torch's modules whose functions read a model's state, never running it
STATE_DICT_MODULES = ("torch.distributed.checkpoint", "torch.save")
# what a function handed a DDP model must spell on it to run it or switch its sync
RUNNING_ATTRIBUTES = NO_SYNC_ATTRIBUTES | {"forward", "__call__", "require_forward_param_sync", "join"}
INSPECTING_BUILTINS = frozenset({"isinstance", "hasattr", "getattr", "type", "id", "print", "repr", "str"})
# methods that hand gradients to a framework: Lightning's `self.manual_backward(loss)` whatever
# the receiver, and on an optimizer Opacus's `virtual_step()` (0.x), whose privacy engine keeps each
# micro-batch's clipped per-sample gradients and averages the logical batch at `step()` (DARTS's
# `architect.virtual_step(...)` is a project method of its own)
HANDED_TO_FRAMEWORK = {"manual_backward": None, "virtual_step": Role.OPTIMIZER}
# what a framework's engine does without touching gradients
ENGINE_INERT_METHODS = frozenset({
    "train", "eval", "parameters", "named_parameters", "state_dict", "load_state_dict",
    "save_checkpoint", "load_checkpoint", "to", "cuda", "cpu", "get_lr", "get_global_grad_norm",
})
# what an Accelerate accelerator does to gradients (its clips are read as clips)
ACCELERATOR_GRADIENT_METHODS = frozenset({"backward", "accumulate", "no_sync", "unscale_gradients"})
# methods whose receiver's role decides an event (beside any sync switch of a DDP model)
ROLE_METHODS = frozenset({
    "backward", "manual_backward", "step", "zero_grad", "unscale_", "update", "scale", "forward",
    "clip_gradients", "no_backward_sync", *CLIP_FUNCTIONS, *NO_SYNC_ATTRIBUTES,
})


@dataclass(frozen=True)
class LossSource:
    """Where the tensor backward runs on comes from, followed out of helpers to the argument
    the caller passed (`loss_scaler(loss, ...)` -> the caller's `loss`)."""

    module: "ModuleModel"
    expr: ast.expr
    scope: ast.AST
    line: int
    passed_at: ast.Call | None = None  # the call that handed the loss to the helper
    defaults: tuple[tuple[str, ast.expr], ...] = ()  # the helper's parameters its call leaves at their defaults
    # a helper's loss reassigned in it (`loss = loss / n`): its parameters' arguments, and the
    # caller's module, function and call line, to read those arguments where they were passed
    bound: tuple[tuple[str, ast.expr], ...] = ()
    caller: "tuple[ModuleModel, ast.AST, int] | None" = None


@dataclass(frozen=True)
class Event:
    kind: Kind
    node: ast.AST  # the call, or the statement for assignments (in `module`'s tree)
    stmt: ast.stmt  # the innermost statement holding it
    order: int
    guards: tuple[Guard, ...] = ()
    loops: tuple[ast.stmt, ...] = ()  # loops inside the training loop that enclose the event
    contexts: tuple[ast.expr, ...] = ()  # `with` items enclosing the event
    scope: ast.AST | None = None  # the function (or module) whose code holds the statement
    target: str | None = None  # receiver, as the unit spells it: optimizer, scaler, model ...
    optimizer: str | None = None  # the optimizer it acts for, where there is one
    loss: ast.expr | None = None  # BACKWARD: the tensor backward runs on (unwrapped from scale)
    scaler: str | None = None  # BACKWARD: the scaler whose scale() wrapped the loss
    module: "ModuleModel | None" = None  # the module whose tree holds `node`
    site: ast.Call | None = None  # the unit's own call through which a helper's event runs
    foreign: bool = False  # `node` belongs to another module than the unit's
    elsewhere: bool = False  # foreign, or in a method of another object (`loss_scaler(...)`)
    reported_at: ast.Call | None = None  # for events elsewhere: the unit-side call leading there
    loss_source: LossSource | None = None
    threshold_scaled: bool = False  # CLIP: max_norm multiplied by the scaler's get_scale()
    own_schedule: bool = False  # SCHED_STEP: a project class that is no torch LR scheduler
    by_accelerator: bool = False  # FRAMEWORK, BACKWARD: a call on an Accelerate accelerator (`scaler`: it, under fp16)
    scaling_optimizer: str | None = None  # BACKWARD: `optimizer.backward(loss)` of apex's FP16_Optimizer, which scales

    @property
    def inlined(self) -> bool:
        """Found in a helper called from the unit, not in the unit's own code."""
        return self.site is not None

    @property
    def anchor(self) -> ast.AST:
        """Where to report the event in the unit's module: the event itself, or the call that
        leads to it when it sits in another module or another object's method."""
        return self.reported_at if self.elsewhere and self.reported_at is not None else self.node

    @property
    def without_grad(self) -> bool:
        """Runs under `torch.no_grad()`, `inference_mode()` or `set_grad_enabled(False)`: an
        evaluation, no backward."""
        return self.module is not None and (
            any(turns_off(self.module, c) for c in self.contexts) or _entered_without_grad(self.module, self.stmt)
        )

    @property
    def recovering(self) -> bool:
        """Runs in an `except` handler, in a branch that then leaves the iteration (`if
        torch.isnan(loss): zero_grad(); continue`), or where a value is not finite (`if
        math.isnan(grad_norm): zero_grad()`): the recovery from a failure, not the normal path."""
        if any(
            (isinstance(g.node, ast.ExceptHandler) and g.holds) or _finds_non_finite(g.test, g.holds)
            or _flags_non_finite(self.module, g) for g in self.guards
        ):
            return True
        parents = self.module.parents if self.module is not None else None
        block = parents.block.get(self.stmt) if parents is not None else None
        return block is not None and isinstance(parents.parent.get(self.stmt), ast.If) and _leaves_block(block)

    def handles_failure_of(self, earlier: "Event") -> bool:
        """Runs in an `except` handler of the `try` whose body holds `earlier`: only where that
        body raised, so `earlier` may never have completed (`try: scaler.step(opt) except
        RuntimeError: unscale, clip, step again`)."""
        if self.module is None or earlier.module is not self.module:
            return False
        parents = self.module.parents
        for guard in self.guards:
            handled = guard.node if isinstance(guard.node, ast.ExceptHandler) and guard.holds else None
            attempt = parents.parent.get(handled.body[0]) if handled is not None and handled.body else None
            if isinstance(attempt, ast.Try) and attempt.body and (
                attempt.body[0].lineno <= earlier.stmt.lineno and earlier.stmt.end_lineno <= attempt.body[-1].end_lineno
            ):
                return True
        return False

    def drops_skipped_window(self, step: "Event") -> bool:
        """`if stats["skip"]: zero_grad()` ... `if i % N == 0 and not stats["skip"]: step()`: the
        event runs where the step is told to skip its window (an overflow), dropping it; also
        where its own block raises the flag the step tests (`if action == "skip": zero_grad();
        skip_step = True` ... `if not skip_step and ...: step()`)."""
        tests = {ast.dump(g.test) for g in self.guards if g.holds} | {ast.dump(ast.Name(flag, ast.Load())) for flag in self._raised_flags()}
        return any(
            g.holds and any(  # `not T` as the test, or a part of an `and` in it (the tail flush's `or` around)
                isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Not) and ast.dump(part.operand) in tests
                for node in ast.walk(g.test) if node is g.test or (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And))
                for part in (node.values if isinstance(node, ast.BoolOp) else [node])
            )
            for g in step.guards
        )

    def _raised_flags(self) -> set[str]:
        """Names the event's own block leaves set to True (`skip_step = True` beside a clear)."""
        block = self.module.parents.block.get(self.stmt, []) if self.module is not None else []
        last: dict[str, bool] = {}
        for stmt in block:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, bool):
                last.update((t.id, stmt.value.value) for t in stmt.targets if isinstance(t, ast.Name))
        return {name for name, value in last.items() if value}

    @property
    def boundary_guard(self) -> Guard | None:
        return next((g for g in self.guards if g.boundary is not None), None)

    def exclusive_with(self, other: "Event") -> bool:
        return (
            any(a.excludes(b) for a in self.guards for b in other.guards)
            or conjunction_excludes(self.guards, other.guards) or conjunction_excludes(other.guards, self.guards)
        )

    def loss_normalized(self) -> bool | None:
        """BACKWARD: is the loss visibly divided before backward (None: cannot tell)?"""
        source = self.loss_source
        if source is None:
            return None
        passed = passed_for(source.module, source.scope, source.expr, source.line)
        if passed is not None:  # a step function handed its loss: what do its callers pass?
            verdicts = [loss_normalized(m, argument, scope, line) for m, argument, scope, line in passed or ()]
            return True if True in verdicts else (False if verdicts and all(v is False for v in verdicts) else None)
        return loss_normalized(source.module, source.expr, source.scope, source.line, dict(source.defaults), source.bound, source.caller)


class _PendingGuard:
    """A guard judged only when an event under it is recorded: most `if`s a walk passes hold
    no event, and judging a test (its boundary, names resolved through the frames) costs more
    than walking the branch. Judged once, so every event under it shares one Guard."""

    __slots__ = ("_guard", "_judge")

    def __init__(self, judge: Callable[[], Guard]):
        self._judge, self._guard = judge, None

    def get(self) -> Guard:
        if self._guard is None:
            self._guard = self._judge()
        return self._guard


@dataclass
class _State:
    guards: list[_PendingGuard] = field(default_factory=list)
    loops: list[ast.stmt] = field(default_factory=list)
    contexts: list[ast.expr] = field(default_factory=list)
    context_names: dict[str, ast.expr] = field(default_factory=dict)  # `with x() as name`


@dataclass(frozen=True)
class _Entry:
    """The walk's state on entering a loop's body: the first event's index and the depths of
    the guards, loops and contexts around the loop."""

    start: int
    guards: int
    loops: int
    contexts: int

    def trim(self, event: Event) -> Event:
        """The event as a walk of the loop's body alone lists it."""
        return replace(
            event, order=event.order - self.start, guards=event.guards[self.guards :],
            loops=event.loops[self.loops :], contexts=event.contexts[self.contexts :],
        )


def unit_events(model: "ModuleModel", unit: ast.AST, instance: "Callee | None" = None) -> list[Event]:
    """The events of a loop's (or function's) body, walked once per module: the loops inside
    a walked unit get theirs from its walk (an epoch loop, its batch loop and the function
    around them are one walk, helpers followed once). `instance`: a method of the subclass
    whose object runs a base class's loop (`BaseTrainer._train_epoch` calling `self.process_batch`,
    which only the subclass defines): the loop as it runs on that object."""

    def compute() -> list[Event]:
        walker = EventWalker(model, unit, instance)
        events = walker.walk(unit.body)
        for loop, nested in walker.nested_units() if instance is None else ():
            model.memo(("events", id(loop)), lambda: nested)
        return events

    return model.memo(("events", id(unit)) if instance is None else ("events", id(unit), id(instance.cls)), compute)


class EventWalker:
    """Walks the body of one loop (or function) and lists its events.

    Calls the model can resolve (callees.py: functions, closures, `self.` methods through base
    classes, callable objects, other project modules) are followed to a bounded depth, without
    cycles; their events are placed at the call, under the caller's guards and contexts, with
    their parameters bound to the caller's arguments.
    """

    def __init__(self, model: "ModuleModel", unit: ast.AST, instance: Callee | None = None):
        self.model = model
        unit_scope = unit if isinstance(unit, FUNCTION_TYPES) else model.parents.scope_of(unit)
        self.events: list[Event] = []
        self.state = _State()
        self.frame = Frame(model, unit_scope, class_of_scope(model, unit_scope))
        self.instance = instance  # the subclass's method the object runs this loop for (unit_events)
        self.nested: list[tuple[ast.stmt, _Entry, int]] = []  # loops of the unit's own code
        self.followed: list[ast.AST] = []  # functions walked, in order
        # calls not followed: None for depth, else the function, being walked already
        self.cuts: list[ast.AST | None] = []

    def walk(self, body: list[ast.stmt]) -> list[Event]:
        self._runner_forward()
        self._block(body)
        return self.events

    def _runner_forward(self) -> None:
        """An mmcv optimizer hook's iteration follows the runner's forward of `runner.model`
        (hooks.py): the unit's first event. It has no place in the hook's own code (no scope,
        so no fix moves code around it)."""
        frame = self.frame
        runner = runner_of_hook(frame.module, frame.scope, frame.cls)
        if runner is None or not frame.scope.body or not runner_model_is_ddp(frame.module):
            return
        first = frame.scope.body[0]
        self.events.append(Event(Kind.FORWARD, first, first, 0, target=f"{runner}.model", module=frame.module))

    def nested_units(self):
        """(loop, its events) for each loop of the unit's own code: what walking the loop's
        body alone would list, cut out of this walk (DESIGN §6: each statement walked once)."""
        for loop, entry, end in self.nested:
            yield loop, [entry.trim(e) for e in self.events[entry.start : end]]

    # -- statements ---------------------------------------------------------------------------

    def _block(self, stmts: list[ast.stmt]) -> None:
        pushed = 0
        for stmt in stmts:
            self._statement(stmt)
            if isinstance(stmt, ast.If) and _leaves_block(stmt.body) and not (stmt.orelse and _leaves_block(stmt.orelse)):
                # `if not boundary: continue` — what follows runs only when the test is false.
                self.state.guards.append(self._guard(stmt, False))
                pushed += 1
            elif isinstance(stmt, ast.If) and stmt.orelse and _leaves_block(stmt.orelse):
                # `if boundary: step ... else: (accumulate) continue` — only when the test holds
                self.state.guards.append(self._guard(stmt, True))
                pushed += 1
            elif isinstance(stmt, ast.If) and (leaving := self.frame.module.memo(("leaving", id(stmt)), lambda: _nested_exit(stmt))):
                # `if accumulating: if step % N != 0: return`: what follows runs unless both hold
                self.state.guards.append(self._guard(leaving, False))
                pushed += 1
            elif isinstance(stmt, ast.Assert):  # `assert scaler is not None`: what follows runs where it holds
                self.state.guards.append(self._guard(stmt, True))
                pushed += 1
            if isinstance(stmt, ast.Try):
                # what follows runs only when no handler that leaves the block was entered
                leaving = [_handled(h, False) for h in stmt.handlers if _leaves_block(h.body)]
                self.state.guards.extend(leaving)
                pushed += len(leaving)
        del self.state.guards[len(self.state.guards) - pushed :]

    def _statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, COMPOUND_TYPES) and not self._may_hold_events(stmt.lineno, stmt.end_lineno):
            return  # nothing in it can be an event: its tests need not be judged
        match stmt:
            case ast.If(test=test, body=body, orelse=orelse):
                self._scan(stmt, [test])
                fixed = branch_setting(self.frame.module, stmt)  # `if CFG.unscale:` with `unscale = False`
                if fixed is None:
                    fixed = _passed_switch(self.frame, test)  # `if update_grad:` run with `update_grad=False`
                if fixed is not False and not self._runs_once(stmt):  # a one-off block is no part of a training pass
                    self._branch(self._guard(stmt, True), body)
                if orelse and fixed is not True:
                    self._branch(self._guard(stmt, False), orelse)
            case ast.For() | ast.AsyncFor() | ast.While():
                self._scan(stmt, [stmt.test] if isinstance(stmt, ast.While) else [stmt.iter])
                self.state.loops.append(stmt)
                entry = self._entry()
                self._block(stmt.body)
                if entry is not None:
                    self.nested.append((stmt, entry, len(self.events)))
                self.state.loops.pop()
                self._block(stmt.orelse)
            case ast.With() | ast.AsyncWith():
                self._scan(stmt, [item.context_expr for item in stmt.items])
                self.state.contexts.extend(item.context_expr for item in stmt.items)
                names = {item.optional_vars.id: item.context_expr for item in stmt.items if isinstance(item.optional_vars, ast.Name)}
                saved = self.state.context_names
                self.state.context_names = {**saved, **names}
                self._block(stmt.body)
                self.state.context_names = saved
                del self.state.contexts[len(self.state.contexts) - len(stmt.items) :]
            case ast.Try(body=body, handlers=handlers, orelse=orelse, finalbody=finalbody):
                self._block(body)
                for handler in handlers:  # a recovery path: `except OOM: zero_grad(); continue`
                    self._branch(_handled(handler, True), handler.body)
                self._block(orelse)
                self._block(finalbody)
            case ast.Match(subject=subject, cases=cases):
                self._scan(stmt, [subject])
                for case in cases:
                    self._branch(_PendingGuard(lambda: Guard(stmt, subject, True)), case.body)
            case ast.FunctionDef() | ast.AsyncFunctionDef() | ast.ClassDef():
                pass  # definitions run nothing; closures are judged where they are called
            case _:
                self._scan(stmt, [stmt])
                self._assignment_events(stmt)

    def _runs_once(self, stmt: ast.If) -> bool:
        if not isinstance(self.frame.scope, FUNCTION_TYPES) or not any(isinstance(s, ast.Assign) for s in stmt.body):
            return False  # asked of every `if` walked: most set no flag in their own block
        loops = [n for n in self.frame.module.parents.chain(stmt)[1:] if isinstance(n, LOOP_TYPES)]
        return bool(loops) and runs_once(stmt, self.frame.module.scope(self.frame.scope).assignments, loops)

    def _entry(self) -> "_Entry | None":
        """Where a loop of the unit's own code starts in this walk. Not for loops of helpers
        (another frame), nor under a `with ... as name` (a walk of the loop alone would not
        know the name)."""
        state = self.state
        if self.frame.caller is not None or state.context_names:
            return None
        return _Entry(len(self.events), len(state.guards), len(state.loops), len(state.contexts))

    def _branch(self, guard: _PendingGuard, body: list[ast.stmt]) -> None:
        self.state.guards.append(guard)
        self._block(body)
        self.state.guards.pop()

    def _guard(self, stmt: ast.If | ast.Assert | ast.IfExp, holds: bool) -> _PendingGuard:
        frame = self.frame
        return _PendingGuard(lambda: _judge_guard(frame, stmt, holds))

    # -- expressions --------------------------------------------------------------------------

    def _scan(self, stmt: ast.stmt, roots: list[ast.AST]) -> None:
        module = self.frame.module
        if not self._may_hold_events(min(r.lineno for r in roots), max(r.end_lineno for r in roots)):
            return
        for node, taken in module.memo(("scan", id(stmt)), lambda: _interesting_nodes(roots)):
            for expression, holds in taken:  # `scaler.scale(loss).backward() if amp else loss.backward()`
                self.state.guards.append(self._guard(expression, holds))
            owner = switch_owner(node)
            if owner is not None:
                self._add(Kind.NO_SYNC, node, stmt, target=self._name(owner))
            else:
                self._call(node, stmt)
            del self.state.guards[len(self.state.guards) - len(taken):]

    def _may_hold_events(self, first: int, last: int) -> bool:
        return (
            self.frame.module.may_hold_events(first, last) or self._names_ddp_parameter(first, last)
            or self.instance is not None and self.frame.caller is None  # the one call the module cannot see into
        )

    def _subclass_method(self, call: ast.Call) -> Callee | None:
        """`self.process_batch(...)` in the loop's own code, walked for an object of the subclass
        (`instance`) whose method it is: that method, the one Python runs."""
        func = call.func
        if self.instance is None or self.frame.caller is not None or not (isinstance(func, ast.Attribute) and _is_self(func.value)):
            return None
        return find_method(self.instance.module, self.instance.cls, func.attr) if func.attr == self.instance.function.name else None

    def _names_ddp_parameter(self, first: int, last: int) -> bool:
        """Whether the lines mention a DDP model the module-wide prefilter cannot know: a
        parameter that is one only through what the callers pass, or an attribute of `self`
        that is one through a constructor's callers or a mixin's combining classes."""
        frame = self.frame
        if frame.ddp_lines is None:
            frame.ddp_lines = _ddp_lines(frame)
        return frame.ddp_lines.within(first, last)

    def _accelerator(self, call: ast.Call, stmt: ast.stmt, receiver: ast.expr, method: str, name: str | None) -> None:
        """A call on an Accelerate accelerator. Its backward scales the loss when it runs fp16
        mixed precision (its scaler is then the accelerator's), its clips and
        `unscale_gradients()` unscale first; log, print, gather, wait_for_everyone are no
        gradient event."""
        if method in CLIP_FUNCTIONS:
            self._add(Kind.UNSCALE, call, stmt, target=name)  # a no-op unless it runs fp16
            self._clip(call, stmt)
            return
        if method == "unscale_gradients":
            self._add(Kind.UNSCALE, call, stmt, target=name)
            return
        if method not in ACCELERATOR_GRADIENT_METHODS:
            return
        built = self._accelerator_built(receiver, call)
        scaler = name if built is not None and _runs_fp16(built) else None
        divisor = self._accumulates_by_hand(call, built)
        if divisor is None:
            self._add(Kind.FRAMEWORK, call, stmt, target=name, scaler=scaler, by_accelerator=True)
        elif method == "backward" and call.args:
            self._backward(call, stmt, _divided(call.args[0], divisor), scaler=scaler, by_accelerator=True)

    def _accelerator_built(self, accelerator: ast.expr, call: ast.Call) -> ast.Call | None:
        """The `Accelerator(...)` call that built the accelerator, when the model can see it: in
        the function, or where the callers of a helper handed it in (`awp.attack_backward(batch,
        accelerator)`)."""
        frame, line = self.frame, call.lineno
        while True:
            value, scope, at = frame.module.values.reaching_value(accelerator, frame.scope, line)
            for _ in range(3):  # `accelerator = self.accelerator`: the object it names
                if not isinstance(value, (ast.Name, ast.Attribute)) or dotted(value) is None:
                    break
                value, scope, at = frame.module.values.reaching_value(value, scope, at)
            if isinstance(value, ast.Call) and (frame.module.imports.qualname(value.func) or "").endswith("Accelerator"):
                return value
            if value is None and isinstance(accelerator, ast.Name) and frame.caller is None:
                # a parameter of the unit: what its one caller builds and passes (`train_one_epoch(..., accelerator)`)
                given = value_outside(frame, accelerator.id)
                return given if isinstance(given, ast.Call) and (frame.module.imports.qualname(given.func) or "").endswith("Accelerator") else None
            handed = frame.arguments.get(accelerator.id) if value is None and isinstance(accelerator, ast.Name) and frame.caller is not None else None
            if handed is None or not isinstance(handed, (ast.Name, ast.Attribute)):
                return None
            frame, accelerator, line = frame.caller, handed, frame.call.lineno

    def _accumulates_by_hand(self, call: ast.Call, built: ast.Call | None) -> ast.expr | None:
        """`accelerator.backward(loss)` is a plain backward when the code accumulates itself: the
        Accelerator is built here and no `accelerator.accumulate(...)` or `no_sync` context is
        around (without one, Accelerate syncs and steps at every call). What its backward divides
        the loss by comes back: `gradient_accumulation_steps`, 1 when not given, the accelerator's
        own setting when its options are not spelled out; None when the Accelerator
        accumulates, or is not known."""
        if any(isinstance(c, ast.Call) and getattr(c.func, "attr", None) in ("accumulate", "no_sync") for c in self.state.contexts):
            return None
        if built is None:
            return None
        if any(k.arg is None for k in built.keywords):
            # `Accelerator(**config)`: it divides by its own setting, whatever that is
            setting = ast.Attribute(value=call.func.value, attr="gradient_accumulation_steps", ctx=ast.Load())
            return ast.copy_location(setting, call)
        steps = [k.value for k in built.keywords if k.arg == "gradient_accumulation_steps"]
        return steps[0] if steps else ast.Constant(1)

    def _call(self, call: ast.Call, stmt: ast.stmt) -> None:
        frame = self.frame
        func = call.func
        if isinstance(func, ast.Attribute):
            receiver, method = func.value, func.attr
            # what callers or constructors pass is asked only for calls that can be events:
            # `self.logger.info(...)` must not send for every `Trainer(...)` of the project
            asks = method in ROLE_METHODS or any(w in method for w in SYNC_SWITCH_WORDS)
            receiver_role = self._role(receiver) if asks else frame.module.roles.of(receiver)
            name = self._name(receiver)
            if receiver_role is Role.FABRIC:
                self._fabric(call, stmt, method)
                return
            if method == "training_step" and _is_self(receiver) and frame.module.inherits_hf_training_step(frame.cls):
                self._add(Kind.BACKWARD, call, stmt)  # the loss it backpropagates is divided in there
                return
            if method == "manual_backward" and _is_self(receiver) and manual_optimization(frame.module, frame.cls):
                if call.args:
                    self._backward(call, stmt, call.args[0])
                return
            if receiver_role is Role.ACCELERATOR:
                self._accelerator(call, stmt, receiver, method, name)
                return
            if receiver_role in FRAMEWORK_ROLES and method in ENGINE_INERT_METHODS:
                return  # `engine.train()`, `engine.save_checkpoint(...)`: no gradient handed over
            clears = receiver_role is Role.ENGINE and method == "zero_grad"  # as a module's would
            handed = method in HANDED_TO_FRAMEWORK and HANDED_TO_FRAMEWORK[method] in (None, receiver_role)
            if (receiver_role in FRAMEWORK_ROLES and not clears) or handed:
                self._add(Kind.FRAMEWORK, call, stmt, target=name)
                return
            if method == "forward" and receiver_role is Role.DDP_MODEL:
                self._add(Kind.FORWARD, call, stmt, target=name)  # `model.forward(x)`: DDP's forward all the same
                return
            if method == "backward" and receiver_role is Role.DDP_MODEL:
                return  # DDP has no backward(): the engine's, on the branch that builds one
            if method == "backward" and not _is_self(receiver):
                # `torch.autograd.backward(loss)` runs on its argument
                autograd = (frame.module.imports.qualname(receiver) or "").endswith("autograd") and call.args
                if autograd:
                    self._backward(call, stmt, call.args[0])
                elif not self._follow(call):  # a helper object's backward(loss), else a tensor's
                    if call.args and receiver_role is Role.OPTIMIZER:
                        # apex's FP16_Optimizer (fairseq's too): `optimizer.backward(loss)` scales
                        # the loss and backpropagates it into the fp16 model
                        self._backward(call, stmt, call.args[0], scaling_optimizer=name)
                    elif (handed_loss := self._loss_handed_with_optimizer(call)) is not None:
                        self._backward(call, stmt, handed_loss)
                    else:
                        self._backward(call, stmt, receiver)
                return
            if receiver_role is Role.DDP_MODEL and method not in NO_SYNC_ATTRIBUTES and any(w in method for w in SYNC_SWITCH_WORDS):
                self._add(Kind.NO_SYNC, call, stmt, target=name)  # a wrapper's own switch
                return
            if method in OVERRIDABLE_EVENT_METHODS and _is_self(receiver) and self._follow(call):
                return  # the project's own `self.zero_grad()` / `self.clip_gradients()`: what its body does, under its own tests
            if method in CLIP_FUNCTIONS or (method in LIGHTNING_CLIPS and _is_self(receiver)):
                # `model.clip_grad_norm_(...)` (FSDP1), `utils.clip...`, Lightning's clip_gradients
                self._clip(call, stmt)
                return
            if receiver_role in (Role.OPTIMIZER, Role.SCALER) and holds_only_none(frame.module, receiver, frame.context):
                return  # `grad_optimizer = None` at the top, `if grad_optimizer is not None: grad_optimizer.step()`
            if receiver_role is Role.OPTIMIZER:
                if method == "zero_grad":
                    self._add(Kind.ZERO_GRAD, call, stmt, target=name, optimizer=name)
                elif method == "step":
                    self._step(call, stmt, name)
                return
            if receiver_role is Role.SCALER:
                # `scaler.step(optimizer)`, `scaler.step(optimizer=self.optimizer)`
                given = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "optimizer"), None)
                optimizer = self._name(_wrapped_or_not(given)) if given is not None else None
                kind = {"step": Kind.SCALER_STEP, "unscale_": Kind.UNSCALE, "update": Kind.SCALER_UPDATE}.get(method)
                if kind:
                    self._add(kind, call, stmt, target=name, optimizer=optimizer)
                return
            if receiver_role is Role.SCHEDULER and method == "step":
                if holds_only_none(frame.module, receiver, frame.context):
                    return  # `if scheduler is not None:` around a scheduler that is always None
                start = len(self.events)
                if not self._follow(call) or len(self.events) == start:  # else a project class that steps the optimizer
                    self._add(Kind.SCHED_STEP, call, stmt, target=name, own_schedule=own_schedule(frame.module, receiver, frame.context))
                return
            if method == "zero_grad" or (method == "zero_" and _is_grad(receiver)):
                if frame.caller is not None and on_fresh_model(frame.module, frame.scope, receiver, call.lineno):
                    return  # `_model.zero_grad()` of a copy the helper built
                if method == "zero_grad" or not _selective_clear(self.frame.module, stmt):
                    self._add(Kind.ZERO_GRAD, call, stmt, target=name)
                return
            if method == "copy_" and _is_grad(receiver) and call.args:
                # from other gradients (fp32 masters), or a combined gradient written by hand (PCGrad)
                copied = any(_reads_grad(a, besides=dotted(receiver)) for a in call.args)
                self._add(Kind.GRAD_COPY if copied else Kind.GRAD_WRITE, call, stmt, target=name)
                return
            if method in GRAD_RESCALE_METHODS and _is_grad(receiver):
                if frame.caller is not None and method == "mul_" and _clip_coefficient(frame.module, frame.scope, call, 0):
                    self._clip(call, stmt)  # a clipping helper written by hand (DINO's `clip_gradients`)
                else:
                    self._add(Kind.GRAD_RESCALE, call, stmt, target=name)
                return
        qualname = frame.module.imports.qualname(func) or ""
        last = qualname.rsplit(".", 1)[-1]
        if last in CLIP_FUNCTIONS:
            self._clip(call, stmt)
        elif qualname.endswith("autograd.backward") and call.args:
            self._backward(call, stmt, call.args[0])
        elif "grads" in last and any(w in last for w in ("multiply", "scale", "div", "rescale")):
            self._add(Kind.GRAD_RESCALE, call, stmt)
        elif "grad" in last and self._passes_a_reciprocal(call):
            self._add(Kind.GRAD_RESCALE, call, stmt)  # `sync_grads(self.D, gain=1 / self.D_grad_accum)`
        elif self._role(func) is Role.DDP_MODEL:
            self._add(Kind.FORWARD, call, stmt, target=self._name(func) or self._entry_name(func))
        elif self._calls_a_clipper(func, call):
            self._clip(call, stmt)
        elif not self._follow(call, stmt=stmt):
            self._forward_through(call, stmt)

    def _passes_a_reciprocal(self, call: ast.Call) -> bool:
        """An argument is `1 / x` (or a name the frame sets to one, `gain = 1 / accum`): a
        gradient helper given it rewrites the gradients times that gain."""
        frame = self.frame
        for argument in [*call.args, *(k.value for k in call.keywords)]:
            if isinstance(argument, ast.Name):
                argument = frame.module.values.reaching_value(argument, frame.scope, call.lineno)[0]
            if isinstance(argument, ast.BinOp) and isinstance(argument.op, ast.Div) and is_literal(argument.left, 1):
                return True
        return False

    def _calls_a_clipper(self, func: ast.expr, call: ast.Call) -> bool:
        """`clip(params)` where `clip = partial(clip_grad_norm_, max_norm=1.0)`, the clipper a
        project function builds (`self.clip_grad_fun = build_gradient_clipper(cfg)`, returning
        such a partial or None). A clipping object's method is one too, found where `_follow`
        resolves it."""
        if dotted(func) is None or not call.args and not call.keywords:
            return False
        module = self.frame.module
        value, scope, _ = module.values.reaching_value(func, self.frame.scope, call.lineno)
        if isinstance(value, ast.IfExp):
            return _chooses_clip_function(module, value)
        if not isinstance(value, ast.Call):
            return False
        return module.memo(("makes a clipper", id(value)), lambda: _makes_clipper(module, value, scope))

    def _clip(self, call: ast.Call, stmt: ast.stmt) -> None:
        if any(_infinite(threshold) for threshold in _thresholds(call)):
            return  # `clip_grad_norm_(params, float("inf"))` only measures the norm: it clips nothing
        if self._clips_detached_leaves(call):
            return  # gradient caching's representations, no parameter's gradients
        self._add(Kind.CLIP, call, stmt, threshold_scaled=self._threshold_scaled(call))

    def _clips_detached_leaves(self, call: ast.Call) -> bool:
        """`clip_grad_norm_(reps, ...)` where `reps = [r.detach().requires_grad_() for r in
        reps]` (or a list of names so made): leaves cut from the graph to cache their
        gradients (GradCache), whose clipping leaves every parameter's gradient alone."""
        clipped = keyword(call, "parameters", 0)
        names = clipped.elts if isinstance(clipped, (ast.List, ast.Tuple)) else [clipped]
        table = self.frame.module.scope(self.frame.scope)

        def detached_leaf(name: ast.expr | None) -> bool:
            earlier = table.before(name.id, call.lineno) if isinstance(name, ast.Name) else []
            value = getattr(earlier[-1], "value", None) if earlier else None  # the assignment that reaches the clip
            return value is not None and _makes_detached_leaves(value)

        return bool(names) and all(detached_leaf(n) for n in names)

    def _threshold_scaled(self, call: ast.Call) -> bool:
        """`clip_grad_norm_(params, max_norm * scaler.get_scale())`: a threshold multiplied by
        the loss scale clips scaled gradients at the true max_norm (followed through the
        helper's parameters and local assignments)."""
        pending = [(threshold, self.frame) for threshold in _thresholds(call)]
        for _ in range(16):
            if not pending:
                break
            expr, frame = pending.pop()
            if any(isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "get_scale" for n in ast.walk(expr)):
                return True
            for name in {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}:
                assigned = frame.module.scope(frame.scope).assignments.get(name, ())
                pending.extend((a.value, frame) for a in assigned if isinstance(a, ast.Assign))
                if not assigned and name in frame.arguments and frame.caller is not None:
                    pending.append((frame.arguments[name], frame.caller))
        return False

    def _forward_through(self, call: ast.Call, stmt: ast.stmt) -> None:
        """`loss = diffusion.training_losses(ddp_model, x, t)`: a function the model cannot
        read is handed the DDP model itself and its result is used: it runs the forward (or,
        as a context manager, may switch the model's sync)."""
        if isinstance(stmt, ast.Expr) and stmt.value is call:
            return  # `evaluate(ddp_model)`, `save(ddp_model)`: nothing flows on
        if _stores_or_inspects(self.frame.module, call.func):
            return  # `dict(model=ddp_model, ...)`, `isinstance(ddp_model, DDP)`: no forward
        if (self.frame.module.imports.qualname(call.func) or "").startswith(STATE_DICT_MODULES):
            return  # `get_model_state_dict(model=ddp_model)`: torch reads the parameters
        callee = resolve_callee(self.frame.module, call, self.frame.context)
        # a function of the project (not a method: a subclass may override it) the model reads
        readable = callee is not None and callee.cls is None and isinstance(callee.function, FUNCTION_TYPES)
        bound = bind_arguments(callee, call) if readable else {}
        for argument in [*call.args, *(k.value for k in call.keywords)]:
            if isinstance(argument, (ast.Name, ast.Attribute)) and self._role(argument) is Role.DDP_MODEL:
                handed = [p for p, given in bound.items() if given is argument]
                if handed and all(_only_reads(callee.function, p) for p in handed):
                    continue  # `_state_dict(model)`, a project function that only reads its attributes
                # `with ddp_sync(ddp, last):` may well switch the sync: the model cannot tell
                context = isinstance(stmt, (ast.With, ast.AsyncWith)) and any(i.context_expr is call for i in stmt.items)
                if context and (self.frame.module.imports.qualname(call.func) or "").startswith("torch."):
                    continue  # torch's own contexts (`FSDP.state_dict_type(model, ...)`) are known: no sync switch
                self._add(Kind.NO_SYNC if context else Kind.FORWARD, call, stmt, target=self._name(argument))
                return

    def _step(self, call: ast.Call, stmt: ast.stmt, optimizer: str | None) -> None:
        """`optimizer.step()`; with a closure the model can read, the closure's events run
        first (`step(closure)` calls it once for most optimizers); an unknown closure leaves
        the step to code the model cannot see."""
        closure = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "closure"), None)
        if closure is None or isinstance(closure, ast.Constant) and closure.value is None:
            # `step()`, `step(closure=None)`, a wrapper's own options (`optimize_sparse_params=`)
            self._add(Kind.STEP, call, stmt, target=optimizer, optimizer=optimizer)
            return
        if isinstance(closure, ast.Lambda):
            for node, _ in _interesting_nodes([closure.body]):
                if isinstance(node, ast.Call):
                    self._call(node, stmt)
        elif not self._follow(_closure_call(self.frame.module, closure), at=call):
            self._add(Kind.FRAMEWORK, call, stmt, target=optimizer, optimizer=optimizer)
            return
        self._add(Kind.STEP, call, stmt, target=optimizer, optimizer=optimizer)

    def _loss_handed_with_optimizer(self, call: ast.Call) -> ast.expr | None:
        """The loss a training object's `backward` is handed together with its optimizer
        (ColossalAI's `booster.backward(loss=loss, optimizer=optimizer)`, `backward(loss,
        optimizer)`): it backpropagates that loss as given. A tensor's backward takes neither a
        `loss` keyword nor an optimizer (its second argument is `retain_graph`)."""
        keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
        if "loss" in keywords:
            return keywords["loss"]
        given = keywords.get("optimizer", call.args[1] if len(call.args) > 1 else None)
        if call.args and given is not None and self._role(given) is Role.OPTIMIZER:
            return call.args[0]
        return None

    def _fabric(self, call: ast.Call, stmt: ast.stmt, method: str) -> None:
        """Lightning Fabric hands the loop back: `fabric.backward(loss)` is the backward (it
        scales for AMP itself), `fabric.clip_gradients(...)` clips unscaled gradients."""
        if method == "backward" and call.args:
            self._backward(call, stmt, call.args[0])
        elif method == "clip_gradients":
            self._clip(call, stmt)

    def _backward(
        self, call: ast.Call, stmt: ast.stmt, tensor: ast.expr, scaler: str | None = None, by_accelerator: bool = False,
        scaling_optimizer: str | None = None,
    ) -> None:
        """`scaler`: what scales the loss inside the call (an fp16 accelerator's backward);
        `scaling_optimizer`: the loss-scaling optimizer whose backward this is."""
        match tensor:
            case ast.Call(func=ast.Attribute(value=owner, attr="scale"), args=[inner]) if (
                self._role(owner) is Role.SCALER
            ):
                scaler, tensor = self._name(owner), inner
            case ast.Name(id=name) if is_apex_scale_loss(self.state.context_names.get(name)):
                tensor = self.state.context_names[name].args[0]  # apex: unscaled on leaving the `with`
            case ast.Name() if scaler is None and (scale := self._scaled_earlier(tensor, call.lineno)) is not None:
                scaler, tensor = self._name(scale.func.value), scale.args[0]  # `scaled = scaler.scale(loss)` first
        if self.frame.caller is not None and on_fresh_model(self.frame.module, self.frame.scope, tensor, call.lineno):
            return  # a helper's own model (a FLOP count on a meta-device copy): not the loop's gradients
        self._add(
            Kind.BACKWARD, call, stmt, loss=tensor, scaler=scaler, loss_source=self._loss_source(tensor, call),
            by_accelerator=by_accelerator, scaling_optimizer=scaling_optimizer,
        )

    def _scaled_earlier(self, tensor: ast.Name, line: int) -> ast.Call | None:
        """The `scaler.scale(loss)` call the name was given by its last assignment before the
        backward, in the same function."""
        value, scope, _ = self.frame.module.values.reaching_value(tensor, self.frame.scope, line)
        if scope is not self.frame.scope:
            return None
        match value:
            case ast.Call(func=ast.Attribute(value=owner, attr="scale"), args=[_]) if self._role(owner) is Role.SCALER:
                return value
        return None

    def _loss_source(self, tensor: ast.expr, call: ast.Call) -> LossSource:
        frame, line, passed_at = self.frame, call.lineno, None
        while (
            isinstance(tensor, ast.Name) and tensor.id in frame.arguments and frame.caller is not None
            and not frame.module.scope(frame.scope).before(tensor.id, line)
        ):
            tensor, line, passed_at, frame = frame.arguments[tensor.id], frame.call.lineno, frame.call, frame.caller
        caller = (frame.caller.module, frame.caller.scope, frame.call.lineno) if frame.caller is not None and frame.call is not None else None
        return LossSource(
            frame.module, tensor, frame.scope, line, passed_at, tuple(left_at_default(frame).items()),
            tuple(frame.arguments.items()) if caller else (), caller,
        )

    def _assignment_events(self, stmt: ast.stmt) -> None:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        for target in targets:
            if not _is_grad(target):
                continue
            if isinstance(stmt, ast.AugAssign):
                # `m.alpha.grad.data += (reward_j - baseline) * grad_buffer[j][idx]`: a gradient
                # written from kept ones (REINFORCE over sampled paths), read by the step
                adds_kept = isinstance(stmt.op, (ast.Add, ast.Sub)) and any(_stored(n) for n in ast.walk(stmt.value))
                self._add(Kind.GRAD_WRITE if adds_kept else Kind.GRAD_RESCALE, stmt, stmt)
            elif isinstance(stmt, ast.Assign) and _reads_grad(stmt.value, besides=dotted(target)):
                self._add(Kind.GRAD_COPY, stmt, stmt)
            elif (
                isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and stmt.value.value is None
                and not _selective_clear(self.frame.module, stmt)
            ):
                self._add(Kind.ZERO_GRAD, stmt, stmt)
            elif isinstance(stmt, ast.Assign) and (_stored(stmt.value) or _computed_gradient(stmt.value)):
                self._add(Kind.GRAD_WRITE, stmt, stmt)

    # -- calls into helpers ---------------------------------------------------------------------

    def _follow(self, call: ast.Call, at: ast.Call | None = None, stmt: ast.stmt | None = None) -> bool:
        """Walk the function `call` runs, when the model can resolve it; True when it did. With
        `stmt`, a clipping object's method (`grad_clipper.step(params)`) is recorded as a clip."""
        frame = self.frame
        callee = self._subclass_method(call) or resolve_callee(frame.module, call, frame.context)
        if callee is None:
            return False
        if stmt is not None and _clipper_method(callee):
            self._clip(call, stmt)
            return True
        depth = self._depth()
        if depth >= MAX_HELPER_DEPTH:
            self.cuts.append(None)
            return False
        if self._active(callee.function):
            self.cuts.append(callee.function)
            return False
        if is_abstract(callee.function):
            # `raise NotImplementedError`: the subclass's code, when one subclass overrides it
            # (its `self.model(data)` runs the base class's DDP model, whatever its text says)
            callee = sole_override(callee) if _is_self(call.func.value if isinstance(call.func, ast.Attribute) else call.func) else None
            if callee is not None and self._active(callee.function):
                self.cuts.append(callee.function)
                return False
            if callee is None or callee.module.calls_backward_in(callee.function):
                return False  # an override running backward is a step function, judged with its callers
            touching = True
        else:
            touching = callee.module.touches_gradients(callee.function) or _calls_held_ddp(callee)
            if not touching and (callee.cls is None or not _wraps_attributes(frame)):
                return False
        arguments = {**_unpacked_keys(frame, call, callee), **bind_arguments(callee, call)}
        params = [*callee.function.args.posonlyargs, *callee.function.args.args]
        if callee.cls is not None and params and not is_static(callee.function):
            # `self` is the object called (`loss_scaler(...)`), or whose method is called
            called_object = getattr(callee.function, "name", "") == "__call__" or not isinstance(call.func, ast.Attribute)
            arguments[params[0].arg] = call.func if called_object else call.func.value
        inner = Frame(callee.module, callee.function, callee.cls, arguments, frame, at or call)
        if not (touching or _runs_ddp_set_by_caller(inner)):
            return False
        # Most helpers a loop reaches hold no event, and every loop of every module reaching
        # them would walk them again: a walk that found none is remembered, with the functions
        # it followed, by what its finding none depends on.
        quiet_walks = callee.module.memo(("quiet walks",), dict)
        key = _walk_key(inner)
        known = quiet_walks.get(key), quiet_walks.get((key, depth))  # from any shallower call; from this depth
        quiet = next((walk for walk in known if walk is not None and walk.holds(self, depth)), None)
        if quiet is not None:
            self.followed.extend(quiet.followed)
            self.cuts.extend((*quiet.outer_cuts, *([None] if quiet.cut_for_depth else [])))
            return True
        start, cuts, followed = len(self.events), len(self.cuts), len(self.followed)
        self.followed.append(callee.function)
        self.frame = inner
        try:
            if isinstance(callee.function, ast.Lambda):
                for node, _ in _interesting_nodes([callee.function.body]):
                    if isinstance(node, ast.Call):
                        self._call(node, node)  # type: ignore[arg-type]
            else:
                self._block(callee.function.body)
        finally:
            self.frame = frame
        if len(self.events) == start:
            walk = _QuietWalk.of(depth, callee.function, self.followed[followed:], self.cuts[cuts:])
            if walk.cut_for_depth:
                quiet_walks[(key, depth)] = walk
            elif known[0] is None or depth > known[0].depth:
                quiet_walks[key] = walk
        return True

    def _depth(self) -> int:
        depth, frame = 0, self.frame
        while frame.caller is not None:
            depth, frame = depth + 1, frame.caller
        return depth

    def _active(self, function: ast.AST) -> bool:
        frame = self.frame
        while frame is not None:
            if frame.scope is function:
                return True
            frame = frame.caller
        return False

    # -- names and roles across frames ------------------------------------------------------------

    def _role(self, expr: ast.expr) -> Role | None:
        return role_in_frame(self.frame, expr)

    def _entry_name(self, expr: ast.expr) -> str | None:
        """The unit's spelling of an entry of a dict of models (`self.modules["encoder"]`)."""
        if not isinstance(expr, ast.Subscript):
            return None
        container = self._name(expr.value)
        return f"{container}[{self.frame.module.source(expr.slice)}]" if container else None

    def _name(self, expr: ast.expr) -> str | None:
        """The unit's spelling of a name written in a helper (`optimizer` -> `self.optimizer`); an
        entry of a dict under a literal key is named with it (`self.optimizers['cls']`)."""
        frame, name = self.frame, dotted(expr)
        if name is None and isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
            return self._entry_name(expr)
        while name is not None and frame.caller is not None:
            head, _, rest = name.partition(".")
            if head not in frame.arguments:
                # `for optim in optimizer: scaler.step(optim)`: each of what the caller handed in
                head = _iterated_parameter(frame, head) or head
            argument = frame.arguments.get(head)
            outer = dotted(argument) if argument is not None else None
            if outer is None:
                break
            site, name, frame = frame.call, f"{outer}.{rest}" if rest else outer, frame.caller
            name = _kept_argument(frame, name, site.lineno) or name
        return name

    def _add(self, kind: Kind, node: ast.AST, stmt: ast.stmt, **details) -> None:
        state, frame = self.state, self.frame
        reported_at = None
        while not self._local(frame):  # up to the code of the unit's own module and object
            reported_at, frame = frame.call, frame.caller
        guards = tuple(g.get() for g in state.guards)
        if any(a.excludes(b) for i, a in enumerate(guards) for b in guards[i + 1 :]):
            return  # a path no run takes: the caller's `if amp:` around a helper's `else:` of the same test
        self.events.append(
            Event(
                kind, node, stmt, len(self.events), guards, tuple(state.loops),
                tuple(state.contexts), self.frame.scope, module=self.frame.module, site=self.frame.site,
                foreign=self.frame.module is not self.model, elsewhere=reported_at is not None,
                reported_at=reported_at, **details,
            )
        )

    def _local(self, frame: Frame) -> bool:
        """Code of the unit's module that runs on the unit's own object (or on none): its class's
        methods, or a subclass's override of an abstract one (`self` is the same object)."""
        root = frame
        while root.caller is not None:
            root = root.caller
        if frame.caller is None:
            return True
        if frame.module is not self.model:
            return False
        return frame.cls in (None, root.cls) or (
            root.cls is not None and any(c is root.cls for _, c in class_hierarchy(frame.module, frame.cls))
        )


def _kept_argument(frame: Frame, name: str, line: int) -> str | None:
    """`awp.optimizer`, where `awp = AWP(model, optimizer)` and AWP's `__init__` keeps its
    `optimizer` parameter as `self.optimizer`: the caller's own spelling of what it passed
    (`optimizer`), so that a helper object's `self.optimizer.zero_grad()` clears the loop's
    optimizer. When the object is a parameter of the unit (`mask`), what every caller builds
    it from, as the unit names it."""
    holder, _, attribute = name.rpartition(".")
    if not holder:
        return None
    module = frame.module
    if module.scope(frame.scope).before(name, line):
        return None  # `model.model = DDP(model.model)` after construction: no longer what was passed
    value, _, _ = module.values.reaching_value(from_dotted(holder), frame.scope, line)
    if value is None and frame.caller is None and holder in parameter_names(frame.scope):
        return _kept_by_callers(frame, holder, attribute)
    passed = _constructor_argument(module, value, attribute)
    return dotted(passed) if passed is not None else None


def _constructor_argument(module: "ModuleModel", value: ast.expr | None, attribute: str) -> ast.expr | None:
    """What the constructor call `value` passes for the `__init__` parameter its class keeps
    as `self.<attribute>` (either side's, when both sides of a conditional agree or one is None)."""
    if isinstance(value, ast.IfExp):
        sides = [_constructor_argument(module, v, attribute) for v in (value.body, value.orelse) if not _is_none(v)]
        return sides[0] if sides and None not in sides and len({dotted(s) for s in sides}) == 1 else None
    built = class_of_instance(module, value)
    if built is None or not isinstance(value, ast.Call):
        return None
    cls_module, cls = built
    parameter = constructor_parameter(cls_module, cls, attribute)
    if parameter is None:
        return None
    return bind_arguments(Callee(cls_module, cls_module.methods(cls)["__init__"], cls), constructor(value)).get(parameter)


def _kept_by_callers(frame: Frame, parameter: str, attribute: str) -> str | None:
    """`mask.optimizer` in `train_one_epoch(model, optimizer, mask)`, where every caller passes
    a `Masking(optimizer, ...)` built from what it also passes for `optimizer`: `optimizer`."""
    function = frame.scope
    names = set()
    for call, context in callers(frame.module, function):
        arguments = bind_arguments(Callee(frame.module, function, frame.cls), call)
        given = arguments.get(parameter)
        if given is None:
            return None
        if not isinstance(given, ast.Call) and dotted(given) is None:
            return None  # `model_ema=None`, a literal: built from nothing the unit also gets
        value = given if isinstance(given, ast.Call) else context.module.values.reaching_value(given, context.scope, call.lineno)[0]
        passed = dotted(_constructor_argument(context.module, value, attribute) or ast.Constant(None))
        same = [p for p, argument in arguments.items() if passed is not None and dotted(argument) == passed]
        if len(same) != 1:
            return None
        names.add(same[0])
    return names.pop() if len(names) == 1 else None


def _stores_or_inspects(module: "ModuleModel", func: ast.expr) -> bool:
    """A builtin that keeps or looks at what it is given without calling it (not `map`,
    `filter`, `sorted` and the others that take a function)."""
    if not isinstance(func, ast.Name) or func.id not in BUILTIN_NAMES or func.id in CALLING_BUILTINS:
        return False
    return module.imports.origin(func.id) is None and func.id not in module.functions and func.id not in module.classes


def _unpacked_keys(frame: Frame, call: ast.Call, callee) -> dict[str, ast.expr]:
    """Parameters a call passes in a dict unpacked with `**`: the keys a `{...}` literal spells,
    or those the caller wrote into the dict before the call (`batch['grad_on'] = False`, then
    `self.step(**batch)`)."""
    names = parameter_names(callee.function)
    found: dict[str, ast.expr] = {}
    for keyword in call.keywords:
        if keyword.arg is not None:
            continue
        if isinstance(keyword.value, ast.Dict):
            pairs = zip(keyword.value.keys, keyword.value.values)
        elif isinstance(keyword.value, ast.Name):
            writes = frame.module.values.element_writes(frame.scope).get(keyword.value.id, ())
            pairs = [(element_target(w).slice, w.value) for w in writes if isinstance(w, ast.Assign) and w.lineno < call.lineno]
        else:
            continue
        found.update({k.value: v for k, v in pairs if isinstance(k, ast.Constant) and k.value in names})
    return found


def _only_reads(function: ast.AST, parameter: str) -> bool:
    """The function only reads attributes of its parameter (`model.state_dict()`, `model.module`),
    inspects it (`isinstance(model, dict)`) or returns it: it never runs it, switches its sync or
    hands it on."""
    harmless: set[int] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr not in RUNNING_ATTRIBUTES:
            harmless.add(id(node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in INSPECTING_BUILTINS:
            harmless.update(id(a) for a in node.args)
        elif isinstance(node, ast.Return) and node.value is not None:
            returned = [node.value]
            while returned:  # `return model.module if isinstance(model, DDP) else model`
                value = returned.pop()
                harmless.add(id(value))
                if isinstance(value, ast.IfExp):
                    returned += [value.body, value.orelse]
    return all(
        id(node) in harmless for node in ast.walk(function)
        if isinstance(node, ast.Name) and node.id == parameter and isinstance(node.ctx, ast.Load)
    )


class DdpLines:
    """The lines of a frame's function (or module) that may name a DDP model only the frame can
    see, each with the questions that tell (`tests`: line -> names spelled there, and the
    question each name asks). A line is asked only when the walk asks about a statement on it
    that the module-wide prefilter passes over, and its answer kept: a parameter's role means
    finding the function's callers, which most parameters never need."""

    def __init__(self, tests: "list[tuple[dict[int, list[str]], Callable[[str], bool]]]"):
        self.tests = tests
        self.lines = sorted({number for spelled, _ in tests for number in spelled})
        self.answers: dict[int, bool] = {}

    def within(self, first: int, last: int) -> bool:
        lines = self.lines
        return any(self._names_ddp(number) for number in lines[bisect.bisect_left(lines, first) : bisect.bisect_right(lines, last)])

    def _names_ddp(self, number: int) -> bool:
        if number not in self.answers:
            self.answers[number] = any(ask(name) for spelled, ask in self.tests for name in spelled.get(number, ()))
        return self.answers[number]


def _iterated_parameter(frame: Frame, name: str) -> str | None:
    """The parameter a helper's `for name in <parameter>:` loop runs over, when `name` is bound
    by such loops only (a helper stepping `optimizer` or, handed a list, each of its entries)."""
    bound = frame.module.scope(frame.scope).assignments.get(name, ())
    if not bound or not all(
        isinstance(b, (ast.For, ast.AsyncFor)) and isinstance(b.target, ast.Name) and isinstance(b.iter, ast.Name) for b in bound
    ):
        return None
    iterated = {b.iter.id for b in bound}
    return iterated.pop() if len(iterated) == 1 and next(iter(iterated)) in frame.arguments else None


def _ddp_lines(frame: Frame) -> DdpLines:
    """The lines of the frame's function (or module) that may name a DDP model only the frame
    can see, spelled once per frame: the walk asks of every compound statement, nested ones again."""
    module, cls = frame.module, frame.cls
    parameters = _parameters_handed_in(frame)
    fields = ddp_object_fields(module, cls) if cls is not None else frozenset()
    attributes = module.memo(("held attributes", id(cls)), lambda: [a for a in module.class_attributes(cls) if held_parameter(module, cls, a)]) if cls is not None else []
    mixin = cls is not None and defines_class(module, cls)
    answers: dict[tuple[str, str], bool] = {}  # each attribute's role asked once, where called

    def ddp_parameter(name: str) -> bool:
        return role_in_frame(frame, ast.Name(name)) is Role.DDP_MODEL  # the frame keeps each name's role

    def constructed_ddp(attribute: str) -> bool:
        # `self.model(x)`, set in __init__ from what `Trainer(ddp_model, ...)` passes: asked only
        # where a line calls it, since the answer means finding the constructor's callers
        if ("constructor", attribute) not in answers:
            answers["constructor", attribute] = constructor_role(module, cls, attribute) is Role.DDP_MODEL
        return answers["constructor", attribute]

    def held_ddp(attribute: str) -> bool:
        # `self.actor(data)`, set in __init__ to an object whose `__call__` runs a DDP model
        # every construction of the object's class passes (`SegActor(net=ddp_net)`)
        if ("held", attribute) not in answers:
            call = ast.Call(func=ast.Attribute(value=ast.Name("self"), attr=attribute), args=[], keywords=[])
            callee = resolve_callee(module, call, frame.context)
            answers["held", attribute] = callee is not None and _calls_held_ddp(callee)
        return answers["held", attribute]

    def constructed_or_held(attribute: str) -> bool:
        return constructed_ddp(attribute) or held_ddp(attribute)

    def combined_ddp(name: str) -> bool:
        # `self.model(x)` in a mixin, wrapped in DDP by another base of the classes combining
        # it, or `self._forward(batch)`, a method of the mixin that calls it
        if ("combined", name) not in answers:
            method = find_method(module, cls, name)
            answers["combined", name] = (
                combined_role(module, cls, name) is Role.DDP_MODEL
                # set by a base class of another module (`self.model = TorchDDP(...)` in its __init__)
                or inherited_role(module, cls, f"self.{name}") is Role.DDP_MODEL
                or wrapped_by_subclass(module, cls, f"self.{name}") is Role.DDP_MODEL
                or (method is not None and _calls_held_ddp(method))
                # an abstract step the one subclass overriding it implements (`self.model(data)`)
                or (method is not None and is_abstract(method.function) and sole_override(method) is not None)
                # that override's `self.model(data)`: the base class's DDP model, as its caller knows
                or (frame.caller is not None and role_in_frame(frame, _self_attribute(name)) is Role.DDP_MODEL)
            )
        return answers["combined", name]

    def set_by_caller(name: str) -> bool:
        # `self.model(x)` on an object whose `model` the caller wrapped in DDP, or `self.forward()`
        # of a method calling it
        if ("caller", name) not in answers:
            method = find_method(module, cls, name)  # maybe a base class's, of another module
            answers["caller", name] = role_in_frame(frame, _self_attribute(name)) is Role.DDP_MODEL or (
                method is not None and not isinstance(method.function, ast.Lambda)
                and _runs_ddp_set_by_caller(replace(frame, module=method.module, scope=method.function, cls=method.cls, roles={}))
            )
        return answers["caller", name]

    def self_calls() -> dict[int, list[str]]:
        """Line -> the attributes of `self` it calls."""
        calls: dict[int, list[str]] = {}
        for match in SELF_CALL.finditer(text):
            calls.setdefault(line_of(match.start()), []).append(match.group(1))
        return calls

    def self_arguments() -> dict[int, list[str]]:
        """Line -> the attributes of `self` it hands to a call (`f(self.model, x)`), at the
        line of the attribute."""
        handed: dict[int, list[str]] = {}
        for match in SELF_ARGUMENT.finditer(text):
            handed.setdefault(line_of(match.start(1)), []).append(match.group(1))
        return handed

    def spelled_on(word: str, name: str) -> dict[int, list[str]]:
        return {line_of(offset): [name] for offset in occurrences(text, [word])}

    # a class of this module (its methods are read here) on an object the unit wraps attributes of
    object_of_caller = frame.caller is not None and mixin and _wraps_attributes(frame)
    if not (parameters or fields or attributes or mixin or object_of_caller):
        return DdpLines([])
    scope = frame.scope
    first, last = (1, len(module.lines)) if isinstance(scope, ast.Module) else (scope.lineno, scope.end_lineno)
    lines = module.lines[first - 1 : last]
    text = "\n".join(lines)
    starts = [0, *itertools.accumulate(len(line) + 1 for line in lines[:-1])]

    def line_of(offset: int) -> int:
        return first + bisect.bisect_right(starts, offset) - 1

    def always(_: str) -> bool:
        return True

    # (line -> what it spells, whether that names a DDP model), each found in one pass over the
    # text; a line asks them in this order and stops at the first yes: the later questions may
    # mean finding a class's constructions.
    tests: list[tuple[dict[int, list[str]], Callable[[str], bool]]] = [
        (spelled_on(name, name), ddp_parameter) for name in sorted(parameters)
    ]
    self_called = self_calls() if mixin else {}
    if object_of_caller:
        tests.append((self_called, set_by_caller))
    # `self.downstream.model(x)`: a field of a project object built around a DDP model here
    tests += [(spelled_on(f"{field}(", field), always) for field in fields]
    tests += [(spelled_on(f"self.{attribute}(", attribute), constructed_or_held) for attribute in attributes]
    tests += [(spelled_on(f"self.{attribute}.forward(", attribute), constructed_ddp) for attribute in attributes]
    if mixin:  # `self` of a subclass in another module: its names are read there
        tests.append((self_called, combined_ddp))
        tests.append((self_arguments(), combined_ddp))  # `self._logprobs(self.model, x)`
    return DdpLines(tests)


def _parameters_handed_in(frame: Frame) -> set[str]:
    """Parameters of the frame's function (and of the function enclosing a closure) that may be
    DDP models through what the callers pass, and locals read out of a dict the callers pass
    (`model = state['model']`); which are, DdpLines asks where they are spelled."""
    if frame.caller is None and not frame.module.roles.named(Role.DDP_MODEL) and frame.module.project is None:
        return set()  # no DDP model anywhere to be handed in
    names = {*(frame.arguments if frame.caller is not None else parameter_names(frame.scope))} - _bound_instance(frame)
    enclosing = frame.module.parents.scope_of(frame.scope)
    if isinstance(frame.scope, FUNCTION_TYPES) and isinstance(enclosing, FUNCTION_TYPES):
        names |= parameter_names(enclosing)  # a closure reads the enclosing function's
    if isinstance(frame.scope, FUNCTION_TYPES):
        names |= _read_out_of_parameters(frame)
    return names


def _bound_instance(frame: Frame) -> set[str]:
    """The parameter a method binds to its object or class (`self`, `cls`): an object of the
    project's class, never a DDP model."""
    scope = frame.scope
    if frame.module.parents.enclosing_class(scope) is None or is_static(scope):
        return set()
    positional = [*scope.args.posonlyargs, *scope.args.args]
    return {positional[0].arg} if positional else set()


def _read_out_of_parameters(frame: Frame) -> set[str]:
    """Local names assigned `parameter['key']` on the function's lines (found once per function)."""
    module, function = frame.module, frame.scope

    def compute() -> frozenset[str]:
        parameters = parameter_names(function)
        return frozenset(
            target.id for stmt in module.assignments_within(function)
            if isinstance(stmt.value, ast.Subscript) and isinstance(stmt.value.value, ast.Name)
            and stmt.value.value.id in parameters
            for target in stmt.targets if isinstance(target, ast.Name)
        )

    return module.memo(("read out of parameters", id(function)), compute)


def _runs_ddp_set_by_caller(frame: Frame) -> bool:
    """A method calling `self.model(x)` on an object whose `model` its caller wrapped in DDP
    (`trainer.model = DDP(trainer.model)`, then `trainer.optimize_parameters()` runs
    `self.forward()`): the frame knows what the class cannot."""
    if frame.cls is None or isinstance(frame.scope, ast.Lambda) or frame.caller is None or not _wraps_attributes(frame):
        return False
    names = {m.group(1) for m in SELF_CALL.finditer(frame.module.source(frame.scope))}
    return any(role_in_frame(frame, _self_attribute(name)) is Role.DDP_MODEL for name in names)


def _wraps_attributes(frame: Frame) -> bool:
    """Whether the unit's module wraps an attribute of an object other than `self` in DDP
    (`trainer.model = DDP(trainer.model)`): only then can a method see a DDP model its own
    class never names."""
    while frame.caller is not None:
        frame = frame.caller
    module = frame.module
    return module.memo(("wraps attributes in ddp",), lambda: any(
        "." in name and not name.startswith("self.") for name in module.roles.named(Role.DDP_MODEL)
    ))


def _calls_held_ddp(callee) -> bool:
    """A method calling `self.model(x)` where `self.model` is a DDP model its module cannot
    name: one another base of a mixin's combining classes wraps, one a base class of another
    module wraps, or one every construction of its class passes (`SegActor(net=ddp_net)`, whose
    `__call__` the trainer's `self.actor(data)` runs). It runs the forward, though nothing in its
    module names gradients or a DDP model."""
    if callee.cls is None or isinstance(callee.function, ast.Lambda):
        return False
    module, cls, function = callee.module, callee.cls, callee.function

    def held_ddp(name: str) -> bool:
        role = combined_role(module, cls, name) or constructor_role(module, cls, name) or inherited_role(module, cls, f"self.{name}")
        return role is Role.DDP_MODEL

    def calls_it(method: ast.AST, seen: set[int]) -> bool:
        seen.add(id(method))
        source = module.source(method)
        for name in {m.group(1) for m in SELF_CALL.finditer(source)}:
            inner = module.methods(cls).get(name)
            if inner is not None:  # `self.forward_pass(data)`, a method of the same class calling it
                if id(inner) not in seen and len(seen) <= MAX_HELPER_DEPTH and calls_it(inner, seen):
                    return True
            elif held_ddp(name):
                return True
        # `self.diffusion.train_losses(self.model, x)`: handed to code that runs it
        return any(held_ddp(m.group(1)) for m in SELF_ARGUMENT.finditer(source) if m.group(1) not in module.methods(cls))

    def compute() -> bool:  # asked for every call of a helper the walk cannot otherwise skip
        return defines_class(module, cls) and calls_it(function, set())

    return module.memo(("calls held ddp", id(function), id(cls)), compute)


@dataclass(frozen=True)
class _QuietWalk:
    """A helper walk that found no event. Walked again from the same depth, with the same
    functions running above it, it finds none again; with no call cut for depth, from any
    shallower call too (it has room for all it followed)."""

    depth: int
    followed: tuple[ast.AST, ...]
    outer_cuts: tuple[ast.AST, ...]  # functions not followed because its callers were running them
    cut_for_depth: bool

    @classmethod
    def of(cls, depth: int, function: ast.AST, followed: list[ast.AST], cuts: list[ast.AST | None]) -> "_QuietWalk":
        walked = (function, *followed)
        outer = tuple(f for f in cuts if f is not None and not any(f is w for w in walked))
        return cls(depth, tuple(followed), outer, None in cuts)

    def holds(self, walker: "EventWalker", depth: int) -> bool:
        room = depth == self.depth if self.cut_for_depth else depth <= self.depth
        return (
            room and all(walker._active(f) for f in self.outer_cuts)
            and not any(walker._active(f) for f in self.followed)
        )


def _walk_key(frame: Frame) -> tuple:
    """What a helper walk's finding no event depends on, besides how deep it runs: the function
    and its class, and what each parameter means there, its role and the caller's spelling
    (`trainer.optimizer` is read in the caller's module). Objects, not ids: the key keeps them
    alive, so no later object can take their place."""
    return (
        frame.scope, frame.cls, frame.caller.module,
        tuple((p, role_in_frame(frame, ast.Name(p)), _spelled(a)) for p, a in sorted(frame.arguments.items())),
    )


def _spelled(argument: ast.expr) -> object:
    """An argument as a walk depends on it: a name as written, a literal by its value (a switch
    passed as False turns a helper's branch off)."""
    return ("literal", argument.value) if isinstance(argument, ast.Constant) else dotted(argument)


def _passed_switch(frame: Frame, test: ast.expr) -> bool | None:
    """The truth of `if update_grad:` (or `not ...`) in a helper whose caller passes the
    parameter a literal (`loss_scaler(loss, optimizer, update_grad=False)` on the micro-batches
    before the last): the branch runs always or never. None when it depends on the call."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _passed_switch(frame, test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.Name) and frame.caller is None and test.id in parameter_names(frame.scope):
        return switch_every_caller_sets(frame, test.id)  # `if is_adversarial:`, every call passing False
    if isinstance(test, ast.Compare):  # `if mode == "train":` in `iterate(..., mode="val")`
        return settled_by(test, lambda name: _passed_constant(frame, name))
    argument = frame.arguments.get(test.id) if isinstance(test, ast.Name) else None
    if not (isinstance(argument, ast.Constant) and isinstance(argument.value, bool)):
        return None
    return None if frame.module.scope(frame.scope).assignments.get(test.id) else argument.value


def _passed_constant(frame: Frame, name: str) -> ast.Constant | None:
    """The literal a helper's caller passes for its parameter `name` (or leaves at a literal
    default), when the helper does not rebind it; None anywhere else."""
    if frame.caller is None or name not in parameter_names(frame.scope) or frame.module.scope(frame.scope).assignments.get(name):
        return None
    value = frame.arguments.get(name)
    if value is None:
        value = left_at_default(frame).get(name)
    return value if isinstance(value, ast.Constant) else None


def _judge_guard(frame: Frame, stmt: ast.If | ast.Assert | ast.IfExp, holds: bool) -> Guard:
    """The guard of one side of `stmt`, its names read where `frame` runs."""
    scope = frame.module.scope(frame.scope)
    line = stmt.lineno

    def resolve(name: str | ast.Call) -> ast.expr | None:
        if isinstance(name, ast.Call):
            return returned_value(frame.module, name, frame.context)
        earlier = scope.before(name, line)
        carried = _loop_carried(frame.module, stmt, scope.assignments.get(name, ()), earlier)
        branched = set_in_branches(frame.module.parents, stmt, name, earlier) if carried is None else None
        if branched is not None:  # `update = False` in an if-chain
            return branched
        last = carried or (earlier[-1] if earlier else None)  # `flag = ...`, `flag: bool = ...`
        if last is not None:
            return last.value if isinstance(last, (ast.Assign, ast.AnnAssign)) else None
        return value_outside(frame, name)

    canonical = _presence_as_flag(frame, _canonical(frame, stmt.test, line))
    sets = flags_set(stmt, holds, scope.assignments, frame.scope) if isinstance(stmt, ast.If) and isinstance(frame.scope, (*FUNCTION_TYPES, ast.Module)) else ()
    window_test = None
    if isinstance(stmt, ast.If):
        window_test = countdown_test(stmt, scope.assignments) or skipped_below_test(stmt, frame.module.parents.block.get(stmt, []))
    guard = make_guard(stmt, stmt.test, holds, resolve, None if ast.dump(canonical) == ast.dump(stmt.test) else canonical, sets, window_test)
    # the class whose method holds the test (a base class's, read in its own module)
    defining = frame.module.parents.enclosing_class(frame.scope) if isinstance(frame.scope, FUNCTION_TYPES) else None
    flag = truthy_flag(guard) if defining is not None else None
    ruled_out = exclusive_flags(frame.module, defining, flag) if flag is not None else frozenset()
    return replace(guard, rules_out_flags=ruled_out) if ruled_out else guard


def _canonical(frame: Frame, expr: ast.expr, line: int, depth: int = 0) -> ast.expr:
    """`expr` as the unit's own code spells it: a helper's parameter replaced by what its call
    passes, a local alias (`args = self.args`) by what it names, so that `if args.fp16:` in a
    helper given `args` and `if self.args.fp16:` in the loop are seen as one flag."""
    if depth > 4:
        return expr
    table = frame.module.scope(frame.scope)
    arguments = frame.arguments if frame.caller is not None else {}

    def spelled_outside(node: ast.Name) -> ast.expr | None:
        earlier = table.before(node.id, line)
        if not earlier and node.id in arguments:
            return _canonical(frame.caller, arguments[node.id], frame.call.lineno, depth + 1)
        value = getattr(earlier[-1], "value", None) if len(earlier) == 1 and isinstance(earlier[0], ast.Assign) else None
        if isinstance(value, (ast.Name, ast.Attribute)) and dotted(value):
            return _canonical(frame, value, earlier[0].lineno, depth + 1)
        return None

    return with_names_replaced(expr, spelled_outside)


def _presence_as_flag(frame: Frame, test: ast.expr) -> ast.expr:
    """`self.scaler is None` where the class sets `self.scaler = GradScaler() if self.cfg.amp
    else None`, and nothing else: the setting it stands for (`not self.cfg.amp`), so that it and
    `if self.cfg.amp:` in another method are seen as one flag."""
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot))
        and _is_none(test.comparators[0]) and frame.cls is not None
    ):
        return test
    name = dotted(test.left) or ""
    values = frame.module.class_attributes(frame.cls).get(name.removeprefix("self."), []) if name.startswith("self.") else []
    if len(values) != 1 or not isinstance(values[0], ast.IfExp) or _is_none(values[0].body) == _is_none(values[0].orelse):
        return test
    setting = _kept_on_self(frame.module, frame.cls, values[0].test)
    made = setting if _is_none(values[0].orelse) else ast.UnaryOp(ast.Not(), setting)
    return made if isinstance(test.ops[0], ast.IsNot) else ast.UnaryOp(ast.Not(), made)


def _kept_on_self(module: "ModuleModel", cls: ast.ClassDef, expr: ast.expr) -> ast.expr:
    """`args.amp` read in `__init__`, which keeps `self.args = args`: `self.args.amp`, as the
    other methods spell the same setting."""
    kept = {constructor_parameter(module, cls, a): a for a in constructor_attributes(module, cls)}
    return with_names_replaced(expr, lambda n: _self_attribute(kept[n.id]) if n.id in kept else None)


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def manual_optimization(module: "ModuleModel", cls: ast.ClassDef | None) -> bool:
    """A Lightning module that sets `self.automatic_optimization = False`: it runs its own
    backward (`self.manual_backward`), clip and step, so the loop rules apply to it."""
    if cls is None:
        return False
    values = module.class_attributes(cls).get("automatic_optimization", ())
    return any(isinstance(v, ast.Constant) and v.value is False for v in values)


def _closure_call(module: "ModuleModel", closure: ast.expr) -> ast.Call:
    """The call `optimizer.step(closure)` makes: `closure()`, or for a `functools.partial(f, *a,
    **k)` handed in (a trainer's `partial(self.training_step, batch=batch)`), `f(*a, **k)`."""
    if isinstance(closure, ast.Call) and closure.args and module.imports.qualname(closure.func) == "functools.partial":
        return ast.Call(closure.args[0], closure.args[1:], closure.keywords)
    return ast.Call(closure, [], [])


def _clipper_method(callee) -> bool:
    """A method of a project class named for clipping gradients (`GradientClipper.step(params)`,
    computing the total norm and rescaling the gradients its own way) that reads `.grad`."""
    return (
        callee is not None and callee.cls is not None and bool(CLIPPER_CLASS.search(callee.cls.name))
        and any(isinstance(n, ast.Attribute) and n.attr == "grad" for n in ast.walk(callee.function))
    )


def _makes_clipper(module: "ModuleModel", value: ast.Call, scope: ast.AST) -> bool:
    """`partial(clip_grad_norm_, ...)`, or a call of a project function every value of whose
    returns is such a partial or None."""
    if _clip_partial(module, value):
        return True
    builder = resolve_callee(module, value, CallContext(module, scope, class_of_scope(module, scope)))
    if builder is None or isinstance(builder.function, ast.Lambda):
        return False
    table = builder.module.scope(builder.function).assignments
    built = [
        v for r in builder.module.returns(builder.function)
        for v in ([getattr(s, "value", None) for s in table.get(r.id, ())] if isinstance(r, ast.Name) else [r])
        if not (isinstance(v, ast.Constant) and v.value is None)
    ]
    return bool(built) and all(isinstance(v, ast.Call) and _clip_partial(builder.module, v) for v in built)


def _chooses_clip_function(module: "ModuleModel", value: ast.IfExp) -> bool:
    """`clip_grad_value_ if mode == "value" else clip_grad_norm_ if mode == "norm" else None`: a
    clipping function picked by a setting (None where clipping is off)."""
    pending, chosen = [value], []
    while pending:
        side = pending.pop()
        if isinstance(side, ast.IfExp):
            pending += [side.body, side.orelse]
        elif not (isinstance(side, ast.Constant) and side.value is None):
            chosen.append(side)
    return bool(chosen) and all((module.imports.qualname(side) or "").rsplit(".", 1)[-1] in CLIP_FUNCTIONS for side in chosen)


def _clip_partial(module: "ModuleModel", value: ast.Call) -> bool:
    """`partial(torch.nn.utils.clip_grad_norm_, max_norm=...)`."""
    return (
        (module.imports.qualname(value.func) or "").endswith("partial") and bool(value.args)
        and (module.imports.qualname(value.args[0]) or "").rsplit(".", 1)[-1] in CLIP_FUNCTIONS
    )


def _runs_fp16(accelerator: ast.Call) -> bool:
    """`Accelerator(mixed_precision="fp16")`, on some path (`"fp16" if args.fp16 else "no"`):
    its backward scales the loss with a GradScaler of its own."""
    setting = next((k.value for k in accelerator.keywords if k.arg == "mixed_precision"), None)
    return setting is not None and any(
        isinstance(n, ast.Constant) and n.value == "fp16" for n in ast.walk(setting)
    )


def _thresholds(call: ast.Call) -> list[ast.expr]:
    """Where a clip's threshold is: `max_norm=` / `clip_value=`, else among its arguments (the
    second of `clip_grad_norm_(params, 1.0)`, the first of FSDP's `model.clip_grad_norm_(1.0)`)."""
    keyword = next((k.value for k in call.keywords if k.arg in ("max_norm", "clip_value")), None)
    return [keyword] if keyword is not None else list(call.args)


def _infinite(value: ast.expr | None) -> bool:
    """`float("inf")`, `math.inf`, `torch.inf`, `np.inf`."""
    if isinstance(value, ast.Call) and dotted(value.func) == "float" and len(value.args) == 1:
        text = value.args[0]
        return isinstance(text, ast.Constant) and str(text.value).strip().lower() in ("inf", "+inf", "infinity")
    return isinstance(value, ast.Attribute) and value.attr == "inf"


def _divided(loss: ast.expr, divisor: ast.expr) -> ast.expr:
    """`loss / divisor` as the framework's backward computes it, placed where `loss` is written;
    `loss` itself for a divisor of 1."""
    if isinstance(divisor, ast.Constant) and divisor.value == 1:
        return loss
    return ast.copy_location(ast.BinOp(loss, ast.Div(), divisor), loss)


def _finds_non_finite(test: ast.expr, holds: bool) -> bool:
    """The side of a test taken when a value is NaN or infinite: `isnan(x)` / `isinf(x)` holding
    (also `.any()` of them, one of several `or`ed tests, or a term of an `and`), `isfinite(x)`
    failing."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _finds_non_finite(test.operand, not holds)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) and holds:
        return any(_finds_non_finite(v, True) for v in test.values)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) and holds:
        return any(_finds_non_finite(v, True) for v in test.values)  # `if check and isnan(g):` holds only on a bad value
    while isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr in ("any", "all", "item"):
        test = test.func.value
    name = (dotted(test.func) or "").rsplit(".", 1)[-1] if isinstance(test, ast.Call) else ""
    return _non_finite_side(name, holds)


def _non_finite_side(check: str, holds: bool) -> bool:
    """`isnan(x)` / `isinf(x)` holding, or `isfinite(x)` failing: the side of a bad value."""
    return (check in ("isnan", "isinf") and holds) or (check == "isfinite" and not holds)


def _flags_non_finite(module: "ModuleModel | None", guard) -> bool:
    """`if not grad_is_finite:` where the name was set from `isfinite` checks of the gradients
    (`np.all([torch.isfinite(p.grad).all().item() for p in ...])`): the side taken on a bad value."""
    test, holds = guard.test, guard.holds
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, holds = test.operand, not holds
    if module is None or not isinstance(test, ast.Name) or not isinstance(guard.node, ast.If) or guard.node not in module.parents.parent:
        return False
    value, _, _ = module.values.reaching_value(test, module.parents.scope_of(guard.node), guard.node.lineno)
    checks = {(dotted(n.func) or "").rsplit(".", 1)[-1] for n in ast.walk(value) if isinstance(n, ast.Call)} if value is not None else set()
    checks &= {"isfinite", "isnan", "isinf"}
    # one kind of check (`isnan` and `isinf` agree on which side is bad)
    return bool(checks) and len({c == "isfinite" for c in checks}) == 1 and _non_finite_side(checks.pop(), holds)


def _self_attribute(name: str) -> ast.Attribute:
    return ast.Attribute(ast.Name("self", ast.Load()), name, ast.Load())


def _reads_grad(expr: ast.expr, besides: str | None) -> bool:
    """`p.grad.cpu().float()`, `p.grad.data`: a value made from another tensor's gradient than
    the one `besides` names (`p.grad = p.grad / n` rescales its own: no copy)."""
    own = besides.rsplit(".grad", 1)[0] if besides else None
    return any(
        isinstance(node, ast.Attribute) and node.attr == "grad" and (own is None or dotted(node.value) != own)
        for node in ast.walk(expr)
    )


def made_from_gradients(module: "ModuleModel", scope: ast.AST, expr: ast.expr, depth: int = 0) -> bool:
    """The value reads `.grad`, itself or through the names it is made of in `scope` (a
    hand-written all-reduce's `param.grad = grad.reshape(...)` over the flattened gradients):
    the gradients transformed, not a gradient computed apart from them."""
    if _reads_grad(expr, besides=None):
        return True
    if depth > 3:
        return False
    table = module.scope(scope).assignments
    for name in {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}:
        for stmt in table.get(name, ()):
            source = stmt.iter if isinstance(stmt, (ast.For, ast.AsyncFor)) else getattr(stmt, "value", None)
            if source is not None and made_from_gradients(module, scope, source, depth + 1):
                return True
    return False


def _computed_gradient(expr: ast.expr) -> bool:
    """A tensor computed by hand for `.grad` (`chunk.clone()`, a projected gradient): not None, not
    a fresh zero tensor (`torch.zeros_like(p)`, which clears)."""
    if isinstance(expr, ast.Constant):
        return False
    called = dotted(expr.func) if isinstance(expr, ast.Call) else None
    return not (called or "").rsplit(".", 1)[-1].startswith(("zeros", "empty"))


def _stored(expr: ast.expr) -> bool:
    """`backup[name]`, `self.grad_backup[name]`: a tensor kept aside, looked up in a store."""
    return isinstance(expr, ast.Subscript) and dotted(expr.value) is not None


def _wrapped_or_not(expr: ast.expr) -> ast.expr:
    """`opt.optimizer if hasattr(opt, "optimizer") else opt`: the optimizer a wrapper holds, or
    the optimizer itself: one optimizer, named `opt` as the code's other calls name it."""
    if not isinstance(expr, ast.IfExp):
        return expr
    sides = sorted((expr.body, expr.orelse), key=lambda side: len(dotted(side) or ""))
    inner, outer = (dotted(side) for side in sides)
    return sides[0] if inner and outer and (outer == inner or outer.startswith(inner + ".")) else expr


def _is_self(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Name) and expr.id == "self"


def is_apex_scale_loss(context: ast.expr | None) -> bool:
    """apex's `with amp.scale_loss(loss, optimizer) as scaled_loss:` (it unscales the gradients
    when the block exits)."""
    return (
        isinstance(context, ast.Call) and isinstance(context.func, ast.Attribute)
        and context.func.attr == "scale_loss" and bool(context.args)
    )


def _loop_carried(module: "ModuleModel", stmt: ast.stmt, assignments, earlier) -> ast.stmt | None:
    """`if zero_grad_next: ...` near the top of a loop body whose end sets
    `zero_grad_next = is_update_step`: the test reads what the previous iteration left."""
    loop = next((n for n in module.parents.chain(stmt)[1:] if isinstance(n, LOOP_TYPES)), None)
    if loop is None or any(loop.lineno <= a.lineno <= loop.end_lineno for a in earlier):
        return None
    later = [a for a in assignments if stmt.end_lineno < a.lineno <= loop.end_lineno]
    return later[0] if len(later) == 1 else None


def switch_owner(node: ast.AST) -> ast.expr | None:
    """The object whose gradient sync `node` switches: `model.no_sync`,
    `model.require_backward_grad_sync`, or a lookup a bare model survives
    (`getattr(model, "no_sync", contextlib.nullcontext)`); None for anything else."""
    if isinstance(node, ast.Attribute):
        return node.value if node.attr in NO_SYNC_ATTRIBUTES else None
    if (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
        and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value in NO_SYNC_ATTRIBUTES
    ):
        return node.args[0]
    return None


Sides = tuple[tuple[ast.IfExp, bool], ...]  # conditional expressions around a node, and its side of each


def _interesting_nodes(roots: list[ast.AST]) -> list[tuple[ast.AST, Sides]]:
    """Calls and sync-control attributes under `roots`, in source order, each with the sides of
    the conditional expressions it sits on (`a() if flag else b()`). The same statement is
    scanned by every loop around it, so the model memoizes this per statement."""
    found = [
        (node, sides) for root in roots for node, sides in _walk_expression(root)
        if isinstance(node, ast.Call) or (isinstance(node, ast.Attribute) and node.attr in NO_SYNC_ATTRIBUTES)
    ]
    found.sort(key=lambda pair: (pair[0].lineno, pair[0].col_offset))
    return found


def _makes_detached_leaves(value: ast.expr) -> bool:
    """`x.detach().requires_grad_()` (maybe for each item of a list): a fresh leaf tensor."""
    if isinstance(value, (ast.ListComp, ast.GeneratorExp)):
        value = value.elt
    return (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "requires_grad_"
        and isinstance(value.func.value, ast.Call) and isinstance(value.func.value.func, ast.Attribute)
        and value.func.value.func.attr == "detach"
    )


def _walk_expression(root: ast.AST):
    """(node, sides) of an expression or simple statement, not entering lambdas or
    comprehensions' deferred bodies (they do not run here)."""
    stack: list[tuple[ast.AST, Sides]] = [(root, ())]
    while stack:
        node, sides = stack.pop()
        yield node, sides
        if isinstance(node, ast.IfExp):
            stack += [(node.test, sides), (node.body, (*sides, (node, True))), (node.orelse, (*sides, (node, False)))]
        elif not isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stack.extend((child, sides) for child in ast.iter_child_nodes(node))


def _entered_without_grad(module: "ModuleModel", stmt: ast.stmt) -> bool:
    """`stack.enter_context(torch.no_grad())` earlier in the statement's own block: autograd is
    off from there to the end of the `ExitStack` block (RoseTTAFold's recycling passes)."""
    block = module.parents.block.get(stmt, ())
    return any(
        isinstance(s, ast.Expr) and isinstance(call := s.value, ast.Call) and isinstance(call.func, ast.Attribute)
        and call.func.attr == "enter_context" and len(call.args) == 1 and turns_off(module, call.args[0])
        for s in block[: block.index(stmt)] if block
    )


def _clip_coefficient(module: "ModuleModel", scope: ast.AST, call: ast.Call, depth: int) -> bool:
    """`p.grad.mul_(clip_coef)` where `clip_coef = max_norm / (norm + 1e-6)` (clamped at 1, or
    applied under `if clip_coef < 1:`): gradients clipped to a norm, by hand."""
    factor = call.args[0] if len(call.args) == 1 and not call.keywords else None
    return factor is not None and _norm_ratio(module, scope, factor, depth)


def _norm_ratio(module: "ModuleModel", scope: ast.AST, value: ast.expr, depth: int) -> bool:
    if depth > 3:
        return False
    match value:
        case ast.Name(id=name):
            stmts = module.scope(scope).assignments.get(name, ())
            return bool(stmts) and all(
                isinstance(s, ast.Assign) and _norm_ratio(module, scope, s.value, depth + 1) for s in stmts
            )
        case ast.Call(func=ast.Attribute(value=inner, attr="clamp" | "clamp_" | "clip"), args=[]):
            return _norm_ratio(module, scope, inner, depth + 1)  # `coef.clamp(max=1.0)`
        case ast.Call(func=func, args=[inner, *_]) if dotted(func) in ("torch.clamp", "torch.clip", "min"):
            return _norm_ratio(module, scope, inner, depth + 1)  # `torch.clamp(coef, max=1.0)`, `min(coef, 1.0)`
        case ast.BinOp(op=ast.Div(), right=divisor):
            return any("norm" in (dotted(n) or "").rsplit(".", 1)[-1].lower() for n in ast.walk(divisor) if isinstance(n, (ast.Name, ast.Attribute)))
    return False


def _is_grad(expr: ast.AST | None) -> bool:
    """`p.grad`, `param.grad.data` ..."""
    while isinstance(expr, ast.Attribute):
        if expr.attr == "grad":
            return True
        expr = expr.value
    return False


def _selective_clear(module: "ModuleModel", stmt: ast.stmt) -> bool:
    """A `p.grad = None` / `p.grad.zero_()` under a test inside its loop over parameters
    (`if "last_layer" in name:`, `if not torch.isfinite(p.grad).all():`) clears some gradients,
    not the step's; a test of whether the gradient exists (`if p.grad is not None:`) does not count."""
    for node in module.parents.ancestors(stmt):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, *FUNCTION_TYPES)):
            return False
        if isinstance(node, ast.If) and not _tests_grad_exists(node.test):
            return True
    return False


def _tests_grad_exists(test: ast.expr) -> bool:
    """`p.grad is not None`, `p.grad`, `p.requires_grad`, or an `and` of those."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return all(_tests_grad_exists(value) for value in test.values)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot):
        test = test.left
    return _is_grad(test) or (isinstance(test, ast.Attribute) and test.attr == "requires_grad")


def _handled(handler: ast.ExceptHandler, entered: bool) -> _PendingGuard:
    """The side of an `except` handler: inside it (`entered`), or after its `try` statement."""
    return _PendingGuard(lambda: Guard(handler, handler, entered))


def _nested_exit(stmt: ast.If) -> ast.If | None:
    """`if a: if b: return` (no `else` at any level) as the one `if a and b: return` it is;
    `if fp16: ...; if n < N: continue ... else: ...; if n < N: continue ...`, each branch
    leaving on the same test, as `if n < N: continue`."""
    if stmt.orelse:
        return _exit_in_every_branch(stmt)  # the first branch's: its test is judged where it stands
    test = _exit_test(stmt)
    if test is None or test is stmt.test:
        return None
    return ast.If(test=test, body=[], orelse=[], lineno=stmt.lineno, col_offset=stmt.col_offset,
                  end_lineno=stmt.end_lineno, end_col_offset=stmt.end_col_offset)


def _exit_in_every_branch(stmt: ast.If) -> ast.If | None:
    """The first branch's `if test: continue` when both branches of `stmt` leave the block on
    the same test, each with an `if` of its own."""
    exits = [[s for s in branch if isinstance(s, ast.If) and not s.orelse and _leaves_block(s.body)] for branch in (stmt.body, stmt.orelse)]
    if any(len(found) != 1 for found in exits) or ast.dump(exits[0][0].test) != ast.dump(exits[1][0].test):
        return None
    return exits[0][0]


def _exit_test(stmt: ast.stmt) -> ast.expr | None:
    """The condition under which `stmt`, an `if` without `else`, leaves the block: its test
    when its body leaves, both tests when its body is one such `if`."""
    if not isinstance(stmt, ast.If) or stmt.orelse:
        return None
    if _leaves_block(stmt.body):
        return stmt.test
    inner = _exit_test(stmt.body[0]) if len(stmt.body) == 1 else None
    return ast.BoolOp(op=ast.And(), values=[stmt.test, inner]) if inner is not None else None


def _leaves_block(body: list[ast.stmt]) -> bool:
    """The block always ends by leaving (`continue`, `break`, `return`, `raise`, or an `if`
    whose every branch does)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.If):
        return _leaves_block(last.body) and _leaves_block(last.orelse)
    return isinstance(last, (ast.Continue, ast.Return, ast.Break, ast.Raise))

