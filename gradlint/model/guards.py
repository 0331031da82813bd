"""Conditions events sit under, and which of them are accumulation boundaries."""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass
from typing import Callable, Sequence

from gradlint.model.flags import negated
from gradlint.model.hooks import RUNNER_PERIOD_TESTS
from gradlint.model.names import dotted, is_literal

SWITCH_WORDS = frozenset({
    "dtype", "float16", "float32", "float64", "bfloat16", "half", "double", "device", "mode", "precision", "type",
    # what picks one of several named things (`key != config.warm_up_key` over a dict of optimizers)
    "key", "name", "kind", "phase", "stage", "task",
})
# how deep a test is taken apart: flags resolved to what they stand for, nested `and`/`or`
MAX_TEST_DEPTH = 5
# calls whose answer is fixed for the whole run (`torch.cuda.is_available()`, `dist.get_rank()`):
# a test of them is a setting's test
SETUP_QUESTIONS = frozenset({"is_available", "is_initialized", "is_bf16_supported", "get_world_size", "get_rank", "device_count"})
COMPARISONS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.Lt: operator.lt, ast.LtE: operator.le,
}
# The value of a name (`"sync"`, `"self.sync_gradients"`) or what a call returns, if known.
Resolver = Callable[["str | ast.Call"], "ast.expr | None"]


@dataclass(frozen=True)
class Boundary:
    """`counter % factor == 0` and its kin: true on the micro-batch that ends a window."""

    factor: ast.expr
    counters: frozenset[str]
    flushes_tail: bool


@dataclass(frozen=True)
class Guard:
    """An event sits under `test` being true (`holds`) or false: an if/else branch, or the code
    after `if test: continue`. `boundary` is set when the side taken is the window's end,
    `inside_window` when it is the side of the non-final micro-batches."""

    node: ast.stmt
    test: ast.expr
    holds: bool
    boundary: Boundary | None = None
    inside_window: Boundary | None = None
    # a helper's test with its parameters replaced by what the call passes (`args.fp16` in a
    # helper given `self.args` reads `self.args.fp16`): how the loop's own tests compare with it
    in_caller: ast.expr | None = None
    # flags the side taken sets to a constant, each with the lines after the `if` where that
    # value still holds (up to the flag's next assignment in the function)
    sets: tuple[FlagSet, ...] = ()
    # attributes of `self` that are false where this side holds (`flags.exclusive_flags`)
    rules_out_flags: frozenset[str] = frozenset()

    @property
    def compared(self) -> ast.expr:
        return self.in_caller if self.in_caller is not None else self.test

    def excludes(self, other: "Guard") -> bool:
        """True when the two are the two branches of one `if`, opposite sides of the same
        flag tested twice (`if self.use_fp16:` in the backward and again in the step), or a
        later test of a flag this side sets the other way (`if spike: skip = True` then `if
        not skip:`)."""
        if self.node is other.node:
            return self.holds != other.holds
        return (
            opposite(self.compared, self.holds, other.compared, other.holds)
            or different_values(self.compared, self.holds, other.compared, other.holds)
            or any(named_apart(a, a_holds, b, b_holds) for a, a_holds in _terms(self) for b, b_holds in _terms(other))
            or any(f.rules_out(other) for f in self.sets) or any(f.rules_out(self) for f in other.sets)
            or bool(self.rules_out_flags) and truthy_flag(other) in self.rules_out_flags
            or bool(other.rules_out_flags) and truthy_flag(self) in other.rules_out_flags
        )


@dataclass(frozen=True)
class FlagSet:
    """`name = value` run by one side of an `if` (`skip_step = True` on a loss spike): a later
    `if` of the same function testing the name, before anything assigns it again, takes the
    side that value decides. Both sides never run in one pass."""

    name: str
    value: bool | int | None
    scope: ast.AST
    after: int  # the setting `if` ends here
    until: int  # the flag's next assignment after it, or the function's end

    def rules_out(self, guard: "Guard") -> bool:
        """The guard's side needs the flag the other way: its test, or a term of the `and` it
        holds (`if not skip_backward and not skip_step:`); a count set back to 0 fails a later
        `if count > 0:` (a flush after the window's own step)."""
        tests = _terms(guard) if guard.holds else [(guard.test, guard.holds)]
        return any(
            self._truth_of(test) not in (None, holds) for test, holds in (_positive(t, h) for t, h in tests)
        ) and self.after < guard.node.lineno < self.until and any(node is guard.node for node in ast.walk(self.scope))

    def _truth_of(self, test: ast.expr) -> bool | None:
        """What `test` is with the flag at its value: `flag`, `count > 0` (None: another test)."""
        if isinstance(test, ast.Name):
            return bool(self.value) if test.id == self.name else None
        if not (
            isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
            and test.left.id == self.name and type(test.ops[0]) in COMPARISONS
            and isinstance(self.value, int) and isinstance(test.comparators[0], ast.Constant)
            and type(test.comparators[0].value) in (int, float)
        ):
            return None
        return COMPARISONS[type(test.ops[0])](self.value, test.comparators[0].value)


