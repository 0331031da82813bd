"""Gradient events of one training loop, in program order, each with its guards and contexts."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from gradlint.model.guards import Guard, make_guard
from gradlint.model.names import dotted
from gradlint.model.roles import Role

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
    # Gradients handled by a framework (Accelerate, DeepSpeed, Lightning, closures): hands off.
    FRAMEWORK = auto()


STEPS = (Kind.STEP, Kind.SCALER_STEP)
CLIP_FUNCTIONS = frozenset({"clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_grad_value"})
NO_SYNC_ATTRIBUTES = frozenset({"no_sync", "require_backward_grad_sync", "set_requires_gradient_sync"})
GRAD_RESCALE_METHODS = frozenset({"mul_", "div_"})
FRAMEWORK_ROLES = (Role.ACCELERATOR, Role.ENGINE)


@dataclass(frozen=True)
class Event:
    kind: Kind
    node: ast.AST  # the call, or the statement for assignments
    stmt: ast.stmt  # the innermost statement holding it
    order: int
    guards: tuple[Guard, ...] = ()
    loops: tuple[ast.stmt, ...] = ()  # loops inside the training loop that enclose the event
    contexts: tuple[ast.expr, ...] = ()  # `with` items enclosing the event
    scope: ast.AST | None = None  # the function (or module) whose code holds the statement
    target: str | None = None  # receiver: optimizer, scaler, model ...
    optimizer: str | None = None  # the optimizer it acts for, where there is one
    loss: ast.expr | None = None  # BACKWARD: the tensor backward runs on (unwrapped from scale)
    scaler: str | None = None  # BACKWARD: the scaler whose scale() wrapped the loss
    inlined: bool = False  # found in a local helper called from the loop

    @property
    def boundary_guard(self) -> Guard | None:
        return next((g for g in self.guards if g.boundary is not None), None)

    def exclusive_with(self, other: "Event") -> bool:
        return any(a.excludes(b) for a in self.guards for b in other.guards)


@dataclass
class _State:
    guards: list[Guard] = field(default_factory=list)
    loops: list[ast.stmt] = field(default_factory=list)
    contexts: list[ast.expr] = field(default_factory=list)


class EventWalker:
    """Walks the body of one loop (or function) and lists its events.

    Calls of local helper functions (module functions, or methods through `self.`) are
    followed one level deep, so `train_step(batch)` inside the loop contributes its events.
    """

    def __init__(self, model: "ModuleModel", unit: ast.AST):
        self.model = model
        self.unit_scope = model.parents.scope_of(unit) if not isinstance(unit, (ast.FunctionDef, ast.AsyncFunctionDef)) else unit
        self.events: list[Event] = []
        self.state = _State()
        self.scope = self.unit_scope
        self.inlining = False

    def walk(self, body: list[ast.stmt]) -> list[Event]:
        self._block(body)
        return self.events

    # -- statements ---------------------------------------------------------------------------

    def _block(self, stmts: list[ast.stmt]) -> None:
        pushed = 0
        for stmt in stmts:
            self._statement(stmt)
            if isinstance(stmt, ast.If) and not stmt.orelse and _leaves_block(stmt.body):
                # `if not boundary: continue` — what follows runs only when the test is false.
                self.state.guards.append(self._guard(stmt, False))
                pushed += 1
        del self.state.guards[len(self.state.guards) - pushed :]

    def _statement(self, stmt: ast.stmt) -> None:
        match stmt:
            case ast.If(test=test, body=body, orelse=orelse):
                self._scan(stmt, [test])
                self._branch(self._guard(stmt, True), body)
                if orelse:
                    self._branch(self._guard(stmt, False), orelse)
            case ast.For() | ast.AsyncFor() | ast.While():
                self._scan(stmt, [stmt.test] if isinstance(stmt, ast.While) else [stmt.iter])
                self.state.loops.append(stmt)
                self._block(stmt.body)
                self.state.loops.pop()
                self._block(stmt.orelse)
            case ast.With() | ast.AsyncWith():
                self._scan(stmt, [item.context_expr for item in stmt.items])
                self.state.contexts.extend(item.context_expr for item in stmt.items)
                self._block(stmt.body)
                del self.state.contexts[len(self.state.contexts) - len(stmt.items) :]
            case ast.Try(body=body, handlers=handlers, orelse=orelse, finalbody=finalbody):
                for block in (body, *(h.body for h in handlers), orelse, finalbody):
                    self._block(block)
            case ast.Match(subject=subject, cases=cases):
                self._scan(stmt, [subject])
                for case in cases:
                    self._branch(Guard(stmt, subject, True), case.body)
            case ast.FunctionDef() | ast.AsyncFunctionDef() | ast.ClassDef():
                pass  # definitions run nothing; closures are judged where they are called
            case _:
                self._scan(stmt, [stmt])
                self._assignment_events(stmt)

    def _branch(self, guard: Guard, body: list[ast.stmt]) -> None:
        self.state.guards.append(guard)
        self._block(body)
        self.state.guards.pop()

    def _guard(self, stmt: ast.If, holds: bool) -> Guard:
        scope = self.model.scope(self.scope)
        line = stmt.lineno

        def resolve(name: str) -> ast.expr | None:
            earlier = scope.before(name, line)
            last = earlier[-1] if earlier else None
            return last.value if isinstance(last, ast.Assign) else None

        return make_guard(stmt, stmt.test, holds, resolve)

    # -- expressions --------------------------------------------------------------------------

    def _scan(self, stmt: ast.stmt, roots: list[ast.AST]) -> None:
        first, last = min(r.lineno for r in roots), max(r.end_lineno for r in roots)
        if not self.model.may_hold_events(first, last):
            return
        for node in self.model.memo(("scan", id(stmt)), lambda: _interesting_nodes(roots)):
            if isinstance(node, ast.Call):
                self._call(node, stmt)
            else:
                self._add(Kind.NO_SYNC, node, stmt, target=dotted(node.value))

    def _call(self, call: ast.Call, stmt: ast.stmt) -> None:
        roles = self.model.roles
        func = call.func
        if isinstance(func, ast.Attribute):
            receiver, method = func.value, func.attr
            receiver_role = roles.of(receiver)
            name = dotted(receiver)
            if receiver_role in FRAMEWORK_ROLES or method == "manual_backward":
                self._add(Kind.FRAMEWORK, call, stmt, target=name)
                return
            if method == "backward":
                self._backward(call, stmt, receiver)
                return
            if method in CLIP_FUNCTIONS:  # `model.clip_grad_norm_(...)` (FSDP1), `utils.clip...`
                self._add(Kind.CLIP, call, stmt)
                return
            if receiver_role is Role.OPTIMIZER:
                if method == "zero_grad":
                    self._add(Kind.ZERO_GRAD, call, stmt, target=name, optimizer=name)
                elif method == "step":
                    kind = Kind.FRAMEWORK if call.args or call.keywords else Kind.STEP
                    self._add(kind, call, stmt, target=name, optimizer=name)
                return
            if receiver_role is Role.SCALER:
                optimizer = dotted(call.args[0]) if call.args else None
                kind = {"step": Kind.SCALER_STEP, "unscale_": Kind.UNSCALE, "update": Kind.SCALER_UPDATE}.get(method)
                if kind:
                    self._add(kind, call, stmt, target=name, optimizer=optimizer)
                return
            if receiver_role is Role.SCHEDULER and method == "step":
                self._add(Kind.SCHED_STEP, call, stmt, target=name)
                return
            if method == "zero_grad" or (method == "zero_" and _is_grad(receiver)):
                self._add(Kind.ZERO_GRAD, call, stmt, target=name)
                return
            if method in GRAD_RESCALE_METHODS and _is_grad(receiver):
                self._add(Kind.GRAD_RESCALE, call, stmt, target=name)
                return
        qualname = self.model.imports.qualname(func) or ""
        last = qualname.rsplit(".", 1)[-1]
        if last in CLIP_FUNCTIONS:
            self._add(Kind.CLIP, call, stmt)
        elif qualname.endswith("autograd.backward") and call.args:
            self._backward(call, stmt, call.args[0])
        elif "grads" in last and any(w in last for w in ("multiply", "scale", "div", "rescale")):
            self._add(Kind.GRAD_RESCALE, call, stmt)
        elif self.model.roles.of(func) is Role.DDP_MODEL:
            self._add(Kind.FORWARD, call, stmt, target=dotted(func))
        else:
            self._maybe_inline(call)

    def _backward(self, call: ast.Call, stmt: ast.stmt, tensor: ast.expr) -> None:
        scaler = None
        match tensor:
            case ast.Call(func=ast.Attribute(value=owner, attr="scale"), args=[inner]) if (
                self.model.roles.of(owner) is Role.SCALER
            ):
                scaler, tensor = dotted(owner), inner
        self._add(Kind.BACKWARD, call, stmt, loss=tensor, scaler=scaler)

    def _assignment_events(self, stmt: ast.stmt) -> None:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        for target in targets:
            if not _is_grad(target):
                continue
            if isinstance(stmt, ast.AugAssign):
                self._add(Kind.GRAD_RESCALE, stmt, stmt)
            elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and stmt.value.value is None:
                self._add(Kind.ZERO_GRAD, stmt, stmt)

    def _maybe_inline(self, call: ast.Call) -> None:
        if self.inlining:
            return
        helper = self._local_function(call.func)
        if helper is None or helper is self.unit_scope or not self.model.touches_gradients(helper):
            return
        saved_scope, self.scope, self.inlining = self.scope, helper, True
        try:
            self._block(helper.body)
        finally:
            self.scope, self.inlining = saved_scope, False

    def _local_function(self, func: ast.expr) -> ast.FunctionDef | None:
        if isinstance(func, ast.Name):
            return self.model.functions.get(func.id)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            cls = self.model.parents.enclosing_class(self.unit_scope)
            return self.model.methods(cls).get(func.attr) if cls else None
        return None

    def _add(self, kind: Kind, node: ast.AST, stmt: ast.stmt, **details) -> None:
        state = self.state
        self.events.append(
            Event(
                kind, node, stmt, len(self.events), tuple(state.guards), tuple(state.loops),
                tuple(state.contexts), self.scope, inlined=self.inlining, **details,
            )
        )


def _interesting_nodes(roots: list[ast.AST]) -> list[ast.AST]:
    """Calls and sync-control attributes under `roots`, in source order. The same statement is
    scanned by every loop around it, so the model memoizes this per statement."""
    found = [
        node for root in roots for node in _walk_expression(root)
        if isinstance(node, ast.Call) or (isinstance(node, ast.Attribute) and node.attr in NO_SYNC_ATTRIBUTES)
    ]
    found.sort(key=lambda n: (n.lineno, n.col_offset))
    return found


def _walk_expression(root: ast.AST):
    """Nodes of an expression or simple statement, not entering lambdas or comprehensions'
    deferred bodies (they do not run here)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def _is_grad(expr: ast.AST | None) -> bool:
    """`p.grad`, `param.grad.data` ..."""
    while isinstance(expr, ast.Attribute):
        if expr.attr == "grad":
            return True
        expr = expr.value
    return False


def _leaves_block(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Continue, ast.Return, ast.Break, ast.Raise))
