"""Windows the code holds at one micro-batch wherever DDP runs: `if args.distributed: assert
args.accumsteps == 1` before the model is wrapped under the same test (ColBERT's trainer). The
loop still divides its loss by the count and splits its batches by it, but on the DDP path the
count is one, so DDP never all-reduces inside a window of several."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradlint.model.callees import FUNCTIONS
from gradlint.model.names import is_literal
from gradlint.model.roles import Role, classify_constructor

if TYPE_CHECKING:
    from gradlint.model import ModuleModel


def pinned_to_one_under_ddp(model: "ModuleModel", unit: ast.AST, ddp: str | None) -> bool:
    """An `assert COUNT == 1` before the unit, in its function, where COUNT is what the unit
    divides by, under every test (and branch) that the statement wrapping `ddp` in
    DistributedDataParallel there is under."""
    scope = model.parents.scope_of(unit)
    if ddp is None or not isinstance(scope, FUNCTIONS):
        return False
    divisors = {ast.dump(node.right) for node in ast.walk(unit) if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)}
    divisors |= {ast.dump(node.value) for node in ast.walk(unit) if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Div)}
    wraps = [
        stmt for stmt in model.scope(scope).assignments.get(ddp, ())
        if stmt.lineno < unit.lineno and isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)
        and classify_constructor(model.imports.qualname(stmt.value.func) or "") is Role.DDP_MODEL
    ]
    asserts = [
        stmt for stmt in ast.walk(scope)
        if isinstance(stmt, ast.Assert) and stmt.lineno < unit.lineno and model.parents.scope_of(stmt) is scope
    ]
    return bool(wraps) and any(
        (count := _held_at_one(stmt.test)) is not None and ast.dump(count) in divisors
        and all(_branches(model, stmt) <= _branches(model, wrap) for wrap in wraps)
        for stmt in asserts
    )


def _held_at_one(test: ast.expr) -> ast.expr | None:
    """COUNT of `assert COUNT == 1` (or `1 == COUNT`)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return None
    left, right = test.left, test.comparators[0]
    return left if is_literal(right, 1) else right if is_literal(left, 1) else None


def _branches(model: "ModuleModel", stmt: ast.stmt) -> set[tuple[str, bool]]:
    """(test, whether in its body) of each `if` the statement is under, within its function."""
    chain = model.parents.chain(stmt)
    return {
        (ast.dump(node.test), any(inner is s for s in node.body))
        for inner, node in zip(chain, chain[1:]) if isinstance(node, ast.If)
    }