def settled_by(test: ast.expr, constant_of: Callable[[str], ast.Constant | None]) -> bool | None:
    """The truth of `mode == "train"` (or `!=`), or of a flag `train`, where the name holds a
    literal `constant_of` knows (`iterate(..., mode="val")`, `Train(..., False, ...)`); None for
    any other test."""
    if isinstance(test, ast.Name):
        value = constant_of(test.id)
        return None if value is None else bool(value.value)
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq))
        and isinstance(test.left, ast.Name) and isinstance(test.comparators[0], ast.Constant)
    ):
        return None
    value = constant_of(test.left.id)
    return None if value is None else (value.value == test.comparators[0].value) == isinstance(test.ops[0], ast.Eq)


def flags_set(stmt: ast.If, holds: bool, assignments: dict[str, list[ast.stmt]], scope: ast.AST) -> tuple[FlagSet, ...]:
    """The flags one side of `stmt` sets to a constant in its own block, by the last such
    assignment of each (see FlagSet)."""
    found = []
    for inner in stmt.body if holds else stmt.orelse:
        if not (isinstance(inner, ast.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0], ast.Name)):
            continue
        if not (isinstance(inner.value, ast.Constant) and isinstance(inner.value.value, (bool, int, type(None)))):
            continue
        name = inner.targets[0].id
        later = [s.lineno for s in assignments.get(name, ()) if s.lineno > inner.lineno]
        if any(line <= stmt.end_lineno for line in later):
            continue  # set again further down the branch
        end = scope.body[-1].end_lineno if isinstance(scope, ast.Module) else scope.end_lineno
        found.append(FlagSet(name, inner.value.value, scope, stmt.end_lineno, min(later, default=end + 1)))
    return tuple(found)


def runs_once(stmt: ast.If, assignments: dict[str, list[ast.stmt]], loops: Sequence[ast.AST]) -> bool:
    """`if not flops_measured: ...; flops_measured = True` in a loop: the block turns its own
    flag off, and nothing in the loops around it turns the flag back on, so it runs on one
    pass at most (a one-off measurement, a first-batch check), not on every micro-batch."""
    terms = stmt.test.values if isinstance(stmt.test, ast.BoolOp) and isinstance(stmt.test.op, ast.And) else [stmt.test]
    for term in terms:
        test, holds = _positive(term, True)
        if not isinstance(test, ast.Name):
            continue
        own = [
            inner for inner in stmt.body
            if isinstance(inner, ast.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0], ast.Name)
            and inner.targets[0].id == test.id and isinstance(inner.value, ast.Constant) and bool(inner.value.value) != holds
        ]
        others = [a for a in assignments.get(test.id, ()) if not any(a is o for o in own)]
        if own and not any(loop.lineno <= a.lineno <= loop.end_lineno for a in others for loop in loops):
            return True
    return False


def opposite(test: ast.expr, holds: bool, other_test: ast.expr, other_holds: bool, flags_only: bool = True) -> bool:
    """Two sides of one test that cannot both hold (`x is None` and `x is not None`); with
    `flags_only`, only for tests of settings, whose value cannot change between the two."""
    (test, holds), (other_test, other_holds) = _positive(test, holds), _positive(other_test, other_holds)
    return holds != other_holds and (not flags_only or _is_flag(test)) and ast.dump(test) == ast.dump(other_test)


def different_values(test: ast.expr, holds: bool, other_test: ast.expr, other_holds: bool) -> bool:
    """`env_type == "pytorchDDP"` and `env_type == "pytorch"` both holding: one setting cannot
    equal two different constants (settings only, as for `opposite`)."""
    first, second = _equals_constant(test, holds), _equals_constant(other_test, other_holds)
    return first is not None and second is not None and first[0] == second[0] and first[1] != second[1]


