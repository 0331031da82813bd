"""GL306: the deprecated torch.cuda.amp API (autocast, GradScaler)."""

from __future__ import annotations

import ast
from typing import Iterator

from gradlint.fixplan import FixPlan, Position, ReplaceExpression
from gradlint.model import ModuleModel
from gradlint.model.names import dotted
from gradlint.model.values import iter_calls, nodes_on_lines
from gradlint.rules.base import Finding, Rule

DEPRECATED = "torch.cuda.amp"
# the same classes reached through the package's own modules (`torch.cuda.amp.grad_scaler.GradScaler`)
DEPRECATED_MODULES = frozenset({DEPRECATED, f"{DEPRECATED}.grad_scaler", f"{DEPRECATED}.autocast_mode"})
REPLACEMENTS = {"autocast": "torch.autocast", "GradScaler": "torch.amp.GradScaler"}
# cuda.amp.autocast(enabled, dtype, cache_enabled) vs torch.autocast(device_type, dtype, enabled, ...):
# positional arguments would change meaning, so only keyword calls of autocast are rewritten.
KEYWORDS_ONLY = {"autocast"}
FALLBACK_WORDS = ("version", "greater", "less", "torch_ge", "torch_lt")  # `hasattr` is read apart


class DeprecatedCudaAmp(Rule):
    code = "GL306"
    fix_applicability = "safe"
    name = "deprecated-cuda-amp"
    summary = "torch.cuda.amp.autocast / GradScaler: deprecated, use torch.autocast and torch.amp.GradScaler"
    triggers = ("cuda.amp", "torch.cuda import amp")
    trigger_pattern = None
    severity = "warning"

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        for stmt, call in iter_calls(model, tuple(REPLACEMENTS)):
            qualname = model.imports.qualname(call.func) or ""
            module, _, function = qualname.rpartition(".")
            if module not in DEPRECATED_MODULES or function not in REPLACEMENTS or _fallback(model, stmt, call.func):
                continue
            message = (
                f"`{model.source(call.func)}` is the deprecated torch.cuda.amp API (a FutureWarning "
                f"since torch 2.4): use `{REPLACEMENTS[function]}(\"cuda\", ...)`, which does the same"
            )
            yield Finding(self.code, model.span(call), message, _fix(model, call, function))
        for stmt, reference in _kept_references(model):
            if _fallback(model, stmt, reference):
                continue
            function = model.imports.qualname(reference).rpartition(".")[2]
            message = (
                f"`{model.source(reference)}` is the deprecated torch.cuda.amp API (a FutureWarning "
                f"since torch 2.4), kept to be called later: use `{REPLACEMENTS[function]}` with "
                "\"cuda\" as its first argument (`functools.partial("
                f"{REPLACEMENTS[function]}, \"cuda\")`), which does the same"
            )
            yield Finding(self.code, model.span(reference), message, None)


def _kept_references(model: ModuleModel) -> Iterator[tuple[ast.stmt, ast.expr]]:
    """`amp_autocast = torch.cuda.amp.autocast` (or a branch of a conditional expression, or
    `partial(torch.cuda.amp.autocast, ...)`): the deprecated callable stored, then called under
    another name."""
    for stmt, node in nodes_on_lines(model, tuple(REPLACEMENTS)):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            candidates = _branches(node.value)
        elif isinstance(node, ast.Call) and (dotted(node.func) or "").rsplit(".", 1)[-1] == "partial" and node.args:
            candidates = [node.args[0]]
        else:
            continue
        for value in candidates:
            qualname = model.imports.qualname(value) if isinstance(value, (ast.Name, ast.Attribute)) else None
            module, _, function = (qualname or "").rpartition(".")
            if module == DEPRECATED and function in REPLACEMENTS:
                yield stmt, value


def _branches(value: ast.expr) -> list[ast.expr]:
    if isinstance(value, ast.IfExp):
        return [*_branches(value.body), *_branches(value.orelse)]
    return [value]


def _fallback(model: ModuleModel, stmt: ast.stmt, function: ast.expr) -> bool:
    """Kept on purpose for old torch versions: under a version or `hasattr(torch.amp, ...)` test,
    in an `except` branch, or imported that way (`try: from torch.amp import ... except ...`)."""
    if _under_fallback(model, stmt) or _chosen_by_fallback(model, stmt, function):
        return True
    head = (dotted(function) or "").split(".")[0]
    if not model.imports.aliases.get(head, "").startswith("torch.cuda"):
        return False
    imports = _imports_of(model, head)
    # bound to torch.amp somewhere and to torch.cuda.amp elsewhere: one is the other's fallback
    return len({_bound_module(i, head) for i in imports}) > 1 or any(_under_fallback(model, i) for i in imports)


