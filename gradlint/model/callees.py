"""Which function a call runs: the one seam through which the model follows calls (DESIGN §2.1).

Every lookup of "what does this call execute" goes through `resolve_callee`: module functions,
closures, methods through `self.` (the class and its base classes), `super().`, objects whose
class defines `__call__` (`loss_scaler(loss, optimizer)`), and lambdas passed as arguments.
A module's `project` (set by the project-wide model, DESIGN §2.3) answers for names imported
from other modules of the same project; without one, such callees stay unknown.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from gradlint.model.names import BUILTIN_NAMES, GRADIENT_WORDS, assigned_value, bool_literal, dotted, names_project_gradient_method, partial_target, with_names_replaced

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
MAX_NONE_DEPTH = 4  # assignments, returns and callers followed to find that a name is only None
MAX_BASES = 8  # how far up a class hierarchy `self.method` is looked for
# nn.Module methods that return the module itself (`model = Net().to(device)`)
PLAIN_BASES = frozenset({"object", "ABC", "abc.ABC", "Generic", "typing.Generic", "Protocol", "typing.Protocol"})
# torch's wrappers whose call runs the wrapped module's forward
MODULE_WRAPPERS = ("DistributedDataParallel", "DataParallel", "compile")
SIMPLE_STATEMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)
# decorators that leave a class constructed only where it is called (not kept in a registry)
PLAIN_CLASS_DECORATORS = frozenset({"dataclass", "total_ordering", "final", "runtime_checkable", "unique", "attrs", "define", "frozen"})
RETURNS_SELF = frozenset({"to", "cuda", "cpu", "half", "float", "double", "bfloat16", "train", "eval", "requires_grad_"})


@dataclass(frozen=True)
class Callee:
    """A function the model can look into: the module holding it, its node, and the class
    that `self` is an instance of while it runs (None for plain functions)."""

    module: "ModuleModel"
    function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    cls: ast.ClassDef | None = None


@dataclass(frozen=True)
class CallContext:
    """Where a call sits: its module, the function whose code holds it, the class of `self`."""

    module: "ModuleModel"
    scope: ast.AST
    cls: ast.ClassDef | None = None
    statement: ast.stmt | None = None  # the statement holding the call, where known


class ProjectResolver(Protocol):
    """What the project-wide model provides to this seam (gradlint/model/project.py)."""

    def function(self, module: "ModuleModel", qualname: str) -> Callee | None:
        """The function (or class `__call__`) an imported dotted name designates."""

    def class_def(self, module: "ModuleModel", qualname: str) -> tuple["ModuleModel", ast.ClassDef] | None:
        """The class an imported dotted name designates (for base classes)."""

    def subclasses(self, module: "ModuleModel", cls: ast.ClassDef) -> list[tuple["ModuleModel", ast.ClassDef]]:
        """Classes of other project modules that name `cls` among their bases."""

    def callers(self, module: "ModuleModel", function: ast.AST) -> list[tuple[ast.Call, CallContext]]:
        """Calls of `function` (defined in `module`) from other modules of the project."""

    def instantiations(self, module: "ModuleModel", cls: ast.ClassDef) -> list[tuple[ast.Call, CallContext]]:
        """`Class(...)` calls building `cls` (defined in `module`) in other modules of the project."""

    def gradient_names(self, module: "ModuleModel", reaching_backward: bool = False) -> set[str]:
        """Local names under which `module` calls project code that touches gradients (or that
        reaches a backward call), so the model reads the lines that call them."""

    def returned_roles(self, module: "ModuleModel", qualname: str) -> tuple[str | None, ...]:
        """Roles, by position, of what an imported function returns (() when unknown)."""

    def sole_method(self, call: ast.Call) -> Callee | None:
        """The one concrete method of the project's classes named as `call`'s attribute that
        takes its arguments (the object's class is unknown: a config chose it)."""

    def through_star(self, module: "ModuleModel", name: str) -> str | None:
        """`model.name` for a name `from model import *` brings into `module`, when the project
        module `model` defines (or imports) it."""

    def registered_elsewhere(self, module: "ModuleModel", cls: ast.ClassDef) -> bool:
        """Whether another module of the project keeps the class as a value (`TRAINERS =
        {"base": Trainer}`, `register(Trainer)`): it may be built from there with anything."""


def resolve_callee(model: "ModuleModel", call: ast.Call, context: CallContext) -> Callee | None:
    """The function `call` runs, when the model can tell; None otherwise."""
    func = call.func
    module = context.module
    if isinstance(func, ast.Name):
        return (
            _closure(module, func.id, context.scope)
            or _module_function(module, func.id)
            or _callable_instance(module, func, context)
            or _imported(module, func, context.scope)
            or _made_closure(module, func.id, context)
        )
    if isinstance(func, ast.Attribute):
        owner = func.value
        if isinstance(owner, ast.Name) and owner.id == "self" and context.cls is not None:
            method = find_method(module, context.cls, func.attr)
            return method or _callable_instance(module, func, context)
        if _names_its_class(owner, context):  # `cls.train_one_epoch(model=dp_model, ...)` in a classmethod
            return find_method(module, context.cls, func.attr)
        if _is_super_call(owner) and context.cls is not None:
            return find_method(module, context.cls, func.attr, skip_own=True)
        return _imported(module, func, context.scope) or _instance_method(module, owner, call, context)
    return None


def find_method(module: "ModuleModel", cls: ast.ClassDef, name: str, skip_own: bool = False) -> Callee | None:
    """`name` looked up on `cls` and then its base classes, depth first, as Python does for
    single inheritance; None when it is not defined in a class the model can read."""
    for owner_module, owner in class_hierarchy(module, cls):
        if skip_own and owner is cls:
            continue
        method = owner_module.methods(owner).get(name)
        if method is not None:
            return Callee(owner_module, method, cls)
    return None


def subclasses_of(module: "ModuleModel", cls: ast.ClassDef) -> list[tuple["ModuleModel", ast.ClassDef]]:
    """The classes of the project listing `cls` among their bases."""

    def compute():
        found = [(module, c) for c in module.classes.values() if c is not cls and any(base is cls for _, base in base_classes(module, c))]
        return found + (module.project.subclasses(module, cls) if module.project is not None else [])

    return module.memo(("combining classes", id(cls)), compute)


def sole_override(callee: Callee) -> Callee | None:
    """`self.model_forward(data)` where the base class's method is abstract: the one concrete
    override among its subclasses (two levels down), run with `self` an instance of that
    subclass; None when there is none or several (which one runs is the caller's choice)."""
    found = concrete_overrides(callee)
    return found[0] if len(found) == 1 else None


def concrete_overrides(callee: Callee) -> list[Callee]:
    """The concrete overrides of an abstract method among its class's subclasses (two levels
    down), each run with `self` an instance of its subclass."""
    name = getattr(callee.function, "name", None)
    if callee.cls is None or name is None:
        return []
    found, pending = {}, [(callee.module, callee.cls, 0)]
    while pending:
        module, cls, depth = pending.pop()
        for sub_module, sub in subclasses_of(module, cls) if depth < 2 else ():
            method = sub_module.methods(sub).get(name)
            if method is not None and not is_abstract(method):
                found[id(method)] = Callee(sub_module, method, sub)
            else:
                pending.append((sub_module, sub, depth + 1))
    return list(found.values())


def class_hierarchy(module: "ModuleModel", cls: ast.ClassDef) -> list[tuple["ModuleModel", ast.ClassDef]]:
    """`cls` and the base classes the model can read, nearest first, each once."""
    found: list[tuple[ModuleModel, ast.ClassDef]] = []
    pending = [(module, cls)]
    while pending and len(found) < MAX_BASES:
        owner_module, owner = pending.pop(0)
        if any(owner is known for _, known in found):
            continue
        found.append((owner_module, owner))
        for base in owner.bases:
            resolved = _base_class(owner_module, owner, base)
            if resolved is not None:
                pending.append(resolved)
    return found


def base_classes(module: "ModuleModel", cls: ast.ClassDef) -> list[tuple["ModuleModel", ast.ClassDef]]:
    """The direct base classes of `cls` that the model can read."""
    return [resolved for base in cls.bases if (resolved := _base_class(module, cls, base)) is not None]


def class_of_instance(module: "ModuleModel", value: ast.expr | None) -> tuple["ModuleModel", ast.ClassDef] | None:
    """The class whose constructor call produced `value` (`NativeScaler()` -> NativeScaler;
    `Net().to(device)`: nn.Module's `to`, `cuda`, ... return the module itself)."""
    if not isinstance(value, ast.Call):
        return None
    built = constructor(value)
    qualname = module.imports.qualname(built.func) or ""
    wrapped = built.args[0] if built.args and qualname.startswith("torch.") and qualname.endswith(MODULE_WRAPPERS) else None
    if wrapped is not None:  # `DDP(Net().cuda(), ...)` calls the module's forward
        return class_of_instance(module, wrapped)
    return class_named(module, built.func)


def classes_of_instance(
    module: "ModuleModel", value: ast.expr | None, cls: ast.ClassDef | None = None,
) -> list[tuple["ModuleModel", ast.ClassDef]]:
    """The classes whose constructor call may have produced `value`: the one of `Net()`, each
    class of a registry for `TRAINERS[name](args)`, or what either side of a conditional
    expression builds (`Masking(optimizer) if args.sparse else None`). `cls`: the class whose
    code holds `value`, for a factory method it calls on `self`."""
    if isinstance(value, ast.IfExp):
        return [*classes_of_instance(module, value.body, cls), *classes_of_instance(module, value.orelse, cls)]
    built = class_of_instance(module, value)
    if built is not None:
        return [built]
    if not isinstance(value, ast.Call):
        return []
    return _registry_classes(module, constructor(value).func) or _factory_classes(module, value, cls)


def _factory_classes(module: "ModuleModel", call: ast.Call, cls: ast.ClassDef | None) -> list[tuple["ModuleModel", ast.ClassDef]]:
    """`build_trainer(cfg, ...)`, a project function (or `self._init_scheduler(...)`, a method of
    the class) each of whose returns builds an instance of a class the model can read (`return
    YoloTrainer(...)` on one branch, `return RTDetrTrainer(...)` on another): the classes it may
    build."""
    on_self = cls is not None and isinstance(call.func, ast.Attribute) and dotted(call.func.value) == "self"
    if not isinstance(call.func, ast.Name) and not on_self:
        return []

    def compute():
        if on_self:
            callee = find_method(module, cls, call.func.attr)
        else:
            callee = resolve_callee(module, call, CallContext(module, module.tree, None))
        if callee is None or not isinstance(callee.function, FUNCTIONS) or (callee.cls is not None and not on_self):
            return []
        returns = callee.module.returns(callee.function)
        classes = [class_of_instance(callee.module, _built_value(callee.module, r, callee.function)) for r in returns]
        return classes if classes and all(classes) else []

    # asked again while computing it (a factory whose returns resolve back through the call): none
    return module.memo(("factory classes", id(call)), compute, while_computing=[])


def _built_value(module: "ModuleModel", returned: ast.expr, function: ast.AST) -> ast.expr:
    """What a returned local name holds when the function assigns it once (`lr_scheduler =
    LRScheduler(...)` then `return lr_scheduler`); else the returned expression."""
    if not isinstance(returned, ast.Name):
        return returned
    assigned = module.scope(function).assignments.get(returned.id, ())
    if len(assigned) == 1 and isinstance(assigned[0], ast.Assign) and isinstance(assigned[0].targets[0], ast.Name):
        return assigned[0].value
    return returned


def _registry_classes(module: "ModuleModel", expr: ast.expr) -> list[tuple["ModuleModel", ast.ClassDef]]:
    """`REGISTRY[key]` where the module assigns `REGISTRY = {"bert": BertTrainer, ...}` once: the
    classes it maps to, when every value is a class the model can read."""
    if not (isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name)):
        return []
    assigned = module.scope(module.tree).assignments.get(expr.value.id, ())
    registry = getattr(assigned[0], "value", None) if len(assigned) == 1 else None
    if not isinstance(registry, ast.Dict) or not registry.values:
        return []
    classes = [class_named(module, value) for value in registry.values]
    return classes if all(classes) else []


