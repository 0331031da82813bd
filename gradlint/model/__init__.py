"""The training-loop model of a module, built from the stdlib ast (DESIGN §2.1)."""

from __future__ import annotations

import ast
from functools import cached_property

from gradlint.diagnostics import Span
from gradlint.fixplan import Position
from gradlint.sources.document import split_lines
from gradlint.model.events import Event, Kind
from gradlint.model.loops import Accumulation, TrainingLoop, find_training_loops
from gradlint.model.names import ImportTable
from gradlint.model.roles import Role, Roles
from gradlint.model.scopes import Parents, Scope

def _slice_bytes(line: str, start: int, end: int | None) -> str:
    """ast columns are UTF-8 byte offsets."""
    if line.isascii():
        return line[start:end]
    return line.encode("utf-8")[start:end].decode("utf-8", errors="replace")


GRADIENT_WORDS = ("backward", "step", "zero_grad", "clip", "grad", "sync", "scale")
__all__ = ["ModuleModel", "TrainingLoop", "Accumulation", "Event", "Kind", "Role"]


class ModuleModel:
    """Everything rules may ask about one module: roles, training loops, source text."""

    def __init__(self, tree: ast.Module, text: str):
        self.tree = tree
        self.text = text
        self._scopes: dict[int, Scope] = {}
        self._memo: dict[tuple, bool] = {}
        self._methods: dict[int, dict[str, ast.FunctionDef]] = {}

    # Built on first use: a module with no backward() call never needs roles or parents.
    @cached_property
    def nodes(self) -> list[ast.AST]:
        return list(ast.walk(self.tree))  # one walk, shared by the tables below

    @cached_property
    def imports(self) -> ImportTable:
        return ImportTable(self.nodes)

    @cached_property
    def roles(self) -> Roles:
        return Roles(self.nodes, self.imports)

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

    def touches_gradients(self, function: ast.AST) -> bool:
        """Whether a helper's source mentions anything that could be a gradient event."""
        key = ("touches", id(function))
        if key not in self._memo:
            text = "\n".join(self.lines[function.lineno - 1 : function.end_lineno])
            ddp_models = tuple(name.rsplit(".", 1)[-1] for name in self.roles.named(Role.DDP_MODEL))
            self._memo[key] = any(word in text for word in GRADIENT_WORDS + ddp_models)
        return self._memo[key]

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