def named_apart(test: ast.expr, holds: bool, other_test: ast.expr, other_holds: bool) -> bool:
    """`name == "sgd"` against `"fedavg" in name`: a string that holds no such part; `"fedavg" in
    name` against `"subscaf" in name`: modes named apart, read as alternatives."""
    first, second = _equals_constant(test, holds), _equals_constant(other_test, other_holds)
    parts = _contains_constant(test, holds), _contains_constant(other_test, other_holds)
    for equal, contains in ((first, parts[1]), (second, parts[0])):
        if equal is not None and contains is not None and equal[0] == contains[0] and isinstance(equal[1], str) and contains[1] not in equal[1]:
            return True
    one, other = parts
    return one is not None and other is not None and one[0] == other[0] and one[1] not in other[1] and other[1] not in one[1]


def _equals_constant(test: ast.expr, holds: bool) -> tuple[str, object] | None:
    """(setting, value) of `setting == constant` (or `constant == setting`) where it holds."""
    test, holds = _positive(test, holds)
    if not (holds and isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return None
    for side, value in ((test.left, test.comparators[0]), (test.comparators[0], test.left)):
        if isinstance(value, ast.Constant) and value.value is not None and _setting(side) is not None:
            return _setting(side), value.value
    return None


def _contains_constant(test: ast.expr, holds: bool) -> tuple[str, str] | None:
    """(setting, part) of `"part" in setting` where it holds."""
    test, holds = _positive(test, holds)
    if not (holds and isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In)):
        return None
    part, setting = test.left, _setting(test.comparators[0])
    return (setting, part.value) if isinstance(part, ast.Constant) and isinstance(part.value, str) and setting else None


CASE_METHODS = frozenset({"lower", "upper", "casefold", "strip"})


