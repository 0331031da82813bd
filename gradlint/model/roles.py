"""Which names are optimizers, scalers, DDP models, schedulers, accelerators or engines."""

from __future__ import annotations

import ast
import functools
import bisect
import re
from collections import defaultdict
from enum import Enum
from typing import TYPE_CHECKING

from gradlint.model.callees import Callee, CallContext, class_of_instance, class_of_scope, constructor, find_method, possible_methods
from gradlint.model.names import dotted
from gradlint.model.scopes import expression_roots

if TYPE_CHECKING:
    from gradlint.model import ModuleModel


class Role(Enum):
    OPTIMIZER = "optimizer"
    SCALER = "scaler"
    DDP_MODEL = "ddp model"
    SCHEDULER = "scheduler"
    ACCELERATOR = "accelerator"
    ENGINE = "engine"
    FABRIC = "fabric"  # Lightning Fabric: hands backward, clip and step back to the loop


OPTIMIZER_CLASSES = frozenset(
    "SGD Adam AdamW Adagrad Adadelta Adamax RMSprop Rprop NAdam RAdam LBFGS SparseAdam ASGD "
    "Adafactor Lion Lamb LAMB FusedAdam FusedLAMB FusedSGD AdamW8bit Adam8bit PagedAdamW "
    "PagedAdamW8bit Muon Shampoo SophiaG Adan".split()
)
OPTIMIZER_NAME = re.compile(r"(^|_)(opt|optim|optimizer|optimiser)s?(_|$)|optimizer", re.IGNORECASE)
SCHEDULER_NAME = re.compile(r"sched", re.IGNORECASE)
# `optimizer_scheduler`, `ScheduledOptimizer`: an object holding both, whose step() steps the optimizer
COMBINED_OPTIMIZER_NAME = re.compile(r"optimi[sz]er", re.IGNORECASE)
USAGE_METHODS = frozenset({"step", "zero_grad", "scale", "backward"})
METHOD_CALL = re.compile(r"\.(?:step|zero_grad|scale|backward)\s*\(")  # finds the lines to read
# what else `accelerator.prepare` takes: never the model it wraps in DDP
NOT_A_MODEL_WORDS = frozenset({
    "loader", "dataloader", "dl", "data", "dataset", "optimizer", "optim", "opt", "scheduler", "sched", "lr",
    "tokenizer", "iterator", "sampler", "scaler",
})
SHARDING_PLUGINS = frozenset({"fsdp_plugin", "deepspeed_plugin", "megatron_lm_plugin"})
# library calls that return the model wrapped in DDP when several processes run, bare otherwise
DISTRIBUTED_WRAPPERS = frozenset({"ignite.distributed.auto_model", "ignite.distributed.auto.auto_model"})
FRAMEWORK_NAME = re.compile(r"(^|_)(accelerator|engine|fabric|model_engine)$")
# what a learning-rate schedule's code names (split at underscores: `base_lr`, `param_groups`)
LEARNING_RATE_WORDS = frozenset({"lr", "lrs", "learning", "groups", "opt"})


def classify_constructor(qualname: str) -> Role | None:
    """The role of an object built by calling `qualname`."""
    last = qualname.rsplit(".", 1)[-1]
    if "GradScaler" in last:
        return Role.SCALER
    if qualname in DISTRIBUTED_WRAPPERS:
        return Role.DDP_MODEL
    if last.endswith("DistributedDataParallel") or last == "DDP":  # mmcv's MMDistributedDataParallel is one too
        # apex's DDP has no no_sync(): it delays all-reduces its own way
        return None if qualname.startswith("apex.") else Role.DDP_MODEL
    if last.endswith("ScheduleFree") or qualname.startswith("schedulefree."):
        return Role.OPTIMIZER  # `schedulefree.AdamWScheduleFree`: an optimizer that needs no schedule
    if _pipeline_schedule(qualname):
        return None  # a pipeline-parallel schedule (`build_pipeline_schedule`): it steps micro-batches
    if "lr_scheduler" in qualname or "schedule" in last.lower() or last.endswith("LR"):
        return Role.SCHEDULER
    if last == "Accelerator":
        return Role.ACCELERATOR
    if last == "Fabric":
        return Role.FABRIC
    if qualname.endswith("deepspeed.initialize"):
        return Role.ENGINE
    if last in OPTIMIZER_CLASSES or last.startswith("create_optimizer") or qualname.startswith("torch.optim."):
        return Role.OPTIMIZER
    return None


