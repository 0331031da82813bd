"""What a name means in one frame of the walk: the unit's own code, or a helper it calls.

A helper's parameters are bound to the caller's arguments, so a role, a boundary flag or a
loss written in the helper is read where the caller wrote it; the unit's own parameters are
read from what its callers pass (in the module, and in the project through the seam).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gradlint.model.callees import RETURNS_SELF, CallContext, Callee, stored_values, bind_arguments, callers, class_hierarchy, class_of_instance, constructing_init, instantiations, constructor_attributes, constructor_parameter, given_parameter, held_parameter, parameter_defaults, parameter_names, resolve_callee, subclasses_of
from gradlint.model.flags import set_in_branches
from gradlint.model.names import bool_literal, dotted, with_names_replaced
from gradlint.model.roles import Role, classify_constructor, either

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

FUNCTION_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)


MAX_HANDS = 2  # callers followed up from a parameter: a script builds a trainer that runs the loop


@dataclass
class Frame:
    """One function being walked: the unit's own code, or a helper it calls."""

    module: "ModuleModel"
    scope: ast.AST
    cls: ast.ClassDef | None
    arguments: dict[str, ast.expr] = field(default_factory=dict)  # parameter -> caller's argument
    caller: "Frame | None" = None
    call: ast.Call | None = None  # the call in `caller` that runs this frame
    ddp_lines: list[int] | None = None  # lines naming a DDP model only this frame knows (on use)
    roles: dict[str, Role | None] = field(default_factory=dict, compare=False, repr=False)  # by name, on use

    @property
    def context(self) -> CallContext:
        return CallContext(self.module, self.scope, self.cls)

    @property
    def site(self) -> ast.Call | None:
        frame = self
        while frame.caller is not None and frame.caller.caller is not None:
            frame = frame.caller
        return frame.call


def left_at_default(frame: Frame) -> dict[str, ast.expr]:
    """Parameters of a helper the call that runs it leaves at their defaults: bound by no
    argument, and not in a `**kwargs` it hands on, which (the caller's own) cannot hold a name
    the caller takes as a parameter of its own (`fit(..., gradient_accumulation_steps=1,
    **kwargs)` calling `self._on_backward(loss, **kwargs)`)."""
    call, caller = frame.call, frame.caller
    if call is None or caller is None or any(isinstance(a, ast.Starred) for a in call.args):
        return {}
    spread = [k.value for k in call.keywords if k.arg is None]
    own = getattr(getattr(caller.scope, "args", None), "kwarg", None)
    if any(not (isinstance(s, ast.Name) and own is not None and s.id == own.arg) for s in spread):
        return {}  # a dict of other origin may hold anything
    named = parameter_names(caller.scope) - ({own.arg} if own is not None else set())
    return {
        name: default for name, default in parameter_defaults(frame.scope).items()
        if name not in frame.arguments and (not spread or name in named)
    }


def role_in_frame(frame: Frame, expr: ast.expr, assigning: frozenset[str] = frozenset()) -> Role | None:
    """The role of `expr` where `frame` runs: from its own module, else through the argument
    its caller passed for the parameter it names, else (for the unit itself) from what every
    caller in the module passes. A local name takes the role of what the frame assigns it."""
    if isinstance(expr, ast.IfExp):
        if _unwrapped_either_way(expr):
            return None
        return either(role_in_frame(frame, expr.body, assigning), role_in_frame(frame, expr.orelse, assigning))
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
        return _keyed_role(frame, expr.value, expr.slice.value, 0, assigning) or frame.module.roles.of_entry(expr)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in RETURNS_SELF:
        return role_in_frame(frame, expr.func.value, assigning)  # `model.to(rank)` is the model
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and dotted(expr.func.value):
        return _method_result_role(frame, expr)
    name = dotted(expr)
    return None if name is None else _role_of_name(frame, name, assigning)


