"""Module summaries (DESIGN §2.3): what a module's functions do to gradients, in plain data.

A summary is what another module needs to know without reading this one again: its imports,
its functions and classes, what each function does to gradients (its events, on which of its
parameters), what it returns, which parameters it passes on, and the calls it makes into other
modules with the roles of their arguments (the caller index is built from those). Summaries are
JSON-able so that they can be cached by content hash; they depend on the module's text only,
never on where the module sits in a project (imports are kept as written and resolved later).
"""

from __future__ import annotations

import ast
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from gradlint.model.events import Event, EventWalker, Kind
from gradlint.model.losses import loss_normalized
from gradlint.model.names import dotted
from gradlint.model.roles import classify_constructor

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

FORMAT = 1  # bump when the shape of a summary changes: cached summaries of another shape are ignored
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
LOOPS = (ast.For, ast.AsyncFor, ast.While)
MAX_CALL_SITES = 256  # call sites recorded per module


@dataclass(frozen=True)
class Import:
    """`from <level dots><module> import <name>` or `import <module>`, bound to a local name."""

    module: str
    level: int = 0
    name: str | None = None


@dataclass(frozen=True)
class EventSummary:
    """One gradient event of a function, with its receiver spelled from the function's view:
    `target` is a dotted name whose head may be one of the function's parameters."""

    kind: str
    target: str | None = None
    optimizer: str | None = None
    scaler: str | None = None
    loss_param: str | None = None  # BACKWARD on a parameter, as passed in
    normalized: bool | None = None  # BACKWARD: the loss was divided on its way (None: cannot tell)
    conditional: bool = False  # under some `if` of the function
    boundary: bool = False  # under an accumulation boundary (or its other side) of the function
    in_loop: bool = False  # inside a loop of the function


@dataclass(frozen=True)
class FunctionSummary:
    name: str
    params: tuple[str, ...] = ()  # positional parameters, `self` included, then keyword-only ones
    events: tuple[EventSummary, ...] = ()
    returns: tuple[str | None, ...] = ()  # role of each returned value (a tuple's elements)
    called_params: tuple[str, ...] = ()  # parameters called as functions: `model(x)`
    passes: tuple[tuple[str, str, int | str], ...] = ()  # (parameter, callee as written, argument)

    @property
    def trains_inside(self) -> bool:
        """It runs its own loop of backward and step: a training loop, not a step helper."""
        return any(e.in_loop and e.kind == Kind.BACKWARD.name for e in self.events)

    def kinds(self) -> set[str]:
        return {e.kind for e in self.events}


@dataclass(frozen=True)
class ClassSummary:
    name: str
    bases: tuple[str, ...] = ()
    methods: dict[str, FunctionSummary] = field(default_factory=dict)
    attributes: dict[str, str] = field(default_factory=dict)  # `self.scaler` -> "scaler"


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
                k: ClassSummary(
                    v["name"], tuple(v["bases"]),
                    {m: _function_from_json(f) for m, f in v["methods"].items()}, dict(v["attributes"]),
                )
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
    return FunctionSummary(
        data["name"], tuple(data["params"]), tuple(EventSummary(**e) for e in data["events"]),
        tuple(data["returns"]), tuple(data["called_params"]), tuple(tuple(p) for p in data["passes"]),
    )


# -- building ---------------------------------------------------------------------------------


def summarize(model: "ModuleModel") -> ModuleSummary:
    """The summary of one module, from its model (parsed once, walked per gradient function)."""
    imports = read_imports(model.statements)
    classes = {
        node.name: _class(model, node) for node in model.tree.body if isinstance(node, ast.ClassDef)
    }
    functions = {name: _function(model, node) for name, node in model.functions.items()}
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
                    found[alias.asname or alias.name] = Import(node.module or "", node.level, alias.name)
    return found


def _class(model: "ModuleModel", node: ast.ClassDef) -> ClassSummary:
    methods = model.methods(node)
    attributes = {}
    for method in methods.values():
        for stmt in ast.walk(method):
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for target in targets:
                    name = dotted(target)
                    role = model.roles.of(target) if name and name.startswith("self.") else None
                    if role is not None:
                        attributes[name] = role.value
    return ClassSummary(
        node.name,
        tuple(name for name in (dotted(b) for b in node.bases) if name),
        {name: _function(model, method) for name, method in methods.items()},
        attributes,
    )


def _params(function: ast.FunctionDef) -> tuple[str, ...]:
    arguments = function.args
    return tuple(a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs))


