"""Module summaries (DESIGN §2.3): the index of a project's modules, in plain data.

A summary is what the project needs to know about a module without parsing it again: its
imports (as written: they are resolved later, against the project's layout), its functions and
classes with their parameters, the roles of what the functions return (`build_optimizer(...)`
-> an optimizer, `wrap_model(...)` -> a DDP model), and the calls it makes of imported names
with the roles of their arguments (the caller index). What a function does to gradients is
read from the live model of the few modules a loop really calls into (callees.py), where
parameters are bound to the caller's arguments. Summaries are JSON-able, cached by content hash.
"""

from __future__ import annotations

import ast
import bisect
import functools
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from gradlint.model.names import BUILTIN_NAMES, dotted, partial_target
from gradlint.model.roles import Role, either
from gradlint.model.spelling import called_heads

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

FORMAT = 6  # bump when the shape of a summary changes: cached summaries of another shape are ignored
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
COMPOUND = (*FUNCTIONS, ast.ClassDef, ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith, ast.Try)
MAX_CALL_SITES = 256  # call sites recorded per module
STAR = "*"  # the key prefix of a star import among a summary's imports
ALTERNATE = "|"  # joins a name to the index of another import binding it (`name|1`)
ELEMENT = "#"  # joins a producer to the position of the element unpacked from what it returns (`build#0`)


@dataclass(frozen=True)
class Import:
    """`from <level dots><module> import <name>` or `import <module>`, bound to a local name."""

    module: str
    level: int = 0
    name: str | None = None


@dataclass(frozen=True)
class FunctionSummary:
    name: str
    params: tuple[str, ...] = ()  # positional parameters, `self` included, then keyword-only ones
    returns: tuple[str | None, ...] = ()  # role of each returned value (a tuple's elements)


@dataclass(frozen=True)
class ClassSummary:
    name: str
    bases: tuple[str, ...] = ()
    methods: dict[str, FunctionSummary] = field(default_factory=dict)


@dataclass(frozen=True)
class CallSite:
    """A call whose callee is an imported name, with the roles of its arguments."""

    callee: str  # as written: `engine.train_one_epoch`, `t`
    line: int
    caller: str | None  # the enclosing function (`Class.method`), None at module level
    # (position or keyword, role, producer): `producer` is the callee, as written, whose result
    # the argument was assigned from when its role is not known here (`wrap_model` of
    # `model = wrap_model(model)`): the project may know what that returns.
    arguments: tuple[tuple[int | str, str | None, str | None], ...] = ()