def _method_result_role(frame: Frame, call: ast.Call) -> Role | None:
    """`model = dist_ctx.wrap_model(net)`: what a method of a project object returns, built
    there (`return model` when DDP is off, `return DistributedDataParallel(model, ...)` else)."""
    callee = resolve_callee(frame.module, call, frame.context)
    if callee is None or not isinstance(callee.function, FUNCTION_TYPES) or callee.cls is None:
        return None
    roles = [_constructed_role(callee.module, value) for value in callee.module.returns(callee.function)]
    return functools.reduce(either, roles) if roles else None


def _unwrapped_either_way(expr: ast.IfExp) -> bool:
    """`model.module if isinstance(model, DDP) else model` (or `hasattr(model, "module")`): the
    wrapped module when there is a wrapper, the model itself when there is none; never DDP."""
    wrapped = dotted(expr.orelse)
    test = expr.test
    return (
        wrapped is not None and isinstance(expr.body, ast.Attribute) and expr.body.attr == "module"
        and dotted(expr.body.value) == wrapped and isinstance(test, ast.Call)
        and dotted(test.func) in ("isinstance", "hasattr") and bool(test.args) and dotted(test.args[0]) == wrapped
    )


def _role_of_name(frame: Frame, name: str, assigning: frozenset[str]) -> Role | None:
    if assigning:
        return _named_role(frame, name, assigning)
    if name not in frame.roles:  # a frame's names keep their meaning while it is walked
        frame.roles[name] = _named_role(frame, name, assigning)
    return frame.roles[name]


def _named_role(frame: Frame, name: str, assigning: frozenset[str]) -> Role | None:
    role = frame.module.roles.named_role(name)
    if role is not None and not _built_by_other_classes(frame, name) and not (role is Role.DDP_MODEL and _built_in_other_functions(frame, name)):
        return role
    head, _, rest = name.partition(".")
    if not rest and head != "self" and head not in parameter_names(frame.scope):
        return _assigned_role(frame, head, assigning)
    if (
        not rest and head != "self" and head not in assigning
        and frame.module.scope(frame.scope).assignments.get(head) and frame.module.roles.named(Role.DDP_MODEL)
    ):  # a parameter the function rebinds (`if distributed: model = DDP(policy); policy = model`)
        rebound = _assigned_role(frame, head, assigning)
        if rebound is not None:
            return either(rebound, _parameter_role(frame, head))
    if rest and "." not in rest and head != "self" and (held := _instance_attribute_role(frame, head, rest)) is not None:
        return held
    if frame.caller is not None:
        if head == "self" and frame.cls is not None and frame.cls is frame.caller.cls:
            return _role_of_name(frame.caller, name, frozenset())  # a method of the same object: the same `self`
        if not rest:
            return _parameter_role(frame, head)
        argument = frame.arguments.get(head)
        if argument is None:
            return None
        outer = dotted(argument)
        role = frame.caller.module.roles.named_role(f"{outer}.{rest}") if outer else None
        if role is None and head == "self" and "." not in rest and frame.cls is not None:
            # another object's method (`self.actor(data)` runs `self.net(...)`): what every
            # construction of its class passes for the attribute
            return constructor_role(frame.module, frame.cls, rest)
        return role
    if head == "self" and rest and "." not in rest and frame.cls is not None:
        return (
            constructor_role(frame.module, frame.cls, rest) or inherited_role(frame.module, frame.cls, name)
            or combined_role(frame.module, frame.cls, rest) or wrapped_by_subclass(frame.module, frame.cls, name)
        )
    if head == "self" and rest.count(".") == 1 and frame.cls is not None:
        return object_attribute_role(frame.module, frame.cls, *rest.split("."))
    if rest or head not in parameter_names(frame.scope):
        return None
    return parameter_roles(frame.module, frame.scope).get(head)


