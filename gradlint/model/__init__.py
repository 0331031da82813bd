"""The training-loop model of a module, built from the stdlib ast (DESIGN §2.1)."""

from __future__ import annotations

import ast
import bisect
import re
from functools import cached_property
from typing import TYPE_CHECKING

from gradlint.diagnostics import Span
from gradlint.fixplan import Position
from gradlint.sources.document import LINE_BREAK, split_lines
from gradlint.model.events import Event, Kind
from gradlint.model.loops import Accumulation, TrainingLoop, find_training_loops
from gradlint.model.names import ImportTable
from gradlint.model.roles import Role, Roles
from gradlint.model.scopes import Parents, Scope

if TYPE_CHECKING:
    from gradlint.model.callees import ProjectResolver

def _slice_bytes(line: str, start: int, end: int | None) -> str:
    """ast columns are UTF-8 byte offsets."""
    if line.isascii():
        return line[start:end]
    return line.encode("utf-8")[start:end].decode("utf-8", errors="replace")


GRADIENT_WORDS = ("backward", "step", "grad", "clip", "sync", "scale", "accumulate", "allreduce")
__all__ = ["ModuleModel", "TrainingLoop", "Accumulation", "Event", "Kind", "Role"]


class ModuleModel:
    """Everything rules may ask about one module: roles, training loops, source text."""

    def __init__(self, tree: ast.Module, text: str, project: "ProjectResolver | None" = None):
        self.tree = tree
        self.text = text
        # Answers for names imported from other modules of the project (DESIGN §2.3).
        self.project = project
        self._scopes: dict[int, Scope] = {}
        self._memo: dict[tuple, object] = {}
        self._methods: dict[int, dict[str, ast.FunctionDef]] = {}

    # Built on first use: a module with no backward() call never needs roles or parents.
    # Statements only: walking every expression node of a big module costs more than parsing it.
    @cached_property
    def statements(self) -> list[ast.stmt]:
        return self.parents.statements

    @cached_property
    def imports(self) -> ImportTable:
        return ImportTable(self.statements)

    @cached_property
    def roles(self) -> Roles:
        return Roles(self.statements, self.text, self.imports)

    @cached_property
    def _line_starts(self) -> list[int]:
        return [0, *(m.end() for m in LINE_BREAK.finditer(self.text))]

    def line_at(self, offset: int) -> int:
        """The 1-based line of a character offset of the text."""
        return bisect.bisect_right(self._line_starts, offset)

    @cached_property
    def parents(self) -> Parents:
        return Parents(self.tree)

    @cached_property
    def lines(self) -> list[str]:
        return split_lines(self.text)

    @cached_property
    def functions(self) -> dict[str, ast.FunctionDef]:
        """Module-level functions, the helpers a loop may call."""
        return {n.name: n for n in self.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def methods(self, cls: ast.ClassDef) -> dict[str, ast.FunctionDef]:
        if id(cls) not in self._methods:
            self._methods[id(cls)] = {
                n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
        return self._methods[id(cls)]

    def memo(self, key: tuple, compute):
        """Per-module memo for facts asked again by every loop around the same code."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def touches_gradients(self, function: ast.AST) -> bool:
        """Whether a helper's source mentions anything that could be a gradient event."""

        def compute() -> bool:
            text = "\n".join(self.lines[function.lineno - 1 : function.end_lineno])
            ddp_models = tuple(name.rsplit(".", 1)[-1] for name in self.roles.named(Role.DDP_MODEL))
            return any(word in text for word in GRADIENT_WORDS + ddp_models)

        return self.memo(("touches", id(function)), compute)

    @cached_property
    def _event_lines(self) -> list[int]:
        """Lines where a gradient event could be: its words, a DDP model's name, or a call of a
        local helper that touches gradients."""
        helpers = [
            f.name for f in self.statements
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and self.touches_gradients(f)
        ]
        ddp_models = [name.rsplit(".", 1)[-1] for name in self.roles.named(Role.DDP_MODEL)]
        words = [*GRADIENT_WORDS, *(re.escape(n) for n in {*helpers, *ddp_models})]
        pattern = re.compile("|".join(words))
        return sorted({self.line_at(m.start()) for m in pattern.finditer(self.text)})

    def may_hold_events(self, first_line: int, last_line: int) -> bool:
        lines = self._event_lines
        index = bisect.bisect_left(lines, first_line)
        return index < len(lines) and lines[index] <= last_line

    def scope(self, node: ast.AST) -> Scope:
        if id(node) not in self._scopes:
            self._scopes[id(node)] = Scope(node)
        return self._scopes[id(node)]

    @cached_property
    def loops(self) -> list[TrainingLoop]:
        return find_training_loops(self)

    def source(self, node: ast.AST) -> str:
        """The node's text as written (ast.get_source_segment re-splits the module per call)."""
        if getattr(node, "end_lineno", None) is None:
            return ast.unparse(node)
        first, last = node.lineno - 1, node.end_lineno - 1
        lines = self.lines
        if first == last:
            return _slice_bytes(lines[first], node.col_offset, node.end_col_offset)
        return "\n".join(
            [_slice_bytes(lines[first], node.col_offset, None), *lines[first + 1 : last],
             _slice_bytes(lines[last], 0, node.end_col_offset)]
        )

    def column(self, line: int, byte_offset: int) -> int:
        """ast counts columns in UTF-8 bytes; diagnostics and libcst count characters."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return byte_offset
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace"))

    def position(self, node: ast.AST) -> Position:
        return Position(node.lineno, self.column(node.lineno, node.col_offset))

    def span(self, node: ast.AST) -> Span:
        return Span(
            node.lineno,
            self.column(node.lineno, node.col_offset),
            node.end_lineno,
            self.column(node.end_lineno, node.end_col_offset),
        )
