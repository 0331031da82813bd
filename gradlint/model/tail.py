"""The end of an epoch in a loop that steps every N micro-batches (GL205).

`for i, batch in enumerate(loader): ... if (i + 1) % N == 0: step()` steps floor(len/N) times:
the last len % N micro-batches of each pass never reach a step. The model answers only where the
code shows it all: the boundary counts the loop's own `enumerate` index, or a count kept by
hand that is set just before the loop and counted up once per iteration (so it restarts every
epoch: a global counter lets windows straddle epochs, which is fine), the loop runs over
something with a length (a loader or a list, maybe wrapped in tqdm), it does not stop itself at
a count of micro-batches (`if i >= n: break`), and no step after the loop flushes the tail.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gradlint.model.callees import FUNCTIONS, CallContext, Callee, bind_arguments, callers, class_of_instance, class_of_scope, find_method, parameter_defaults, parameter_names, resolve_callee, returned_value
from gradlint.model.clearing import clearing_of
from gradlint.model.events import Event, Kind, manual_optimization
from gradlint.model.flags import zero_test_of
from gradlint.model.grad_mode import gradients_off
from gradlint.model.guards import has_modulo
from gradlint.model.frames import bound_class, handed_over, passed_for
from gradlint.model.names import dotted
from gradlint.model.roles import Role
from gradlint.model.scopes import blocks

if TYPE_CHECKING:
    from gradlint.model import ModuleModel, TrainingLoop

# a bound named for the length of one pass over the data (`steps_per_epoch`, `num_batches`)
EPOCH_LENGTH = re.compile(r"per_epoch|^(?:num|n)_batches$|^batches_per|^epoch_(?:steps|iters|length|size)$")
PROGRESS_WRAPPERS = frozenset({"tqdm", "tqdm_notebook", "track", "progress_bar", "progressbar", "auto"})
WEBDATASET_STREAMS = ("WebDataset", "WebLoader", "ResampledShards", "DataPipeline")


@dataclass(frozen=True)
class EpochTail:
    counter: str  # the enumerate index the boundary counts
    start: int | None  # enumerate's start; None when a variable (a resumed step, a global count)
    source: ast.expr | None  # what the loop iterates over: len() of it is the number of micro-batches
    cleared_before: bool  # cleared before the loop (or every micro-batch): the tail is dropped, not carried
    count: str | None = None  # the number of micro-batches as code, where there is no loop to take len() of
    restarts: bool = False  # a window's own count, set back at each step: no index of the epoch to test
    sized: bool = True  # `len()` of the source works (a WebDataset stream has none)
    # why the test's last-batch part flushes nothing: "length" (an index from 0 compared with the
    # length), "updates" (the index compared with the number of updates per epoch); None: no such part
    unreached_flush: str | None = None
    start_passed: bool = False  # enumerate's start is the function's parameter: another on a resumed call

    def length(self, model: "ModuleModel") -> str:
        """The epoch's number of micro-batches, as code (`len(DataLoader(...))` for a loader the
        loop's header builds)."""
        if self.count is not None:
            return self.count
        if isinstance(self.source, ast.Call) and dotted(self.source.func) == "zip":  # as long as the shortest
            return f"min({', '.join(f'len({model.source(a)})' for a in self.source.args)})"
        if isinstance(self.source, ast.Call):
            return f"len({model.source(self.source.func)}(...))"
        return f"len({model.source(self.source)})"

    def position_of_last(self) -> str | None:
        """The index as code, counted so that it equals the length on the epoch's last
        micro-batch (`i + 1` from 0, `i` from 1); None when it cannot be written (nor the length
        of a loader the loop's header builds, without building another)."""
        if self.start not in (0, 1) or self.start_passed or self.restarts or isinstance(self.source, ast.Call) or not self.sized:
            return None
        return f"{self.counter} + 1" if self.start == 0 else self.counter


def epoch_tail(model: "ModuleModel", loop: "TrainingLoop") -> EpochTail | None:
    accumulation = loop.accumulation
    node = loop.node
    if accumulation is None or accumulation.guard is None:
        return None
    boundary = accumulation.guard.boundary
    unreached = _tail_test_never_holds(model, loop.node, accumulation.guard) if boundary.flushes_tail else None
    if boundary.flushes_tail and unreached is None:
        return None
    if len(boundary.counters) != 1:
        return None
    if isinstance(node, ast.FunctionDef):
        return _lightning_tail(model, node, next(iter(boundary.counters)))
    if not isinstance(node, ast.For):
        return None
    counted, count = _enumerate(model, node), None
    ranged = _range_index(model, node) if counted is None else None
    if ranged is not None and boundary.counters == {ranged[0]}:
        if _times_the_window(ranged[2], accumulation.factor):
            return None  # `range(updates * accum)`: whole windows only
        counted, count = (ranged[0], ranged[1], None, False), model.source(ranged[2])
    elif counted is None or not (
        boundary.counters <= {counted[0], *_aliases(node, counted[0])} or _handed_the_index(model, loop, boundary.counters, counted[0])
    ):
        counted = _hand_counter(model, node, next(iter(boundary.counters)), accumulation.guard.node)
    else:
        counted = (*counted, False)
    if counted is None:
        return None
    counter, start, source, restarts = counted
    lengths = _lengths_of(model, node, source)
    if _breaks_on(node.body, counter, ends_at=source, lengths=lengths) or _skips_before_backward(node.body, counter, loop) or _steps_after(model, node, loop):
        return None
    if _single_pass(model, node) and (
        _breaks_on(node.body, counter, _counted_up(node), ends_at=source, lengths=lengths) or _leaves_when_stepping(accumulation.guard.node)
    ):
        return None  # one pass that stops at a budget of updates: the run ends at a step
    if source is not None and (_asserts_whole_windows(model, node, source) or _sized_to_the_window(model, node, source, accumulation.factor)):
        return None
    cleared = any(clearing_of(model, n) is not None for before in _blocks_before(model, node) for stmt in before for n in ast.walk(stmt))
    if start is None and not cleared:
        return None  # the index may count on across epochs, and the window with it
    # a `zero_grad()` on every micro-batch (GL202's) clears the tail at the next epoch's first,
    # as one at each window's first does when the count restarts with the epoch
    cleared = cleared or any(
        accumulation.runs_every_micro_batch(z) or restarts and _at_window_start(model, node, z, counter)
        or start == 0 and _where_the_index_starts_a_window(model, node, z, counter)
        and all(z.order < b.order for b in loop.of(Kind.BACKWARD))  # before the epoch's first backward
        for z in loop.of(Kind.ZERO_GRAD)
    )
    sized = not (isinstance(source, ast.Name) and (
        _unsized(_stream_calls(model, source, model.parents.scope_of(node), node.lineno))
        or _iterator_made(model, source, node)
    ))
    enumerated = _enumerate_call(model, node)
    passed = enumerated is not None and not all(isinstance(a, ast.Constant) for a in _enumerate_start(enumerated))
    return EpochTail(counter, start, source, cleared, count=count, restarts=restarts, sized=sized, unreached_flush=unreached, start_passed=passed)