def _parameter_role(frame: Frame, name: str) -> Role | None:
    """The role of what the frame's callers pass for the parameter `name`."""
    if frame.caller is not None:
        argument = frame.arguments.get(name)
        return None if argument is None else role_in_frame(frame.caller, argument) or _constructed_role(frame.caller.module, argument)
    return parameter_roles(frame.module, frame.scope).get(name) if isinstance(frame.scope, FUNCTION_TYPES) else None


def _built_by_other_classes(frame: Frame, name: str) -> bool:
    """`self.model = DDP(...)` only in classes of the module that are neither the frame's class
    nor related to it: another trainer's attribute of the same name (roles are read module-wide,
    by name, and `self.model` is everyone's)."""
    if not name.startswith("self.") or frame.cls is None:
        return False
    module = frame.module
    built = module.roles.constructors.get(name, ())
    if not built:
        return False
    related = {id(c) for _, c in (*class_hierarchy(module, frame.cls), *subclasses_of(module, frame.cls))} | {id(frame.cls)}
    owners = [next((c for c in module.classes.values() if c.lineno <= call.lineno <= c.end_lineno), None) for call in built]
    return all(owner is not None and id(owner) not in related for owner in owners)


def _built_in_other_functions(frame: Frame, name: str) -> bool:
    """A DDP model's name that other functions wrap (`def train(args, model): model =
    DDP(model)`), while the frame's function binds its own, to objects no code here wraps
    (`model = model_class.from_pretrained(...)` in `main`), or takes it from its caller:
    roles are read module-wide, by name, and the frame's own assignments (or its caller's
    argument) say what its `model` is."""
    if "." in name or not isinstance(frame.scope, FUNCTION_TYPES):
        return False
    module = frame.module
    built = module.roles.built_in.get(name, ())
    if not built or any(scope is frame.scope or scope is module.tree for scope in built):
        return False
    if name in parameter_names(frame.scope):
        return frame.caller is not None  # a helper's parameter: what its caller passes
    stmts = module.scope(frame.scope).assignments.get(name, ())
    return bool(stmts) and all(
        isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) and not _may_wrap(frame, s.value)
        for s in stmts
    )


def _may_wrap(frame: Frame, call: ast.Call) -> bool:
    """A call whose result may be a wrapped model: a function or method of the project the
    model can read (`self.set_up_dist(rank)`), one whose role the project knows, or a method
    returning its receiver (`model.cuda()` of a wrapped one)."""
    if isinstance(call.func, ast.Attribute) and call.func.attr in RETURNS_SELF:
        return True
    return frame.module.roles.of_returned(call) is Role.DDP_MODEL or resolve_callee(frame.module, call, frame.context) is not None


def _instance_attribute_role(frame: Frame, name: str, field: str) -> Role | None:
    """`trainer.scaler` where the frame's code builds `trainer = RetrieverTrainer(...)` once, a
    class of the project: the role that class gives `self.scaler`."""
    stmts = frame.module.scope(frame.scope).assignments.get(name, ())
    if len(stmts) != 1 or not isinstance(stmts[0], ast.Assign):
        return None
    built = class_of_instance(frame.module, stmts[0].value)
    if built is None:
        return None
    owner_module, owner = built
    if field not in owner_module.class_attributes(owner):
        return None
    return _role_of_name(Frame(owner_module, owner, owner), f"self.{field}", frozenset())


def _assigned_role(frame: Frame, name: str, assigning: frozenset[str]) -> Role | None:
    """`model_to_train = model if ddp_model is None else ddp_model`: the role of every value the
    frame's function assigns a local name, each read in the frame (so through its parameters)."""
    if name in assigning or not isinstance(frame.scope, FUNCTION_TYPES):
        return None
    stmts = frame.module.scope(frame.scope).assignments.get(name, ())
    if not stmts:
        return _free_variable_role(frame, name, assigning)
    values = [s.value for s in stmts if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)]
    if len(values) < len(stmts):
        return None
    return functools.reduce(either, (role_in_frame(frame, v, assigning | {name}) for v in values))