def _setting(expr: ast.expr) -> str | None:
    """`args.optimizer`, or that setting normalised (`args.optimizer.lower()`)."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in CASE_METHODS and not expr.args:
        inner = dotted(expr.func.value)
        return f"{inner}.{expr.func.attr}()" if inner else None
    return dotted(expr)


def conjunction_excludes(guards: Sequence["Guard"], others: Sequence["Guard"]) -> bool:
    """`if a and b: X else: Y` against `if a: if b: Z`: Z runs only where every term of the
    conjunction holds, so it and Y exclude each other (settings only, as for `opposite`)."""
    conjunctions = [
        o.compared for o in others
        if not o.holds and isinstance(o.compared, ast.BoolOp) and isinstance(o.compared.op, ast.And) and _is_flag(o.compared)
    ]
    if not conjunctions:  # asked for every pair of events: most guards are no negated `and`
        return False
    held = {(ast.dump(t), h) for t, h in (_positive(c, h) for g in guards for c, h in _terms(g)) if _is_flag(t)}
    return any(all((ast.dump(t), h) in held for t, h in (_positive(v, True) for v in c.values)) for c in conjunctions)


def _terms(guard: "Guard") -> list[tuple[ast.expr, bool]]:
    """What a guard tells about single tests: each term of an `and` that holds (`elif use_amp and
    dtype == "fp16":` holds `dtype == "fp16"`), else its test."""
    test = guard.compared
    if guard.holds and isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [(test, True), *((v, True) for v in test.values)]
    return [(test, guard.holds)]


def truthy_flag(guard: Guard) -> str | None:
    """The attribute of `self` the guard's side finds true: `if self.use_amp:`, `if
    self.accelerator is not None:`, the `else` of `if not self.accelerator:`."""
    test, holds = _positive(guard.compared, guard.holds)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) and _is_none(test.comparators[0]):
        test, holds = test.left, not holds
    name = dotted(test) if holds and isinstance(test, ast.Attribute) else None
    return name if name is not None and name.startswith("self.") else None


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def _positive(test: ast.expr, holds: bool) -> tuple[ast.expr, bool]:
    """`x is not None` holding is `x is None` not holding, and `not flag` is `flag` (so the two
    sides of `if self.scaler is None:` and `if self.scaler is not None:` exclude each other)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _positive(test.operand, not holds)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.IsNot, ast.NotEq)):
        flipped = ast.Is() if isinstance(test.ops[0], ast.IsNot) else ast.Eq()
        return ast.Compare(test.left, [flipped], test.comparators), not holds
    return test, holds


def _is_flag(test: ast.expr) -> bool:
    """A test of settings only (names, attributes, constants, `not`, `and`/`or`, comparisons,
    questions about the run's set-up such as `torch.cuda.is_available()`): no other call,
    subscript or arithmetic whose value could change between two tests of it."""
    return all(
        isinstance(node, (ast.Name, ast.Attribute, ast.Constant, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Load,
                          ast.Not, ast.And, ast.Or, ast.cmpop))
        or _asks_the_setup(node)
        for node in ast.walk(test)
    )


def _asks_the_setup(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call) and not node.args and not node.keywords
        and isinstance(node.func, ast.Attribute) and node.func.attr in SETUP_QUESTIONS
    )


def make_guard(
    node: ast.stmt, test: ast.expr, holds: bool, resolve: Resolver, in_caller: ast.expr | None = None,
    sets: tuple[FlagSet, ...] = (), window_test: ast.expr | None = None,
) -> Guard:
    """`window_test`: what the window is read from where the test says it only with the code
    around it (a countdown's `count == 0` is `count % N == 0`)."""
    # an `assert` states what holds from there on (`assert scaler is not None`): never a window's test
    read = window_test if window_test is not None else test
    polarity, boundary = _boundary(read, resolve, depth=0) if not isinstance(node, ast.Assert) else (True, None)
    if boundary is None or _never_leaves_window_start(node, read):
        return Guard(node, test, holds, in_caller=in_caller, sets=sets)
    at_end = polarity == holds
    return Guard(node, test, holds, boundary if at_end else None, None if at_end else boundary, in_caller, sets)


def _never_leaves_window_start(node: ast.stmt, test: ast.expr) -> bool:
    """`if c % N == 0: step; c = 0` / `else: c += 1`: the window's end sets the counter back to
    0, where the test holds again, and only the other branch counts it up, so every pass ends a
    window (magiCARP's `torch_step`): the test is no window, nothing accumulates."""
    if not (isinstance(node, ast.If) and test is node.test):
        return False
    match test:
        case ast.Compare(left=ast.BinOp(left=counter, op=ast.Mod()), ops=[ast.Eq() | ast.NotEq() as op], comparators=[ast.Constant(value=0)]):
            at_end, elsewhere = (node.body, node.orelse) if isinstance(op, ast.Eq) else (node.orelse, node.body)
        case _:
            return False
    name = dotted(counter)
    resets = [
        s for s in at_end
        if isinstance(s, ast.Assign) and [dotted(t) for t in s.targets] == [name] and isinstance(s.value, ast.Constant) and s.value.value == 0
    ]
    counts_up = [s for s in elsewhere if isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Add) and dotted(s.target) == name]
    return name is not None and len(resets) == 1 and len(counts_up) == 1


def _boundary(test: ast.expr, resolve: Resolver, depth: int) -> tuple[bool, Boundary | None]:
    """(polarity, boundary): polarity True when `test` is true exactly at the window's end."""
    if depth > MAX_TEST_DEPTH:
        return True, None
    match test:
        case ast.UnaryOp(op=ast.Not(), operand=operand):
            polarity, boundary = _boundary(operand, resolve, depth + 1)
            if boundary is None and _is_modulo(operand):
                return True, _modulo_boundary(operand)
            return (not polarity), boundary
        case ast.BoolOp(op=ast.Or(), values=values):
            found = [_boundary(v, resolve, depth + 1) for v in values]
            hits = [(v, b) for v, (p, b) in zip(values, found) if b is not None and p]
            if len(hits) > 1:  # `step == self.epoch_len - 1` reads as a window's end too: it is the tail
                hits = [(v, b) for v, b in hits if not is_tail_test(v, resolve)]
            if len(hits) > 1 and sum(has_modulo(v) for v, _ in hits) == 1:
                # `i + 1 == max_steps` beside `(i + 1) % N == 0`: the cap's last batch, no window
                hits = [(v, b) for v, b in hits if has_modulo(v)]
            others = [v for v in values if hits and v is not hits[0][0]]
            if len(hits) == 1 and others and all(
                is_tail_test(v, resolve) or _turns_off(v, hits[0][1].factor) or _first_micro_batch(v, hits[0][1].counters)
                or _counted_to(v, hits[0][1].counters)
                for v in others
            ):
                boundary = hits[0][1]
                # `not N or i % N == 0`: every micro-batch steps when accumulation is off
                flushes = boundary.flushes_tail or any(
                    is_tail_test(v, resolve) and not _only_when_shorter(v, boundary.factor) and not _only_when_empty(v)
                    or _counted_to(v, boundary.counters)
                    for v in others
                )
                return True, Boundary(boundary.factor, boundary.counters, flushes)
            return True, None
        case ast.BoolOp(op=ast.And(), values=values):
            found = [(v, *_boundary(v, resolve, depth + 1)) for v in values]
            hits = [b for _, p, b in found if b is not None and p]
            inside = [(v, b) for v, p, b in found if b is not None and not p]
            modular = [(v, b) for v, b in inside if has_modulo(v)]
            if not hits and len(values) > 1 and (
                (len(inside) == 1 and all(_is_not_tail_test(v) for v in values if v is not inside[0][0]))
                # a window's modulo test beside tests the model does not read as one (mmf's
                # `(idx + 1) % N and remaining != this_update`); a resume's `epoch == first and
                # step < resume_step` holds no modulo: no window
                or len(modular) == 1
            ):
                # `step % N != 0 and step + 1 != len(loader)` (`continue` until a window's end
                # or the epoch's): false at every window's end, and where the other tests fail,
                # which ends the epoch's last window or does something the model cannot read:
                # taken as flushing the tail
                boundary = (modular or inside)[0][1]
                return False, Boundary(boundary.factor, boundary.counters, True)
            return True, (hits[0] if len(hits) == 1 else None)
        case ast.BinOp(op=ast.Mod()) if _is_modulo(test):
            return False, _modulo_boundary(test)  # `if (i + 1) % N:` holds inside the window
        case ast.Name() | ast.Attribute() if (name := dotted(test)) is not None:
            # a flag computed elsewhere: `sync = (i + 1) % N == 0`, `self.sync_gradients`
            value = resolve(name)
            return _boundary(value, resolve, depth + 1) if value is not None else (True, None)
        case ast.Compare(left=left, ops=[op], comparators=[right]) if isinstance(op, (ast.Eq, ast.NotEq)):
            return _compare_boundary(_remainder(left, resolve), op, right)  # `pending == 0`, `micro == N - 1`
        case ast.Compare(left=left, ops=[op], comparators=[right]):
            return _compare_boundary(left, op, right)
        case ast.IfExp(test=inner, body=ast.Constant(value=when_true), orelse=ast.Constant(value=when_false)) if (
            {when_true, when_false} == {True, False} and isinstance(when_true, bool)
        ):
            # `is_update = True if step % N == 0 else False`: the test itself, or its negation
            polarity, boundary = _boundary(inner, resolve, depth + 1)
            return (polarity if when_true else not polarity), boundary
        case ast.Call(func=ast.Attribute(attr=attr), args=[runner, factor]) if attr in RUNNER_PERIOD_TESTS:
            # mmcv's `self.every_n_iters(runner, n)`: `(runner.iter + 1) % n == 0`
            return True, _make(factor, ast.Attribute(value=runner, attr="iter", ctx=ast.Load()))
        case ast.Call() if (value := resolve(test)) is not None:
            # `if self._should_step():` -- what the helper returns
            return _boundary(value, resolve, depth + 1)
    return True, None