def callers_epoch_tail(model: "ModuleModel", loop: "TrainingLoop") -> "tuple[TrainingLoop, EpochTail] | None":
    """A step function that tests its own window, called from one loop over the epoch (a base
    class's `_train_epoch` handing each batch, and its index or the window's flag, to the
    subclass's `process_batch`): that loop, seen with the function's events inside, and its
    tail. None for loops, or where no caller's loop (or several) has a tail to read; a caller
    whose tail cannot be read (an evaluation loop under `no_grad`, a loop capped at a count of
    batches) leaves the other's."""
    if not isinstance(loop.node, ast.FunctionDef) or loop.accumulation is None or loop.accumulation.guard is None:
        return None
    tails = [
        (view, tail) for view in loop.callers
        if isinstance(view.node, ast.For) and view.accumulation is not None and view.accumulation.guard is not None
        and view.accumulation.guard.node is loop.accumulation.guard.node  # the function's own window test
        and not gradients_off(view.model, view.node)  # not an evaluation
        and (tail := epoch_tail(view.model, view)) is not None
    ]
    return tails[0] if len(tails) == 1 else None


def _handed_the_index(model: "ModuleModel", loop: "TrainingLoop", counters: frozenset[str], index: str) -> bool:
    """The window's test is a step method's, on a parameter every call of it from the loop
    passes the loop's index for (`self.train_step(batch, accumulation_step=step)` testing
    `(accumulation_step + 1) % N == 0`)."""
    guard = loop.accumulation.guard
    steps = [e for e in loop.of(Kind.STEP, Kind.SCALER_STEP) if e.site is not None and guard in e.guards]
    owner = steps[0].module if steps and steps[0].module is not None else model  # the step method's (a subclass's)
    function = owner.parents.scope_of(guard.node) if guard.node in owner.parents.parent else None
    if len(counters) != 1 or not isinstance(function, FUNCTIONS) or not counters <= parameter_names(function):
        return False
    (counter,) = counters
    sites = {id(e.site): e.site for e in steps}
    return bool(sites) and all(
        dotted(bind_arguments(Callee(owner, function, bound_class(owner, function, site)), site).get(counter)) == index
        for site in sites.values()
    )


def _tail_test_never_holds(model: "ModuleModel", loop: ast.AST, guard) -> str | None:
    """`if update or is_last:` with `is_last = batch_idx == len(train_loader)` over
    `enumerate(train_loader)`: an index counted from 0 never reaches the length, so the test's
    tail part never flushes (each `or` term that is no window test is such a comparison):
    "length"; "updates" where some term compares the index with the updates per epoch instead."""
    counted = _enumerate(model, loop) if isinstance(loop, ast.For) else None
    if counted is None or counted[1] != 0:
        return None
    index, _, source = counted
    scope = model.parents.scope_of(loop)
    test = guard.test
    if isinstance(test, ast.Call):  # `if self._do_grad_accum(batch_idx):`, what it answers
        test = returned_value(model, test, CallContext(model, scope, class_of_scope(model, scope))) or test
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):  # `not i == 0 and (i % n == 0 or ...)`
        test = next((v for v in test.values if has_modulo(v)), test)
    terms = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
    line = guard.node.lineno
    read = [model.values.reaching_value(t, scope, line)[0] if isinstance(t, ast.Name) else t for t in terms]
    tails = [t for t in read if t is None or not has_modulo(t)]
    if not tails or len(tails) == len(terms):
        return None
    if all(_reaches_length(t, index, source) for t in tails):
        return "length"
    if all(_reaches_length(t, index, source) or _reaches_update_count(model, t, index, source, scope, line) for t in tails):
        return "updates"
    return None


def _reaches_update_count(model: "ModuleModel", term: ast.expr | None, index: str, source: ast.expr, scope: ast.AST, line: int) -> bool:
    """`step + 1 == num_update_steps_per_epoch` with that count `len(loader) // accum`: the index
    of a micro-batch meets the number of updates a fraction of the way into the epoch, not at
    its end, so the term flushes no tail."""
    if not (isinstance(term, ast.Compare) and len(term.ops) == 1 and isinstance(term.ops[0], ast.Eq)):
        return False
    sides = [term.left, term.comparators[0]]
    indexed = [s for s in sides if _index_or_next(s, index)]
    others = [s for s in sides if s not in indexed]
    if len(indexed) != 1 or len(others) != 1:
        return False
    count = others[0]
    if isinstance(count, ast.Name):
        count = model.values.reaching_value(count, scope, line)[0]
    while isinstance(count, ast.Call) and dotted(count.func) in ("int", "math.ceil", "math.floor") and len(count.args) == 1:
        count = count.args[0]
    return (
        isinstance(count, ast.BinOp) and isinstance(count.op, (ast.FloorDiv, ast.Div))
        and isinstance(count.left, ast.Call) and dotted(count.left.func) == "len" and len(count.left.args) == 1
        and dotted(count.left.args[0]) == dotted(source) is not None
        and not (isinstance(count.right, ast.Constant) and count.right.value == 1)
    )


def _index_or_next(expr: ast.expr, index: str) -> bool:
    """`index` or `index + 1`."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add) and isinstance(expr.right, ast.Constant) and expr.right.value == 1:
        expr = expr.left
    return isinstance(expr, ast.Name) and expr.id == index


def _reaches_length(term: ast.expr | None, index: str, source: ast.expr) -> bool:
    """`index == len(source)`."""
    if not (isinstance(term, ast.Compare) and len(term.ops) == 1 and isinstance(term.ops[0], ast.Eq)):
        return False
    sides = [term.left, term.comparators[0]]
    lengths = [s for s in sides if isinstance(s, ast.Call) and dotted(s.func) == "len" and len(s.args) == 1]
    return (
        len(lengths) == 1 and dotted(lengths[0].args[0]) == dotted(source) is not None
        and any(isinstance(s, ast.Name) and s.id == index for s in sides)
    )


def _lightning_tail(model: "ModuleModel", function: ast.FunctionDef, counter: str) -> EpochTail | None:
    """`training_step(self, batch, batch_idx)` of a manually optimized LightningModule that steps
    on `batch_idx % N`: Lightning counts `batch_idx` from 0 in every epoch, and nothing in
    Lightning steps a manual optimizer at the epoch's end."""
    cls = model.parents.parent.get(function)
    parameters = function.args.args
    if function.name != "training_step" or not isinstance(cls, ast.ClassDef) or not manual_optimization(model, cls):
        return None
    if len(parameters) < 3 or parameters[2].arg != counter:
        return None
    return EpochTail(counter, 0, None, cleared_before=False, count="self.trainer.num_training_batches")