def constructor(call: ast.Call) -> ast.Call:
    """`Net(...)` of `Net(...).to(device).eval()`: nn.Module's `to`, `cuda` ... return the module."""
    while isinstance(call.func, ast.Attribute) and call.func.attr in RETURNS_SELF and isinstance(call.func.value, ast.Call):
        call = call.func.value
    return call


def _base_class(module: "ModuleModel", cls: ast.ClassDef, base: ast.expr) -> tuple["ModuleModel", ast.ClassDef] | None:
    """A base of `cls`: `class BaseTrainer(BaseTrainer)` extends the imported class of that name
    (the class statement binds its own name only once its body has run)."""
    if isinstance(base, ast.Name) and base.id == cls.name and module.classes.get(cls.name) is cls:
        qualname = module.imports.qualname(base)
        return module.project.class_def(module, qualname) if module.project is not None and qualname else None
    return class_named(module, base)


def class_named(module: "ModuleModel", expr: ast.expr) -> tuple["ModuleModel", ast.ClassDef] | None:
    """The class of the module or the project a name (or dotted name) designates."""
    if isinstance(expr, ast.Name) and expr.id in module.classes:
        return module, module.classes[expr.id]
    project = module.project
    qualname = module.imports.qualname(expr)
    if project is None or qualname is None:
        return None
    return project.class_def(module, qualname)