def _keyed_role(frame: Frame, container: ast.expr, key: str, depth: int, assigning: frozenset[str] = frozenset()) -> Role | None:
    """`state['model']` where the frame's code, or a caller handing the dict along, builds
    `state = dict(model=ddp_model, optimizer=optimizer, step=0)` (or a `{...}` literal, or writes
    `state['model'] = ...`): the role of the value stored under the key. `assigning`: the frame's
    names being followed already (`kwargs = cfg['kwargs']` ... `cfg['kwargs'] = kwargs`)."""
    name = dotted(container)
    if name is None or depth > MAX_HANDS:
        return None
    if name.count(".") == 1 and name.startswith("self.") and frame.cls is not None:
        # `self.models['model']` kept from `__init__(self, models)`: what its constructions pass
        parameter = constructor_parameter(frame.module, frame.cls, name[len("self."):])
        init = frame.module.methods(frame.cls).get("__init__") if parameter is not None else None
        if init is None:
            return _built_entries_role(frame.module, frame.module.class_attributes(frame.cls).get(name[len("self."):], []), key)
        return _keyed_role(Frame(frame.module, init, frame.cls), ast.Name(parameter, ast.Load()), key, depth + 1)
    if "." in name:
        return None
    if name in parameter_names(frame.scope):
        if frame.caller is not None:
            argument = frame.arguments.get(name)
            return _keyed_role(frame.caller, argument, key, depth + 1) if argument is not None else None
        if not isinstance(frame.scope, FUNCTION_TYPES):
            return None
        roles = [
            _keyed_role(Frame(context.module, context.scope, context.cls), argument, key, depth + 1)
            for call, context in callers(frame.module, frame.scope)
            if (argument := bind_arguments(Callee(frame.module, frame.scope), call).get(name)) is not None
        ]
        return functools.reduce(either, roles) if roles else None
    stored = stored_values(frame.module, frame.scope, name, key)
    if not stored or any(value is None for value in stored):
        return None
    return functools.reduce(either, (role_in_frame(frame, value, assigning) or _constructed_role(frame.module, value) for value in stored))


def _built_entries_role(module: "ModuleModel", values: list[ast.expr], key: str) -> Role | None:
    """The role of `self.optimizers['cls']` where the class builds the dict itself: every entry
    one constructor call (`{name: torch.optim.Adam(m.parameters()) for name, m in ...}`), or a
    `{...}` literal's entry under the key."""
    roles = []
    for value in values:
        if isinstance(value, ast.DictComp):
            roles.append(_constructed_role(module, value.value))
        elif isinstance(value, ast.Dict):
            entry = next((v for k, v in zip(value.keys, value.values) if isinstance(k, ast.Constant) and k.value == key), None)
            roles.append(_constructed_role(module, entry) if entry is not None else None)
        else:
            return None
    return functools.reduce(either, roles) if roles else None


def _free_variable_role(frame: Frame, name: str, assigning: frozenset[str]) -> Role | None:
    """A name a nested function reads from the function enclosing it (an L-BFGS `closure()`
    running `model`): its role there, in the caller's frame when the enclosing function is the
    one calling it (`optimizer.step(closure)`)."""
    enclosing = frame.module.parents.scope_of(frame.scope)
    if not isinstance(enclosing, FUNCTION_TYPES):
        return None
    if frame.caller is not None and frame.caller.scope is enclosing:
        outer = frame.caller
    else:
        outer = Frame(frame.module, enclosing, frame.module.parents.enclosing_class(enclosing))
    return role_in_frame(outer, ast.Name(name, ast.Load()), assigning)


def wrapped_by_subclass(module: "ModuleModel", cls: ast.ClassDef, name: str) -> Role | None:
    """`self.model` of a base class's training loop that a subclass (a DDP strategy or a
    multi-GPU trainer, maybe in its own module) wraps in DDP (`self.model = DDP(self.model)` in
    its `__init__`, then `super().train_epoch()`): DDP whenever that subclass runs the loop.
    The subclasses of another module are looked for among the modules importing the class."""

    def compute() -> Role | None:
        for owner, _ in subclasses_of(module, cls):
            if owner.roles.named_role(name) is Role.DDP_MODEL:
                return Role.DDP_MODEL
        return None

    return module.memo(("wrapped by subclass", id(cls), name), compute)


