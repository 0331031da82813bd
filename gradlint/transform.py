"""Carry out a FixPlan on a libcst tree: lossless, so comments and formatting survive."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from gradlint.fixplan import (
    EnsureImport,
    FixPlan,
    InsertStatement,
    MoveStatement,
    Position,
    ReplaceExpression,
    WrapStatements,
)


class FixError(Exception):
    """The plan cannot be carried out on this code; the fix is dropped, never half-applied."""


def apply_plan(text: str, plan: FixPlan) -> str:
    try:
        wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)  # tree is ours
    except cst.ParserSyntaxError as error:
        raise FixError(f"libcst cannot parse the module: {error.message}") from None
    index = _Index(wrapper)
    transformer = _Transformer()
    for operation in plan.operations:
        match operation:
            case MoveStatement(statement=source, anchor=anchor, where=where):
                moved = index.statement(source)
                transformer.removed.add(moved)
                transformer.place(index.statement(anchor), where, moved, carried=True)
            case InsertStatement(code=code, anchor=anchor, where=where):
                transformer.place(index.statement(anchor), where, cst.parse_statement(code + "\n"), carried=False)
            case ReplaceExpression(expression=position, original=original, code=code):
                transformer.replaced[index.expression(position, original)] = cst.parse_expression(code)
            case WrapStatements(first=first, last=last, header=header, prelude=prelude):
                transformer.wraps[index.statement(first)] = (index.statement(last), header, prelude)
            case EnsureImport(module=module):
                transformer.imports.append(module)
    return wrapper.module.visit(transformer).code


class _Index:
    """Nodes of the tree by the start position that ast reports for them."""

    def __init__(self, wrapper: MetadataWrapper):
        self.module = wrapper.module
        self.statements: dict[tuple[int, int], cst.CSTNode] = {}
        self.expressions: dict[tuple[int, int], list[cst.CSTNode]] = {}
        for node, where in wrapper.resolve(PositionProvider).items():
            key = (where.start.line, where.start.column)
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                self.statements.setdefault(key, node)
            elif isinstance(node, cst.BaseExpression):
                self.expressions.setdefault(key, []).append(node)

    def statement(self, position: Position) -> cst.CSTNode:
        node = self.statements.get((position.line, position.column))
        if node is None:
            raise FixError(f"no statement starts at line {position.line}, column {position.column + 1}")
        if isinstance(node, cst.SimpleStatementLine) and len(node.body) > 1:
            raise FixError(f"line {position.line} holds several statements")
        return node

    def expression(self, position: Position, original: str) -> cst.CSTNode:
        for node in self.expressions.get((position.line, position.column), ()):
            if self.module.code_for_node(node) == original:
                return node
        raise FixError(f"no expression `{original}` at line {position.line}")


class _Transformer(cst.CSTTransformer):
    def __init__(self):
        super().__init__()
        self.removed: set[cst.CSTNode] = set()
        self.before: dict[cst.CSTNode, list[tuple[cst.CSTNode, bool]]] = {}
        self.after: dict[cst.CSTNode, list[tuple[cst.CSTNode, bool]]] = {}
        self.replaced: dict[cst.CSTNode, cst.CSTNode] = {}
        self.wraps: dict[cst.CSTNode, tuple[cst.CSTNode, str, tuple[str, ...]]] = {}
        self.imports: list[str] = []

    def place(self, anchor: cst.CSTNode, where: str, node: cst.CSTNode, carried: bool) -> None:
        table = self.before if where == "before" else self.after
        table.setdefault(anchor, []).append((node, carried))

    def on_leave(self, original, updated):
        if original in self.replaced:
            return self.replaced[original]
        if isinstance(updated, (cst.IndentedBlock, cst.Module)):
            body = self._rebuild(original.body, updated.body)
            if not body:
                raise FixError("the fix would leave a block empty")
            if isinstance(updated, cst.Module) and self.imports:
                body = self._ensure_imports(body)
            return updated.with_changes(body=body)
        return updated

    def _rebuild(self, originals, updates) -> list[cst.CSTNode]:
        body: list[cst.CSTNode] = []
        wrapping: list | None = None
        for original, updated in zip(originals, updates):
            before = self.before.get(original, [])
            if before:
                updated = self._insert_before(body, before, updated)
            if original in self.wraps:
                wrapping = [original, []]
            if original not in self.removed:
                (wrapping[1] if wrapping else body).append(updated)
            if wrapping and self.wraps[wrapping[0]][0] is original:
                body.extend(self._wrap(wrapping[0], wrapping[1]))
                wrapping = None
            for node, carried in self.after.get(original, []):
                body.append(_carried(node) if carried else node)
        if wrapping:
            raise FixError("statements to wrap are not in one block")
        return body

    @staticmethod
    def _insert_before(body, inserts, anchor):
        """New statements go before `anchor`, taking its leading blank lines; it keeps its
        comments."""
        leading = list(anchor.leading_lines)
        blank = 0
        while blank < len(leading) and leading[blank].comment is None:
            blank += 1
        for position, (node, carried) in enumerate(inserts):
            node = _carried(node) if carried else node
            if position == 0:
                node = node.with_changes(leading_lines=[*leading[:blank], *node.leading_lines])
            body.append(node)
        return anchor.with_changes(leading_lines=leading[blank:])

    def _wrap(self, first, statements):
        _, header, prelude = self.wraps[first]
        leading = statements[0].leading_lines
        statements[0] = statements[0].with_changes(leading_lines=[])
        compound = cst.parse_statement(f"{header}\n    pass\n")
        compound = compound.with_changes(body=compound.body.with_changes(body=statements))
        new = [*(cst.parse_statement(code + "\n") for code in prelude), compound]
        new[0] = new[0].with_changes(leading_lines=leading)
        return new

    def _ensure_imports(self, body):
        for module in self.imports:
            if any(_imports(statement, module) for statement in body):
                continue
            position = next(
                (i for i, s in enumerate(body) if _is_import(s) and not _is_future(s)),
                _after_preamble(body),
            )
            new = cst.parse_statement(f"import {module}\n")
            if position >= len(body):
                body = [*body, new]
            else:
                inserted: list = []
                anchor = self._insert_before(inserted, [(new, False)], body[position])
                body = [*body[:position], *inserted, anchor, *body[position + 1 :]]
        return body


def _carried(node):
    """A moved statement keeps its comment lines, not the blank lines that spaced it."""
    return node.with_changes(leading_lines=[line for line in node.leading_lines if line.comment is not None])


def _is_import(statement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body
    )


def _is_future(statement) -> bool:
    return any(
        isinstance(s, cst.ImportFrom) and isinstance(s.module, cst.Name) and s.module.value == "__future__"
        for s in statement.body
    )


def _imports(statement, module: str) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        if isinstance(small, cst.Import):
            for alias in small.names:
                if alias.asname is None and cst.Module([]).code_for_node(alias.name) == module:
                    return True
    return False


def _after_preamble(body) -> int:
    """Index after a module docstring and `from __future__` imports."""
    index = 0
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) and isinstance(
        body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)
    ):
        index = 1
    while index < len(body) and _is_future(body[index]):
        index += 1
    return index