class Roles:
    """Roles of dotted names across the module (scopes are not separated: names are telling),
    all read from the ast: constructors, values returned by the module's functions
    (`model = wrap_ddp(model)`), and what the code calls on a name."""

    def __init__(self, model: "ModuleModel"):
        self._roles: dict[str, Role] = {}
        self._imports = model.imports
        self._model = model
        self.constructors: dict[str, list[ast.Call]] = defaultdict(list)  # name -> calls that built it
        self._entries: dict[str, Role] = {}  # a dict whose every entry was rewrapped -> their role
        imports = model.imports
        built: list[tuple[list[ast.expr], ast.Call]] = []
        inherited: list[tuple[list[ast.expr], ast.stmt, str]] = []  # `self.net = self.model_to_device(net)` of a base class
        held: list[tuple[list[ast.expr], ast.stmt, ast.Call]] = []  # `self.scaler = self.precision.setup_scaler()`
        elsewhere: list[tuple[list[ast.expr], str]] = []  # built by a function of another project module
        ddp_subclasses = _ddp_subclasses(model)
        prepared: list[tuple[list[ast.expr], ast.Call]] = []  # `accelerator.prepare(...)` calls
        built_at: dict[str, list[tuple[ast.AST, int]]] = defaultdict(list)  # name -> (scope, line) of its constructions
        # a model `accelerator.prepare` wrapped (DDP when several processes run) -> the accelerator
        self.prepared_by: dict[str, str] = {}
        # a model a library call wraps in DDP only when several processes run -> that call, spelled
        self.wrapped_by: dict[str, str] = {}
        # names wrapped in DDP by a statement every run executes: only their own `no_sync()`
        # exists whatever the run (`if args.distributed: model = DDP(model)` may leave a bare model)
        self.surely_ddp: set[str] = set()
        # names bound to a dotted reference somewhere (`wrapper = torch.nn.parallel.DistributedDataParallel`)
        referenced = {
            t.id for s in model.statements if isinstance(s, ast.Assign) and isinstance(s.value, (ast.Name, ast.Attribute))
            for t in s.targets if isinstance(t, ast.Name)
        }
        for node in model.statements:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for constructor in _constructors(node.value):
                    qualname = imports.qualname(constructor.func)
                    role = classify_constructor(qualname) if qualname else None
                    if role is None and isinstance(constructor.func, ast.Name) and constructor.func.id in referenced:
                        qualname = _class_alias(model, node, constructor.func.id) or qualname
                        role = classify_constructor(qualname) if qualname else None
                    if role is None and qualname in ddp_subclasses:
                        role = Role.DDP_MODEL
                    if role and _switched_off(model, node):
                        continue  # `DDP = False` at the top, then `if DDP: model = DDP(model)`: never built
                    if role is Role.SCHEDULER and _schedules_no_learning_rate(model, constructor):
                        continue  # `LossWeightScheduler(...)`: a schedule of loss weights, named like one
                    if role:
                        self._assign(targets, role)
                        for name in filter(None, map(dotted, targets)):
                            self.constructors[name].append(constructor)
                            built_at[name].append((model.parents.scope_of(node), node.lineno))
                            if qualname in DISTRIBUTED_WRAPPERS:
                                self.wrapped_by[name] = dotted(constructor.func) or qualname
                            elif role is Role.DDP_MODEL and constructor is node.value and _unconditional(model, node):
                                self.surely_ddp.add(name)
                    elif isinstance(constructor.func, ast.Name) and constructor.func.id in model.functions:
                        built.append((targets, model.functions[constructor.func.id]))
                    elif isinstance(constructor.func, ast.Name) and (closure := _closure(model, node, constructor.func.id)) is not None:
                        built.append((targets, closure))  # `model = _ddp_wrap(model)`, defined in the same function
                    elif (method := _own_method(model, node, constructor.func)) is not None:
                        built.append((targets, method))  # `self.model = self.parallel_model(...)`
                    elif _on_self(constructor.func) and model.project is not None:
                        inherited.append((targets, node, constructor.func.attr))
                    elif _held_object_method(constructor.func) and all(_on_self(t) for t in targets):
                        held.append((targets, node, constructor))
                    elif isinstance(constructor.func, ast.Attribute) and constructor.func.attr == "prepare":
                        prepared.append((targets, constructor))
                    elif qualname and model.project is not None:
                        elsewhere.append((targets, qualname))
        self._kept_on_self(model, built_at)
        self.built_in = {name: [scope for scope, _ in places] for name, places in built_at.items()}  # the scopes building each name
        self._read_out_of_entries(model)
        for targets, qualname in elsewhere:  # `model = smart_DDP(model)` from utils/torch_utils.py
            returned = model.project.returned_roles(model, qualname)
            self._from_returns(targets, [tuple(Role(r) if r else None for r in returned)] if returned else [])
        for targets, function in built:  # after those: `return model` of a model one of them built
            self._from_function(model, targets, function)
        model.roles_pending = True  # a base module asking this one back reads no inherited roles
        try:
            for targets, node, name in inherited:
                callee = _base_method(model, node, name)
                if callee is not None:
                    self._from_returns(targets, callee.module.roles.returned_by(callee.function))
            for targets, node, call in held:
                self._from_held_object(model, targets, node, call)
        finally:
            model.roles_pending = False
        usage = _method_usage(model)
        for targets, call in prepared:
            self._from_prepare(targets, call, usage)
        for cls in model.classes.values():  # `self.model` read through `@property def model`
            for name, method in model.methods(cls).items():
                if any(_names_property(d) for d in method.decorator_list):
                    self._from_function(model, [_self_attribute(name)], method)
        # What is called on which name: `optimizer` passed in as a parameter is an optimizer
        # because the code calls its step() and zero_grad().
        for name, called in usage.items():
            found = _role_from_usage(name, called) if name not in self._roles else {}
            if found.get(name) is Role.OPTIMIZER and _gradient_free_object(model, name):
                continue
            if found.get(name) is Role.SCHEDULER and (
                _built_as_no_learning_rate_schedule(model, name) or _built_as_pipeline_schedule(model, name)
            ):
                continue
            self._roles.update(found)

    def _kept_on_self(self, model: "ModuleModel", built_at: dict[str, list[tuple[ast.AST, int]]]) -> None:
        """`self.model = model` after `model = DDP(model, ...)` earlier in the same function (on
        one branch maybe: `if args.fsdp: ... else: model = DDP(...)`): the attribute holds what
        the local may hold."""
        for node in model.statements:
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Name)):
                continue
            target, local = dotted(node.targets[0]), node.value.id
            if not target or not target.startswith("self.") or target in self._roles or local not in self._roles:
                continue
            scope = model.parents.scope_of(node)
            if any(where is scope and line < node.lineno for where, line in built_at.get(local, ())):
                self._assign(node.targets, self._roles[local])

    def _read_out_of_entries(self, model: "ModuleModel") -> None:
        """`for k in self.modules: self.modules[k] = DDP(self.modules[k], ...)` (or a local
        wrapped first, `module = DDP(module); self.model[name] = module`): every entry of the
        dict now holds a DDP model, whichever key reads it; and `model = self.modules["model"]`
        holds what the entries hold."""
        for node in model.statements:
            target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
            container = dotted(target.value) if isinstance(target, ast.Subscript) else None
            if container and self.of_value(node.value) is Role.DDP_MODEL and any(
                _loops_over_keys(loop, container, target.slice) for loop in model.parents.chain(node)
            ):
                self._entries[container] = Role.DDP_MODEL
        if not self._entries:
            return
        for node in model.statements:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript) and (role := self.of_entry(node.value)):
                self._assign(node.targets, role)

    def _from_prepare(self, targets: list[ast.expr], call: ast.Call, usage: dict[str, set[str]]) -> None:
        """`model, optimizer, loader = accelerator.prepare(model, optimizer, loader)`: what it
        returns for a model is DDP when several processes run; the optimizers, schedulers and
        loaders it also takes keep their roles (by what they are, else by their names)."""
        accelerator = dotted(call.func.value)
        if accelerator is None or len(targets) != 1:
            return
        # an accelerator handed in (`self.accelerator = accelerator`) is one by its backward()
        known = self._roles.get(accelerator) or _role_from_usage(accelerator, usage.get(accelerator, set())).get(accelerator)
        if known is not Role.ACCELERATOR:
            return
        if any(k.arg in SHARDING_PLUGINS for built in self.constructors.get(accelerator, ()) for k in built.keywords):
            return  # FSDP or DeepSpeed: the model is theirs, not DDP
        target = targets[0]
        elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        if len(elements) != len(call.args) or any(isinstance(a, ast.Starred) for a in call.args):
            return
        for element, argument in zip(elements, call.args):
            name, given = dotted(element), dotted(argument)
            if name is None or given is None or self._roles.get(given) is not None or self._roles.get(name) is not None:
                continue
            if set(re.split(r"[_.]", f"{name}.{given}".lower())) & NOT_A_MODEL_WORDS:
                continue
            self._assign([element], Role.DDP_MODEL)
            self.prepared_by[name] = accelerator
            self.wrapped_by[name] = f"{accelerator}.prepare"

    def _from_held_object(self, model: "ModuleModel", targets: list[ast.expr], stmt: ast.stmt, call: ast.Call) -> None:
        """`self.scaler = self.precision.setup_scaler()`: the role of what the method of the
        object held on `self` returns (`return self.scaler` of a `GradScaler` it built)."""
        scope = model.parents.scope_of(stmt)
        methods = possible_methods(model, call, CallContext(model, scope, class_of_scope(model, scope)))
        if len(methods) != 1:
            return
        callee = methods[0]
        if callee.module is model:
            self._from_returns(targets, self.returned_by(callee.function))
        elif not callee.module.roles_pending:
            self._from_returns(targets, callee.module.roles.returned_by(callee.function))

    def _from_function(self, model: "ModuleModel", targets: list[ast.expr], function: ast.AST) -> None:
        """`model = wrap_ddp(model)`: the role of what every `return` of the function gives."""
        self._from_returns(targets, self.returned_by(function))

    def returned_by(self, function: ast.AST) -> list[tuple[Role | None, ...]]:
        """The roles, by position, of what each `return` of this module's `function` gives; a
        `return None` gives no object, so it does not stand against the others' (a scaler or
        `None` when mixed precision is off is a scaler wherever one is used)."""
        return [
            tuple(self.of_returned(e) for e in r.elts) if isinstance(r, (ast.Tuple, ast.List)) else (self.of_returned(r),)
            for r in self._model.returns(function)
            if not (isinstance(r, ast.Constant) and r.value is None)
        ]

    def _from_returns(self, targets: list[ast.expr], returns: list[tuple[Role | None, ...]]) -> None:
        """Roles of the targets from the roles, by position, of what each `return` gives: a
        target takes a role every return agrees on, or DDP where the other returns give the
        model as it was (`if use_ddp: return DDP(model)` ... `return model`), as `either` reads
        a conditional expression."""
        for target in targets:
            elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            for index, element in enumerate(elements):
                roles = {_element(r, index, len(elements)) for r in returns}
                agreed = functools.reduce(either, roles) if roles else None
                if agreed is not None:
                    self._assign([element], agreed)

    def of_value(self, value: ast.expr | None) -> Role | None:
        """The role of a value: an object built here, a name with a role, or a conditional
        expression choosing one (`either`)."""
        if isinstance(value, ast.Call):
            qualname = self._imports.qualname(value.func)
            return classify_constructor(qualname) if qualname else None
        if isinstance(value, ast.IfExp):
            return either(self.of_value(value.body), self.of_value(value.orelse))
        name = dotted(value) if value is not None else None
        return self._roles.get(name) if name else None

    def of_returned(self, value: ast.expr | None) -> Role | None:
        """The role of a value a function returns: as `of_value`, and for `return wrap(cfg,
        model)` the role what the project function called returns has (DDP when distributed)."""
        role = self.of_value(value)
        if role is not None or not isinstance(value, ast.Call) or self._model.project is None:
            return role
        qualname = self._imports.qualname(value.func)
        returned = self._model.project.returned_roles(self._model, qualname) if qualname else ()
        return Role(returned[0]) if len(returned) == 1 and returned[0] else None

    def _assign(self, targets: list[ast.expr], role: Role) -> None:
        for target in targets:
            if isinstance(target, (ast.Tuple, ast.List)):
                # `engine, optimizer, _, _ = deepspeed.initialize(...)`: the engine comes first.
                if role is Role.ENGINE and target.elts:
                    self._assign([target.elts[0]], role)
                continue
            name = dotted(target)
            if name and _takes(self._roles.get(name), role):
                self._roles[name] = role

    def of(self, expr: ast.AST) -> Role | None:
        if isinstance(expr, ast.Subscript):
            return self.of_entry(expr)
        name = dotted(expr)
        return self._roles.get(name) if name else None

    def of_entry(self, expr: ast.Subscript) -> Role | None:
        """The role of any entry of a dict whose every entry the module rewrapped
        (`self.modules["model"]`)."""
        container = dotted(expr.value)
        return self._entries.get(container) if container else None

    def entries(self) -> list[str]:
        """The dicts whose every entry holds a DDP model (`self.modules`)."""
        return list(self._entries)

    def named_role(self, name: str) -> Role | None:
        return self._roles.get(name)

    def named(self, role: Role) -> list[str]:
        return [name for name, r in self._roles.items() if r is role]