def _closure(module: "ModuleModel", name: str, scope: ast.AST) -> Callee | None:
    """A function defined inside the calling function (or one enclosing it)."""
    for node in _enclosing_functions(module, scope):
        nested = module.nested_functions(node).get(name)
        if nested is not None:
            return Callee(module, nested, class_of_scope(module, node))
    return None


def _outermost_function(module: "ModuleModel", function: ast.AST) -> ast.AST:
    parents = module.parents
    while isinstance(outer := parents.scope_of(function), FUNCTIONS) and outer is not function:  # not another module's
        function = outer
    return function


def _made_closure(module: "ModuleModel", name: str, context: CallContext) -> Callee | None:
    """`train_step = make_train_step(model, optimizer)` then `train_step(batch)`: the nested
    function a project factory returns by name, when every assignment of the name is a call of
    a factory returning the same one."""
    if name in BUILTIN_NAMES:
        return None
    assigned = _nearest_assignments(module, name, context.scope)
    if assigned:
        made = {made_closure(module, s.value, scope) if isinstance(s, ast.Assign) else None for s, scope in assigned}
    else:
        made = _passed_closures(module, name, context.scope)
    return next(iter(made)) if len(made) == 1 else None


def _passed_closures(module: "ModuleModel", name: str, scope: ast.AST) -> frozenset[Callee | None]:
    """`optimize_fn(optimizer, ...)` where `optimize_fn` is a parameter of the function (or of
    one enclosing it): the closures its callers pass for it (`optimize_fn =
    losses.optimization_manager(config)` handed to `get_step_fn(..., optimize_fn)`)."""
    owner = next((f for f in _enclosing_functions(module, scope) if _is_parameter(f, name)), None)
    if owner is None:
        return frozenset()

    def compute() -> frozenset[Callee | None]:
        found: set[Callee | None] = set()
        for call, context in callers(module, owner):
            argument = bind_arguments(Callee(module, owner), call).get(name)
            if isinstance(argument, ast.Name):
                found.add(_made_closure(context.module, argument.id, context))
            else:
                found.add(made_closure(context.module, argument, context.scope))
        return frozenset(found)

    return module.memo(("passed closures", id(owner), name), compute, while_computing=frozenset())


def made_closure(module: "ModuleModel", value: ast.expr | None, scope: ast.AST) -> Callee | None:
    """The nested function the factory call `value` (made in `scope`) returns by name."""
    if not isinstance(value, ast.Call):
        return None

    def compute() -> Callee | None:
        factory = resolve_callee(module, value, CallContext(module, scope, class_of_scope(module, scope)))
        if factory is None or not isinstance(factory.function, FUNCTIONS):
            return None
        nested = factory.module.returned_closure(factory.function)
        return Callee(factory.module, nested, factory.cls) if nested is not None else None

    # a factory that returns what its own call makes resolves back through it: none
    return module.memo(("made closure", id(value)), compute, while_computing=None)


def _module_function(module: "ModuleModel", name: str) -> Callee | None:
    function = module.functions.get(name)
    return Callee(module, function) if function is not None else None


def _callable_instance(module: "ModuleModel", func: ast.expr, context: CallContext) -> Callee | None:
    """`loss_scaler(...)` where `loss_scaler = NativeScaler()` and NativeScaler defines
    `__call__`; also `self.loss_scaler(...)` assigned anywhere in the class, and a parameter
    every caller passes such an object for."""
    if module.gradient_helper_names is not None and module.project is None:
        return None  # no class of this module has a `__call__` that touches gradients
    return _common_method(_instance_classes(module, func, context, follow_callers=True), "__call__")


def module_forwards(module: "ModuleModel", call: ast.Call, context: CallContext) -> list[Callee]:
    """The `forward`s an nn.Module object of the project may run when called (`self.net(x)` where
    `self.net = Net()`, `self(x)` in a method of the module itself, `model(x)` where every caller
    passes a `Net()`, one per class where branches build different ones), or the methods
    `obj.method(x)` may run on such an object (`discriminator.classify(x)` where every caller
    passes a `Discriminator()`): for questions about the value it returns, not about gradient
    events."""
    func = call.func
    if isinstance(func, ast.Name) and func.id == "self" and context.cls is not None:
        classes, name = [(module, context.cls)], "forward"
    elif isinstance(func, ast.Attribute) and not (isinstance(func.value, ast.Name) and func.value.id == "self"):
        classes, name = _instance_classes(module, func.value, context, follow_callers=True), func.attr
    else:
        classes, name = _instance_classes(module, func, context, follow_callers=True), "forward"
    found = [find_method(owner, cls, name) for owner, cls in {id(c[1]): c for c in classes}.values()]
    return [f for f in found if f is not None] if all(found) else []


def _instance_method(module: "ModuleModel", owner: ast.expr, call: ast.Call, context: CallContext) -> Callee | None:
    """`trainer.backward(loss)` where `trainer = MixedPrecisionTrainer(...)` (also an
    attribute of `self`, or a parameter every caller passes one for)."""
    name = call.func.attr
    if isinstance(owner, ast.Name) and names_import(module, owner.id, context.scope):
        return None  # a module or class imported by name, not an instance
    # `batch.to(device)`, `model.train()`: not worth asking every caller what it passes
    follow = _may_touch_gradients(module, name)
    classes = _instance_classes(module, owner, context, follow_callers=follow)
    if classes or not names_project_gradient_method(name):
        return _common_method(classes, name)
    return _configured_method(module, owner, call, context)


def possible_methods(module: "ModuleModel", call: ast.Call, context: CallContext) -> list[Callee]:
    """Each method `obj.name(...)` may run when `obj` is an instance of one of several classes
    (what a factory builds as a config decides): a caller of each, for what it passes."""
    if not isinstance(call.func, ast.Attribute) or isinstance(call.func.value, ast.Name) and call.func.value.id == "self":
        return []
    classes = _instance_classes(module, call.func.value, context, follow_callers=False)
    return [m for owner, cls in classes if (m := find_method(owner, cls, call.func.attr)) is not None]


def _configured_method(module: "ModuleModel", owner: ast.expr, call: ast.Call, context: CallContext) -> Callee | None:
    """`loss.accumulate_gradients(...)` where `loss = construct_class_by_name(**loss_kwargs)`:
    every value of the object comes from a project factory (a config names the class), so its
    method is the project's one definition that takes the call."""
    return module.project.sole_method(call) if made_by_factory(module, owner, context) else None


