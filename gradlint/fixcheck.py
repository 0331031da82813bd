"""Whether a fix plan can be carried out, answered from the ast without libcst.

`check` marks a finding `[*]` only when `gradlint fix` will apply its fix, but computing the
fix itself costs libcst (its import alone is several times a whole check of a file). This
answers the same question from the ast the check already needs: the statements a plan moves,
anchors or wraps must each stand alone on their lines in an indented block, a move must not
leave a block empty, a wrap must stay in one block, and a replaced expression must be there.
Formats that carry fixes compute the edits themselves (`fixer.diagnose`); the fuzz test checks
that both answers agree.
"""

from __future__ import annotations

import ast
import functools

from gradlint.fixplan import FixPlan, InsertStatement, MoveStatement, Position, ReplaceExpression, WrapStatements
from gradlint.sources.document import split_lines

BODIES = ("body", "orelse", "finalbody")


class _Blocks:
    """Each statement of the module by its start, with the block (list of statements) it is in."""

    def __init__(self, tree: ast.Module, text: str):
        self.lines = split_lines(text)
        self.where: dict[tuple[int, int], tuple[list[ast.stmt], int]] = {}
        self.suites: set[int] = set()  # ids of blocks written on their header's line
        self._index(tree.body)
        for node in ast.walk(tree):
            blocks = [getattr(node, name, None) for name in BODIES]
            blocks += [case.body for case in getattr(node, "cases", ())]
            for block in blocks:
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    self._index(block)
                    if block[0].lineno == getattr(node, "lineno", 0) and block is node.body:
                        self.suites.add(id(block))

    def _index(self, block: list[ast.stmt]) -> None:
        for index, statement in enumerate(block):
            self.where.setdefault((statement.lineno, statement.col_offset), (block, index))

    def start(self, position: Position) -> tuple[int, int]:
        """(line, UTF-8 byte column) as ast counts them, of a position in characters."""
        line = self.lines[position.line - 1] if 0 < position.line <= len(self.lines) else ""
        return position.line, len(line[: position.column].encode("utf-8", "surrogatepass"))

    def holds(self, position: Position, original: str) -> bool:
        """Whether the source text at `position` is `original` (an expression to replace; the
        module of a `from ... import` is one for libcst, not for ast)."""
        wanted = "\n".join(split_lines(original))
        held = "\n".join(self.lines[position.line - 1 : position.line + wanted.count("\n")])
        return held[position.column :].startswith(wanted)

    def alone(self, position: Position) -> tuple[list[ast.stmt], int] | None:
        """(block, index) of the statement at `position` if it has its lines to itself."""
        found = self.where.get(self.start(position))
        if found is None or id(found[0]) in self.suites:
            return None
        block, index = found
        statement = block[index]
        if index > 0 and block[index - 1].end_lineno == statement.lineno:
            return None
        if index + 1 < len(block) and block[index + 1].lineno == statement.end_lineno:
            return None
        return found


@functools.lru_cache(maxsize=1)
def _blocks(tree: ast.Module, text: str) -> _Blocks:
    """One index per module, however many of its findings are asked about."""
    return _Blocks(tree, text)


def feasible(tree: ast.Module, text: str, plan: FixPlan) -> bool:
    """Whether `plan` can be carried out on the module `text` (parsed as `tree`)."""
    blocks = _blocks(tree, text)
    removed: dict[int, set[int]] = {}
    filled: set[int] = set()
    for operation in plan.operations:
        if isinstance(operation, MoveStatement):
            moved, anchor = blocks.alone(operation.statement), blocks.alone(operation.anchor)
            if moved is None or anchor is None:
                return False
            removed.setdefault(id(moved[0]), set()).add(moved[1])
            filled.add(id(anchor[0]))
        elif isinstance(operation, InsertStatement):
            anchor = blocks.alone(operation.anchor)
            if anchor is None:
                return False
            filled.add(id(anchor[0]))
        elif isinstance(operation, WrapStatements):
            first, last = blocks.alone(operation.first), blocks.alone(operation.last)
            if first is None or last is None or first[0] is not last[0] or first[1] > last[1]:
                return False
        elif isinstance(operation, ReplaceExpression) and not blocks.holds(operation.expression, operation.original):
            return False
    sizes = {id(block): len(block) for block, _ in blocks.where.values()}
    return all(len(gone) < sizes[block] or block in filled for block, gone in removed.items())
