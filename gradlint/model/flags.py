"""The test a flag stands for when the code sets it to True or False in branches.

`update = True`, then `if N > 1: if i == 0: update = False elif i % N == 0: update = True else:
update = False`, then `if update: optimizer.step()`: the step's guard is the condition under
which the branches leave the flag True (`N <= 1 or not i == 0 and i % N == 0`), which the guard
reader can take apart like any test written inline.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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


def _before(parents: Parents, stmt: ast.stmt, name: str) -> ast.expr | None:
    block, parent = parents.block.get(stmt), parents.parent.get(stmt)
    if block is None:
        return None
    # an `if`/`with` around the statement: what the flag was on entering it counts
    outer = _before(parents, parent, name) if isinstance(parent, (ast.If, ast.With)) else None
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