def _bound_module(stmt: ast.Import | ast.ImportFrom, local: str) -> str:
    """What the import statement binds `local` to (`torch.cuda.amp` for `from torch.cuda import amp`)."""
    for alias in stmt.names:
        if (alias.asname or alias.name.split(".")[0]) == local:
            if isinstance(stmt, ast.ImportFrom):
                return f"{'.' * stmt.level}{stmt.module or ''}.{alias.name}"
            return alias.name if alias.asname else local
    return ""


def _chosen_by_fallback(model: ModuleModel, stmt: ast.stmt, reference: ast.expr) -> bool:
    """`torch.amp.autocast if hasattr(torch, "amp") else torch.cuda.amp.autocast`: a conditional
    expression choosing the reference on a version test (not any one elsewhere in the statement,
    such as `model.module if hasattr(model, "module") else model` inside a `with` block)."""
    return any(
        isinstance(n, ast.IfExp) and _mentions_fallback(model, n.test)
        and any(r is reference for branch in (n.body, n.orelse) for r in ast.walk(branch))
        for n in ast.walk(stmt)
    )


def _under_fallback(model: ModuleModel, stmt: ast.stmt) -> bool:
    """Under an `if` choosing between the two APIs (asking torch for the new one, or testing
    the version with the new API on the other branch), or in an `except` branch. A version
    test choosing native AMP over apex (`if torch < 1.6: apex else: from torch.cuda.amp import
    autocast`, as vendored HF trainers do) keeps the deprecated spelling on every torch since."""
    for node in model.parents.chain(stmt):
        parent = model.parents.parent.get(node)
        if isinstance(parent, ast.If) and _mentions_fallback(model, parent.test):
            other = parent.orelse if node in parent.body else parent.body
            if _asks_torch(model, parent.test) or _uses_new_api(model, other):
                return True
        if isinstance(parent, ast.Try) and any(node in h.body for h in parent.handlers):
            return True
    return False


def _uses_new_api(model: ModuleModel, stmts: list[ast.stmt]) -> bool:
    """`torch.amp.GradScaler(...)`, `torch.autocast(...)`, `from torch.amp import ...` in `stmts`."""
    for node in (n for stmt in stmts for n in ast.walk(stmt)):
        if isinstance(node, ast.ImportFrom) and (node.module == "torch.amp" or (node.module == "torch" and any(a.name in ("amp", "autocast") for a in node.names))):
            return True
        if isinstance(node, (ast.Attribute, ast.Name)):
            qualname = model.imports.qualname(node) or ""
            if qualname.startswith("torch.amp.") or qualname == "torch.autocast":
                return True
    return False


def _asks_torch(model: ModuleModel, test: ast.expr) -> bool:
    """`hasattr` asked of torch (`hasattr(torch.amp, "GradScaler")`, not `hasattr(model, "module")`)."""
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hasattr" and node.args
        and (model.imports.qualname(node.args[0]) or "").split(".")[0] == "torch"
        for node in ast.walk(test)
    )


def _mentions_fallback(model: ModuleModel, test: ast.expr) -> bool:
    """A test of the torch version: its words (`version`, `torch_ge`), or `hasattr` asked of torch."""
    if _asks_torch(model, test):
        return True
    for node in ast.walk(test):
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
        if any(word in name.lower() for word in FALLBACK_WORDS):
            return True
    return False


def _imports_of(model: ModuleModel, local: str) -> list[ast.stmt]:
    """The import statements that bind `local`."""
    found = []
    for stmt in model.statements:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name.split(".")[0]) == local for a in stmt.names):
                found.append(stmt)
    return found