@dataclass(frozen=True)
class ModuleSummary:
    imports: dict[str, Import] = field(default_factory=dict)
    functions: dict[str, FunctionSummary] = field(default_factory=dict)
    classes: dict[str, ClassSummary] = field(default_factory=dict)
    calls: tuple[CallSite, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, **asdict(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ModuleSummary":
        """Raises (KeyError, TypeError, ValueError) on data of another shape."""
        if data.get("format") != FORMAT:
            raise ValueError("summary of another format")
        return cls(
            imports={k: Import(**v) for k, v in data["imports"].items()},
            functions={k: _function_from_json(v) for k, v in data["functions"].items()},
            classes={
                k: ClassSummary(v["name"], tuple(v["bases"]), {m: _function_from_json(f) for m, f in v["methods"].items()})
                for k, v in data["classes"].items()
            },
            calls=tuple(
                CallSite(**{**c, "arguments": tuple(tuple(a) for a in c["arguments"])})
                for c in data["calls"]
            ),
        )

    def symbol(self, names: list[str]) -> FunctionSummary | ClassSummary | None:
        """`[f]` -> function f; `[C]` -> class C; `[C, m]` -> method m of C."""
        if len(names) == 1:
            return self.functions.get(names[0]) or self.classes.get(names[0])
        if len(names) == 2 and names[0] in self.classes:
            return self.classes[names[0]].methods.get(names[1])
        return None


def _function_from_json(data: dict[str, Any]) -> FunctionSummary:
    return FunctionSummary(data["name"], tuple(data["params"]), tuple(data["returns"]))


# -- building ---------------------------------------------------------------------------------


def summarize(model: "ModuleModel") -> ModuleSummary:
    """The summary of one module, from its statements (expressions only where needed)."""
    imports = read_imports(model.statements)
    returns = _returns(model)
    classes = {
        node.name: ClassSummary(
            node.name,
            tuple(name for name in (dotted(b) for b in node.bases) if name),
            {name: _function(method, returns) for name, method in model.methods(node).items()},
        )
        for node in model.tree.body if isinstance(node, ast.ClassDef)
    }
    functions = {name: _function(node, returns) for name, node in model.functions.items()}
    return ModuleSummary(imports, functions, classes, tuple(_call_sites(model, imports)))


def read_imports(statements: list[ast.stmt]) -> dict[str, Import]:
    found: dict[str, Import] = {}
    for node in statements:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found[alias.asname] = Import(alias.name)
                else:
                    head = alias.name.split(".")[0]
                    found.setdefault(head, Import(head))
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    _bind(found, alias.asname or alias.name, Import(node.module or "", node.level, alias.name))
                else:  # keyed by what no name can be: resolved against the module's names later
                    found[STAR + "." * node.level + (node.module or "")] = Import(node.module or "", node.level, alias.name)
    return found


def _bind(found: dict[str, Import], name: str, imported: Import) -> None:
    """Bind `name`; a name another import bound differently before (`from engine import
    train_stage1 as train_epoch` on one branch, `... train_stage2 as train_epoch` on the other)
    keeps that one under a key no name can be (`train_epoch|1`): a call of the name may run either."""
    earlier = found.get(name)
    if earlier is not None and earlier != imported:
        count = sum(key.startswith(name + ALTERNATE) for key in found)
        found[f"{name}{ALTERNATE}{count + 1}"] = earlier
    found[name] = imported


def alternates(imports: dict[str, Import], name: str) -> list[str]:
    """The keys of the other imports that bound `name` (see `_bind`)."""
    return [key for key in imports if key.startswith(name + ALTERNATE)] if name + ALTERNATE + "1" in imports else []


def star_imports(imports: dict[str, Import]) -> list[Import]:
    """The `from module import *` of a module's imports."""
    return [imported for key, imported in imports.items() if key.startswith(STAR)]


def _params(function: ast.FunctionDef) -> tuple[str, ...]:
    arguments = function.args
    return tuple(a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs))


def _function(function: ast.FunctionDef, returns: dict[int, tuple[str | None, ...]]) -> FunctionSummary:
    return FunctionSummary(function.name, _params(function), returns.get(id(function), ()))


def _returns(model: "ModuleModel") -> dict[int, tuple[str | None, ...]]:
    """Per function (by id): roles of what it returns; a value returned with different roles
    in different places is unknown (but see `_agreed`), and so is everything of a function
    returning tuples of different lengths."""
    found: dict[int, list[tuple[str | None, ...]]] = {}
    for stmt in model.statements:
        if isinstance(stmt, ast.Return) and stmt.value is not None:
            values = stmt.value.elts if isinstance(stmt.value, ast.Tuple) else [stmt.value]
            scope = model.parents.scope_of(stmt)
            found.setdefault(id(scope), []).append(tuple(_role_of_value(model, v) for v in values))
    result = {}
    for key, rows in found.items():
        if all(len(r) == len(rows[0]) for r in rows):
            result[key] = tuple(_agreed(column) for column in zip(*rows))
    return result


def _agreed(roles: tuple[str | None, ...]) -> str | None:
    """The role of a value returned in several places: theirs when they agree, DDP when one is
    a DDP model and the others have no role (`return model` when single-process), see `either`."""
    combined = functools.reduce(either, (Role(r) if r else None for r in roles))
    return combined.value if combined else None


def _role_of_value(model: "ModuleModel", value: ast.expr) -> str | None:
    role = model.roles.of_returned(value)
    return role.value if role else None


def _arguments(call: ast.Call):
    for index, argument in enumerate(call.args[1:] if partial_target(call) is not None else call.args):
        if isinstance(argument, ast.Starred):
            return  # positions after a *args are unknown
        yield index, argument
    for keyword in call.keywords:
        if keyword.arg is not None:
            yield keyword.arg, keyword.value


def _call_sites(model: "ModuleModel", imports: dict[str, Import]):
    """Calls of imported names, with the roles of their arguments (the caller index), and calls
    of methods of objects made by one (`opt = TrainerOptimizer(...)`, then `opt.step(loss)`),
    recorded as `TrainerOptimizer.step`. Only statements on lines that spell such a name
    before a call or an attribute are read."""
    if not imports:
        return
    instances = {name for (_, name), made in _assigned_calls(model).items() if any(_imported_head(c, imports) for _, c in made)}
    if star_imports(imports):  # a name the module neither binds nor imports by name may come from `*`
        instances |= {
            head for head, _ in called_heads(model.text)
            if head not in BUILTIN_NAMES and head not in model.functions and head not in model.classes
        }
    # a local name picking among imported functions (`train = pretrain if ... else finetune`)
    aliases = {alias: sorted(t for t in targets if t in imports) for alias, targets in model.function_aliases.items()}
    lines = sorted({
        model.line_at(offset) for head, offset in called_heads(model.text) if head in imports or head in instances or aliases.get(head)
    })
    sites = 0
    for stmt in model.statements:
        if isinstance(stmt, COMPOUND) or sites >= MAX_CALL_SITES:
            continue  # compound statements: their bodies are statements of their own
        index = bisect.bisect_left(lines, stmt.lineno)
        if index == len(lines) or lines[index] > stmt.end_lineno:
            continue
        for call in (n for n in ast.walk(stmt) if isinstance(n, ast.Call)):
            target = partial_target(call)
            if target is not None and _imported_head(dotted(target), imports):
                callee = dotted(target)  # `partial(train_loop, model=ddp_model)` runs train_loop with these
            elif isinstance(call.func, ast.Name) and aliases.get(call.func.id):
                for picked in aliases[call.func.id]:  # each function the name may hold runs with these
                    if sites < MAX_CALL_SITES:
                        sites += 1
                        yield _call_site(model, stmt, call, picked)
                continue
            else:
                callee = _imported_callee(model, stmt, call, imports, instances)
            if callee is not None and sites < MAX_CALL_SITES:
                sites += 1
                yield _call_site(model, stmt, call, callee)
                head, dot, rest = callee.partition(".")
                for key in alternates(imports, head):  # the same call, of the name's other import
                    yield _call_site(model, stmt, call, key + dot + rest)


def _imported_callee(model: "ModuleModel", stmt: ast.stmt, call: ast.Call, imports: dict[str, Import], instances: set[str]) -> str | None:
    """The call's callee through an imported name, as written or through the object's maker."""
    callee = dotted(call.func)
    if callee is None:
        return None
    head, _, method = callee.partition(".")
    if head in imports:
        return callee
    if head in instances and star_imports(imports) and not model.scope(model.parents.scope_of(stmt)).assignments.get(head):
        return callee  # maybe brought by a star import: the project tells
    if head not in instances or not method or "." in method:
        return None
    maker = argument_producer(model, stmt, ast.Name(head, ast.Load()))
    return f"{maker}.{method}" if _imported_head(maker, imports) else None


def _imported_head(callee: str | None, imports: dict[str, Import]) -> bool:
    return callee is not None and callee.split(".")[0] in imports


def _call_site(model: "ModuleModel", stmt: ast.stmt, call: ast.Call, callee: str) -> CallSite:
    arguments = tuple(
        (key, role, None if role else argument_producer(model, stmt, argument))
        for key, argument in _arguments(call)
        for role in [_role_of_value(model, argument)]
    )
    return CallSite(callee, call.lineno, _caller_name(model, stmt), arguments)


def argument_producer(model: "ModuleModel", stmt: ast.stmt, argument: ast.expr) -> str | None:
    """The callee of `x = callee(...)`, the last assignment of the argument `x` before `stmt`."""
    if isinstance(argument, ast.Call):
        return dotted(argument.func)
    name = dotted(argument)
    if name is None:
        return None
    earlier = [callee for line, callee in _assigned_calls(model).get((id(model.parents.scope_of(stmt)), name), ()) if line < stmt.lineno]
    return earlier[-1] if earlier else None


def _assigned_calls(model: "ModuleModel") -> dict[tuple[int, str], list[tuple[int, str | None]]]:
    """(scope, name) -> (line, callee) of each `name = callee(...)`, from the statements only;
    `name = other` takes the callee of `other`'s last assignment before it (an alias)."""

    def compute():
        found: dict[tuple[int, str], list[tuple[int, str | None]]] = {}
        for stmt in sorted((s for s in model.statements if isinstance(s, ast.Assign)), key=lambda s: s.lineno):
            scope = id(model.parents.scope_of(stmt))
            callee = dotted(stmt.value.func) if isinstance(stmt.value, ast.Call) else None
            if isinstance(stmt.value, ast.Name):
                copied = [c for line, c in found.get((scope, stmt.value.id), ()) if line < stmt.lineno]
                callee = copied[-1] if copied else None
            for target in stmt.targets:
                name = dotted(target)
                if name is not None:
                    found.setdefault((scope, name), []).append((stmt.lineno, callee))
                elif isinstance(target, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in target.elts):
                    # `model, optimizer, scheduler = initialize_optimizer(...)`: each element's place
                    for index, element in enumerate(target.elts):
                        if (element_name := dotted(element)) is not None:
                            made = f"{callee}{ELEMENT}{index}" if callee and ELEMENT not in callee else None
                            found.setdefault((scope, element_name), []).append((stmt.lineno, made))
        return found

    return model.memo(("assigned calls",), compute)


def _caller_name(model: "ModuleModel", stmt: ast.stmt) -> str | None:
    scope = model.parents.scope_of(stmt)
    if not isinstance(scope, FUNCTIONS):
        return None
    cls = model.parents.enclosing_class(scope)
    return f"{cls.name}.{scope.name}" if cls else scope.name