def inherited_role(module: "ModuleModel", cls: ast.ClassDef, name: str) -> Role | None:
    """`self.model` of a base class in another module (a property there that wraps the model
    in DDP): the role that module gives it."""
    for base_module, _ in class_hierarchy(module, cls)[1:]:
        if base_module is not module:
            role = base_module.roles.named_role(name)
            if role is not None:
                return role
    return None


def combined_role(module: "ModuleModel", cls: ast.ClassDef, attribute: str) -> Role | None:
    """A mixin reads `self.model` that it never sets: the classes combining it with other bases
    (`class MMFTrainer(TrainingLoopMixin, DeviceMixin, BaseTrainer)`, where DeviceMixin wraps
    `self.model` in DDP) give it the role those bases do, when every such class agrees."""
    return module.memo(("combined role", id(cls), attribute), lambda: _combined_role(module, cls, attribute))


def _combined_role(module: "ModuleModel", cls: ast.ClassDef, attribute: str) -> Role | None:
    if any(attribute in m.class_attributes(c) or attribute in m.methods(c) for m, c in class_hierarchy(module, cls)):
        return None  # the class or its bases set it (or define it): what they set is what it is
    roles = {
        next((r for m, c in class_hierarchy(owner, combined) if c is not cls
              and (r := m.roles.named_role(f"self.{attribute}")) is not None), None)
        for owner, combined in subclasses_of(module, cls)
    }
    return roles.pop() if len(roles) == 1 else None


def object_attribute_role(module: "ModuleModel", cls: ast.ClassDef, attribute: str, field: str) -> Role | None:
    """The role of `self.<attribute>.<field>` where `self.<attribute>` holds an object of a
    project class that sets `self.<field>` from its constructor (`self.downstream =
    self._get_downstream()` ... `return ModelEntry(ddp_model, name)`): what the constructor
    call passes for it."""
    roles = set()
    for value in module.class_attributes(cls).get(attribute, []):
        built = _constructed_object(module, cls, value, cls, 0)
        if built is None:
            return None
        call_module, call, (owner_module, owner) = built
        parameter = constructor_parameter(owner_module, owner, field)
        if parameter is None:
            return None
        init = Callee(owner_module, owner_module.methods(owner)["__init__"], owner)
        argument = bind_arguments(init, call).get(parameter)
        roles.add(call_module.roles.of(argument) if argument is not None else None)
    return roles.pop() if len(roles) == 1 else None


def ddp_object_fields(module: "ModuleModel", cls: ast.ClassDef) -> frozenset[str]:
    """`self.<attribute>.<field>` spellings of the class whose role is a DDP model (see
    object_attribute_role): the lines that call one hold a forward."""

    def compute() -> frozenset[str]:
        found = set()
        if not module.roles.named(Role.DDP_MODEL):
            return frozenset()  # no DDP model made here for an object to hold
        for attribute, values in module.class_attributes(cls).items():
            built = _constructed_object(module, cls, values[0], cls, 0) if values else None
            if built is None:
                continue
            owner_module, owner = built[2]
            for field in constructor_attributes(owner_module, owner):
                if object_attribute_role(module, cls, attribute, field) is Role.DDP_MODEL:
                    found.add(f"self.{attribute}.{field}")
        return frozenset(found)

    return module.memo(("ddp object fields", id(cls)), compute)


