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

from gradlint.fixplan import FixPlan, InsertStatement, MoveStatement, Position, RemoveStatement, ReplaceExpression, WrapStatements
from gradlint.sources.document import split_lines

BODIES = ("body", "orelse", "finalbody")


class _Blocks:
    """Finds the block (list of statements) a statement is in by descending from the module
    along the statements that enclose its position: a few dozen nodes per question, where
    indexing every block of the module cost more than the rest of checking it."""

    def __init__(self, tree: ast.Module, text: str):
        self.tree = tree
        self.lines = split_lines(text)

    def _enclosing(self, start: tuple[int, int]) -> tuple[list[ast.stmt], int, bool] | None:
        """(block, index, written on its header's line) of the statement starting at `start`."""
        block, on_header = self.tree.body, False
        while True:
            inner = None
            for index, statement in enumerate(block):
                begin = (statement.lineno, statement.col_offset)
                if begin == start:
                    return block, index, on_header
                if begin < start <= (statement.end_lineno, statement.end_col_offset):
                    inner = statement
            if inner is None:
                return None
            found = _sub_block(inner, start)
            if found is None:
                return None
            block, on_header = found

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
        found = self._enclosing(self.start(position))
        if found is None or found[2]:
            return None
        block, index, _ = found
        statement = block[index]
        if index > 0 and block[index - 1].end_lineno == statement.lineno:
            return None
        if index + 1 < len(block) and block[index + 1].lineno == statement.end_lineno:
            return None
        return block, index


def _sub_block(statement: ast.stmt, start: tuple[int, int]) -> tuple[list[ast.stmt], bool] | None:
    """The block of `statement` (its bodies, handlers' and cases' bodies) spanning `start`, and
    whether that block is written on the statement's header line (`if x: y`)."""
    owners = [statement, *getattr(statement, "handlers", ()), *getattr(statement, "cases", ())]
    for owner in owners:
        for name in BODIES:
            block = getattr(owner, name, None)
            if not block or not isinstance(block[0], ast.stmt):
                continue
            last = block[-1]
            if (block[0].lineno, block[0].col_offset) <= start <= (last.end_lineno, last.end_col_offset):
                return block, block is owner.body and block[0].lineno == getattr(owner, "lineno", 0)
    return None


@functools.lru_cache(maxsize=1)
def _blocks(tree: ast.Module, text: str) -> _Blocks:
    """One index per module, however many of its findings are asked about."""
    return _Blocks(tree, text)


def feasible(tree: ast.Module, text: str, plan: FixPlan) -> bool:
    """Whether `plan` can be carried out on the module `text` (parsed as `tree`)."""
    blocks = _blocks(tree, text)
    removed: dict[int, tuple[list[ast.stmt], set[int]]] = {}
    filled: set[int] = set()
    gone_with_their_statement: set[int] = set()  # blocks of statements the plan removes
    for operation in plan.operations:
        if isinstance(operation, MoveStatement):
            moved, anchor = blocks.alone(operation.statement), blocks.alone(operation.anchor)
            if moved is None or anchor is None:
                return False
            removed.setdefault(id(moved[0]), (moved[0], set()))[1].add(moved[1])
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
        elif isinstance(operation, RemoveStatement):
            statement = blocks.alone(operation.statement)
            if statement is None:
                return False
            owner = statement[0][statement[1]]
            gone_with_their_statement.update(id(getattr(owner, name)) for name in BODIES if getattr(owner, name, None))
        elif isinstance(operation, ReplaceExpression) and not blocks.holds(operation.expression, operation.original):
            return False
    return all(
        len(gone) < len(block) or key in filled or key in gone_with_their_statement for key, (block, gone) in removed.items()
    )
