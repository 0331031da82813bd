"""The test a flag or a counter stands for, where the code around the test says it.

`update = True`, then `if N > 1: if i == 0: update = False elif i % N == 0: update = True else:
update = False`, then `if update: optimizer.step()`: the step's guard is the condition under
which the branches leave the flag True (`N <= 1 or not i == 0 and i % N == 0`), which the guard
reader can take apart like any test written inline. A countdown (`if left == 0: step; left = N`,
`left -= 1` per micro-batch) reaches zero every N micro-batches, as `count % N == 0` does.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradlint.model.names import dotted

if TYPE_CHECKING:
    from gradlint.model import ModuleModel
    from gradlint.model.scopes import Parents

NEGATED_COMPARISONS: dict[type, type] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In,
}
TRUE, FALSE = ast.Constant(True), ast.Constant(False)


def flag_condition(parents: Parents, stmt: ast.stmt, name: str) -> ast.expr | None:
    """What `name` holds where `stmt` runs, as a test, when the statements before it in its
    block (and in the blocks around it, up to a loop or the function) set it only to
    constants, in branches; None when anything else sets it or a path leaves it unknown."""
    condition = _before(parents, stmt, name)
    return None if condition is None or isinstance(condition, ast.Constant) else condition


def set_in_branches(parents: Parents, stmt: ast.stmt, name: str, earlier: list[ast.stmt]) -> ast.expr | None:
    """`flag_condition` where every assignment of `name` before `stmt` sets a constant
    (`update = True` ... `else: update = False`); None otherwise."""
    if len(earlier) > 1 and all(_sets_constant(a) for a in earlier):
        return flag_condition(parents, stmt, name)
    return None


def _sets_constant(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, bool)


def countdown_test(stmt: ast.If, assignments: dict[str, list[ast.stmt]]) -> ast.expr | None:
    """`count % N == 0` for `if count == 0:` (`<= 0`, `not count`) whose body sets `count = N`,
    where the function counts it down by one (`count -= 1`)."""
    counter = zero_test_of(stmt.test)
    if counter is None:
        return None
    window = next((
        s.value for s in stmt.body
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and dotted(s.targets[0]) == counter
        and not (isinstance(s.value, ast.Constant) and not s.value.value)
    ), None)
    counted_down = any(
        isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Sub) and isinstance(s.value, ast.Constant) and s.value.value == 1
        for s in assignments.get(counter, ())
    )
    if window is None or not counted_down:
        return None
    read = stmt.test.operand if isinstance(stmt.test, ast.UnaryOp) else stmt.test.left
    return ast.Compare(left=ast.BinOp(left=read, op=ast.Mod(), right=window), ops=[ast.Eq()], comparators=[ast.Constant(0)])


def skipped_below_test(stmt: ast.If, block: list[ast.stmt]) -> ast.expr | None:
    """`not count >= N` for `count += 1` ... `if count < N: continue` (`<= N - 1` likewise): a
    window's own count, counted up just before the test that skips the rest of the iteration
    until N micro-batches are in. A resume skip (`if i < start: continue` on the loop's index)
    counts no micro-batch up by one before it, and `if limit <= i: break` leaves the pass."""
    test = stmt.test
    if not (
        len(stmt.body) == 1 and isinstance(stmt.body[0], ast.Continue) and not stmt.orelse
        and isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Lt, ast.LtE))
    ):
        return None
    counter = dotted(test.left)
    earlier = block[: block.index(stmt)] if stmt in block else []
    if counter is None or not any(
        isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Add) and dotted(s.target) == counter
        and isinstance(s.value, ast.Constant) and s.value.value == 1
        for s in earlier
    ):
        return None  # `cnt += len(batch)` before `if cnt < start: continue`: samples of a resumed run
    reached = ast.GtE() if isinstance(test.ops[0], ast.Lt) else ast.Gt()
    return ast.UnaryOp(ast.Not(), ast.Compare(test.left, [reached], test.comparators))


def zero_test_of(test: ast.expr) -> str | None:
    """The counter `test` finds at zero: `count == 0`, `count <= 0`, `not count`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return dotted(test.operand)
    if (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.LtE))
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == 0
    ):
        return dotted(test.left)
    return None