def _constructed_object(module: "ModuleModel", cls: ast.ClassDef, value: ast.expr, scope: ast.AST, depth: int):
    """(module, constructor call, (class module, class)) of the project object `value` builds,
    directly or as the one thing a chain of project functions returns."""
    if not isinstance(value, ast.Call) or depth > 3:
        return None
    built = class_of_instance(module, value)
    if built is not None:
        return module, value, built
    callee = resolve_callee(module, value, CallContext(module, scope, cls))
    if callee is None or isinstance(callee.function, ast.Lambda):
        return None
    returns = callee.module.returns(callee.function)
    if len(returns) != 1:
        return None
    return _constructed_object(callee.module, callee.cls, returns[0], callee.function, depth + 1)


def constructor_role(module: "ModuleModel", cls: ast.ClassDef, attribute: str) -> Role | None:
    """The role of `self.<attribute>` set in `__init__` to its parameter: what every
    `Trainer(ddp_model, ...)` passes for it. Set again elsewhere from a call (the best model
    reloaded after training, `self.model = AdaptiveModel.load(...)`), it holds either (`either`)."""
    init = constructing_init(module, cls)
    if init is None:
        return None
    parameter = constructor_parameter(init.module, init.cls, attribute)
    if parameter is not None:
        return _construction_roles(module, cls, init).get(parameter)
    parameter = held_parameter(module, cls, attribute)
    if parameter is None:
        return None
    passed = _construction_roles(module, cls, init).get(parameter)
    set_anew = [v for v in module.class_attributes(cls)[attribute] if given_parameter(v, {parameter}) is None]
    return functools.reduce(either, [_constructed_role(module, v) for v in set_anew], passed)


def _construction_roles(module: "ModuleModel", cls: ast.ClassDef, init: Callee) -> dict[str, Role]:
    """Roles of the parameters of the `__init__` building `cls` runs: its own (whoever calls
    it), or a base class's, which only the constructions of `cls` bind (`CausalTrainer(ddp_model,
    ...)` running `BaseTrainer.__init__`)."""
    if init.cls is cls:
        return parameter_roles(module, init.function)
    return module.memo(
        ("construction roles", id(cls)),
        lambda: _agreed_roles((call, context, init) for call, context in instantiations(module, cls)),
        while_computing={},
    )


def parameter_roles(module: "ModuleModel", function: ast.AST) -> dict[str, Role]:
    """Roles of a function's parameters that every caller agrees on (`train_one_epoch(ddp_model,
    ...)` makes `model` a DDP model there), or DDP where one caller passes a DDP model and the
    others something of no role, as for `ddp_model if distributed else model` (see `either`)."""
    if not isinstance(function, FUNCTION_TYPES):
        return {}

    def compute() -> dict[str, Role]:
        constructed = module.parents.enclosing_class(function) if function.name == "__init__" else None
        return _agreed_roles(
            (call, context, Callee(module, function, constructed or bound_class(module, function, call)))
            for call, context in callers(module, function)
        )

    return module.memo(("parameter roles", id(function)), compute, while_computing={})


def _agreed_roles(calls) -> dict[str, Role]:
    """What the calls `(call, context, callee)` pass for each parameter of their callee, where
    they agree (see `either`)."""
    found: dict[str, set] = {}
    for call, context, callee in calls:
        caller = Frame(context.module, context.scope, context.cls)
        for param, argument in bind_arguments(callee, call).items():
            found.setdefault(param, set()).add(role_in_frame(caller, argument) or _constructed_role(context.module, argument))
    agreed = {p: functools.reduce(either, roles) for p, roles in found.items()}
    return {p: role for p, role in agreed.items() if role is not None}


def value_outside(frame: Frame, name: str) -> ast.expr | None:
    """The value a name has that is not assigned in the frame's own code: the argument for a
    parameter, the one computed value of `self.flag` in the class, or what the one caller of
    the unit passes."""
    head, _, rest = name.partition(".")
    if not rest and head in frame.arguments:
        argument = frame.arguments[head]
        return _in_caller(frame, argument) or argument
    if head == "self" and rest and "." not in rest and frame.cls is not None:
        values = [v for v in frame.module.class_attributes(frame.cls).get(rest, ()) if not isinstance(v, ast.Constant)]
        return values[0] if len(values) == 1 else None
    if frame.caller is None and not rest and isinstance(frame.scope, FUNCTION_TYPES):
        passed = {
            ast.dump(value) if value is not None else None: value
            for call, context in callers(frame.module, frame.scope)
            for param, argument in bind_arguments(Callee(frame.module, frame.scope, bound_class(frame.module, frame.scope, call)), call).items()
            if param == head
            for value in [_read_at(context, call, argument)]
        }
        return next(iter(passed.values())) if len(passed) == 1 else None
    return None


