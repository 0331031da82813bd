"""Statement parents and per-function assignment tables, built once per module."""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cached_property

from gradlint.model.names import dotted

BLOCK_FIELDS = ("body", "orelse", "finalbody")
SCOPE_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)


class Parents:
    """For every statement: the node whose block holds it, and that block (a list)."""

    def __init__(self, tree: ast.Module):
        self.parent: dict[ast.AST, ast.AST] = {}
        self.block: dict[ast.AST, list[ast.stmt]] = {}
        self.statements: list[ast.stmt] = []  # every statement; expressions are never walked
        pending = [tree]
        while pending:
            node = pending.pop()
            for block in blocks(node):
                for child in block:
                    self.parent[child] = node
                    self.block[child] = block
                pending.extend(block)
                self.statements.extend(block)

    def ancestors(self, stmt: ast.AST):
        while stmt in self.parent:
            stmt = self.parent[stmt]
            yield stmt

    def scope_of(self, stmt: ast.AST) -> ast.AST:
        for node in self.ancestors(stmt):
            if isinstance(node, SCOPE_TYPES):
                return node
        return stmt

    def enclosing_class(self, function: ast.AST) -> ast.ClassDef | None:
        parent = self.parent.get(function)
        return parent if isinstance(parent, ast.ClassDef) else None

    def holding(self, scope: ast.AST, node: ast.expr) -> ast.stmt | None:
        """The innermost statement of `scope`'s own code that holds the expression `node`."""
        where = (node.lineno, node.col_offset)
        spans = [
            s for s in _walk_scope(scope)
            if (s.lineno, s.col_offset) <= where and (node.end_lineno, node.end_col_offset) <= (s.end_lineno, s.end_col_offset)
        ]
        return max(spans, key=lambda s: (s.lineno, s.col_offset), default=None)

    def on_other_branch(self, stmt: ast.stmt, line: int) -> bool:
        """`stmt` sits on one side of an `if` and `line` on the other (`if multi_class: y =
        sigmoid(y)` ... `else: cross_entropy(y, ...)`): the one never runs before the other."""
        chain = self.chain(stmt)
        for inner, node in zip(chain, chain[1:]):
            if isinstance(node, ast.If) and node.orelse:
                other = node.orelse if any(inner is b for b in node.body) else node.body
                if other[0].lineno <= line <= other[-1].end_lineno:
                    return True
        return False

    def chain(self, stmt: ast.stmt) -> list[ast.stmt]:
        """`stmt` and the statements enclosing it, innermost first, up to its scope."""
        found = [stmt]
        for node in self.ancestors(stmt):
            if isinstance(node, SCOPE_TYPES):
                break
            found.append(node)
        return found

    def movable(self, stmt: ast.stmt) -> ast.stmt:
        """What moving `stmt` means: the statement itself, or the `if`/`with`/`for` that only
        exists to hold it (`if args.clip: clip_grad_norm_(...)`, `for p in ...: p.grad = None`)."""
        while True:
            parent = self.parent.get(stmt)
            if (
                isinstance(parent, (ast.If, ast.With, ast.For))
                and parent.body == [stmt]
                and not getattr(parent, "orelse", None)
            ):
                stmt = parent
            else:
                return stmt

    def common_block(self, first: ast.stmt, last: ast.stmt) -> tuple[ast.stmt, ast.stmt] | None:
        """The statements holding `first` and `last` in the innermost block holding both."""
        last_chain = {id(self.block.get(s)): s for s in self.chain(last)}
        for node in self.chain(first):
            other = last_chain.get(id(self.block.get(node)))
            if other is not None and self.block.get(node) is not None:
                return node, other
        return None


def expression_roots(stmt: ast.stmt) -> list[ast.AST]:
    """What a statement evaluates itself, without its nested blocks: an `if`'s test, a `for`'s
    iterable, a `with`'s context managers; the whole statement for simple ones."""
    match stmt:
        case ast.If(test=test) | ast.While(test=test):
            return [test]
        case ast.For(iter=iterable) | ast.AsyncFor(iter=iterable):
            return [iterable]
        case ast.With(items=items) | ast.AsyncWith(items=items):
            return [item.context_expr for item in items]
        case ast.Match(subject=subject):
            return [subject]
        case ast.Try() | ast.FunctionDef() | ast.AsyncFunctionDef() | ast.ClassDef():
            return []
        case _:
            return [stmt]
    return []


def innermost(stmt: ast.stmt, node: ast.AST) -> ast.stmt:
    """The innermost statement of `stmt` (itself included) that holds `node`."""
    for block in blocks(stmt):
        for inner in block:
            if _start(inner) <= _start(node) and _end(node) <= _end(inner):
                return innermost(inner, node)
    return stmt


def _start(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _end(node: ast.AST) -> tuple[int, int]:
    return node.end_lineno, node.end_col_offset


def blocks(node: ast.AST):
    """The statement lists a compound statement holds (bodies, `else`s, handlers, cases)."""
    for field in BLOCK_FIELDS:
        block = getattr(node, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block
    for handler in getattr(node, "handlers", ()) or ():
        yield handler.body
    for case in getattr(node, "cases", ()) or ():
        yield case.body


class Scope:
    """Assignments of one function (or the module), by dotted target name, in source order."""

    def __init__(self, node: ast.AST):
        self.node = node

    @cached_property
    def assignments(self) -> dict[str, list[ast.stmt]]:
        found: dict[str, list[ast.stmt]] = defaultdict(list)
        for node in _walk_scope(self.node):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    for name in _target_names(target):
                        found[name].append(node)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                for name in _target_names(node.target):
                    found[name].append(node)
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                for name in _target_names(node.target):
                    found[name].append(node)
        for stmts in found.values():
            stmts.sort(key=lambda s: (s.lineno, s.col_offset))
        return found

    @cached_property
    def functions(self) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
        """Functions this scope defines in its own code (a closure `def _ddp_wrap(m):`), by name."""
        return {n.name: n for n in _walk_scope(self.node) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def before(self, name: str, line: int) -> list[ast.stmt]:
        return [s for s in self.assignments.get(name, ()) if s.lineno < line]


def _walk_scope(node: ast.AST):
    """The statements of a scope's own code, not entering nested functions or classes.
    Assignments are statements: expressions (lambdas, comprehensions) are never walked."""
    stack = [stmt for block in blocks(node) for stmt in block]
    while stack:
        stmt = stack.pop()
        yield stmt
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stack.extend(child for block in blocks(stmt) for child in block)


def _target_names(target: ast.expr):
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_names(element)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)
    else:
        name = dotted(target)
        if name:
            yield name