def _before(parents: Parents, stmt: ast.stmt, name: str) -> ast.expr | None:
    block, parent = parents.block.get(stmt), parents.parent.get(stmt)
    if block is None:
        return None
    # an `if`/`with` (or the body of a `try`) around the statement: what the flag was on entering it counts
    entered = isinstance(parent, (ast.If, ast.With)) or isinstance(parent, ast.Try) and block is parent.body
    outer = _before(parents, parent, name) if entered else None
    return _through(block[: block.index(stmt)], name, outer)


def _through(stmts: list[ast.stmt], name: str, current: ast.expr | None) -> ast.expr | None:
    """The flag's value after `stmts`, given `current` before them."""
    for stmt in stmts:
        if not _assigns(stmt, name):
            continue
        match stmt:
            case ast.Assign(targets=[ast.Name(id=target)], value=ast.Constant(value=bool() as value)) if target == name:
                current = TRUE if value else FALSE
            case ast.If(test=test, body=body, orelse=orelse):
                taken, skipped = _through(body, name, current), _through(orelse, name, current)
                if taken is None or skipped is None:
                    return None
                current = _either(test, taken, skipped)
            case ast.With(body=body):
                current = _through(body, name, current)
            case _:
                return None  # set in a loop, a `try`, from a value: not a constant of branches
        if current is None:
            return None
    return current


def _assigns(stmt: ast.stmt, name: str) -> bool:
    return any(isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store) for node in ast.walk(stmt))


def _either(test: ast.expr, taken: ast.expr, skipped: ast.expr) -> ast.expr:
    """`taken if test else skipped`, as a test."""
    if isinstance(taken, ast.Constant) and isinstance(skipped, ast.Constant):
        if taken.value == skipped.value:
            return taken
        return test if taken.value else negated(test)
    if isinstance(taken, ast.Constant):
        return _or(test, skipped) if taken.value else _and(negated(test), skipped)
    if isinstance(skipped, ast.Constant):
        return _or(negated(test), taken) if skipped.value else _and(test, taken)
    return _or(_and(test, taken), _and(negated(test), skipped))


def negated(test: ast.expr) -> ast.expr:
    """`not test`, written as the comparison it turns into (`N > 1` -> `N <= 1`)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return ast.Compare(left=test.left, ops=[NEGATED_COMPARISONS[type(test.ops[0])]()], comparators=test.comparators)
    return ast.UnaryOp(op=ast.Not(), operand=test)


def _and(left: ast.expr, right: ast.expr) -> ast.expr:
    return ast.BoolOp(op=ast.And(), values=[left, right])


def _or(left: ast.expr, right: ast.expr) -> ast.expr:
    return ast.BoolOp(op=ast.Or(), values=[left, right])


def exclusive_flags(module: "ModuleModel", cls: ast.ClassDef, attribute: str) -> frozenset[str]:
    """Attributes of `self` the class never sets to a true value where it sets `attribute` to
    one: each is set truthy only on the other side of an `if` from every truthy assignment of
    `attribute` (`if n_gpus > 1: self.accelerator = Accelerator(...) else: self.use_amp =
    True`), so `if self.use_amp:` and `if self.accelerator:` never both hold. Read once per
    class and attribute."""

    truthy = module.memo(("truthy attributes", id(cls)), lambda: _truthy_attributes(module, cls))
    own = truthy.get(attribute, [])
    if not own:
        return frozenset()

    def compute() -> frozenset[str]:
        parents = module.parents
        return frozenset(
            name for name, statements in truthy.items()
            if name != attribute and all(parents.on_other_branch(a, b.lineno) for a in own for b in statements)
        )

    return module.memo(("exclusive flags", id(cls), attribute), compute)


def _truthy_attributes(module: "ModuleModel", cls: ast.ClassDef) -> dict[str, list[ast.stmt]]:
    """`self.x` -> the class's statements setting it to a true value (none listed: never)."""
    found: dict[str, list[ast.stmt]] = {}
    for method in module.methods(cls).values():
        for name, statements in module.scope(method).assignments.items():
            setting = [s for s in statements if name.startswith("self.") and _sets_truthy(s, name)]
            if setting:
                found.setdefault(name, []).extend(setting)
    return found


def _sets_truthy(stmt: ast.stmt, name: str) -> bool:
    """`self.x = <something>` that is no None, False, 0 or empty constant (one target)."""
    if not (isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None):
        return False
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    if len(targets) != 1 or dotted(targets[0]) != name:
        return False
    return not (isinstance(stmt.value, ast.Constant) and not stmt.value.value)
