"""Carry out a FixPlan on a libcst tree: lossless, so comments and formatting survive.

Only the top-level statement holding the fix goes through libcst (a whole 2,000-line module
costs about a second a pass); the rest of the module is kept as text.
"""

from __future__ import annotations

import ast
import re
from dataclasses import fields, replace

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from gradlint.sources.document import split_lines
from gradlint.fixplan import (
    EnsureImport,
    FixPlan,
    InsertStatement,
    MoveStatement,
    Position,
    RemoveStatement,
    ReplaceExpression,
    ReplaceText,
    WrapStatements,
)


NEWLINE = re.compile(r"\r\n|\r|\n")


class FixError(Exception):
    """The plan cannot be carried out on this code; the fix is dropped, never half-applied."""


def apply_plan(text: str, plan: FixPlan) -> str:
    replacements = [op for op in plan.operations if isinstance(op, ReplaceText)]
    for operation in sorted(replacements, key=lambda op: (op.start.line, op.start.column), reverse=True):
        text = _replace_text(text, operation)
    located = [op for op in plan.operations if not isinstance(op, (EnsureImport, ReplaceText))]
    if located:
        text = _apply_in_region(text, located)
    for operation in plan.operations:
        if isinstance(operation, EnsureImport):
            text = _ensure_import(text, operation.module)
    return text


def _apply_in_region(text: str, operations: list) -> str:
    """Transform the one top-level statement that holds every operation, splice it back."""
    lines = split_lines(text, keepends=True)
    first, last = _region(text, [p.line for op in operations for p in _positions(op)])
    chunk = "".join(lines[first - 1 : last])
    shifted = [replace(op, **{name: Position(p.line - first + 1, p.column) for name, p in _named_positions(op)}) for op in operations]
    return "".join(lines[: first - 1]) + _transform(chunk, shifted, first - 1) + "".join(lines[last:])


def _replace_text(text: str, operation: ReplaceText) -> str:
    lines = split_lines(text, keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: Position) -> int:
        if position.line > len(lines):
            return len(text)
        return min(starts[position.line - 1] + position.column, starts[position.line])

    return text[: offset(operation.start)] + operation.text + text[offset(operation.end) :]


def _named_positions(operation):
    return [(f.name, getattr(operation, f.name)) for f in fields(operation) if isinstance(getattr(operation, f.name), Position)]


def _positions(operation):
    return [position for _, position in _named_positions(operation)]


def _region(text: str, lines: list[int]) -> tuple[int, int]:
    """First and last line of the top-level statement holding all `lines` (else the module)."""
    tree = ast.parse(text)
    for statement in tree.body:
        start = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])
        if all(start <= line <= statement.end_lineno for line in lines):
            return start, statement.end_lineno
    return 1, len(split_lines(text, keepends=True))


def _transform(text: str, operations: list, offset: int = 0) -> str:
    """Carry out `operations` on `text`, the module's lines after the first `offset`."""
    try:
        wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)  # tree is ours
    except cst.ParserSyntaxError as error:
        raise FixError(f"libcst cannot parse the code: {error.message}") from None
    except cst.CSTValidationError as error:  # valid Python libcst refuses: `[(x)for x in xs]`
        raise FixError(f"libcst cannot read the code: {error}") from None
    try:
        return _carry_out(wrapper, operations, offset)
    except cst.ParserSyntaxError as error:  # a fix's own code: a bug in a rule, never the user's file
        raise FixError(f"the fix's code does not parse: {error.message}") from None
    except cst.CSTValidationError as error:
        raise FixError(f"libcst cannot write the fixed code: {error}") from None


def _carry_out(wrapper: MetadataWrapper, operations: list, offset: int) -> str:
    index = _Index(wrapper, offset)
    transformer = _Transformer()
    for operation in operations:
        match operation:
            case MoveStatement(statement=source, anchor=anchor, where=where):
                moved = index.statement(source)
                transformer.removed.add(moved)
                transformer.place(index.statement(anchor), where, moved, carried=True)
            case RemoveStatement(statement=position):
                transformer.removed.add(index.statement(position))
            case InsertStatement(code=code, anchor=anchor, where=where):
                transformer.place(index.statement(anchor), where, cst.parse_statement(code + "\n"), carried=False)
            case ReplaceExpression(expression=position, original=original, code=code):
                node = index.expression(position, original)
                parens = getattr(node, "lpar", ())  # written around it: ast's position is inside them
                bare = node.with_changes(lpar=[], rpar=[]) if parens else node
                # the new code quotes the original as the file spells it; libcst re-indents the
                # lines it continues onto, so it gets them as libcst renders the node
                code = code.replace(original, wrapper.module.code_for_node(bare))
                new = cst.parse_expression(code)
                if parens and hasattr(new, "lpar"):  # they stay, in place of any the new code adds
                    new = new.with_changes(lpar=node.lpar, rpar=node.rpar)
                transformer.replaced[node] = new
            case WrapStatements(first=first, last=last, header=header, prelude=prelude):
                transformer.wraps[index.statement(first)] = (index.statement(last), header, prelude)
    return wrapper.module.visit(transformer).code


