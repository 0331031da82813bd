"""Which micro-batch of a window a DDP sync switch lets synchronise, against the one that steps.

A loop that runs non-final micro-batches under `no_sync` must sync on the micro-batch that
steps: `no_sync if i % N != 0 else nullcontext` syncs on the window's first micro-batch, and
a step on `(i + 1) % N == 0` then applies gradients no rank ever averaged (FunASR's trainer).
Both tests are read as a residue of one counter modulo one factor.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gradlint.model.events import NO_SYNC_ATTRIBUTES, Event, Kind
from gradlint.model.names import dotted

if TYPE_CHECKING:
    from gradlint.model import TrainingLoop


@dataclass(frozen=True)
class Phase:
    """`(counter + offset) % factor == value` holds when counter ≡ residue (mod factor)."""

    counter: str
    factor: str  # ast.dump of the factor
    residue: int
    equal: bool  # the test holds on the residue (`==`); False: everywhere else (`!=`)
    modulus: int | None = None  # the factor, when it is a literal

    def same_residue(self, other: "Phase") -> bool:
        difference = self.residue - other.residue
        return difference == 0 or (self.modulus is not None and difference % self.modulus == 0)


@dataclass(frozen=True)
class UnsyncedStep:
    switch: Event  # the NO_SYNC event
    sync_test: ast.expr  # the test whose side syncs
    syncs_when: bool  # the side of it that syncs
    step_test: ast.expr  # the window's boundary test


def phase(test: ast.expr) -> Phase | None:
    """`i % N == 0`, `(i + 1) % N == 0`, `i % N != N - 1` read as a residue of `i` modulo `N`;
    of `... or i + 1 == len(loader)` (`and ... !=`), the window's part (the epoch's end aside)."""
    if isinstance(test, ast.BoolOp):
        parts = [p for p in map(phase, test.values) if p is not None]
        return parts[0] if len(parts) == 1 else None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq))):
        return None
    for modulo, value in ((test.left, test.comparators[0]), (test.comparators[0], test.left)):
        if not (isinstance(modulo, ast.BinOp) and isinstance(modulo.op, ast.Mod)):
            continue
        counter, offset = _counter_and_offset(modulo.left)
        target = _residue_value(value, modulo.right)
        if counter is not None and target is not None:
            literal = modulo.right.value if isinstance(modulo.right, ast.Constant) and type(modulo.right.value) is int else None
            return Phase(counter, ast.dump(modulo.right), target - offset, isinstance(test.ops[0], ast.Eq), literal)
    return None


def unsynced_step(loop: "TrainingLoop") -> UnsyncedStep | None:
    """The loop's sync switch lets exactly one micro-batch of each window sync, and it is not
    the one the window's step runs on."""
    accumulation = loop.accumulation
    guard = accumulation.guard if accumulation is not None else None
    step = phase(guard.test) if guard is not None and guard.holds else None
    if step is None or not step.equal:
        return None
    backwards = loop.of(Kind.BACKWARD)
    for switch in loop.of(Kind.NO_SYNC):
        if _sets_flag(switch) and (_turns_on(switch) or backwards and all(b.order < switch.order for b in backwards)):
            # the flag holds until set again: set true, it syncs every micro-batch after it until
            # the step's reset; set false after the backward, it is the next window's
            continue
        test, switched_when = _switch_test(switch)
        sync = phase(test) if test is not None else None
        if sync is None or (sync.counter, sync.factor) != (step.counter, step.factor):
            continue
        # syncs on the residue alone: `no_sync if i % N != r` (or the `else` of `== r`)
        if sync.equal != switched_when and not sync.same_residue(step):
            return UnsyncedStep(switch, test, not switched_when, guard.test)
        # syncs everywhere but on the residue, which is the step's: `sync = i % N != 0` beside
        # a step on `i % N == 0`, the polarity turned around
        if sync.equal == switched_when and sync.same_residue(step) and _turns_sync_off(switch):
            return UnsyncedStep(switch, test, not switched_when, guard.test)
    return None


def _turns_sync_off(switch: Event) -> bool:
    """DDP's own switches, taken to turn sync off (`no_sync`, the flag set false); a wrapper's
    `enable_allreduce()` is taken to turn it on."""
    node = switch.node
    if isinstance(node, ast.Attribute):
        return node.attr in NO_SYNC_ATTRIBUTES
    return isinstance(node, ast.Call) and dotted(node.func) == "getattr"


def _switch_test(switch: Event) -> tuple[ast.expr | None, bool]:
    """The test choosing the switch, and on which side of it the switch is taken: a conditional
    expression around it (`model.no_sync if cond else nullcontext`), else the `if` around it."""
    for node in ast.walk(switch.stmt):
        if isinstance(node, ast.IfExp):
            if any(n is switch.node for n in ast.walk(node.body)):
                return node.test, True
            if any(n is switch.node for n in ast.walk(node.orelse)):
                return node.test, False
    stmt = switch.stmt
    if _sets_flag(switch) and not isinstance(stmt.value, ast.Constant):
        return stmt.value, False  # `model.require_backward_grad_sync = test`: syncs where it holds
    guard = switch.guards[-1] if switch.guards else None
    return (guard.test, guard.holds) if guard is not None and isinstance(guard.node, ast.If) else (None, False)


def _sets_flag(switch: Event) -> bool:
    """`model.require_backward_grad_sync = ...`: a switch that holds until set again."""
    stmt = switch.stmt
    return isinstance(stmt, ast.Assign) and any(t is switch.node for t in stmt.targets)


def _turns_on(switch: Event) -> bool:
    """`model.require_backward_grad_sync = True`."""
    return isinstance(switch.stmt.value, ast.Constant) and switch.stmt.value.value is True


def _counter_and_offset(expr: ast.expr) -> tuple[str | None, int]:
    """`i` -> (i, 0); `i + 1`, `1 + i` -> (i, 1); `i - 1` -> (i, -1)."""
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub))):
        return dotted(expr), 0
    pairs = [(expr.left, expr.right)] + ([(expr.right, expr.left)] if isinstance(expr.op, ast.Add) else [])
    for counter, constant in pairs:
        if isinstance(constant, ast.Constant) and type(constant.value) is int and dotted(counter):
            return dotted(counter), constant.value if isinstance(expr.op, ast.Add) else -constant.value
    return None, 0


def _residue_value(value: ast.expr, factor: ast.expr) -> int | None:
    """0, 3, or -1 for `N - 1`."""
    if isinstance(value, ast.Constant) and type(value.value) is int:
        return value.value
    if (
        isinstance(value, ast.BinOp) and isinstance(value.op, ast.Sub) and ast.dump(value.left) == ast.dump(factor)
        and isinstance(value.right, ast.Constant) and type(value.right.value) is int
    ):
        return -value.right.value
    return None