def made_by_factory(module: "ModuleModel", owner: ast.expr, context: CallContext) -> bool:
    """Every value of `owner` comes from a project function that is no class (a registry's
    `model = build_model(opt)`): which class it is, a config decides."""
    name = dotted(owner)
    if name is None or module.project is None:
        return False
    values = _assigned_values(module, name, context)
    return bool(values) and all(_project_factory(module, v) for v in values)


def _project_factory(module: "ModuleModel", value: ast.expr | None) -> bool:
    """A call of a project function that is no class (what it builds, it decides at run time)."""
    if not isinstance(value, ast.Call):
        return False
    func = constructor(value).func
    qualname = module.imports.qualname(func)
    if qualname is None or class_named(module, func) is not None:
        return False
    return module.project.function(module, qualname) is not None


def _common_method(classes: list[tuple["ModuleModel", ast.ClassDef]], name: str) -> Callee | None:
    """The method `name` an instance of any of `classes` runs: the class's own when there is one
    class; for several (a registry's trainers), the one they all inherit, seen from the class
    defining it (each subclass's overrides of what it calls on `self` are unknown); or the one
    class's that has it, where the others have none (`attacker.restore_grad()` with the attacker
    an `FGM` or a `PGD`: on an `FGM` the call could not run)."""
    distinct = list({id(found[1]): found for found in classes}.values())
    if len(distinct) == 1:
        return find_method(*distinct[0], name)
    methods = [m for owner_module, cls in distinct if (m := find_method(owner_module, cls, name)) is not None]
    if not methods or len({id(m.function) for m in methods}) != 1:
        return None
    if len(methods) < len(distinct):
        return methods[0]
    first = methods[0]
    return Callee(first.module, first.function, first.module.parents.enclosing_class(first.function))


def _may_touch_gradients(module: "ModuleModel", method: str) -> bool:
    """A method name worth resolving: a gradient-touching function of this module goes by it,
    or (for classes of other modules) it speaks of gradients."""
    names = module.gradient_helper_names
    if names is None or method in names:
        return True
    return module.project is not None and any(word in method for word in GRADIENT_WORDS)


def _instance_classes(module: "ModuleModel", expr: ast.expr, context: CallContext, follow_callers: bool):
    if isinstance(expr, (ast.Call, ast.IfExp)):  # `train(..., LossScaler())`
        return classes_of_instance(module, expr)
    if isinstance(expr, ast.Subscript):  # `model['link_pred']` of `model = {'link_pred': link_pred, ...}`
        stored = _stored_entry(module, expr, context)
        return _instance_classes(module, stored, context, follow_callers=False) if stored is not None else []
    name = dotted(expr)
    if name is None:
        return []
    if name.startswith("self.") and context.cls is not None:  # read where each class assigns it
        assigned = module.class_attributes_where(context.cls).get(name.removeprefix("self."), [])
        values = [value for _, _, value in assigned]
        found = [c for owner_module, owner, value in assigned for c in classes_of_instance(owner_module, value, owner)]
    else:
        values = _assigned_values(module, name, context)
        found = [c for v in values for c in classes_of_instance(module, v, context.cls)]
    copied = _copied_name(module, name, context.scope) if not found and len(values) == 1 and "." not in name else None
    if copied is not None:  # `scaler_ae = loss_scaler`: what the name it copies holds
        return _instance_classes(module, copied, context, follow_callers)
    if not found and follow_callers and name.startswith("self.") and context.cls is not None and defines_class(module, context.cls):
        # `self.actor(data)` where `__init__` keeps its `actor` parameter: what constructions pass
        parameter = constructor_parameter(module, context.cls, name.removeprefix("self."))
        if parameter is not None:
            init = CallContext(module, module.methods(context.cls)["__init__"], context.cls)
            return _instance_classes(module, ast.Name(parameter), init, follow_callers=True)
    if not found and not (name.startswith("self.") and context.cls is not None):
        unpacked = [
            classes for s, scope in _nearest_assignments(module, name, context.scope)
            if (classes := _unpacked_classes(module, s, name, scope)) is not None
        ]
        if unpacked:  # `encoder, optimizer, scheduler = init_opt(...)`: what the function builds there
            return [c for classes in unpacked for c in classes]
    if values or not follow_callers or not _is_parameter(context.scope, name):
        return found
    for call, caller in callers(module, context.scope):
        argument = bind_arguments(Callee(module, context.scope, context.cls), call).get(name)
        if argument is None:
            return []  # a caller passes nothing the model can see: cannot tell
        found.extend(_instance_classes(caller.module, argument, caller, follow_callers=False))
    return found


def holds_only_none(module: "ModuleModel", expr: ast.expr, context: CallContext, depth: int = 0) -> bool:
    """Every value `expr` can hold where it is read is `None`: assigned only `None`, unpacked from
    a project function that returns `None` there (`optimizer, scheduler = prep_optimizer(...)`,
    whose `scheduler = None` is never replaced), or a parameter every caller passes such a value
    for. A call on it never runs (`if scheduler is not None: scheduler.step()`)."""
    if depth > MAX_NONE_DEPTH:
        return False
    if isinstance(expr, ast.Constant):
        return expr.value is None
    if not isinstance(expr, ast.Name):
        return False
    assigned = _nearest_assignments(module, expr.id, context.scope)
    if assigned:
        return all(_assigns_none(module, stmt, expr.id, scope, depth) for stmt, scope in assigned)
    if not _is_parameter(context.scope, expr.id):
        return False
    found = callers(module, context.scope)
    return bool(found) and all(
        (argument := bind_arguments(Callee(module, context.scope, context.cls), call).get(expr.id)) is not None
        and holds_only_none(caller.module, argument, caller, depth + 1)
        for call, caller in found
    )


def _assigns_none(module: "ModuleModel", stmt: ast.stmt, name: str, scope: ast.AST, depth: int) -> bool:
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return False
    target, value = stmt.targets[0], stmt.value
    context = CallContext(module, scope, class_of_scope(module, scope))
    if isinstance(target, ast.Name):
        return holds_only_none(module, value, context, depth + 1)
    if not (isinstance(target, ast.Tuple) and isinstance(value, ast.Call)):
        return False
    names = [dotted(t) for t in target.elts]
    callee = resolve_callee(module, value, context)
    if callee is None or isinstance(callee.function, ast.Lambda) or name not in names:
        return False
    returns = callee.module.returns(callee.function)
    inner = CallContext(callee.module, callee.function, callee.cls)
    return bool(returns) and all(
        isinstance(r, ast.Tuple) and len(r.elts) == len(names) and holds_only_none(callee.module, r.elts[names.index(name)], inner, depth + 1)
        for r in returns
    )