def _remainder(expr: ast.expr, resolve: Resolver) -> ast.expr:
    """A name holding a window's remainder (`pending = (i + 1) % N`, then `if pending == 0:`),
    or the remainder made an integer (`int(total % (N // world_size)) == 0`), stands for it in an
    equality test; anything else is itself (a resume's `skipped > 0`, set from `step %
    steps_per_epoch`, counts down, and is no window; a state object's counter kept modulo the
    window is read as written, `state.acc_step == 0`)."""
    if isinstance(expr, ast.Call) and dotted(expr.func) == "int" and len(expr.args) == 1 and not expr.keywords:
        expr = expr.args[0]
    value = resolve(expr.id) if isinstance(expr, ast.Name) else None
    return value if value is not None and _is_modulo(value) else expr


def _compare_boundary(left: ast.expr, op: ast.cmpop, right: ast.expr) -> tuple[bool, Boundary | None]:
    if isinstance(op, (ast.Eq, ast.NotEq)):
        polarity = isinstance(op, ast.Eq)
        for side, other in ((left, right), (right, left)):
            # counter % N == 0   |   counter % N == N - 1   |   counter % 4 == 3
            if _is_modulo(side) and (is_literal(other, 0) or _is_minus_one_of(other, side.right) or _is_last_residue(other, side.right)):
                return polarity, _modulo_boundary(side)
            # micro_step == N - 1
            if _counters(side) and _is_minus_one(other):
                return polarity, _make(other.left, side)
            # counter % N + 1 == N: the window's last residue
            if _is_plus_one(side) and _is_modulo(side.left) and ast.dump(other) == ast.dump(side.left.right):
                return polarity, _modulo_boundary(side.left)
            # micro_step + 1 == N
            if _is_plus_one(side) and _counters(side.left) and _is_factor(other):
                return polarity, _make(other, side)
        # micro_step == N (a counter reset at the boundary); `args.accum == micro_step` too:
        # a setting is read off an object, the counter is the shallower name. Not a switch's
        # value (`dtype == torch.float32`, `mode == "train"`)
        if isinstance(left, (ast.Name, ast.Attribute)) and isinstance(right, (ast.Name, ast.Attribute, ast.Constant)) and not (
            _is_switch_value(left) or _is_switch_value(right)
        ):
            if _depth(right) < _depth(left):
                return polarity, _make(left, right)
            return polarity, _make(right, left)
        # `self.accu_count == (args.effec_batch_size / args.batch_size)`: a window computed from settings
        for side, other in ((left, right), (right, left)):
            if isinstance(side, (ast.Name, ast.Attribute)) and _settings_ratio(other):
                return polarity, _make(other, side)
    # counter % N > 0 (`if steps % N > 0: continue`): the test of `!= 0`
    if isinstance(op, ast.Gt) and _is_modulo(left) and is_literal(right, 0):
        return False, _modulo_boundary(left)
    if isinstance(op, ast.Lt) and is_literal(left, 0) and _is_modulo(right):
        return False, _modulo_boundary(right)
    if isinstance(op, (ast.GtE, ast.Gt)) and _counters(left):
        return True, _make(_strip_minus_one(right) if isinstance(op, ast.Gt) else right, left)
    return True, None