def _ddp_subclasses(model: "ModuleModel") -> set[str]:
    """The module's classes deriving from DistributedDataParallel (one that forwards attribute
    lookups to the wrapped module, say): their objects all-reduce as DDP does."""
    return {name for name, cls in model.classes.items() if derives_from_ddp(model, cls)}


def derives_from_ddp(model: "ModuleModel", cls: ast.ClassDef) -> bool:
    """One of the class's own bases is torch's DistributedDataParallel (or another DDP wrapper)."""
    return any(classify_constructor(model.imports.qualname(base) or "") is Role.DDP_MODEL for base in cls.bases)


def wraps_in_ddp(model: "ModuleModel", cls: ast.ClassDef) -> bool:
    """A module class whose own constructor wraps the model it is given in DistributedDataParallel
    and keeps it to run as its forward (`DDPWrapper(model)`: `super().__init__(DDP(model, ...))`):
    its objects all-reduce as DDP does."""
    from gradlint.model.callees import class_hierarchy

    hierarchy = class_hierarchy(model, cls)
    is_module = any(
        (owner_module.imports.qualname(base) or "").endswith("nn.Module") for owner_module, owner in hierarchy for base in owner.bases
    )
    init = model.methods(cls).get("__init__")
    return is_module and init is not None and any(
        isinstance(node, ast.Call) and classify_constructor(model.imports.qualname(node.func) or "") is Role.DDP_MODEL
        for node in ast.walk(init)
    )