def _hand_counter(model: "ModuleModel", loop: ast.For, counter: str, test: ast.stmt) -> tuple[str, int, ast.expr, bool] | None:
    """(counter, start, iterated object, restarts at each step) of a count kept by hand in place
    of `enumerate`: set to an integer just before the loop (or a parameter every caller passes
    the same integer for), `counter += 1` once per iteration in the loop's own body and assigned
    nowhere else in it, except back to that integer where the step's test holds (a window's own
    count: `if num_iter == N: ...; num_iter = 0`). Counted up before the boundary test, it reads
    like `enumerate(..., start=reset + 1)`."""
    source = _unwrap_progress(_passed_through(model, loop, loop.iter))
    if _called_enumerate(source):
        source = _unwrap_progress(source.args[0])
    # `for i in range(0, len(order), micro_bs):` run by an epoch loop: the epoch's pass
    ranged = isinstance(source, ast.Call) and dotted(source.func) == "range" and _pass_of_epoch_loop(model, loop)
    if (dotted(source) is None and not ranged) or _endless(model, loop, source):
        return None
    resets = _set_before(model, loop, counter) or _reset_after_each_pass(model, loop, counter)
    if not resets and (_counts_across_epochs(model, loop, counter) or _counts_across_calls(model, loop, counter)):
        # set before the epoch loop and counted up here only: where an epoch starts in a window
        # is not known, the window straddles epochs unless the gradients are cleared between them
        steps = [stmt for stmt in loop.body if _counts_one_up(stmt, counter)]
        assigned = [n for n in ast.walk(loop) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and counter in _assigned_names(n)]
        return (counter, None, source, False) if len(steps) == 1 and len(assigned) == 1 else None
    if resets and _counts_down(loop, counter, resets[-1], test):
        return counter, 0, source, True  # `left = N` ... `left -= 1` ... `if not left: step; left = N`
    reset = _int_assigned(resets[-1], counter) if resets else _passed_integer(model, loop, counter)
    steps = [i for i, stmt in enumerate(loop.body) if _counts_one_up(stmt, counter) or _retry_counts_once(stmt, counter)]
    assignments = [n for n in ast.walk(loop) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and counter in _assigned_names(n)]
    restarts = [n for n in assignments if _int_assigned(n, counter) == reset and any(n is m for m in ast.walk(test))]
    tested = next((i for i, stmt in enumerate(loop.body) if any(n is test for n in ast.walk(stmt))), None)
    if reset is None or len(assignments) != 1 + len(restarts) or len(restarts) > 1:
        return None
    if not steps and restarts and tested is not None and _counted_in_else(test, counter):
        # `if (count + 1) % N == 0: step; count = 0` / `else: count += 1`: the micro-batch's
        # place in its window, as an index from `reset` would give it
        return counter, reset, source, True
    if len(steps) != 1:
        return None
    if tested is None or tested == steps[0]:
        return None
    return counter, reset + 1 if steps[0] < tested else reset, source, bool(restarts)


def _at_window_start(model: "ModuleModel", loop: ast.For, clear: Event, counter: str) -> bool:
    """The clear runs where the count holds the value it is set to before the loop (`if left
    == self.args.update_epochs: zero_grad()`): on each window's first micro-batch, the epoch's
    first among them."""
    resets = _set_before(model, loop, counter)
    start = resets[-1].value if resets and isinstance(resets[-1], ast.Assign) else None
    return start is not None and any(
        g.holds and isinstance(g.test, ast.Compare) and len(g.test.ops) == 1 and isinstance(g.test.ops[0], ast.Eq)
        and dotted(g.test.left) == counter and ast.dump(g.test.comparators[0]) == ast.dump(start)
        for g in clear.guards
    )


def _where_the_index_starts_a_window(model: "ModuleModel", loop: ast.For, clear: Event, index: str) -> bool:
    """`if i % N == 0: zero_grad()` (or `init = i % N == 0` ... `if init:`) over an index
    counted from 0: each window's first micro-batch clears, the epoch's first among them."""
    scope = model.parents.scope_of(loop)
    for guard in clear.guards:
        test = guard.test
        if isinstance(test, ast.Name):
            test = model.values.reaching_value(test, scope, guard.node.lineno)[0]
        if (
            guard.holds and isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.left, ast.BinOp) and isinstance(test.left.op, ast.Mod) and dotted(test.left.left) == index
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == 0
        ):
            return True
    return False


def _counts_down(loop: ast.For, counter: str, reset: ast.stmt, test: ast.stmt) -> bool:
    """A countdown set before the loop to the window (`left = self.args.update_epochs`), counted
    down once in the loop's own body and set back to the same value only where the step's test
    holds: the micro-batch's place in its window, restarting with each epoch."""
    if not (isinstance(reset, ast.Assign) and len(reset.targets) == 1 and dotted(reset.targets[0]) == counter):
        return False
    window = ast.dump(reset.value)
    downs = [
        stmt for stmt in loop.body
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Sub) and dotted(stmt.target) == counter
        and isinstance(stmt.value, ast.Constant) and stmt.value.value == 1
    ]
    assignments = [n for n in ast.walk(loop) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and counter in _assigned_names(n)]
    set_back = [
        n for n in assignments
        if isinstance(n, ast.Assign) and ast.dump(n.value) == window and any(n is m for m in ast.walk(test))
    ]
    return len(downs) == 1 and len(set_back) == 1 and len(assignments) == 2


def _reset_after_each_pass(model: "ModuleModel", loop: ast.For, counter: str) -> list[ast.stmt]:
    """`nb_tr_steps = 0` before the epoch loop and again after the batch loop in the epoch's
    body (CodeXGLUE's `if args.do_eval: ...; nb_tr_examples, nb_tr_steps = 0, 0`): the count
    starts afresh with each pass, as if set just before it; the resets after the loop, when the
    integer is the one set before the epoch loop."""
    outer = next((n for n in model.parents.ancestors(loop) if isinstance(n, (ast.For, ast.While))), None)
    if outer is None or model.parents.block.get(loop) is not outer.body:
        return []
    before = _set_before(model, outer, counter)
    start = _int_assigned(before[-1], counter) if before else None
    after = [
        n for stmt in outer.body[outer.body.index(loop) + 1:] for n in ast.walk(stmt)
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and counter in _assigned_names(n)
    ]
    return after if start is not None and after and all(_int_assigned(n, counter) == start for n in after) else []


def _counts_across_epochs(model: "ModuleModel", loop: ast.For, counter: str) -> bool:
    """`counter` is set to an integer before the loop around `loop` (the epoch loop) and assigned
    nowhere in that loop outside `loop`."""
    outer = next((n for n in model.parents.ancestors(loop) if isinstance(n, (ast.For, ast.While))), None)
    if outer is None or model.parents.scope_of(outer) is not model.parents.scope_of(loop):
        return False
    resets = _set_before(model, outer, counter)
    if not resets or _int_assigned(resets[-1], counter) is None:
        return False
    inside = {id(n) for n in ast.walk(loop)}
    return not any(
        isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and counter in _assigned_names(n) and id(n) not in inside
        for n in ast.walk(outer)
    )


def _counts_across_calls(model: "ModuleModel", loop: ast.For, counter: str) -> bool:
    """`self._step` is set to an integer only in `__init__` and counted up only in this loop of
    a method a caller runs in a loop (`for epoch in ...: trainer.train_one_epoch()`): the count
    runs on across its calls, as across the passes of an epoch loop."""
    head, _, attribute = counter.partition(".")
    method = model.parents.scope_of(loop)
    cls = model.parents.enclosing_class(method)
    if head != "self" or not attribute or "." in attribute or cls is None:
        return False
    inside = {id(n) for n in ast.walk(loop)}
    only_counted_here = all(
        id(stmt) in inside or name == "__init__" and _int_assigned(stmt, counter) is not None
        for name, other in model.methods(cls).items()
        for stmt in model.scope(other).assignments.get(counter, ())
    )
    return only_counted_here and any(_called_in_a_loop(call, context) for call, context in callers(model, method))


def _called_in_a_loop(call: ast.Call, context: CallContext) -> bool:
    loops = (ast.For, ast.AsyncFor, ast.While)
    if context.statement is not None:
        return any(isinstance(s, loops) for s in context.module.parents.chain(context.statement))
    return any(isinstance(n, loops) and n.lineno < call.lineno <= n.end_lineno for n in ast.walk(context.scope))


def _counted_in_else(test: ast.stmt, counter: str) -> bool:
    return isinstance(test, ast.If) and sum(_counts_one_up(stmt, counter) for stmt in test.orelse) == 1


