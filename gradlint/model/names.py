"""Names as the module spells them: dotted paths and the import/alias table that resolves them."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable

BUILTIN_NAMES = frozenset(dir(builtins))
# Words without which code holds no gradient event (a prefilter before the ast is read).
GRADIENT_WORDS = ("backward", "step", "grad", "clip", "sync", "scale", "accumulate", "allreduce")


def names_sharded_class(expr: ast.AST | None) -> bool:
    """`FSDP` / `FullyShardedDataParallel` (as imported or through a module): FSDP reads its sync
    switch in the backward hooks, not in the forward as DDP does."""
    return (dotted(expr) or "").rsplit(".", 1)[-1] in ("FSDP", "FullyShardedDataParallel") if expr is not None else False


def dotted(expr: ast.AST) -> str | None:
    """`self.optimizer` for that attribute chain; None for anything that is not a plain chain."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    return ".".join(reversed(parts))


class ImportTable:
    """Local name -> qualified name, from every import statement of the module (one pass);
    `from model import *` adds the names the project module `model` defines, on first use
    (`star_origin` reads them: the table alone cannot)."""

    def __init__(self, statements: list[ast.stmt], star_origin: Callable[[str], str | None] | None = None):
        self.aliases: dict[str, str] = {}
        self.stars: list[str] = []  # modules imported with `*`, relative ones with their dots
        for node in statements:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.aliases[alias.asname] = alias.name
                    else:
                        root = alias.name.split(".")[0]
                        self.aliases.setdefault(root, root)
            elif isinstance(node, ast.ImportFrom):
                # relative imports keep their dots (`.utils.backward_step`): the project resolves them
                module = "." * node.level + (node.module or "")
                separator = "." if node.module else ""
                for alias in node.names:
                    if alias.name == "*":
                        self.stars.append(module)
                    else:
                        self.aliases[alias.asname or alias.name] = f"{module}{separator}{alias.name}"
        self._star_origin = star_origin if self.stars else None
        self._through_stars: dict[str, str | None] = {}

    def origin(self, head: str) -> str | None:
        """What a name was imported as: by an import naming it, or by a star import of a
        module that defines it; None for a name not imported."""
        resolved = self.aliases.get(head)
        if resolved is None and self._star_origin is not None:
            if head not in self._through_stars:
                self._through_stars[head] = self._star_origin(head)
            resolved = self._through_stars[head]
        return resolved

    def qualname(self, expr: ast.AST) -> str | None:
        """The dotted name of `expr` with its first segment resolved through the imports."""
        name = dotted(expr)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        resolved = self.origin(head) or head
        return f"{resolved}.{rest}" if rest else resolved