def _unconditional(model: "ModuleModel", stmt: ast.stmt) -> bool:
    """Whether `stmt` runs whenever its function (or module) does: no `if`, `try` or loop
    between them."""
    return all(isinstance(node, ast.With) for node in model.parents.chain(stmt)[1:])


def _class_alias(model: "ModuleModel", stmt: ast.stmt, name: str) -> str | None:
    """The class a local name stands for (`wrapper = torch.nn.parallel.DistributedDataParallel`,
    then `model = wrapper(model, ...)`): the dotted value of its last plain assignment before
    `stmt`, in the function or at the module's top."""
    for scope in (model.parents.scope_of(stmt), model.tree):
        earlier = model.scope(scope).before(name, stmt.lineno)
        if earlier:
            value = getattr(earlier[-1], "value", None)
            return model.imports.qualname(value) if isinstance(value, (ast.Name, ast.Attribute)) else None
    return None


def _switched_off(model: "ModuleModel", stmt: ast.stmt) -> bool:
    """Whether `stmt` sits on a branch the code rules out (`ddp = False` at the top of a script,
    then `if ddp: model = DistributedDataParallel(model)`; see `branch_setting`), as the event
    walk skips it."""
    from gradlint.model.values import branch_setting  # values reads roles: imported when asked

    chain = model.parents.chain(stmt)
    for child, node in zip(chain, chain[1:]):
        if isinstance(node, ast.If) and child is not node.test:
            truth = branch_setting(model, node)
            if truth is not None and any(child is s for s in (node.orelse if truth else node.body)):
                return True
    return False


