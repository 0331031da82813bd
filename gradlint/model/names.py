"""Names as the module spells them: dotted paths and the import/alias table that resolves them."""

from __future__ import annotations

import ast
import builtins
import copy
from collections.abc import Callable

BUILTIN_NAMES = frozenset(dir(builtins))
# Words without which code holds no gradient event (a prefilter before the ast is read).
GRADIENT_WORDS = ("backward", "step", "grad", "clip", "sync", "scale", "accumulate", "allreduce")
# Gradient-worded methods of torch's and the frameworks' own objects (tensors, modules,
# optimizers, schedulers, scalers, DDP, Accelerate, Lightning): never a project's method.
LIBRARY_GRADIENT_METHODS = frozenset({
    "backward", "manual_backward", "step", "zero_grad", "requires_grad_", "retain_grad", "save_for_backward",
    "clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_grad_value", "clip_gradients",
    "unscale_", "unscale_gradients", "scale", "no_sync", "no_backward_sync", "set_requires_gradient_sync",
    "accumulate", "register_hook", "register_full_backward_hook", "register_backward_hook", "get_scale",
})


def names_project_gradient_method(name: str) -> bool:
    """A method name only a project defines that speaks of gradients (`accumulate_gradients`,
    `backward_step`): worth resolving to the project's one definition when the object's class
    is unknown."""
    return name not in LIBRARY_GRADIENT_METHODS and any(word in name for word in GRADIENT_WORDS)


def with_names_replaced(expr: ast.expr, replace: Callable[[ast.Name], ast.expr | None]) -> ast.expr:
    """A copy of `expr` in which each name read is what `replace` gives for it (kept on None)."""

    class Replace(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            new = replace(node) if isinstance(node.ctx, ast.Load) else None
            return node if new is None else ast.copy_location(new, node)

    return Replace().visit(copy.deepcopy(expr))


# FSDP's wrapper class, and the class `fully_shard` (FSDP2) makes a module an instance of
SHARDED_CLASSES = frozenset({"FSDP", "FullyShardedDataParallel", "FSDPModule"})


def names_sharded_class(expr: ast.AST | None) -> bool:
    """`FSDP` / `FullyShardedDataParallel` / `FSDPModule` (as imported or through a module): FSDP
    reads its sync switch in the backward hooks, not in the forward as DDP does."""
    return (dotted(expr) or "").rsplit(".", 1)[-1] in SHARDED_CLASSES if expr is not None else False


def dotted(expr: ast.AST) -> str | None:
    """`self.optimizer` for that attribute chain; None for anything that is not a plain chain.
    (Asked about a million times a run: exact type tests, a plain name answered at once.)"""
    kind = type(expr)
    if kind is ast.Name:
        return expr.id
    if kind is not ast.Attribute:
        return None
    parts = []
    while type(expr) is ast.Attribute:
        parts.append(expr.attr)
        expr = expr.value
    if type(expr) is not ast.Name:
        return None
    parts.append(expr.id)
    return ".".join(reversed(parts))


def from_dotted(name: str) -> ast.expr:
    """The attribute chain `dotted` reads as `name` (`self.awp` -> self . awp)."""
    head, *attributes = name.split(".")
    expr: ast.expr = ast.Name(head, ast.Load())
    for attribute in attributes:
        expr = ast.Attribute(expr, attribute, ast.Load())
    return expr


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


def partial_target(call: ast.Call) -> ast.expr | None:
    """`f` of `functools.partial(f, ...)`: a partial object calls `f` with these arguments first."""
    if dotted(call.func) in ("partial", "functools.partial") and call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return None


def assigned_value(stmt: ast.stmt, name: str) -> ast.expr | None:
    """What `stmt` gives `name`: its element where tuples are assigned to tuples (`acc, loss =
    corr / n, loss / n`, `meter_a, meter_b = Meter(), Meter()`), else its value."""
    value = getattr(stmt, "value", None)
    targets = getattr(stmt, "targets", [])
    if len(targets) == 1 and isinstance(targets[0], ast.Tuple) and isinstance(value, ast.Tuple) and len(value.elts) == len(targets[0].elts):
        return next((v for t, v in zip(targets[0].elts, value.elts) if dotted(t) == name), value)
    return value


def parameters_owner(expr: ast.expr | None) -> str | None:
    """`model` of `model.parameters()`: the module whose parameters the expression lists."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "parameters" and not expr.args:
        return dotted(expr.func.value)
    return None


def within(name: str, owner: str) -> bool:
    """`model.head` is within `model` (and `model` within itself): a dotted name and its parts."""
    return name == owner or name.startswith(f"{owner}.")


def bool_literal(expr: ast.AST | None) -> bool | None:
    """The value of a `True` / `False` written out; None for anything else."""
    return expr.value if isinstance(expr, ast.Constant) and isinstance(expr.value, bool) else None


def is_literal(expr: ast.AST | None, value: int) -> bool:
    """`expr` is the number `value` written out (`0`, `1`; `True` is no number here)."""
    return isinstance(expr, ast.Constant) and not isinstance(expr.value, bool) and expr.value == value