def _stored_entry(module: "ModuleModel", expr: ast.Subscript, context: CallContext) -> ast.expr | None:
    """What the one dict its name holds, in the nearest scope binding it, stores under the
    constant key (`model = {"link_pred": link_pred, ...}` at the top, read in a function)."""
    name, key = dotted(expr.value), expr.slice
    if name is None or "." in name or not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
        return None
    scopes = {id(scope): scope for _, scope in _nearest_assignments(module, name, context.scope)}
    stored = [value for scope in scopes.values() for value in stored_values(module, scope, name, key.value)]
    return stored[0] if len(stored) == 1 else None


def stored_values(module: "ModuleModel", scope: ast.AST, name: str, key: str) -> list[ast.expr | None]:
    """What the scope's own code stores under `key` in the dict `name`: one value per
    `dict(...)`/`{...}` building it and per `name[key] = ...`; None for a binding the model
    cannot read. A call handed the dict (`state = restore_checkpoint(path, state)`) gives it
    back as it was."""
    found: list[ast.expr | None] = []
    for stmt in module.scope(scope).assignments.get(name, ()):
        value = stmt.value if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        if isinstance(value, ast.Call) and dotted(value.func) == "dict" and not value.args:
            found.append(next((k.value for k in value.keywords if k.arg == key), None))
        elif isinstance(value, ast.Dict):
            found.append(next((v for k, v in zip(value.keys, value.values) if isinstance(k, ast.Constant) and k.value == key), None))
        elif not (isinstance(value, ast.Call) and any(dotted(a) == name for a in value.args)):
            found.append(None)
    found += [
        stmt.value for stmt in module.values.element_writes(scope).get(name, ())
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0].slice, ast.Constant) and stmt.targets[0].slice.value == key
    ]
    return found


def _assigned_values(module: "ModuleModel", name: str, context: CallContext) -> list[ast.expr | None]:
    """What `name` is assigned: `self.x` anywhere in the class, a plain name in the nearest scope
    binding it."""
    if name.startswith("self.") and context.cls is not None:
        return module.class_attributes(context.cls).get(name.removeprefix("self."), [])
    return [assigned_value(s, name) for s, _ in _nearest_assignments(module, name, context.scope)]


def _copied_name(module: "ModuleModel", name: str, scope: ast.AST) -> ast.Name | None:
    """The other name `name` is bound to as it is (`scaler_ae = loss_scaler`), when that is its
    one assignment (not an unpacking)."""
    assigned = _nearest_assignments(module, name, scope)
    stmt = assigned[0][0] if len(assigned) == 1 else None
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.value if isinstance(stmt.value, ast.Name) and stmt.value.id != name else None
    return None


def _nearest_assignments(module: "ModuleModel", name: str, scope: ast.AST) -> list[tuple[ast.stmt, ast.AST]]:
    """(statement, scope) of each assignment of `name` in the nearest scope binding it: the
    function, the functions around it (a closure reads theirs), or the module."""
    for candidate in [*_enclosing_functions(module, scope), module.tree]:
        stmts = module.scope(candidate).assignments.get(name)
        if stmts:
            return [(s, candidate) for s in stmts]
    return []


def _enclosing_functions(module: "ModuleModel", scope: ast.AST) -> list[ast.AST]:
    """`scope` and the functions around it, innermost first (found once per scope: every name
    looked up in it asks)."""

    def compute() -> list[ast.AST]:
        found, current = [], scope
        while isinstance(current, FUNCTIONS) and current not in found:  # a function of another module is its own scope here
            found.append(current)
            current = module.parents.scope_of(current)
        return found

    return module.memo(("enclosing functions", id(scope)), compute)


def _unpacked_classes(module: "ModuleModel", stmt: ast.stmt, name: str, scope: ast.AST):
    """The classes of `name` unpacked from what a project function returns (`a, b = f(...)`,
    `f` ending in `return a, b`), read in the function; None for any other assignment and for
    calls the model cannot read."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)):
        return None
    if isinstance(stmt.value, ast.Name):  # `scaler_ae, scaler_disc = loss_scaler`, a list made here or by callers
        return module.memo(("unpacked elements", id(stmt), name), lambda: _unpacked_elements(module, stmt, name, scope))
    if not isinstance(stmt.value, ast.Call):
        return None
    # asked again while resolving its own call (`a, b = a.split(...)`): nothing known
    return module.memo(("unpacked classes", id(stmt), name), lambda: _returned_classes(module, stmt, name, scope))


def _unpacked_elements(module: "ModuleModel", stmt: ast.Assign, name: str, scope: ast.AST):
    """The classes of `name` in `a, b = pair`, where `pair` is a list or tuple written out here or
    by every caller that passes it (`loss_scaler = [NativeScaler(), NativeScaler()]`, handed to
    the engine): the element at `name`'s place."""
    names = [dotted(t) for t in stmt.targets[0].elts]
    if name not in names or any(isinstance(t, ast.Starred) for t in stmt.targets[0].elts):
        return None
    index, container = names.index(name), stmt.value.id
    context = CallContext(module, scope, class_of_scope(module, scope))
    sources = [(module, v, context) for v in _assigned_values(module, container, context) if v is not stmt.value]
    if not sources and _is_parameter(scope, container):
        for call, caller in callers(module, scope):
            argument = bind_arguments(Callee(module, scope, context.cls), call).get(container)
            if argument is None:
                return None
            sources.append((caller.module, argument, caller))
    found = []
    for owner, value, where in sources:
        if isinstance(value, ast.Name):
            values = _assigned_values(owner, value.id, where)
            value = values[0] if len(values) == 1 else None
        if not (isinstance(value, (ast.List, ast.Tuple)) and len(value.elts) == len(names)):
            return None
        found.extend(_instance_classes(owner, value.elts[index], where, follow_callers=False))
    return found or None


def _returned_classes(module: "ModuleModel", stmt: ast.Assign, name: str, scope: ast.AST):
    names = [dotted(t) for t in stmt.targets[0].elts]
    callee = resolve_callee(module, stmt.value, CallContext(module, scope, class_of_scope(module, scope)))
    returns = callee.module.returns(callee.function) if callee is not None and not isinstance(callee.function, ast.Lambda) else []
    if name not in names or len(returns) != 1 or not isinstance(returns[0], ast.Tuple) or len(returns[0].elts) != len(names):
        return None  # a library's (`fabric.setup(model, opt)`): the other assignments tell
    inner = CallContext(callee.module, callee.function, callee.cls)
    return _instance_classes(callee.module, returns[0].elts[names.index(name)], inner, follow_callers=False)