def _read_at(context: CallContext, call: ast.Call, argument: ast.expr) -> ast.expr | None:
    """An argument as the caller's code gives it: a local name by its value before the call."""
    if not isinstance(argument, ast.Name) or not context.module.scope(context.scope).before(argument.id, call.lineno):
        return argument
    return _value_before(context.module, context.scope, call, argument.id)


def _value_before(module: "ModuleModel", scope: ast.AST, call: ast.Call, name: str) -> ast.expr | None:
    """What the code of `scope` gives `name` before `call`: a flag its branches set (`if n >= k:
    apply = True else: apply = False`) as the test for it, else its last `=` assignment; None
    when that is no plain assignment."""
    earlier = module.scope(scope).before(name, call.lineno)
    holding = module.parents.holding(scope, call) if len(earlier) > 1 else None
    branched = set_in_branches(module.parents, holding, name, earlier) if holding is not None else None
    if branched is not None:
        return branched
    last = earlier[-1] if earlier else None
    return last.value if isinstance(last, (ast.Assign, ast.AnnAssign)) else None


def switch_every_caller_sets(frame: Frame, name: str) -> bool | None:
    """The one truth value every call of the unit's function gives its parameter `name`: a
    literal, a name the caller only ever sets to that literal (`is_adversarial = False; train(...,
    is_adversarial)`), or the default. None when a call passes anything else, or nothing calls it."""
    function = frame.scope
    if frame.caller is not None or not isinstance(function, FUNCTION_TYPES) or frame.module.scope(function).assignments.get(name):
        return None
    values = set()
    for call, context in callers(frame.module, function):
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        bound = bind_arguments(Callee(frame.module, function, bound_class(frame.module, function, call)), call)
        values.add(_truth(context, bound[name] if name in bound else parameter_defaults(function).get(name)))
    return values.pop() if len(values) == 1 and None not in values else None


def _truth(context: CallContext, value: ast.expr | None) -> bool | None:
    """A literal's truth, or the one literal every assignment of a caller's local name gives it."""
    if isinstance(value, ast.Name) and value.id not in parameter_names(context.scope):
        assigned = context.module.scope(context.scope).assignments.get(value.id, ())
        truths = {_truth(context, s.value) if isinstance(s, ast.Assign) and not isinstance(s.value, ast.Name) else None for s in assigned}
        return truths.pop() if len(truths) == 1 else None
    return bool_literal(value)


def _in_caller(frame: Frame, argument: ast.expr) -> ast.expr | None:
    """The value of a name the caller passed (`apply = i % k == 0; self.train_batch(x, apply)`),
    read in the caller's own code before the call: a name of the caller means nothing here."""
    name = dotted(argument) if isinstance(argument, (ast.Name, ast.Attribute)) else None
    caller, call = frame.caller, frame.call
    if name is None or caller is None or call is None or name == "self":
        return None
    if caller.module.scope(caller.scope).before(name, call.lineno):
        return _value_before(caller.module, caller.scope, call, name)
    return value_outside(caller, name)


def _constructed_role(module: "ModuleModel", expr: ast.expr) -> Role | None:
    if isinstance(expr, ast.Call):
        qualname = module.imports.qualname(expr.func)
        return classify_constructor(qualname) if qualname else None
    return None