def _settings_ratio(expr: ast.expr) -> bool:
    """`a / b`, `a // b` or `a * b` of names, attributes and integers: a count computed from
    settings (the effective batch over the batch)."""
    return (
        isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Div, ast.FloorDiv, ast.Mult))
        and all(isinstance(e, (ast.Name, ast.Attribute)) or isinstance(e, ast.Constant) and isinstance(e.value, int) for e in (expr.left, expr.right))
        and not all(isinstance(e, ast.Constant) for e in (expr.left, expr.right))
    )


def _is_switch_value(expr: ast.expr) -> bool:
    """A dtype, a device, a mode or a key, not a count: `torch.float32`, `dtype`, `args.amp_dtype`,
    `config.warm_up_key`, a member of an enumeration (`Split.TRAIN`)."""
    words = set((dotted(expr) or "").rsplit(".", 1)[-1].lower().split("_"))
    return bool(words & SWITCH_WORDS) or _enum_member(expr)


def _enum_member(expr: ast.expr) -> bool:
    """`Split.TRAIN`, `Mode.EVAL`: an upper-case member of a class named in CamelCase."""
    return (
        isinstance(expr, ast.Attribute) and expr.attr.isupper() and isinstance(expr.value, ast.Name)
        and expr.value.id[:1].isupper() and not expr.value.id.isupper()
    )


def _depth(expr: ast.expr) -> int:
    """How many dotted parts a name has (`args.accum`: 2); a literal counts as the deepest."""
    name = dotted(expr)
    return name.count(".") + 1 if name else 1_000


def _make(factor: ast.expr, counter_expr: ast.expr) -> Boundary | None:
    counters = _counters(counter_expr)
    if not counters or not _is_factor(factor) or _is_len_call(factor):
        return None
    return Boundary(factor, counters, False)


def _modulo_boundary(expr: ast.BinOp) -> Boundary | None:
    return _make(expr.right, expr.left)


def _is_modulo(expr: ast.expr) -> bool:
    return isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod)