def _own_method(model: "ModuleModel", stmt: ast.stmt, func: ast.expr) -> ast.AST | None:
    """The method `self.<name>` names, in the class whose code holds `stmt`."""
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
        return None
    cls = model.parents.enclosing_class(model.parents.scope_of(stmt))
    return model.methods(cls).get(func.attr) if cls is not None else None


def _closure(model: "ModuleModel", stmt: ast.stmt, name: str) -> ast.AST | None:
    """The function named `name` that the function holding `stmt` defines in its own code."""
    scope = model.parents.scope_of(stmt)
    return None if isinstance(scope, ast.Module) else model.scope(scope).functions.get(name)


def _on_self(expr: ast.expr) -> bool:
    """`self.<name>`: a method or an attribute of the object."""
    return isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self"


def _held_object_method(func: ast.expr) -> bool:
    """`self.precision.setup_scaler`: a method of an object held on `self`."""
    return isinstance(func, ast.Attribute) and _on_self(func.value)


def _base_method(model: "ModuleModel", stmt: ast.stmt, name: str) -> Callee | None:
    """The method `self.<name>` names where a base class of another project module defines it
    (BasicSR's `self.net_g = self.model_to_device(self.net_g)`), when that module has a DDP
    model and is not itself still reading its roles."""
    cls = model.parents.enclosing_class(model.parents.scope_of(stmt))
    if cls is None or not cls.bases:
        return None
    callee = find_method(model, cls, name)
    if callee is None or callee.module is model or callee.module.roles_pending:
        return None
    return callee if callee.module.roles.named(Role.DDP_MODEL) else None