def _set_before(model: "ModuleModel", loop: ast.For, counter: str) -> list[ast.stmt]:
    """Assignments of `counter` before the loop in its block, or before the `with` blocks the
    loop runs in (`i = 0`, then `with Live(...) as status: for batch in loader:`): the nearest."""
    for before in _blocks_before(model, loop):
        found = [s for s in before if counter in _assigned_names(s)]
        if found:
            return found
    return []


def _blocks_before(model: "ModuleModel", loop: ast.For):
    """The statements before the loop in its block, then before each `with` block or `try:` body
    it runs in (`with tqdm(total=n) as bar: for batch in loader:`), innermost first."""
    node = loop
    while True:
        block = model.parents.block.get(node, [])
        yield block[: block.index(node)] if node in block else []
        parent = model.parents.parent.get(node)
        if not (isinstance(parent, (ast.With, ast.AsyncWith)) or isinstance(parent, ast.Try) and node in parent.body):
            return
        node = parent


def _passed_integer(model: "ModuleModel", loop: ast.For, counter: str) -> int | None:
    """The integer every caller passes for the parameter `counter` of the function holding the
    loop (`run_train(..., iteration=i)` where the caller's `i = 0` is never reassigned)."""
    passed = passed_for(model, model.parents.scope_of(loop), ast.Name(counter, ast.Load()), loop.lineno)
    values = {_integer_value(module, argument, scope) for module, argument, scope, _ in passed or ()}
    return values.pop() if len(values) == 1 and None not in values else None


def _integer_value(module: "ModuleModel", expr: ast.expr, scope: ast.AST) -> int | None:
    """An integer literal, or a name its scope sets once, to one."""
    if isinstance(expr, ast.Constant):
        return expr.value if type(expr.value) is int else None
    assigned = module.scope(scope).assignments.get(expr.id, ()) if isinstance(expr, ast.Name) else ()
    return _int_assigned(assigned[0], expr.id) if len(assigned) == 1 else None


def _range_index(model: "ModuleModel", loop: ast.For) -> tuple[str, int, ast.expr] | None:
    """(index, start, bound) of `for step in range(len(samples) // batch_size)`: a pass over the
    batches of a dataset (its bound measures one with `len`, is named for an epoch's length:
    `range(steps_per_epoch)`, or the loop is what an epoch loop runs: `for epoch in ...: for step
    in range(max_num_iter)`), not a run of training steps (`range(max_iters)`), whose index
    restarts at every pass."""
    call = loop.iter
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range"):
        return None
    if call.keywords or not 1 <= len(call.args) <= 2 or not isinstance(loop.target, ast.Name):
        return None
    start = call.args[0] if len(call.args) == 2 else ast.Constant(0)
    bound = call.args[-1]
    if not (isinstance(start, ast.Constant) and type(start.value) is int):
        return None
    if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" for n in ast.walk(bound)):
        if not EPOCH_LENGTH.search((dotted(bound) or "").rsplit(".", 1)[-1]) and not _pass_of_epoch_loop(model, loop):
            return None
    return loop.target.id, start.value, bound


def _times_the_window(bound: ast.expr, factor: ast.expr | None) -> bool:
    return factor is not None and isinstance(bound, ast.BinOp) and isinstance(bound.op, ast.Mult) and ast.dump(factor) in (
        ast.dump(bound.left), ast.dump(bound.right)
    )


def _pass_of_epoch_loop(model: "ModuleModel", loop: ast.For) -> bool:
    """The nearest loop around `loop` counts epochs (`for epoch_id in ...`, `for ep in
    range(args.epochs):`)."""
    outer = next((s for s in model.parents.chain(loop)[1:] if isinstance(s, (ast.For, ast.AsyncFor, ast.While))), None)
    return isinstance(outer, (ast.For, ast.AsyncFor)) and any(
        "epoch" in (n.id if isinstance(n, ast.Name) else n.attr).lower()
        for part in (outer.target, outer.iter) for n in ast.walk(part) if isinstance(n, (ast.Name, ast.Attribute))
    )


def _called_enumerate(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "enumerate" and bool(expr.args)


def _assigned_names(stmt: ast.AST) -> set[str]:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    return {dotted(n) for t in targets if t is not None for n in ast.walk(t)} - {None}


def _int_assigned(stmt: ast.stmt, name: str) -> int | None:
    """The integer `stmt` sets `name` to (`n = 0`, `a, n, b = 0, 0, 0`, `step = n = 0`, a whole
    float `count = 0.` counted up by ones), if it is one."""
    if not isinstance(stmt, ast.Assign):
        return None
    value = stmt.value
    pairs = []
    for target in stmt.targets:
        unpacked = isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts)
        pairs.extend(zip(target.elts, value.elts) if unpacked else [(target, value)])
    for each, given in pairs:
        if dotted(each) == name:
            whole = isinstance(given, ast.Constant) and (type(given.value) is int or type(given.value) is float and given.value.is_integer())
            return int(given.value) if whole else None
    return None


def _counts_one_up(stmt: ast.stmt, name: str) -> bool:
    return (
        isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and dotted(stmt.target) == name
        and isinstance(stmt.value, ast.Constant) and stmt.value.value == 1
    )


def _retry_counts_once(stmt: ast.stmt, name: str) -> bool:
    """`while True: try: ...backward...; count += 1; break / except OOM: ...; continue`: a
    retry loop whose one way out (raising aside) counts the item once, just before leaving."""
    if not (isinstance(stmt, ast.While) and isinstance(stmt.test, ast.Constant) and stmt.test.value is True):
        return False
    exits = [block for block in _blocks_of(stmt.body) if any(isinstance(s, ast.Break) for s in block)]
    if len(exits) != 1:
        return False
    block = exits[0]
    before = block[: next(i for i, s in enumerate(block) if isinstance(s, ast.Break))]
    return sum(_counts_one_up(s, name) for s in before) == 1


def _blocks_of(body: list[ast.stmt]):
    """The statement lists of `body` and of the compound statements in it, not entering loops
    or functions (a `break` there leaves something else)."""
    yield body
    for stmt in body:
        if not isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for block in blocks(stmt):
                yield from _blocks_of(block)


def _aliases(loop: ast.For, index: str) -> set[str]:
    """Names the loop body sets to the index before anything else it runs, and nowhere else
    (`self.batch_index = b_idx` for a step method that tests it)."""
    leading = []
    for stmt in loop.body:
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name) and stmt.value.id == index):
            break
        leading.append(stmt)
    later = [n for n in ast.walk(loop) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and n not in leading]
    assigned_later = {dotted(t) for n in later for t in (n.targets if isinstance(n, ast.Assign) else [n.target])}
    return {name for stmt in leading for name in map(dotted, stmt.targets) if name} - assigned_later


def _enumerate_call(model: "ModuleModel", loop: ast.For) -> ast.Call | None:
    call = _unwrap_progress(_passed_through(model, loop, _progress_bar(model, loop) or loop.iter))
    return call if _called_enumerate(call) else None


def _enumerate_start(call: ast.Call) -> list[ast.expr]:
    return [*call.args[1:2], *(k.value for k in call.keywords if k.arg == "start")]