def _is_minus_one(expr: ast.expr) -> bool:
    return (
        isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub)
        and isinstance(expr.right, ast.Constant) and expr.right.value == 1
    )


def _is_minus_one_of(expr: ast.expr, factor: ast.expr) -> bool:
    return _is_minus_one(expr) and ast.dump(expr.left) == ast.dump(factor)


def _is_last_residue(expr: ast.expr, factor: ast.expr) -> bool:
    return (
        isinstance(expr, ast.Constant) and isinstance(factor, ast.Constant)
        and isinstance(expr.value, int) and isinstance(factor.value, int) and expr.value == factor.value - 1
    )


def _strip_minus_one(expr: ast.expr) -> ast.expr:
    return expr.left if _is_minus_one(expr) else expr


def _is_plus_one(expr: ast.expr) -> bool:
    return (
        isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add)
        and isinstance(expr.right, ast.Constant) and expr.right.value == 1
    )


def _is_factor(expr: ast.expr) -> bool:
    """An accumulation factor: a name, attribute or integer literal other than 0 and 1."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, int) and not isinstance(expr.value, bool) and expr.value > 1
    return isinstance(expr, (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.BinOp))


def _is_len_call(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "len"


TAIL_WORDS = frozenset({"last", "end", "final", "total", "num", "epoch"})


def is_tail_test(expr: ast.expr, resolve: Resolver | None = None) -> bool:
    """`i == len(loader) - 1`, `i + 1 == len(loader)`, `is_last`, `step == total_steps - 1`:
    a `len()` call (or, with `resolve`, a name or attribute assigned a value made with one:
    `len_data = len(loader)`, `min_step = min(len(l) for l in loaders)`) or a name
    with a word that speaks of the end (`append` is no `end`). A test with a modulo
    (`(num_steps + 1) % N == 0`) is a window's test, whatever its names say."""
    if any(isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) for node in ast.walk(expr)):
        return False
    for node in ast.walk(expr):
        if _is_len_call(node):
            return True
        word = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        if word and TAIL_WORDS & set(word.lower().split("_")):
            return True
        name = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        value = resolve(name) if name is not None and resolve is not None else None
        if value is not None and any(_is_len_call(n) for n in ast.walk(value)):
            # `len_data = len(loader)`, `self.train_batches = len(self.train_dataloader)`,
            # `min_step = min([len(loader) for loader in loaders])`
            return True
    return False


def has_modulo(test: ast.expr) -> bool:
    """A modulo anywhere in the test: a window's (`(i + 1) % N == 0`) or a period's."""
    return any(isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) for node in ast.walk(test))


def modulo_part(test: ast.expr) -> ast.expr:
    """The one part of `i % N == 0 or i + 1 == len(loader)` (or of an `and`) that takes a
    modulo; the test itself otherwise."""
    if isinstance(test, ast.BoolOp):
        parts = [v for v in test.values if any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in ast.walk(v))]
        if len(parts) == 1:
            return parts[0]
    return test


def window_part(test: ast.expr) -> ast.expr:
    """The part of a step's test that tests the window: the one conjunct with a modulo of
    `i % N == 0 and not skip`, else the whole test."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        windows = [v for v in test.values if has_modulo(v)]
        if len(windows) == 1:
            return windows[0]
    return test


def _only_when_shorter(test: ast.expr, factor: ast.expr) -> bool:
    """`steps_in_epoch <= N and step + 1 == steps_in_epoch` (older transformers Trainers and their
    copies; also chained, `N >= steps_in_epoch == step + 1`): the epoch's end flushes only an
    epoch shorter than the window, never a longer epoch's tail."""
    window = ast.dump(factor)
    return any(
        isinstance(op, (ast.LtE, ast.Lt)) and ast.dump(right) == window
        or isinstance(op, (ast.GtE, ast.Gt)) and ast.dump(left) == window
        for node in ast.walk(test) if isinstance(node, ast.Compare)
        # each link of a chain (`N >= steps_in_epoch == step + 1`)
        for left, op, right in zip([node.left, *node.comparators], node.ops, node.comparators)
    )


def _only_when_empty(test: ast.expr) -> bool:
    """`i + 1 == len(loader) == 0`: a chain, read as `i + 1 == len(loader) and len(loader) == 0`,
    that holds only for an empty loader, so never at a step of the loop over it."""
    return any(
        isinstance(op, ast.Eq) and (_is_len_call(left) and is_literal(right, 0) or _is_len_call(right) and is_literal(left, 0))
        for node in ast.walk(test) if isinstance(node, ast.Compare)
        for left, op, right in zip([node.left, *node.comparators], node.ops, node.comparators)
    )