def _names_property(decorator: ast.expr) -> bool:
    name = dotted(decorator)
    return name is not None and name.rsplit(".", 1)[-1] in ("property", "cached_property")


def _self_attribute(name: str) -> ast.Attribute:
    return ast.Attribute(value=ast.Name(id="self", ctx=ast.Load()), attr=name, ctx=ast.Store())


def _takes(held: Role | None, role: Role) -> bool:
    """Whether a name holding `held` takes `role` from another assignment. DDP never replaces
    a role, except an engine's: `main` builds a DeepSpeed engine on one branch and DDP on the
    other, and on the DDP branch the loop's own backward all-reduces (loops that only call
    the engine's backward and step have no optimizer step of their own and stay silent)."""
    if role is Role.DDP_MODEL:
        return held is None or held is Role.ENGINE
    return not (role is Role.ENGINE and held is Role.DDP_MODEL)


def either(first: Role | None, second: Role | None) -> Role | None:
    """The role of a value that is one of two (`ddp_model if args.distributed else model`): the
    role both have, or DDP when one is DDP and the other has no role, since the loop is then
    wrong whenever the run is distributed."""
    if first is second:
        return first
    return Role.DDP_MODEL if {first, second} == {Role.DDP_MODEL, None} else None


def _element(returned: tuple[Role | None, ...], index: int, count: int) -> Role | None:
    """The role of the `index`-th of `count` targets unpacked from a return with these roles
    (one target takes a single returned value whole)."""
    if count == 1:
        return returned[0] if len(returned) == 1 else None
    return returned[index] if len(returned) == count else None


def _method_usage(model: "ModuleModel") -> dict[str, set[str]]:
    """Receiver name -> the usage methods called on it, from the calls in the statements on
    lines that spell such a call (comments and strings never count)."""
    lines = sorted({model.line_at(m.start()) for m in METHOD_CALL.finditer(model.text)})
    methods: dict[str, set[str]] = defaultdict(set)
    if not lines:
        return methods
    for stmt in model.statements:
        for root in expression_roots(stmt):
            index = bisect.bisect_left(lines, root.lineno)
            if index == len(lines) or lines[index] > root.end_lineno:
                continue
            for node in ast.walk(root):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in USAGE_METHODS:
                    receiver = dotted(node.func.value)
                    if receiver:
                        methods[receiver].add(node.func.attr)
    return methods


def _loops_over_keys(loop: ast.stmt, container: str, key: ast.expr) -> bool:
    """Whether `loop` is `for key in container` (or `.keys()`, or `for key, _ in .items()`)."""
    if not isinstance(loop, ast.For) or not isinstance(key, ast.Name):
        return False
    target, iterated = loop.target, loop.iter
    if isinstance(target, ast.Tuple) and target.elts and isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Attribute) and iterated.func.attr == "items":
        target = target.elts[0]
    if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Attribute) and iterated.func.attr in ("keys", "items") and not iterated.args:
        iterated = iterated.func.value
    return isinstance(target, ast.Name) and target.id == key.id and dotted(iterated) == container


def _constructors(value: ast.expr):
    """Calls whose result is what gets assigned (both branches of a conditional expression)."""
    if isinstance(value, ast.Call):
        yield value
    elif isinstance(value, ast.IfExp):
        yield from _constructors(value.body)
        yield from _constructors(value.orelse)