def _int_or_per_call(model: "ModuleModel", loop: ast.For, start: ast.expr) -> int | None:
    """enumerate's start: a literal, or `first + k` of a parameter `first` of the function
    running the loop that some call leaves at its literal default or passes a literal for
    (`train_epoch(loader, start_step=0)`, a resumed epoch passing its offset): the count starts
    anew at each call, the literal's value when not resuming. None when it may run on."""
    if isinstance(start, ast.Constant) and type(start.value) is int:
        return start.value
    offset = 0
    if isinstance(start, ast.BinOp) and isinstance(start.op, ast.Add) and isinstance(start.right, ast.Constant) and type(start.right.value) is int:
        start, offset = start.left, start.right.value
    function = model.parents.scope_of(loop)
    if not (isinstance(start, ast.Name) and isinstance(function, FUNCTIONS) and start.id in parameter_names(function)):
        return None
    if any(isinstance(n, (ast.For, ast.While)) for n in model.parents.chain(loop)[1:]):
        return None  # a count over several passes of an outer loop
    default = parameter_defaults(function).get(start.id)
    for call, _ in callers(model, function):
        passed = bind_arguments(Callee(model, function, bound_class(model, function, call)), call).get(start.id, default)
        if isinstance(passed, ast.Constant) and type(passed.value) is int:
            return passed.value + offset
    return None


def _enumerate(model: "ModuleModel", loop: ast.For) -> tuple[str, int | None, ast.expr] | None:
    """(index name, start, iterated object) of `for i, x in enumerate(obj[, start])`, when
    `obj` has a visible length (a name or attribute, possibly inside a progress bar, or handed
    to a generator that yields each of its items)."""
    call, target = _enumerate_call(model, loop), loop.target
    if call is None:
        return None
    if not (isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name)):
        return None
    starts = _enumerate_start(call)
    start = _int_or_per_call(model, loop, starts[0]) if starts else 0
    source = _unwrap_progress(call.args[0])
    if isinstance(source, ast.Call):
        source = _item_by_item(model, loop, source) or source
    built_here = isinstance(source, ast.Call) and (model.imports.qualname(source.func) or "").endswith("DataLoader")
    # `zip(loader, poisoned_loader)`: as long as the shortest loader (no `len()` of its own)
    zipped = isinstance(source, ast.Call) and dotted(source.func) == "zip" and bool(source.args) and all(dotted(a) is not None for a in source.args)
    if (dotted(source) is None and not built_here and not zipped) or _endless(model, loop, source):
        return None  # a generator, iter(...): its length is not known (a loader built here, a zip of loaders has one)
    index = target.elts[0].id
    counted_up = bool(loop.body) and _counts_one_up(loop.body[0], index)
    if start is not None and counted_up:
        start += 1  # `index += 1` first thing in the body: counted from `start + 1`
    if _rebased(loop.body[1:] if counted_up else loop.body, index):
        start = None  # `step += 1 + epoch * len(loader)`: rebased, maybe across epochs
    return index, start, source


def _rebased(body: list[ast.stmt], index: str) -> bool:
    """The body rebinds the loop's index before anything reads it (`step += 1 + epoch *
    len(loader)` first thing): what the window tests is the new count. Read first (`do_step = it
    % N == N - 1`, then `it = len(loader) * epoch + it` for the schedules), it is the epoch's."""
    for stmt in body:
        names = [n for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id == index]
        if any(isinstance(n.ctx, ast.Store) for n in names) and not isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.Try)):
            return True
        if names:
            return False
    return False


def _endless(model: "ModuleModel", loop: ast.For, source: ast.expr) -> bool:
    """`loader = MetaLoader(...)` (maybe wrapped again under the same name) whose class's
    `__iter__` yields in a `while True:` it never leaves, or a loader over a resampled
    WebDataset: an endless stream has no epoch to end."""
    if not isinstance(source, ast.Name):
        return False
    scope = model.parents.scope_of(loop)
    for stmt in model.scope(scope).assignments.get(source.id, ()):
        built = class_of_instance(model, getattr(stmt, "value", None))
        method = find_method(*built, "__iter__") if built is not None else None
        if method is not None and any(_loops_forever(n) for n in ast.walk(method.function)):
            return True
    return _resampled(_stream_calls(model, source, scope, loop.lineno))


def _stream_calls(model: "ModuleModel", source: ast.expr, scope: ast.AST, line: int, depth: int = 0) -> list[ast.Call]:
    """The calls building the loader `source` names, here or where the callers build what they
    pass, and those building the dataset named by a first argument (`wds.WebLoader(dataset, ...)`
    where `dataset = wds.WebDataset(urls, resampled=True).shuffle(1000)`); found once per loader
    and line (asked whether the stream ends, and whether it has a length)."""
    return model.memo(("stream calls", id(source), line, depth), lambda: _read_stream_calls(model, source, scope, line, depth))


def _read_stream_calls(model: "ModuleModel", source: ast.expr, scope: ast.AST, line: int, depth: int) -> list[ast.Call]:
    found: list[ast.Call] = []
    for owner, handed, there, at in handed_over(model, source, scope, line):
        value, value_scope, value_line = owner.values.reaching_value(handed, there, at) if dotted(handed) else (handed, there, at)
        calls = [n for n in ast.walk(value) if isinstance(n, ast.Call)] if value is not None else []
        found += calls
        for given in {c.args[0].id: c.args[0] for c in calls if c.args and isinstance(c.args[0], ast.Name)}.values():
            found += _stream_calls(owner, given, value_scope, value_line, depth + 1) if depth < 2 else []
    return found


def _called_as(call: ast.Call, *names: str) -> bool:
    """The call's last name is one of `names` (`wds.WebLoader(...).with_epoch(n)`: `with_epoch`)."""
    func = call.func
    return (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) in names


def _resampled(calls: list[ast.Call]) -> bool:
    """Shards drawn with replacement for ever (`WebDataset(urls, resampled=True)`,
    `ResampledShards(urls)`), unless `.with_epoch(n)` cuts the stream into epochs."""
    def resampling(call: ast.Call) -> bool:
        flag = any(k.arg == "resampled" and isinstance(k.value, ast.Constant) and k.value.value is True for k in call.keywords)
        return _called_as(call, "ResampledShards") or _called_as(call, "WebDataset") and flag

    return any(map(resampling, calls)) and not any(_called_as(c, "with_epoch") for c in calls)


def _iterator_made(model: "ModuleModel", source: ast.Name, loop: ast.For) -> bool:
    """`batches = zip(loader, other_loader)` (or `map`, `filter`, `iter`) just before: an
    iterator, with no `len()` to test the last micro-batch against."""
    value = model.values.reaching_value(source, model.parents.scope_of(loop), loop.lineno)[0]
    return isinstance(value, ast.Call) and dotted(value.func) in ("zip", "map", "filter", "iter")


def _unsized(calls: list[ast.Call]) -> bool:
    """A WebDataset stream has no `len()` unless `.with_length(n)` gives it one."""
    return any(_called_as(c, *WEBDATASET_STREAMS) for c in calls) and not any(_called_as(c, "with_length") for c in calls)


def _loops_forever(node: ast.AST) -> bool:
    """`while True:` yielding, with no break or return inside."""
    if not (isinstance(node, ast.While) and isinstance(node.test, ast.Constant) and node.test.value is True):
        return False
    inside = [n for stmt in node.body for n in ast.walk(stmt)]
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in inside) and not any(
        isinstance(n, (ast.Break, ast.Return)) for n in inside
    )