def own_schedule(module: "ModuleModel", scheduler: ast.expr, context: CallContext) -> bool:
    """The scheduler is an instance of a project class that no torch LR scheduler is a base of
    (a `CycleScheduler` writing the coming update's rate into the param groups): what its
    `step()` means is its own, not torch's convention of stepping after the optimizer."""
    if _hands_it_the_optimizer(module, scheduler, context.scope):
        return True
    classes = _instance_classes(module, scheduler, context, follow_callers=True)
    return bool(classes) and not any(_derives_from_outside(owner, cls) for owner, cls in classes)


def _hands_it_the_optimizer(module: "ModuleModel", scheduler: ast.expr, scope: ast.AST) -> bool:
    """`self.lr_scheduler.set_lr(self.optimizer, init_lr)` in the same function: a torch scheduler
    is bound to its optimizer when built and never handed one, so this object writes the rates
    itself (a project's rate setter, whatever class a factory returns)."""
    from gradlint.model.roles import Role

    name = dotted(scheduler)
    if name is None or not hasattr(scope, "body"):
        return False
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr != "step"
        and dotted(node.func.value) == name and any(module.roles.of(a) is Role.OPTIMIZER for a in node.args)
        for node in ast.walk(scope)
    )


def _derives_from_outside(module: "ModuleModel", cls: ast.ClassDef) -> bool:
    """A class of the hierarchy has a base the model cannot read (torch's `LRScheduler`, a
    library's scheduler), other than `object` and the typing/abc helpers."""
    for owner, known in class_hierarchy(module, cls):
        for base in known.bases:
            if _base_class(owner, known, base) is None and dotted(base) not in PLAIN_BASES:
                return True
    return False


def _is_parameter(function: ast.AST, name: str) -> bool:
    return name in parameter_names(function)


def _imported(module: "ModuleModel", func: ast.expr, scope: ast.AST) -> Callee | None:
    project = module.project
    if project is None:
        return None
    name = dotted(func)
    if name is None or not names_import(module, name.partition(".")[0], scope):
        return None  # not a name the module imported
    # the same call is resolved by every walk that reaches it
    return module.memo(("imported", id(func)), lambda: project.function(module, module.imports.qualname(func)))


def names_import(module: "ModuleModel", name: str, scope: ast.AST) -> bool:
    """Whether `name` in `scope` is what the module imported under it: a parameter or local of
    the same name shadows the import (`def train(discriminator, ...)` in a module that imports
    `discriminator`: the argument is an instance, not the module)."""
    if module.imports.origin(name) is None:
        return False
    return scope is module.tree or not (name in parameter_names(scope) or name in module.scope(scope).assignments)


def _names_its_class(owner: ast.expr, context: CallContext) -> bool:
    """`cls` (the first parameter) of a `@classmethod` of the context's class."""
    scope = context.scope
    if context.cls is None or not isinstance(owner, ast.Name) or not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    first = scope.args.posonlyargs[:1] or scope.args.args[:1]
    return bool(first) and first[0].arg == owner.id and any(dotted(d) == "classmethod" for d in scope.decorator_list)


def _is_super_call(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "super"


def resolve_called(module: "ModuleModel", call: ast.Call, context: CallContext) -> Callee | None:
    """The function a call runs, or, for `partial(f, ...)`, the function the partial runs."""
    target = partial_target(call)
    if target is None:
        return resolve_callee(module, call, context)
    return resolve_callee(module, ast.Call(func=target, args=[], keywords=[]), context)


def bind_arguments(callee: Callee, call: ast.Call) -> dict[str, ast.expr]:
    """Parameter name -> the argument expression the call (or `partial(function, ...)`) passes
    for it (`self` excluded for methods and `__call__`); defaults and *args/**kwargs are left out."""
    function = callee.function
    params = [*function.args.posonlyargs, *function.args.args]
    if callee.cls is not None and params and not is_static(function):
        params = params[1:]
    bound: dict[str, ast.expr] = {}
    for param, argument in zip(params, call.args[1:] if partial_target(call) is not None else call.args):
        if isinstance(argument, ast.Starred):
            break
        bound[param.arg] = argument
    names = {p.arg for p in [*params, *function.args.kwonlyargs]}
    for keyword in call.keywords:
        if keyword.arg in names:
            bound[keyword.arg] = keyword.value
    return bound


def is_abstract(function: ast.AST) -> bool:
    """A method whose body (after its docstring) only raises NotImplementedError, does nothing
    (`pass`, `...`), or only returns a literal under a docstring that says so
    (`\"\"\"Interface.\"\"\" return 0`): the subclasses say what it does."""
    body = getattr(function, "body", None)
    if not isinstance(body, list):
        return False
    documented = bool(body) and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)
    if documented:
        body = body[1:]
    if documented and len(body) == 1 and isinstance(body[0], ast.Return) and (body[0].value is None or isinstance(body[0].value, ast.Constant)):
        return True  # a placeholder the subclasses override
    if not body or len(body) == 1 and (isinstance(body[0], ast.Pass) or _is_ellipsis(body[0])):
        return True  # a hook that does nothing until a subclass writes it (`def forward_backward(self, batch): pass`)
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    raised = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"


def _is_ellipsis(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and stmt.value.value is Ellipsis


def is_static(function: ast.AST) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in getattr(function, "decorator_list", ()))


def callers(module: "ModuleModel", function: ast.AST) -> list[tuple[ast.Call, CallContext]]:
    """Calls of `function` in its module: `name(...)` for a module function, `self.name(...)`
    within the class for a method, `Class(...)` for `__init__`. Other modules' callers come
    from the project (§2.3)."""
    def compute():
        name = getattr(function, "name", None)
        if name is None:
            return []
        cls = module.parents.enclosing_class(function) if name == "__init__" else None
        if cls is not None:  # `Trainer(model, ...)` runs Trainer.__init__
            return instantiations(module, cls)
        found = []
        picked = module.alias_calls(name) if name in module.functions else []
        for call, stmt in [*module.calls_named(name), *module.partials_of(name), *picked]:
            scope = module.parents.scope_of(stmt)
            context = CallContext(module, scope, class_of_scope(module, scope), stmt)
            if (call, stmt) in picked:  # `train = pretrain if ... else finetune`, then `train(...)`
                found.append((call, context))
                continue
            callee = resolve_called(module, call, context)
            if callee is not None and callee.function is function:
                found.append((call, context))
        if module.project is not None:
            found.extend(module.project.callers(module, function))
        owner = module.parents.enclosing_class(function)
        if owner is not None:
            found.extend(inherited_self_calls(module, owner, name))
        found.extend(_calls_of_made_closure(module, function))
        return found

    return module.memo(("callers", id(function)), compute, while_computing=[])