def _gradient_free_object(model: "ModuleModel", name: str) -> bool:
    """Every assignment of `name` builds a plain class of this module (no base class) whose
    `step()` reads no gradient and steps nothing else: MixMatch's `ema_optimizer =
    WeightEMA(model, ema_model)` blends weights, whatever its name says."""
    built = [
        constructor(stmt.value) if isinstance(stmt.value, ast.Call) else None for stmt in model.statements
        if isinstance(stmt, ast.Assign) and any(dotted(t) == name for t in stmt.targets)
    ]
    classes = [model.classes.get(c.func.id) if c is not None and isinstance(c.func, ast.Name) else None for c in built]
    return bool(classes) and all(cls is not None and _steps_without_gradients(model, cls) for cls in classes)


def _steps_without_gradients(model: "ModuleModel", cls: ast.ClassDef) -> bool:
    if any(not (isinstance(b, ast.Name) and b.id == "object") for b in cls.bases):
        return False  # an Optimizer subclass, or a base the model does not read
    step = model.methods(cls).get("step")
    return step is not None and not any(
        isinstance(n, ast.Attribute) and n.attr in ("grad", "step", "backward") for n in ast.walk(step)
    )


def _built_as_no_learning_rate_schedule(model: "ModuleModel", name: str) -> bool:
    """Every assignment of `name` builds a project class that schedules no learning rate (see
    `_schedules_no_learning_rate`): `self.temperature_scheduler.step()` steps a temperature."""
    built = [constructor(call) for call in _calls_assigned_to(model, name)]
    return bool(built) and all(_schedules_no_learning_rate(model, call) for call in built)


def _built_as_pipeline_schedule(model: "ModuleModel", name: str) -> bool:
    """Every assignment of `name` builds a pipeline-parallel schedule (`build_pipeline_schedule(...)`,
    torch.distributed.pipelining's `ScheduleGPipe`): its `step(inputs)` runs the forward and
    backward of the micro-batches, no learning rate."""
    built = _calls_assigned_to(model, name)
    return bool(built) and all(_pipeline_schedule(model.imports.qualname(call.func) or dotted(call.func) or "") for call in built)


def _calls_assigned_to(model: "ModuleModel", name: str) -> list[ast.Call]:
    """The calls the module's `=` statements give `name` (`name = Builder(...)`)."""
    return [
        stmt.value for stmt in model.statements
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and any(dotted(t) == name for t in stmt.targets)
    ]


def _pipeline_schedule(qualname: str) -> bool:
    return "pipeline" in qualname.rsplit(".", 1)[-1].lower() or qualname.startswith("torch.distributed.pipelining")


def _schedules_no_learning_rate(model: "ModuleModel", call: ast.Call) -> bool:
    """The call builds a project class with no base class whose code never names an optimizer,
    its param groups or a learning rate: a schedule of loss weights or of a temperature, whatever
    its name says (a plain class scheduling the learning rate takes the optimizer, or returns a
    rate the loop writes into the param groups)."""
    built = class_of_instance(model, call)
    if built is None:
        return False
    owner, cls = built
    if any(not (isinstance(b, ast.Name) and b.id == "object") for b in cls.bases):
        return False  # an LRScheduler subclass, or a base the model does not read
    words = {
        word for node in ast.walk(cls)
        for name in ([node.id] if isinstance(node, ast.Name) else [node.attr] if isinstance(node, ast.Attribute) else [node.arg] if isinstance(node, ast.arg) else [])
        for word in name.lower().split("_")
    }
    return not words & LEARNING_RATE_WORDS and not any(word.startswith("optim") for word in words)


def _role_from_usage(name: str, called: set[str]) -> dict[str, Role]:
    last = name.rsplit(".", 1)[-1]
    if FRAMEWORK_NAME.search(last) and "backward" in called:
        kind = Role.ACCELERATOR if "accelerator" in last else Role.FABRIC if "fabric" in last else Role.ENGINE
        return {name: kind}
    if SCHEDULER_NAME.search(last) and "step" in called and not COMBINED_OPTIMIZER_NAME.search(last):
        return {name: Role.SCHEDULER}
    if "scale" in called and ("scaler" in last.lower()):
        return {name: Role.SCALER}
    if "backward" in called and "step" in called and not OPTIMIZER_NAME.search(last):
        # `model.backward(loss); model.step()`: an engine running its own backward (DeepSpeed's
        # under a plain name): what it is comes from where it is built, not from its methods
        return {}
    if "step" in called and ("zero_grad" in called or OPTIMIZER_NAME.search(last)):
        return {name: Role.OPTIMIZER}
    return {}