def _function(model: "ModuleModel", function: ast.FunctionDef) -> FunctionSummary:
    params = _params(function)
    events = EventWalker(model, function).walk(function.body) if model.touches_gradients(function) else []
    calls = [n for n in ast.walk(function) if isinstance(n, ast.Call)]
    called = sorted({c.func.id for c in calls if isinstance(c.func, ast.Name) and c.func.id in params})
    passes = []
    for call in calls:
        callee = dotted(call.func)
        if callee is None:
            continue
        for key, argument in _arguments(call):
            if isinstance(argument, ast.Name) and argument.id in params:
                passes.append((argument.id, callee, key))
    return FunctionSummary(
        function.name, params, tuple(_event(model, e, params) for e in events),
        _returns(model, function), tuple(called), tuple(passes),
    )


def _event(model: "ModuleModel", event: Event, params: tuple[str, ...]) -> EventSummary:
    loss_param, normalized = None, None
    if event.kind is Kind.BACKWARD and event.loss is not None:
        loss = event.loss
        line = event.node.lineno
        if isinstance(loss, ast.Name) and loss.id in params and not model.scope(event.scope).before(loss.id, line):
            loss_param = loss.id
        else:
            normalized = loss_normalized(model, loss, event.scope, line)
    return EventSummary(
        event.kind.name, event.target, event.optimizer, event.scaler, loss_param, normalized,
        conditional=bool(event.guards),
        boundary=any(g.boundary or g.inside_window for g in event.guards),
        in_loop=bool(event.loops),
    )


def _returns(model: "ModuleModel", function: ast.FunctionDef) -> tuple[str | None, ...]:
    """Roles of what the function returns; a value returned with different roles is unknown."""
    found: list[tuple[str | None, ...]] = []
    for node in _own_nodes(function):
        if isinstance(node, ast.Return) and node.value is not None:
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            found.append(tuple(_role_of_value(model, v) for v in values))
    if not found or any(len(r) != len(found[0]) for r in found):
        return ()
    return tuple(column[0] if len(set(column)) == 1 else None for column in zip(*found))


def _role_of_value(model: "ModuleModel", value: ast.expr) -> str | None:
    if isinstance(value, ast.Call):
        qualname = model.imports.qualname(value.func)
        role = classify_constructor(qualname) if qualname else None
    else:
        role = model.roles.of(value)
    return role.value if role else None


def _own_nodes(function: ast.AST):
    """Nodes of a function, not entering nested functions, classes or lambdas."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (*FUNCTIONS, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _arguments(call: ast.Call):
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            return  # positions after a *args are unknown
        yield index, argument
    for keyword in call.keywords:
        if keyword.arg is not None:
            yield keyword.arg, keyword.value


def _call_sites(model: "ModuleModel", imports: dict[str, Import]):
    """Calls of imported names, with the roles of their arguments (the caller index)."""
    sites = 0
    for stmt in model.statements:
        if isinstance(stmt, (*FUNCTIONS, ast.ClassDef, *LOOPS, ast.If, ast.With, ast.AsyncWith, ast.Try)):
            continue  # compound statements: their bodies are statements of their own
        for call in (n for n in _own_nodes(stmt) if isinstance(n, ast.Call)):
            callee = dotted(call.func)
            if callee is None or callee.split(".")[0] not in imports or sites >= MAX_CALL_SITES:
                continue
            sites += 1
            yield _call_site(model, stmt, call, callee)


def _call_site(model: "ModuleModel", stmt: ast.stmt, call: ast.Call, callee: str) -> CallSite:
    arguments = tuple(
        (key, role, None if role else _producer(model, stmt, argument))
        for key, argument in _arguments(call)
        for role in [_role_of_value(model, argument)]
    )
    return CallSite(callee, call.lineno, _caller_name(model, stmt), arguments)


def _producer(model: "ModuleModel", stmt: ast.stmt, argument: ast.expr) -> str | None:
    """The callee of `x = callee(...)`, the last assignment of the argument `x` before `stmt`."""
    if isinstance(argument, ast.Call):
        return dotted(argument.func)
    name = dotted(argument)
    if name is None:
        return None
    earlier = model.scope(model.parents.scope_of(stmt)).before(name, stmt.lineno)
    value = getattr(earlier[-1], "value", None) if earlier else None
    return dotted(value.func) if isinstance(value, ast.Call) else None


def _caller_name(model: "ModuleModel", stmt: ast.stmt) -> str | None:
    scope = model.parents.scope_of(stmt)
    if not isinstance(scope, FUNCTIONS):
        return None
    cls = model.parents.enclosing_class(scope)
    return f"{cls.name}.{scope.name}" if cls else scope.name