def instantiations(module: "ModuleModel", cls: ast.ClassDef) -> list[tuple[ast.Call, CallContext]]:
    """`Class(...)` calls building `cls`, in its module and in the project's others (§2.3)."""

    def compute():
        found = []
        for call, stmt in module.calls_named(cls.name):
            if class_of_instance(module, call) == (module, cls):
                scope = module.parents.scope_of(stmt)
                found.append((call, CallContext(module, scope, class_of_scope(module, scope), stmt)))
        if module.project is not None:
            found.extend(module.project.instantiations(module, cls))
        return found

    return module.memo(("instantiations", id(cls)), compute, while_computing=[])


def constructing_init(module: "ModuleModel", cls: ast.ClassDef) -> Callee | None:
    """The `__init__` that building `cls` runs with the constructor's arguments: its own, or the
    nearest base class's when it has none or hands them all on (`def __init__(self, *args,
    **kwargs): super().__init__(*args, **kwargs)`)."""
    for owner_module, owner in class_hierarchy(module, cls):
        init = owner_module.methods(owner).get("__init__")
        if init is not None and not _forwards_every_argument(init):
            return Callee(owner_module, init, owner)
    return None


def _forwards_every_argument(init: ast.FunctionDef) -> bool:
    arguments = init.args
    if len(arguments.args) != 1 or arguments.kwonlyargs or arguments.vararg is None or arguments.kwarg is None:
        return False
    star, double = arguments.vararg.arg, arguments.kwarg.arg
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"
        and [dotted(a.value) for a in node.args if isinstance(a, ast.Starred)] == [star]
        and [dotted(k.value) for k in node.keywords if k.arg is None] == [double]
        for node in ast.walk(init)
    )


def _calls_of_made_closure(module: "ModuleModel", function: ast.AST) -> list[tuple[ast.Call, CallContext]]:
    """Calls of a nested function its enclosing function returns, under the names the
    factory's callers bind its result to (`step_fn = get_step_fn(...)`, `step_fn(state, batch)`)."""
    factory = module.parents.scope_of(function)
    if not isinstance(factory, FUNCTIONS) or module.returned_closure(factory) is not function:
        return []
    found = []
    for made, context in callers(module, factory):
        stmt = context.statement
        if not (isinstance(stmt, ast.Assign) and stmt.value is made and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        caller = context.module
        for call, held in caller.calls_named(stmt.targets[0].id):
            scope = caller.parents.scope_of(held)
            if not isinstance(call.func, ast.Name) or (context.scope is not scope and context.scope not in _enclosing_functions(caller, scope)):
                continue  # the name is another binding than the factory's result
            at = CallContext(caller, scope, class_of_scope(caller, scope), held)
            callee = resolve_callee(caller, call, at)
            if callee is not None and callee.function is function:
                found.append((call, at))
    return found


def inherited_self_calls(module: "ModuleModel", cls: ast.ClassDef, name: str) -> list[tuple[ast.Call, CallContext]]:
    """`self.name(...)` in the methods of `cls`'s project base classes: run on an object of
    `cls`, they call its override (`BaseTrainer.main` calling `self.train_one_step(ddp_model,
    ...)` that a subclass in another module defines)."""
    found = []
    for base_module, base in class_hierarchy(module, cls)[1:]:
        for call, stmt in base_module.calls_named(name):
            func = call.func
            if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
                continue
            scope = base_module.parents.scope_of(stmt)
            if class_of_scope(base_module, scope) is base:
                found.append((call, CallContext(base_module, scope, base, stmt)))
    return found


def returned_value(module: "ModuleModel", call: ast.Call, context: CallContext) -> ast.expr | None:
    """What the function `call` runs returns, when it has exactly one `return value` (or answers
    True or False along one `if` chain: `_predicate`)."""
    callee = resolve_callee(module, call, context)
    if callee is None:
        return None
    function = callee.function
    if isinstance(function, ast.Lambda):
        return function.body
    returns = callee.module.returns(function)
    value = returns[0] if len(returns) == 1 else _predicate(function)
    if value is None or callee.module is not module:
        return value
    # in the caller's names: `self.should_step(step)` of `def should_step(self, i): return (i + 1) % n == 0`
    passed = {name: argument for name, argument in bind_arguments(callee, call).items() if isinstance(argument, (ast.Name, ast.Attribute))}
    return with_names_replaced(value, lambda n: passed.get(n.id)) if passed else value


def _predicate(function: ast.AST) -> ast.expr | None:
    """When a function answers by `return True`/`return False` along one `if`/`elif` chain after
    plain assignments (`if i == 0: return False elif i % n == 0: return True ... return
    False`), the test under which it returns True, as one expression: the True branches' tests
    or-ed, under the negations of the False branches' before them."""
    body = list(getattr(function, "body", []))
    while body and isinstance(body[0], (ast.Assign, ast.AnnAssign, ast.Expr)) and not _returns_within(body[0]):
        body = body[1:]
    if len(body) != 2 or not isinstance(body[0], ast.If) or _answer(body[1]) is not False:
        return None
    ruled_out, true_when, branch = [], [], body[0]
    while branch is not None:
        answer = _answer(branch.body[0]) if len(branch.body) == 1 else None
        if answer is None:
            return None
        if answer:
            true_when.append(branch.test)
        elif true_when:
            return None  # a False branch after a True one: not a plain prefix to factor out
        else:
            ruled_out.append(ast.UnaryOp(ast.Not(), branch.test))
        orelse = branch.orelse
        branch = orelse[0] if len(orelse) == 1 and isinstance(orelse[0], ast.If) else None
        if orelse and branch is None:
            return None
    if not true_when:
        return None
    either = true_when[0] if len(true_when) == 1 else ast.BoolOp(ast.Or(), true_when)
    return ast.BoolOp(ast.And(), [*ruled_out, either]) if ruled_out else either


def _answer(stmt: ast.stmt) -> bool | None:
    """True or False for `return True` / `return False`; None for anything else."""
    return bool_literal(stmt.value) if isinstance(stmt, ast.Return) else None


def _returns_within(stmt: ast.stmt) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(stmt))


def defines_class(module: "ModuleModel", cls: ast.ClassDef) -> bool:
    """Whether `cls` is a class of `module` itself (a method's `cls` may be a subclass defined
    elsewhere, whose module alone can answer what is around its methods)."""
    return any(known is cls for known in module.classes.values())


def class_of_scope(module: "ModuleModel", scope: ast.AST) -> ast.ClassDef | None:
    """The class whose methods' `self` the code of `scope` sees (closures included)."""
    return module.parents.enclosing_class(_outermost_function(module, scope))