def _progress_bar(model: "ModuleModel", loop: ast.For) -> ast.expr | None:
    """What the loop iterates when it is a name set once, just before the loop, to a progress
    bar (`tbar = tqdm(enumerate(loader), total=len(loader))`, then `for i, data in tbar:`) or to
    an enumeration (`pbar = enumerate(tqdm(dataset))`), or to a bar on the main process only and
    the same iterable bare on the others."""
    if not isinstance(loop.iter, ast.Name):
        return None
    block = model.parents.block.get(loop, [])
    assigned = model.scope(model.parents.scope_of(loop)).assignments.get(loop.iter.id, ())
    earlier = block[: block.index(loop)] if loop in block else []
    # `pbar = enumerate(loader)`, then `pbar = tqdm(pbar, total=nb)` on the main process: the
    # bar wraps the enumeration, its length the same
    rewraps = [a for a in assigned[1:] if _rewraps(a, loop.iter.id) and a.lineno < loop.lineno]
    if len(assigned) != 1 + len(rewraps) or assigned[0] not in earlier or not isinstance(assigned[0], ast.Assign):
        return None
    value = assigned[0].value
    if isinstance(value, ast.IfExp):  # `tqdm(enumerate(loader)) if rank == 0 else enumerate(loader)`
        shown, plain = _unwrap_progress(value.body), _unwrap_progress(value.orelse)
        return shown if ast.dump(shown) == ast.dump(plain) else None
    return value if _unwrap_progress(value) is not value or _called_enumerate(value) else None


def _rewraps(stmt: ast.stmt, name: str) -> bool:
    """`name = tqdm(name, ...)`: a progress bar put around the name's own earlier value."""
    if not isinstance(stmt, ast.Assign):
        return False
    inner = _unwrap_progress(stmt.value)
    return inner is not stmt.value and isinstance(inner, ast.Name) and inner.id == name


def _passed_through(model: "ModuleModel", loop: ast.For, expr: ast.expr) -> ast.expr:
    """`x` of `wrap(x)` where the function sets `wrap` to a lambda handing its argument back,
    maybe in a progress bar (`wrap = (lambda x: tqdm(x)) if args.tqdm else (lambda x: x)`): the
    loop runs over what it was given."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and len(expr.args) == 1 and not expr.keywords):
        return expr
    value, _, _ = model.values.reaching_value(expr.func, model.parents.scope_of(loop), loop.lineno)
    lambdas = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
    if all(_hands_back(f) for f in lambdas):
        return expr.args[0]
    return expr


def _hands_back(function: ast.expr | None) -> bool:
    """`lambda x: x` or `lambda x: tqdm(x, ...)`."""
    if not (isinstance(function, ast.Lambda) and len(function.args.args) == 1):
        return False
    returned = _unwrap_progress(function.body)
    return isinstance(returned, ast.Name) and returned.id == function.args.args[0].arg


def _unwrap_progress(expr: ast.expr) -> ast.expr:
    """`tqdm(x, ...)` -> `x`: a progress bar has its iterable's length (also when the loop keeps a
    name for it, `enumerate(bar := tqdm(loader))`)."""
    if isinstance(expr, ast.NamedExpr):
        expr = expr.value
    if isinstance(expr, ast.Call) and expr.args and (dotted(expr.func) or "").rsplit(".", 1)[-1] in PROGRESS_WRAPPERS:
        return expr.args[0]
    return expr


def _item_by_item(model: "ModuleModel", loop: ast.For, call: ast.Call) -> ast.expr | None:
    """The iterable a call hands to a generator the model can read that yields each of its
    items once, as it gets them: `metric_logger.log_every(data_loader, print_freq)` (a
    `for obj in iterable: ... yield obj` that logs around it) has the loader's length."""
    scope = model.parents.scope_of(loop)
    callee = resolve_callee(model, call, CallContext(model, scope, class_of_scope(model, scope)))
    if callee is None or isinstance(callee.function, ast.Lambda):
        return None
    yields = [n for n in ast.walk(callee.function) if isinstance(n, (ast.Yield, ast.YieldFrom))]
    if len(yields) != 1 or not isinstance(yields[0], ast.Yield):
        return None  # nested functions are counted too: one yield in all, to be sure
    passed = bind_arguments(callee, call)
    unset = {name for name, default in parameter_defaults(callee.function).items() if name not in passed and _falsy(default)}
    for stmt in ast.walk(callee.function):
        walked = _item_and_iterable(stmt) if isinstance(stmt, ast.For) else None
        walked = walked or (_drawn_once_per_item(callee.function, stmt, unset) if isinstance(stmt, ast.For) else None)
        if walked is not None and any(_yields_name(s, yields[0], walked[0]) for s in stmt.body) and not _may_leave(stmt.body, unset):
            return passed.get(walked[1])  # the loop skips and stops at nothing
    return None


def _drawn_once_per_item(function: ast.AST, loop: ast.For, unset: set[str]) -> tuple[tuple[str, ...], str] | None:
    """(item, iterable) of `for i in range(steps): obj = next(it)` where `it = iter(iterable)`
    and `steps` is `len(iterable)` (through names the function sets, skipping what it sets
    under an option the call leaves unset: `if epoch_info: steps = epochs * steps`)."""
    bound = loop.iter
    if not (isinstance(bound, ast.Call) and dotted(bound.func) == "range" and len(bound.args) == 1 and loop.body):
        return None
    first = loop.body[0]
    if not (
        isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.value, ast.Call)
        and dotted(first.value.func) == "next" and len(first.value.args) == 1 and isinstance(first.value.args[0], ast.Name)
    ):
        return None
    item = _names_of(first.targets[0])
    drawn_from = first.value.args[0].id
    sources = [v for v in _values_set(function, drawn_from, unset) if v is not None]
    iterable = next((
        v.args[0].id for v in sources
        if isinstance(v, ast.Call) and dotted(v.func) == "iter" and len(v.args) == 1 and isinstance(v.args[0], ast.Name)
    ), drawn_from)
    if item is None or not _counts_items_of(function, bound.args[0], iterable, unset, 3):
        return None
    return item, iterable


def _counts_items_of(function: ast.AST, count: ast.expr, iterable: str, unset: set[str], depth: int) -> bool:
    if isinstance(count, ast.Call) and dotted(count.func) == "len" and len(count.args) == 1:
        return dotted(count.args[0]) == iterable
    if not isinstance(count, ast.Name) or depth == 0:
        return False
    values = _values_set(function, count.id, unset)
    return bool(values) and all(v is not None and _counts_items_of(function, v, iterable, unset, depth - 1) for v in values)


def _values_set(function: ast.AST, name: str, unset: set[str]) -> list[ast.expr | None]:
    """What the function's `name = ...` statements assign, but those under a test of an option
    the call leaves at its empty default; None for a value the name gets otherwise."""
    found: list[ast.expr | None] = []

    def visit(body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.If):
                if not _needs_option(stmt.test, unset):
                    visit(stmt.body)
                visit(stmt.orelse)
            elif isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
                found.append(stmt.value if len(stmt.targets) == 1 else None)
            elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and dotted(stmt.target) == name:
                found.append(None)

    visit(function.body)
    if name in parameter_names(function) and name not in unset:
        found.append(None)  # a value the caller passes
    return found


def _may_leave(body: list[ast.stmt], unset: set[str]) -> bool:
    """Whether a break, continue or return can run in the loop's body; not one under a test
    of an option the call leaves at its empty default (`if max_iter and it >= max_iter: break`)."""
    for stmt in body:
        if isinstance(stmt, ast.If) and _needs_option(stmt.test, unset):
            if _may_leave(stmt.orelse, unset):
                return True
        elif any(isinstance(n, (ast.Break, ast.Continue, ast.Return)) for n in ast.walk(stmt)):
            return True
    return False


