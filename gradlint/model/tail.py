"""The end of an epoch in a loop that steps every N micro-batches (GL205).

`for i, batch in enumerate(loader): ... if (i + 1) % N == 0: step()` steps floor(len/N) times:
the last len % N micro-batches of each pass never reach a step. The model answers only where the
code shows it all: the boundary counts the loop's own `enumerate` index (so it restarts every
epoch: a global counter lets windows straddle epochs, which is fine), the loop runs over
something with a length (a loader or a list, maybe wrapped in tqdm), it does not stop itself at
a count of micro-batches (`if i >= n: break`), and no step after the loop flushes the tail.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gradlint.model.clearing import clearing_of
from gradlint.model.names import dotted
from gradlint.model.roles import Role

if TYPE_CHECKING:
    from gradlint.model import ModuleModel, TrainingLoop

PROGRESS_WRAPPERS = frozenset({"tqdm", "track", "progress_bar", "progressbar", "auto"})


@dataclass(frozen=True)
class EpochTail:
    counter: str  # the enumerate index the boundary counts
    start: int  # enumerate's start
    source: ast.expr  # what the loop iterates over: len() of it is the number of micro-batches
    cleared_before: bool  # gradients are cleared before the loop: the tail is dropped, not carried


def epoch_tail(model: "ModuleModel", loop: "TrainingLoop") -> EpochTail | None:
    accumulation = loop.accumulation
    node = loop.node
    if accumulation is None or accumulation.guard is None or not isinstance(node, ast.For):
        return None
    boundary = accumulation.guard.boundary
    counted = _enumerate(node)
    if boundary.flushes_tail or counted is None or boundary.counters != frozenset({counted[0]}):
        return None
    counter, start, source = counted
    if _breaks_on(node.body, counter) or _steps_after(model, node, loop.optimizer):
        return None
    block = model.parents.block.get(node, [])
    before = block[: block.index(node)] if node in block else []
    cleared = any(clearing_of(model, n) is not None for stmt in before for n in ast.walk(stmt))
    return EpochTail(counter, start, source, cleared)


def _enumerate(loop: ast.For) -> tuple[str, int, ast.expr] | None:
    """(index name, start, iterated object) of `for i, x in enumerate(obj[, start])`, when
    `obj` has a visible length (a name or attribute, possibly inside a progress bar)."""
    call, target = _unwrap_progress(loop.iter), loop.target
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "enumerate" and call.args):
        return None
    if not (isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name)):
        return None
    starts = [*call.args[1:2], *(k.value for k in call.keywords if k.arg == "start")]
    if starts and not (isinstance(starts[0], ast.Constant) and isinstance(starts[0].value, int)):
        return None
    source = _unwrap_progress(call.args[0])
    if dotted(source) is None:
        return None  # a generator, iter(...), zip(...): its length is not known
    return target.elts[0].id, starts[0].value if starts else 0, source


def _unwrap_progress(expr: ast.expr) -> ast.expr:
    """`tqdm(x, ...)` -> `x`: a progress bar has its iterable's length."""
    if isinstance(expr, ast.Call) and expr.args and (dotted(expr.func) or "").rsplit(".", 1)[-1] in PROGRESS_WRAPPERS:
        return expr.args[0]
    return expr


def _breaks_on(body: list[ast.stmt], counter: str) -> bool:
    """A `break` of this loop (not of a loop nested in it) under a test of the micro-batch
    index: the loop stops itself at a count of micro-batches, and the tail may never be read.
    A break on something else (a global step budget) leaves every other epoch's tail."""
    stack = [(stmt, False) for stmt in body]
    while stack:
        node, counted = stack.pop()
        if isinstance(node, ast.Break) and counted:
            return True
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        tests_counter = isinstance(node, ast.If) and any(
            isinstance(n, ast.Name) and n.id == counter for n in ast.walk(node.test)
        )
        stack.extend((n, counted or tests_counter) for n in ast.iter_child_nodes(node) if isinstance(n, ast.stmt))
    return False


def _steps_after(model: "ModuleModel", loop: ast.For, optimizer: str | None) -> bool:
    """A step of the loop's optimizer (or through a scaler) after the loop: the tail's flush."""
    chain = model.parents.chain(loop)
    for stmt in chain:
        block = model.parents.block.get(stmt, [])
        for later in block[block.index(stmt) + 1 :] if stmt in block else []:
            for node in ast.walk(later):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "step":
                    receiver = node.func.value
                    if dotted(receiver) == optimizer or model.roles.of(receiver) is Role.SCALER:
                        return True
    return False