def _counted_to(test: ast.expr, counters: frozenset[str]) -> bool:
    """`i + 1 == max_steps` (`i == n - 1`, `cnt == int(total / batch_size)`) on the window's own
    counter, against a count that is no literal: a step where the loop reaches a cap of its
    batches, taken as ending the epoch's last window (whether the loop stops there is the rest of
    the code's to say)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    left, right = test.left, test.comparators[0]
    if isinstance(left, ast.BinOp) and isinstance(left.op, ast.Add) and isinstance(left.right, ast.Constant):
        left = left.left  # `i + 1`
    if isinstance(right, ast.BinOp) and isinstance(right.op, ast.Sub) and isinstance(right.right, ast.Constant):
        right = right.left  # `n - 1`
    # `n` a name, or a count computed from names (`int(cfg.pos_count / cfg.batch_size)`)
    names_a_count = dotted(right) is not None or (
        isinstance(right, (ast.Call, ast.BinOp)) and any(isinstance(n, (ast.Name, ast.Attribute)) for n in ast.walk(right))
    )
    return dotted(left) in counters and not isinstance(right, ast.Constant) and names_a_count


def _first_micro_batch(test: ast.expr, counters: frozenset[str]) -> bool:
    """`it == 1` (or `== 0`) on the window's own counter: one more step, on the run's first
    micro-batch, beside the windows (`if it == 1 or it % N == 0:`)."""
    return (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
        and dotted(test.left) in counters and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value in (0, 1) and not isinstance(test.comparators[0].value, bool)
    )


def _turns_off(test: ast.expr, factor: ast.expr) -> bool:
    """A test that holds when accumulation is off (`not N`, `N is None`, `N == 1`, `N <= 1`, or
    an option naming a mode that steps every micro-batch: `accumulation_mode == "batch"`):
    beside a window's test it makes every micro-batch step then, and changes nothing else."""
    if _names_a_mode(test):
        return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return ast.dump(test.operand) == ast.dump(factor)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and ast.dump(test.left) == ast.dump(factor)):
        return False
    op, right = test.ops[0], test.comparators[0]
    if not isinstance(right, ast.Constant):
        return False
    return (
        (isinstance(op, (ast.Is, ast.Eq)) and right.value is None)
        or (isinstance(op, (ast.Eq, ast.LtE)) and right.value == 1)
        or (isinstance(op, ast.Lt) and right.value == 2)
    )


def _names_a_mode(test: ast.expr) -> bool:
    """`mode == "batch"`: an option compared with a word, never a counter's test nor a tail's."""
    return (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
        and dotted(test.left) is not None and isinstance(test.comparators[0], ast.Constant)
        and isinstance(test.comparators[0].value, str)
    )


def switches_off(test: ast.expr, factor: ast.expr) -> bool:
    """`test` has a part holding when accumulation by `factor` is off (`not N or ...`)."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
    return any(_turns_off(part, factor) for part in parts)


def _is_not_tail_test(expr: ast.expr) -> bool:
    """`i + 1 != len(loader)`, `i < len(loader) - 1`, `not is_last`: true before the epoch's end."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return is_tail_test(expr.operand)
    return isinstance(expr, ast.Compare) and len(expr.ops) == 1 and isinstance(expr.ops[0], (ast.NotEq, ast.Lt)) and is_tail_test(expr)


def _counters(expr: ast.expr) -> frozenset[str]:
    """Names a counter expression is made of (`i` in `(i + 1)`, `self.step` in `self.step`)."""
    if isinstance(expr, ast.Constant):
        return frozenset()
    names, pending = set(), [expr]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Call):
            return frozenset()
        name = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if name:
            names.add(name)
        else:
            pending.extend(ast.iter_child_nodes(node))
    return frozenset(names)

def negated_source(test: ast.expr) -> str:
    """Source of the negation of `test`: `a == b` for `a != b` and the like, `not (...)`."""
    negation = negated(test)
    if isinstance(negation, ast.UnaryOp) and negation.operand is test:
        return f"not ({ast.unparse(test)})"
    return ast.unparse(negation)