def _ensure_import(text: str, module: str) -> str:
    """Add `import module` on its own line before the first import of the module (after a
    docstring and `from __future__` imports), unless it is imported already."""
    body = ast.parse(text).body
    if any(isinstance(s, ast.Import) and any(a.name == module and not a.asname for a in s.names) for s in body):
        return text
    preamble = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        preamble = 1
    while preamble < len(body) and isinstance(body[preamble], ast.ImportFrom) and body[preamble].module == "__future__":
        preamble += 1
    rest = body[preamble:]
    anchor = next((s for s in rest if isinstance(s, (ast.Import, ast.ImportFrom))), rest[0] if rest else None)
    lines = split_lines(text, keepends=True)
    newline = NEWLINE.search(text).group() if NEWLINE.search(text) else "\n"
    at = anchor.lineno - 1 if anchor is not None else len(lines)
    if at == len(lines) and lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += newline
    return "".join([*lines[:at], f"import {module}{newline}", *lines[at:]])


class _Index:
    """Nodes of the tree by the start position that ast reports for them."""

    def __init__(self, wrapper: MetadataWrapper, offset: int = 0):
        self.module, self.offset = wrapper.module, offset  # offset: lines before the region
        self.statements: dict[tuple[int, int], cst.CSTNode] = {}
        self.expressions: dict[tuple[int, int], list[cst.CSTNode]] = {}
        for node, where in wrapper.resolve(PositionProvider).items():
            key = (where.start.line, where.start.column)
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                self.statements.setdefault(key, node)
            elif isinstance(node, cst.BaseExpression):
                self.expressions.setdefault(key, []).append(node)
                # ast starts a parenthesized expression inside its parentheses, libcst at them
                opening = "".join(self.module.code_for_node(paren) for paren in getattr(node, "lpar", ()))
                if opening and "\n" not in opening:
                    self.expressions.setdefault((key[0], key[1] + len(opening)), []).append(node)

    def statement(self, position: Position) -> cst.CSTNode:
        node = self.statements.get((position.line, position.column))
        if node is None:
            raise FixError(f"no statement starts at line {position.line + self.offset}, column {position.column + 1}")
        if isinstance(node, cst.SimpleStatementLine) and len(node.body) > 1:
            raise FixError(f"line {position.line + self.offset} holds several statements")
        return node

    def expression(self, position: Position, original: str) -> cst.CSTNode:
        # libcst renders a node's continuation lines with the indentation of its own context, not
        # the file's: multi-line expressions are compared with their whitespace collapsed
        wanted = " ".join(original.split())
        for node in self.expressions.get((position.line, position.column), ()):
            bare = node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", ()) else node
            if " ".join(self.module.code_for_node(bare).split()) == wanted:
                return node
        raise FixError(f"no expression `{original}` at line {position.line + self.offset}")


class _Transformer(cst.CSTTransformer):
    def __init__(self):
        super().__init__()
        self.removed: set[cst.CSTNode] = set()
        self.before: dict[cst.CSTNode, list[tuple[cst.CSTNode, bool]]] = {}
        self.after: dict[cst.CSTNode, list[tuple[cst.CSTNode, bool]]] = {}
        self.replaced: dict[cst.CSTNode, cst.CSTNode] = {}
        self.wraps: dict[cst.CSTNode, tuple[cst.CSTNode, str, tuple[str, ...]]] = {}
        self._within_removed = 0  # inside a statement that goes: its blocks may end up empty

    def on_visit(self, node) -> bool:
        if node in self.removed:
            self._within_removed += 1
        return super().on_visit(node)

    def place(self, anchor: cst.CSTNode, where: str, node: cst.CSTNode, carried: bool) -> None:
        table = self.before if where == "before" else self.after
        table.setdefault(anchor, []).append((node, carried))

    def on_leave(self, original, updated):
        if original in self.removed:
            self._within_removed -= 1
        if original in self.replaced:
            return self.replaced[original]
        if isinstance(updated, (cst.IndentedBlock, cst.Module)):
            body = self._rebuild(original.body, updated.body)
            if not body and not self._within_removed:
                raise FixError("the fix would leave a block empty")
            return updated.with_changes(body=body) if body else updated
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


def _carried(node):
    """A moved statement keeps its comment lines, not the blank lines that spaced it."""
    return node.with_changes(leading_lines=[line for line in node.leading_lines if line.comment is not None])