def bound_class(module: "ModuleModel", function: ast.AST, call: ast.Call) -> ast.ClassDef | None:
    """The class of a method called on an object (`self.step(...)`, `trainer.train(...)`), whose
    first parameter the object fills; None for a function."""
    return module.parents.enclosing_class(function) if isinstance(call.func, ast.Attribute) else None


def passed_for(module: "ModuleModel", function: ast.AST, expr: ast.expr, line: int):
    """(caller's module, argument, caller's scope, call line) for each call of `function`, for the
    parameter `expr` names when it is not reassigned before `line`; None when `expr` is no such
    parameter, False when a caller passes nothing the model can read for it."""
    if not (isinstance(expr, ast.Name) and isinstance(function, FUNCTION_TYPES)) or expr.id not in parameter_names(function):
        return None
    if module.scope(function).before(expr.id, line):
        return None
    passed = []
    constructed = module.parents.enclosing_class(function) if function.name == "__init__" else None
    for call, context in callers(module, function):
        argument = bind_arguments(Callee(module, function, constructed or bound_class(module, function, call)), call).get(expr.id)
        if argument is None:
            return False
        passed.append((context.module, argument, context.scope, call.lineno))
    return passed


def handed_over(module: "ModuleModel", expr: ast.expr, scope: ast.AST, line: int, depth: int = 0) -> list[tuple["ModuleModel", ast.expr, ast.AST, int]]:
    """Where the object `expr` names at `line` comes from, as (module, expression, scope, line):
    itself, or, for a parameter (or `self.x` set to a constructor parameter), what every caller
    passes, followed up to MAX_HANDS calls; [] when a caller passes nothing the model can read."""
    if dotted(expr) is None:
        return [(module, expr, scope, line)]
    value, value_scope, value_line = module.values.reaching_value(expr, scope, line)
    if value is None and isinstance(expr, ast.Name):
        parameter, function, at = expr, scope, line
    elif isinstance(value, ast.Name) and value.id in parameter_names(value_scope):
        parameter, function, at = value, value_scope, value_line
    else:
        return [(module, expr, scope, line)]
    passed = passed_for(module, function, parameter, at) if depth < MAX_HANDS else None
    if passed is None:
        return [(module, expr, scope, line)]
    if not passed:
        return []
    return [origin for owner, argument, caller, call_line in passed for origin in handed_over(owner, argument, caller, call_line, depth + 1)]


def constructions(module: "ModuleModel", obj: ast.expr, scope: ast.AST, line: int, expr: ast.expr):
    """(module, call, scope, line, `expr` as spelled there) for each call that builds the object
    `obj` names at `line`: in the unit itself, or where the callers build what they hand in, with
    each parameter `expr` reads replaced by what that code passes for it (`config` for `config`)."""
    for owner, handed, there, at in handed_over(module, obj, scope, line):
        value, value_scope, value_line = owner.values.reaching_value(handed, there, at) if dotted(handed) else (handed, there, at)
        if isinstance(value, ast.Call):
            yield owner, value, value_scope, value_line, _as_passed_to(module, expr, scope, line, owner, there)


def _as_passed_to(module: "ModuleModel", expr: ast.expr, scope: ast.AST, line: int, owner: "ModuleModel", there: ast.AST) -> ast.expr:
    """`expr` as the code of `there` spells it: each name it reads replaced by what that code
    passes for it (itself where `there` is `expr`'s own scope)."""

    def passed(name: ast.Name) -> ast.expr | None:
        return next((e for m, e, s, _ in handed_over(module, name, scope, line) if m is owner and s is there), None)

    return expr if owner is module and there is scope else with_names_replaced(expr, passed)


def spelled_in(module: "ModuleModel", node: ast.AST, scope: ast.AST, line: int):
    """The nodes of `node`, and of the values the names it reads hold at `line` (one step:
    `T_max=total_steps`, `total_steps = iterations * accum`)."""
    yield from ast.walk(node)
    for name in {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}:
        value, _, _ = module.values.reaching_value(ast.Name(name), scope, line)
        if value is not None:
            yield from ast.walk(value)