def _fix(model: ModuleModel, call: ast.Call, function: str) -> FixPlan | None:
    func = call.func
    if isinstance(func, ast.Attribute) and model.imports.qualname(func.value) == DEPRECATED and isinstance(func.value, ast.Attribute):
        if not isinstance(func.value.value, ast.Attribute):
            return None  # `cuda.amp.GradScaler()` after `from torch import cuda`: no name spells torch here
        # torch.cuda.amp.autocast(...) -> torch.autocast("cuda", ...): the call alone changes
        root = model.source(func.value.value.value)  # `torch` as the module spells it
        new_func = f"{root}.autocast" if function == "autocast" else f"{root}.amp.GradScaler"
        replaced = _with_device(model, call, function, new_func)
        return FixPlan(f"Use `{REPLACEMENTS[function]}(\"cuda\", ...)`", tuple(replaced)) if replaced else None
    # `amp.autocast()` (amp imported from torch.cuda) or `autocast()` (imported from torch.cuda.amp):
    # rewrite the import and every call through it together, so the module stays consistent.
    local = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else getattr(func, "id", None)
    imports = _imports_of(model, local) if local else []
    if len(imports) != 1:
        return None
    module_edit = _module_edit(model, imports[0])
    # every name the import binds changes meaning with it
    per_name = [_calls_through(model, a.asname or a.name) for a in imports[0].names]
    if module_edit is None or any(c is None for c in per_name):
        return None
    calls = [pair for calls in per_name for pair in calls]
    edits = [_with_device(model, c, f, model.source(c.func)) for c, f in calls]
    if any(e is None for e in edits):
        return None
    return FixPlan("Import from torch.amp and pass \"cuda\"", (module_edit, *(e for group in edits for e in group)))


def _with_device(model: ModuleModel, call: ast.Call, function: str, new_func: str) -> list[ReplaceExpression] | None:
    """The edits that make `call` a call of `new_func` with "cuda" first; None when it cannot be
    done. A call spanning lines keeps its arguments (libcst reprints nested multi-line nodes
    differently): only a GradScaler, whose device defaults to "cuda", is rewritten then."""
    if function in KEYWORDS_ONLY and call.args:
        return None
    func_text = model.source(call.func)
    if call.lineno != call.end_lineno:
        if function != "GradScaler":
            return None
        return [] if func_text == new_func else [ReplaceExpression(model.position(call.func), func_text, new_func)]
    text = model.source(call)
    rest = text[len(func_text):]
    if not text.startswith(func_text) or not rest.startswith("(") or not rest.endswith(")"):
        return None
    inner = rest[1:-1]
    arguments = f'"cuda", {inner.lstrip()}' if inner.strip() else '"cuda"'
    return [ReplaceExpression(model.position(call), text, f"{new_func}({arguments})")]


def _module_edit(model: ModuleModel, stmt: ast.stmt) -> ReplaceExpression | None:
    """`torch.cuda.amp` -> `torch.amp` (or `torch.cuda` -> `torch` in `from torch.cuda import amp`)
    in the import statement, when it imports nothing else."""
    if isinstance(stmt, ast.Import) and len(stmt.names) == 1 and stmt.names[0].name == DEPRECATED:
        alias = stmt.names[0]
        return ReplaceExpression(Position(alias.lineno, model.column(alias.lineno, alias.col_offset)), DEPRECATED, "torch.amp")
    if not isinstance(stmt, ast.ImportFrom):
        return None
    names = {a.name for a in stmt.names}
    if stmt.module == DEPRECATED and names <= set(REPLACEMENTS):
        old, new = DEPRECATED, "torch.amp"
    elif stmt.module == "torch.cuda" and names == {"amp"}:
        old, new = "torch.cuda", "torch"
    else:
        return None
    first_line = model.lines[stmt.lineno - 1]
    column = first_line.find(old, stmt.col_offset + len("from"))
    if column < 0:
        return None
    return ReplaceExpression(Position(stmt.lineno, model.column(stmt.lineno, column)), old, new)


def _calls_through(model: ModuleModel, local: str) -> list[tuple[ast.Call, str]] | None:
    """Every use of `local` as (call, function), or None when some use is not a call of
    autocast/GradScaler (then the import cannot simply change)."""
    uses = [n for _, n in nodes_on_lines(model, (local,)) if isinstance(n, ast.Name) and n.id == local]
    calls = []
    for _, call in iter_calls(model, (local,)):
        qualname = model.imports.qualname(call.func) or ""
        module, _, function = qualname.rpartition(".")
        through = call.func if isinstance(call.func, ast.Name) else getattr(call.func, "value", None)
        if module == DEPRECATED and function in REPLACEMENTS and isinstance(through, ast.Name) and through.id == local:
            calls.append((call, function))
    return calls if len(calls) == len(uses) else None
