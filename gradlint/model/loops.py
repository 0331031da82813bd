"""Training loops: the units rules reason about, and how each accumulates gradients."""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from gradlint.model.events import STEPS, Event, EventWalker, Kind
from gradlint.model.guards import Guard
from gradlint.model.names import dotted

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

LOOPS = (ast.For, ast.AsyncFor, ast.While)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
BACKWARD_CALL = re.compile(r"(?<!def )backward\s*\(")  # a call, not an autograd Function's def
MICRO_BATCH_WORDS = ("micro", "chunk", "split", "accum", "shard")


@dataclass(frozen=True)
class Accumulation:
    """The step waits for `factor` micro-batches: behind a boundary `guard` (flat shape), or
    after an `inner_loop` of micro-batches (nested shape)."""

    factor: ast.expr
    guard: Guard | None = None
    inner_loop: ast.For | None = None

    def runs_every_micro_batch(self, event: Event) -> bool:
        """The event runs on every micro-batch, not once per window: outside every boundary
        test (flat shape), or inside the micro-batch loop (nested shape)."""
        if self.inner_loop is not None:
            return self.inner_loop in event.loops
        return not any(g.boundary or g.inside_window for g in event.guards)

    def at_step(self, event: Event) -> bool:
        """The event runs once per window, where the step runs: under the step's boundary
        test, or after the micro-batch loop."""
        if self.inner_loop is not None:
            return self.inner_loop not in event.loops
        return self.guard in event.guards


class TrainingLoop:
    """A loop (or a step function) whose body runs backward() and an optimizer step."""

    def __init__(self, model: "ModuleModel", node: ast.AST, events: list[Event]):
        self.model = model
        self.node = node
        self.events = events

    @property
    def scope(self) -> ast.AST:
        return self.node if isinstance(self.node, FUNCTIONS) else self.model.parents.scope_of(self.node)

    def of(self, *kinds: Kind) -> list[Event]:
        return [e for e in self.events if e.kind in kinds]

    @cached_property
    def optimizer(self) -> str | None:
        """The one optimizer this loop steps; None when it steps several (GANs) or none."""
        names = {e.optimizer for e in self.of(*STEPS)}
        return names.pop() if len(names) == 1 and None not in names else None

    @cached_property
    def plain(self) -> bool:
        """Gradients are managed by this code alone: one optimizer, no framework doing it."""
        return self.optimizer is not None and not self.of(Kind.FRAMEWORK)

    @cached_property
    def accumulation(self) -> Accumulation | None:
        steps, backwards = self.of(*STEPS), self.of(Kind.BACKWARD)
        if not steps or not backwards:
            return None
        guard = _common_boundary(steps)
        if guard is not None and all(guard not in b.guards for b in backwards):
            if self._always_one(guard.boundary.factor):
                return None
            return Accumulation(guard.boundary.factor, guard=guard)
        inner = {b.loops[-1] for b in backwards if b.loops}
        if len(inner) == 1 and all(b.loops for b in backwards):
            loop = inner.pop()
            if all(loop not in s.loops for s in steps):
                factor = _micro_batch_count(loop)
                if factor is not None:
                    return Accumulation(factor, inner_loop=loop)
        return None


    def _always_one(self, factor: ast.expr) -> bool:
        """`accum_steps = 1`: a factor whose every assignment here is the literal 1."""
        name = dotted(factor)
        if name is None:
            return False
        values = [
            getattr(stmt, "value", None)
            for scope in {id(s): s for s in (self.scope, self.model.tree)}.values()
            for stmt in self.model.scope(scope).assignments.get(name, ())
        ]
        return bool(values) and all(isinstance(v, ast.Constant) and v.value == 1 for v in values)


def _common_boundary(steps: list[Event]) -> Guard | None:
    guards = [s.boundary_guard for s in steps]
    first = guards[0]
    return first if first is not None and all(g is first for g in guards) else None


def _micro_batch_count(loop: ast.stmt) -> ast.expr | None:
    """N of `for _ in range(N)`; `len(x)` of a loop over micro-batches `x`; else None."""
    if not isinstance(loop, ast.For):
        return None
    iterable = loop.iter
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate":
        iterable = iterable.args[0] if iterable.args else iterable
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range":
        args = iterable.args
        if len(args) == 1 and not (isinstance(args[0], ast.Constant) and args[0].value in (0, 1)):
            return args[0]
        return None
    text = ast.unparse(iterable)
    if any(word in text.lower() for word in MICRO_BATCH_WORDS):
        return ast.Call(ast.Name("len", ast.Load()), [iterable], [])
    return None


def find_training_loops(model: "ModuleModel") -> list[TrainingLoop]:
    """The innermost loops that train, and step functions that train outside any loop."""
    units = []
    for node in _candidates(model):
            events = EventWalker(model, node).walk(node.body)
            if _trains(events) and not _inner_loop_trains(events):
                units.append(TrainingLoop(model, node, events))
    return units


def _candidates(model: "ModuleModel"):
    """Loops and functions that can reach a backward call: holding one, or a call of a local
    function or method that holds one. Others are not walked at all."""
    backward_lines = [model.line_at(m.start()) for m in BACKWARD_CALL.finditer(model.text)]
    if not backward_lines:
        return  # autograd Functions define backward() but never call it
    units = [n for n in model.statements if isinstance(n, LOOPS + FUNCTIONS)]
    helpers = {
        n.name for n in units
        if isinstance(n, FUNCTIONS) and any(n.lineno <= line <= n.end_lineno for line in backward_lines)
    }
    helper_calls = re.compile(r"\b(?:%s)\s*\(" % "|".join(map(re.escape, helpers))) if helpers else None
    lines = sorted({
        *backward_lines,
        *(model.line_at(m.start()) for m in (helper_calls.finditer(model.text) if helper_calls else ())),
    })
    units.sort(key=lambda n: (n.lineno, n.col_offset))
    for node in units:
        first = bisect.bisect_left(lines, node.lineno)
        if first < len(lines) and lines[first] <= node.end_lineno:
            yield node


def _trains(events: list[Event]) -> bool:
    kinds = {e.kind for e in events}
    return bool(kinds & {Kind.BACKWARD, Kind.FRAMEWORK}) and bool(kinds & {Kind.STEP, Kind.SCALER_STEP, Kind.FRAMEWORK})


def _inner_loop_trains(events: list[Event]) -> bool:
    """A loop inside (or inside a helper called from) this one is the training loop itself."""
    inner_loops = {id(loop): loop for e in events for loop in e.loops}
    return any(_trains([e for e in events if any(l is loop for l in e.loops)]) for loop in inner_loops.values())