def _needs_option(test: ast.expr, unset: set[str]) -> bool:
    """A test that holds only when one of the `unset` parameters is set: `max_iter and ...`,
    `max_iter is not None and ...`."""
    terms = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    for term in terms:
        if isinstance(term, ast.Compare) and len(term.ops) == 1 and isinstance(term.ops[0], ast.IsNot) and _falsy(term.comparators[0]):
            term = term.left
        if isinstance(term, ast.Name) and term.id in unset:
            return True
    return False


def _falsy(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value in (None, False, 0)


def _item_and_iterable(loop: ast.For) -> tuple[tuple[str, ...], str] | None:
    """(item, iterable) names of `for item in iterable` or `for i, item in enumerate(iterable)`;
    an item unpacked (`for a, b in pairs`) is the tuple of its names."""
    target, source = loop.target, loop.iter
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "enumerate" and len(source.args) == 1:
        if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
            return None
        target, source = target.elts[1], source.args[0]
    item = _names_of(target)
    return (item, source.id) if item is not None and isinstance(source, ast.Name) else None


def _names_of(expr: ast.expr | None) -> tuple[str, ...] | None:
    """`x` -> (x,); `x, y` or `[x, y]` -> (x, y); None for anything else."""
    if isinstance(expr, ast.Name):
        return (expr.id,)
    if isinstance(expr, (ast.Tuple, ast.List)) and expr.elts and all(isinstance(e, ast.Name) for e in expr.elts):
        return tuple(e.id for e in expr.elts)
    return None


def _yields_name(stmt: ast.stmt, the_yield: ast.Yield, item: tuple[str, ...]) -> bool:
    """`yield item` (`yield a, b` for an item unpacked as `a, b`) as a statement of the loop
    body itself (not under a test)."""
    return isinstance(stmt, ast.Expr) and stmt.value is the_yield and _names_of(the_yield.value) == item


def _single_pass(model: "ModuleModel", loop: ast.For) -> bool:
    """The loop runs once per run: no loop around it, in a script's (or notebook's) module
    code or a function nothing calls inside a loop."""
    chain = model.parents.chain(loop)
    if any(isinstance(s, (ast.For, ast.AsyncFor, ast.While)) for s in chain[1:]):
        return False
    scope = model.parents.scope_of(loop)
    if isinstance(scope, ast.Module):
        return True
    return all(
        context.statement is not None
        and not any(isinstance(s, (ast.For, ast.AsyncFor, ast.While)) for s in context.module.parents.chain(context.statement)[1:])
        for _, context in callers(model, scope)
    )


def _leaves_when_stepping(test: ast.stmt) -> bool:
    """The window's step branch may leave the loop (`if terminate: return` after the step, a
    budget of updates reached): a single pass is then meant to end at a step, over a loader
    that may never run out."""
    if not isinstance(test, ast.If):
        return False
    pending = list(test.body)
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, (ast.Break, ast.Return)):
            return True
        if not isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            pending.extend(n for n in ast.iter_child_nodes(stmt) if isinstance(n, ast.stmt))
    return False


def _counted_up(loop: ast.For) -> set[str]:
    """Names the loop's body counts up (`completed_steps += 1`)."""
    return {
        s.target.id for s in ast.walk(loop)
        if isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Add) and isinstance(s.target, ast.Name)
    }


def _breaks_on(
    body: list[ast.stmt], counter: str, counts: set[str] = frozenset(), ends_at: ast.expr | None = None, lengths: set[str] = frozenset(),
) -> bool:
    """A `break` of this loop (not of a loop nested in it) whose nearest test reads the
    micro-batch index: the loop stops itself at a count of micro-batches, and the tail may never
    be read. A break on something else (a global step budget, even tested inside the boundary's
    branch) leaves every other epoch's tail, as does one at the length of `ends_at`, what the loop
    iterates (`if i + 1 >= len(loader): break` ends it where it ends anyway), or at a name set
    to that length (`lengths`: `self.epoch_len = len(self.train_dataloader)`). The index may be
    read through a name the body derives from it (`step = batch_idx // accum; if step ==
    max_steps: break`); `counts` are other names whose test counts (an update budget, for a loop
    run once)."""
    derived = _derived_from(body, counter) | counts
    natural_end = dotted(ends_at) if ends_at is not None else None
    stack = [(stmt, False) for stmt in body]
    while stack:
        node, counted = stack.pop()
        if isinstance(node, ast.Break) and counted:
            return True
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, ast.If):
            counted = _compares(node.test, derived) and not (natural_end and _sized_by(node.test, natural_end)) and not (
                _optional_cap(node.test) or any(dotted(n) in lengths for n in ast.walk(node.test) if isinstance(n, (ast.Name, ast.Attribute)))
            )
        stack.extend((n, counted) for n in ast.iter_child_nodes(node) if isinstance(n, ast.stmt))
    return False


def _lengths_of(model: "ModuleModel", loop: ast.For, source: ast.expr | None) -> set[str]:
    """Attributes of `self` that the class sets to `len(source)` (`self.epoch_len =
    len(self.train_dataloader)`, where no length is given): the loop's natural end by another name."""
    name = dotted(source) if source is not None else None
    cls = model.parents.enclosing_class(model.parents.scope_of(loop)) if name else None
    if cls is None:
        return set()

    def measures(value: ast.expr) -> bool:
        if isinstance(value, ast.IfExp):  # `len(loader) if epoch_len is None else epoch_len`
            return measures(value.body) or measures(value.orelse)
        measured = value.args[0] if isinstance(value, ast.Call) and dotted(value.func) == "len" and len(value.args) == 1 else None
        # `len(self.train_dataloader)`, or `len(train_dataloader)` of the parameter `__init__` keeps there
        return measured is not None and (dotted(measured) == name or isinstance(measured, ast.Name) and f"self.{measured.id}" == name)

    return {f"self.{attribute}" for attribute, values in model.class_attributes(cls).items() if any(map(measures, values))}