def constructor_attributes(module: "ModuleModel", cls: ast.ClassDef) -> list[str]:
    """Attributes of `self` set to a parameter of `__init__` (`self.model = model`) and
    otherwise only handed along (`self.model = copy_weights(self.model, ema)`,
    `self.optimizer = scheduler.update_lr(optimizer=self.optimizer)`)."""
    init = module.methods(cls).get("__init__")
    if init is None:
        return []
    parameters = parameter_names(init)
    found = []
    for attribute, values in module.class_attributes(cls).items():
        given = [v for v in values if given_parameter(v, parameters)]
        if len(given) == 1 and all(v is given[0] or _hands_along(v, attribute) for v in values):
            found.append(attribute)
    return found


def given_parameter(value: ast.expr, parameters) -> str | None:
    """The parameter a value is: `model`, or `model.to(device)` (`cuda()`, `float()` ... hand
    back the module itself)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in RETURNS_SELF:
        value = value.func.value
    return value.id if isinstance(value, ast.Name) and value.id in parameters else None


def _hands_along(value: ast.expr, attribute: str) -> bool:
    """A call given `self.<attribute>` itself, as an argument or as its receiver: it hands
    back the same object, updated."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    passed = [*value.args, *(k.value for k in value.keywords)]
    if isinstance(func, ast.Attribute):
        passed.append(func.value)
    return any(dotted(p) == f"self.{attribute}" for p in passed)


def constructor_parameter(module: "ModuleModel", cls: ast.ClassDef, attribute: str) -> str | None:
    """The `__init__` parameter `self.<attribute>` is set to, when it is a constructor attribute."""
    if attribute not in constructor_attributes(module, cls):
        return None
    parameters = parameter_names(module.methods(cls)["__init__"])
    return next(given for v in module.class_attributes(cls)[attribute] if (given := given_parameter(v, parameters)))


def held_parameter(module: "ModuleModel", cls: ast.ClassDef, attribute: str) -> str | None:
    """The `__init__` parameter `self.<attribute>` is set to, where any other assignment of it
    is a call (handing it along, or setting it anew: the best model reloaded after training).
    The `__init__` is the one building `cls` runs, a base class's where it inherits it."""
    init = constructing_init(module, cls)
    if init is None:
        return None
    parameters = parameter_names(init.function)
    values = module.class_attributes(cls).get(attribute, [])
    given = [v for v in values if given_parameter(v, parameters)]
    if len(given) != 1 or not all(v is given[0] or isinstance(v, ast.Call) for v in values):
        return None
    return given_parameter(given[0], parameters)


def constructed_with(module: "ModuleModel", cls: ast.ClassDef | None, attribute: str) -> list[ast.expr]:
    """What each construction of the class the model finds gives the `__init__` parameter that
    `self.<attribute>` is set to (its default where a construction leaves it out); [] when there
    is none or one hands over `**kwargs`."""
    parameter = constructor_parameter(module, cls, attribute) if cls is not None else None
    init = module.methods(cls).get("__init__") if parameter is not None else None
    if init is None or registered(module, cls):
        return []
    defaults = parameter_defaults(init)
    given = []
    for call, _ in callers(module, init):
        if any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
            return []
        value = bind_arguments(Callee(module, init, cls), call).get(parameter, defaults.get(parameter))
        if value is None:
            return []
        given.append(value)
    return given


def registered(module: "ModuleModel", cls: ast.ClassDef) -> bool:
    """The class is kept in a registry (decorated by one, `@TRAINERS.register_module()`, or
    stored as a value, `TRAINERS = {"base": Trainer}`, here or in another module): a config may
    build it with any arguments, so the constructions the model sees are not all there are."""
    if any((dotted(d.func if isinstance(d, ast.Call) else d) or "").rsplit(".", 1)[-1] not in PLAIN_CLASS_DECORATORS for d in cls.decorator_list):
        return True
    if stores_as_value(module, cls.name):
        return True
    return module.project is not None and module.project.registered_elsewhere(module, cls)


def may_be_stored(text: str, name: str) -> bool:
    """The text spells `name` where a value goes (after `[`, `{`, `(`, `,` or `:`, before `,`,
    `]`, `}` or `)`): the cheap test before the module's statements are read."""
    return _value_position(name).search(text) is not None


def stores_as_value(module: "ModuleModel", name: str) -> bool:
    """The module keeps `name` as a value rather than calling it: a dict value, a list, tuple or
    set element, an argument of a `register...(...)` call (read on the lines that spell it so)."""
    lines = {module.line_at(m.start()) for m in _value_position(name).finditer(module.text)}
    if not lines:
        return False
    for stmt in module.statements:
        if isinstance(stmt, SIMPLE_STATEMENTS) and any(stmt.lineno <= line <= stmt.end_lineno for line in lines):
            for node in ast.walk(stmt):
                if isinstance(node, ast.Dict):
                    values = node.values
                elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
                    values = node.elts
                elif isinstance(node, ast.Call) and (dotted(node.func) or "").rsplit(".", 1)[-1].lower().startswith("register"):
                    values = node.args
                else:
                    continue
                if any(isinstance(v, ast.Name) and v.id == name for v in values):
                    return True
    return False


def _value_position(name: str) -> re.Pattern:
    return re.compile(rf"[\[{{(,:]\s*{re.escape(name)}\s*[,\]}})]")


def passed_to_base_init(module: "ModuleModel", cls: ast.ClassDef | None, attribute: str) -> ast.expr | None:
    """What the class's own `__init__` passes to `super().__init__(...)` for the parameter a base
    class's `__init__` sets `self.<attribute>` to, when the class sets it nowhere itself."""
    if cls is None or any(f"self.{attribute}" in module.scope(m).assignments for m in module.methods(cls).values()):
        return None
    init = module.methods(cls).get("__init__")
    calls = [
        node for node in ast.walk(init) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and node.func.attr == "__init__" and isinstance(node.func.value, ast.Call) and dotted(node.func.value.func) == "super"
    ] if init is not None else []
    hierarchy = class_hierarchy(module, cls)
    if len(calls) != 1 or len(hierarchy) < 2:
        return None
    base_module, base = hierarchy[1]
    parameter = constructor_parameter(base_module, base, attribute)
    base_init = base_module.methods(base).get("__init__")
    if parameter is None or base_init is None:
        return None
    return bind_arguments(Callee(base_module, base_init, base), calls[0]).get(parameter)


def parameter_defaults(function: ast.AST) -> dict[str, ast.expr]:
    """Each parameter with a default, and the default."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    found = {a.arg: d for a, d in zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults)}
    found.update({a.arg: d for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None})
    return found


def parameter_names(function: ast.AST) -> set[str]:
    arguments = getattr(function, "args", None)
    if arguments is None:
        return set()
    return {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