def _optional_cap(test: ast.expr) -> bool:
    """`limit is not None and i >= limit` (or `limit and i >= limit`): a cap that is off unless
    set (a debugging limit on the batches), so that by default the epoch runs to its end."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
        return False
    optional = {
        dotted(t.left if isinstance(t, ast.Compare) else t) for t in test.values
        if isinstance(t, (ast.Name, ast.Attribute))
        or isinstance(t, ast.Compare) and isinstance(t.ops[0], ast.IsNot) and isinstance(t.comparators[0], ast.Constant) and t.comparators[0].value is None
    } - {None}
    return any(
        isinstance(t, ast.Compare) and any(dotted(side) in optional for side in (t.left, *t.comparators))
        for t in test.values
    )


def _compares(test: ast.expr, names: set[str]) -> bool:
    """`test` reads one of `names` itself, not only as what it hands a call
    (`if not all_ranks_have_data(step=step): break` ends where the data does)."""
    pending = [test]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Name) and node.id in names:
            return True
        pending.extend([node.func] if isinstance(node, ast.Call) else ast.iter_child_nodes(node))
    return False


def _sized_by(test: ast.expr, name: str) -> bool:
    """`test` compares with `len(name)`."""
    return isinstance(test, ast.Compare) and any(
        isinstance(n, ast.Call) and dotted(n.func) == "len" and len(n.args) == 1 and dotted(n.args[0]) == name
        for n in ast.walk(test)
    )


def _asserts_whole_windows(model: "ModuleModel", loop: ast.For, source: ast.expr) -> bool:
    """`assert len(dl) % k == 0` before the loop: the epoch holds whole windows only."""
    name = dotted(source)
    block = model.parents.block.get(loop, [])
    before = block[: block.index(loop)] if loop in block else []
    return any(
        isinstance(stmt, ast.Assert) and any(
            isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) and isinstance(n.left, ast.Call)
            and dotted(n.left.func) == "len" and n.left.args and dotted(n.left.args[0]) == name
            for n in ast.walk(stmt.test)
        )
        for stmt in before
    )


def _sized_to_the_window(model: "ModuleModel", loop: ast.For, source: ast.expr, factor: ast.expr | None) -> bool:
    """`buffer = [None] * accum_steps` (in `__init__` for `self.buffer`): the loop runs over
    exactly one window, so the window it closes is never partial."""
    if factor is None:
        return False
    name = dotted(source)
    scope = model.parents.scope_of(loop)
    cls = model.parents.enclosing_class(scope) if name and name.startswith("self.") else None
    values = (
        model.class_attributes(cls).get(name.removeprefix("self."), []) if cls is not None
        else [getattr(s, "value", None) for s in model.scope(scope).assignments.get(name or "", ())]
    )
    window = ast.dump(factor)
    return bool(values) and all(
        isinstance(v, ast.BinOp) and isinstance(v.op, ast.Mult) and any(
            isinstance(side, ast.List) and ast.dump(other) == window
            for side, other in ((v.left, v.right), (v.right, v.left))
        )
        for v in values
    )


def _derived_from(body: list[ast.stmt], counter: str) -> set[str]:
    """The index and the names the loop's body computes from it, at any remove
    (`step = batch_idx // accum; log_step = resume_step + step`)."""
    assignments = [node for stmt in body for node in ast.walk(stmt) if isinstance(node, ast.Assign)]
    derived = {counter}
    while True:
        more = {
            target.id for node in assignments if _reads(node.value, derived)
            for target in node.targets if isinstance(target, ast.Name)
        } - derived
        if not more:
            return derived
        derived |= more


def _skips_before_backward(body: list[ast.stmt], counter: str, loop: "TrainingLoop") -> bool:
    """`step = i // accum; if step >= steps_per_epoch: continue` ahead of the forward: the
    micro-batches past the last full window are skipped before any backward, so none is left
    without a step (a test of the index, or of a name the body derives from it)."""
    lines = [e.anchor.lineno for e in loop.events if e.kind is Kind.BACKWARD]
    if not lines:
        return False
    derived = _derived_from(body, counter)
    return any(
        isinstance(stmt, ast.If) and stmt.lineno < min(lines) and _reads(stmt.test, derived)
        and not _bounds_from_above(stmt.test, derived) and not _optional_cap(stmt.test) and not _skips_one_batch(stmt.test, derived)
        and any(isinstance(n, (ast.Continue, ast.Break)) for s in stmt.body for n in ast.walk(s))
        for stmt in body
    )


def _skips_one_batch(test: ast.expr, names: set[str]) -> bool:
    """Every comparison of the count in `test` is an equality (`step == len(loader) - 1`): it
    skips one micro-batch, not the micro-batches after the last full window."""
    compared = [n for n in ast.walk(test) if isinstance(n, ast.Compare) and _reads(n, names)]
    return bool(compared) and all(isinstance(op, ast.Eq) for c in compared for op in c.ops)


def _bounds_from_above(test: ast.expr, names: set[str]) -> bool:
    """Every comparison of the count in `test` holds for the epoch's first micro-batches only
    (`resume_from and step <= resume_from`): what it skips is the head of the epoch (a resumed
    run fast-forwarding), not its tail."""
    compared = [n for n in ast.walk(test) if isinstance(n, ast.Compare) and _reads(n, names)]
    return bool(compared) and all(
        len(c.ops) == 1 and (
            isinstance(c.ops[0], (ast.Lt, ast.LtE)) and _reads(c.left, names)
            or isinstance(c.ops[0], (ast.Gt, ast.GtE)) and _reads(c.comparators[0], names)
        )
        for c in compared
    )


def _reads(expr: ast.expr, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(expr))


def _steps_after(model: "ModuleModel", loop: ast.For, unit: "TrainingLoop") -> bool:
    """A step of one of the loop's optimizers (or through a scaler) after the loop, or a call of
    the helper the loop steps through (`if counter > 0: self.optimization_step()`): the tail's
    flush (of a GAN's two optimizers stepped together, either)."""
    stepping = {dotted(e.site.func) for e in unit.of(Kind.STEP, Kind.SCALER_STEP) if e.site is not None} - {None}
    for stmt in model.parents.chain(loop):
        block = model.parents.block.get(stmt, [])
        for later in block[block.index(stmt) + 1 :] if stmt in block else []:
            for node in ast.walk(later):
                if not isinstance(node, ast.Call):
                    continue
                stepped = _steps(model, node, unit.optimizers, stepping) or _steps_what_it_is_handed(model, later, node, unit.optimizers)
                if stepped and not _never_after(model, loop, later, node):
                    return True
    return False


def _steps(model: "ModuleModel", call: ast.Call, optimizers: frozenset[str], stepping: set[str]) -> bool:
    if dotted(call.func) in stepping:
        return True
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "step"):
        return False
    receiver = call.func.value
    return dotted(receiver) in optimizers or model.roles.of(receiver) is Role.SCALER


def _steps_what_it_is_handed(model: "ModuleModel", stmt: ast.stmt, call: ast.Call, optimizers: frozenset[str]) -> bool:
    """`flush_remaining_grads(model, optimizer, ...)`: a function handed one of the loop's
    optimizers steps it there (`optimizer.step()`, `scaler.step(optimizer)`)."""
    if not any(dotted(a) in optimizers for a in [*call.args, *(k.value for k in call.keywords)]):
        return False
    scope = model.parents.scope_of(stmt)
    callee = resolve_callee(model, call, CallContext(model, scope, class_of_scope(model, scope)))
    if callee is None or not isinstance(callee.function, FUNCTIONS):
        return False
    handed = {name for name, argument in bind_arguments(callee, call).items() if dotted(argument) in optimizers}
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "step"
        and any(isinstance(n, ast.Name) and n.id in handed for n in (node.func.value, *node.args))
        for node in ast.walk(callee.function)
    )


def _never_after(model: "ModuleModel", loop: ast.For, later: ast.stmt, step: ast.Call) -> bool:
    """The flush is under `if not left:` (or `left == 0`) on a countdown the loop sets back
    (to anything but 0) in the branch where it reaches zero: after the loop it never is zero,
    and the flush never runs."""
    tests = [
        s.test for s in ast.walk(later)
        if isinstance(s, ast.If) and any(n is step for b in s.body for n in ast.walk(b))
    ]
    counters = {c for c in map(zero_test_of, tests) if c is not None}
    return any(
        isinstance(inner, ast.If) and zero_test_of(inner.test) == counter
        and any(
            isinstance(a, ast.Assign) and len(a.targets) == 1 and dotted(a.targets[0]) == counter
            and not (isinstance(a.value, ast.Constant) and a.value.value == 0)
            for a in inner.body
        )
        for counter in counters for inner in ast.walk(loop)
    )

