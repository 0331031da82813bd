"""Where a tensor's value comes from, for rules about expressions (log of a softmax, a sigmoid fed
to a with-logits loss, a loss summed across iterations).

The origin of an expression is the torch function that computed it: called directly
(`F.softmax(x, -1)`, `x.softmax(-1)`, `torch.sigmoid(x)`), through a variable assigned once
before the use, or through a module object (`self.act = nn.Sigmoid()`, `nn.Softmax(dim=1)(x)`,
the last layer of an `nn.Sequential`). Anything else has no origin: the model cannot tell.
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Iterator

from gradlint.model.callees import RETURNS_SELF, CallContext, class_of_scope, constructed_with, constructor, module_forwards, parameter_names, resolve_callee
from gradlint.model.frames import passed_for
from gradlint.model.names import dotted
from gradlint.model.scopes import expression_roots

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

MAX_DEPTH = 10  # hops: names to values, calls into returns, list items
# torch.nn module classes -> the function their forward computes
CLAMPS = frozenset({"clamp", "clip", "clamp_", "clip_"})
JOINING_FUNCTIONS = frozenset({"cat", "concat", "concatenate", "stack"})
MODULE_FUNCTIONS = {"Softmax": "softmax", "Sigmoid": "sigmoid", "LogSoftmax": "log_softmax", "Softmax2d": "softmax"}
# Tensor methods that compute a new value from their receiver (x.softmax(-1), x.log())
TENSOR_METHODS = frozenset({"softmax", "log_softmax", "sigmoid", "log", "exp", "mean", "sum"})
# Tensor methods that pick or rearrange elements of their receiver without changing them
# (`probs.gather(1, actions)`, `out.view(-1)`), or only copy or cast them (`recon.float()` for a
# loss computed in full precision)
SAME_VALUES = frozenset({
    "gather", "index_select", "take_along_dim", "masked_select",
    "view", "reshape", "squeeze", "unsqueeze", "flatten", "contiguous", "permute", "transpose",
    "float", "double", "half", "bfloat16", "clone", "to", "cuda", "cpu", "type_as",
})
# torch functions resampling their input's values (`F.interpolate(probs, size)`: probabilities
# stay probabilities between the pixels)
RESAMPLING_FUNCTIONS = frozenset({"interpolate", "upsample", "upsample_bilinear", "upsample_nearest"})


@dataclass(frozen=True)
class Origin:
    """The call that computed a value. `function` is its last name (`softmax`, `sigmoid` ...);
    `argument` the tensor it was computed from; `module` the constructor call of the nn.Module
    object that computed it (`nn.Softmax(dim=1)`), when it was one; `direct` when the call is the
    expression itself rather than reached through a variable; `whole` unless the use sees only
    some of its elements, rearranged (`probs.gather(1, a)`, `out.view(-1)`), or a helper's return
    (`self.pi(s)`): there the call cannot simply be rewritten at the use; `switched` when the
    value is the call's only on one branch of an `if` (`if not train: out = torch.sigmoid(out)`),
    and on the other what the call was given."""

    function: str
    call: ast.Call
    argument: ast.expr | None
    module: ast.Call | None = None
    direct: bool = True
    whole: bool = True
    switched: bool = False


class Values:
    """Origins of expressions of one module."""

    def __init__(self, model: "ModuleModel"):
        self.model = model

    def origin(self, expr: ast.expr, scope: ast.AST, line: int, depth: int = 0) -> Origin | None:
        """What computed `expr` where it is used (`scope` is the function holding the use)."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(expr, ast.Call):
            return self._call_origin(expr, scope, line, depth)
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Call) and self._torch_function(expr.value.func):
            found = self._call_origin(expr.value, scope, line, depth)  # `F.softmax(scores, dim=0)[0]`: some of its elements
            return replace(found, whole=False) if found else None
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Call) and _int_constant(expr.slice):
            return self._returned_origin(expr.value, scope, depth, element=expr.slice.value)  # `model(x)[0]`
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, (ast.Name, ast.Attribute)) and dotted(expr.value):
            found = self._elements_origin(expr.value, scope, line, depth)  # `probs[:, 1]`, `out[..., 4]`
            return replace(found, direct=False, whole=False) if found else None
        if isinstance(expr, (ast.Name, ast.Attribute)) and dotted(expr):
            found = self._name_origin(expr, scope, line, depth)
            return replace(found, switched=True) if found and self._switched(expr, scope, line) else found
        return None

    def _name_origin(self, expr: ast.Name | ast.Attribute, scope: ast.AST, line: int, depth: int) -> Origin | None:
        value, value_scope, value_line = self.reaching_value(expr, scope, line)
        if value is None:
            return self._passed_origin(expr, scope, line, depth) if isinstance(expr, ast.Name) else None
        if isinstance(value, ast.List) and not value.elts and isinstance(expr, ast.Name):
            found = self._collected_origin(expr, scope, line, depth)  # `policies[t]` of a list filled by append
            return replace(found, direct=False, whole=False) if found else None
        if isinstance(value, ast.ListComp):  # `masks = [torch.sigmoid(m) for m in masks]`: each element
            found = self.origin(value.elt, value_scope, value_line, depth + 1)
            return replace(found, direct=False, whole=False) if found else None
        found = self.origin(value, value_scope, value_line, depth + 1)
        return replace(found, direct=False) if found else None

    def _collected_origin(self, name: ast.Name, scope: ast.AST, line: int, depth: int) -> Origin | None:
        """What computed the items of a list `torch.cat(items)` joins, when the function starts
        it empty and every `append(x)` / `extend([x] * k)` since adds what one call computed
        (a decoder's per-step sigmoid outputs, concatenated over the steps)."""
        earlier = self.model.scope(scope).before(name.id, line)
        if not earlier or not (isinstance(start := _plain_value(earlier[-1], name.id), ast.List) and not start.elts):
            return None
        items = []
        for node in ast.walk(scope):
            if (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and dotted(node.func.value) == name.id
                and earlier[-1].lineno < node.lineno < line and len(node.args) == 1
            ):
                added = _added_items(node.func.attr, node.args[0])
                if added is None:
                    return None
                items += [(item, node.lineno) for item in added]
        found = [self.origin(item, scope, at, depth + 1) for item, at in items]
        if not found or None in found or len({o.function for o in found}) != 1:
            return None
        return found[0]

    def _passed_origin(self, name: ast.Name, scope: ast.AST, line: int, depth: int) -> Origin | None:
        """A parameter not reassigned before `line`: what every caller passes for it, when they
        all compute it with the same function (`loss_function(recon_batch, ...)`, `recon_batch`
        from a VAE whose decoder ends in a sigmoid). Reported without a fix: the activation is
        applied where the callers are."""
        found = [
            module.values.origin(argument, caller_scope, call_line, depth + 1)
            for module, argument, caller_scope, call_line in passed_for(self.model, scope, name, line) or ()
        ]
        if not found or None in found or len({o.function for o in found}) != 1:
            return None
        return replace(found[0], direct=False, whole=False)

    def _elements_origin(self, value: ast.expr, scope: ast.AST, line: int, depth: int) -> Origin | None:
        """What computed the elements of `value` a subscript reads at `line`: the last
        `value[...] = f(...)` written since `value` was last assigned (`out[..., 4:] =
        torch.sigmoid(out[..., 4:])`), else what computed `value` itself."""
        name = dotted(value)
        earlier = self.model.scope(scope).before(name, line)
        since = earlier[-1].lineno if earlier else 0
        writes = [s for s in self.element_writes(scope).get(name, ()) if isinstance(s, ast.Assign) and since < s.lineno < line]
        if writes:
            return self.origin(writes[-1].value, scope, writes[-1].lineno, depth + 1)
        return self.origin(value, scope, line, depth + 1)

    def element_writes(self, scope: ast.AST) -> dict[str, list[ast.Assign | ast.AugAssign]]:
        """`name[...] = value` and `name[...] /= value` statements of `scope`'s own code, by name,
        in source order."""

        def compute():
            found: dict[str, list[ast.Assign | ast.AugAssign]] = {}
            for stmt in self.model.statements:
                target = element_target(stmt)
                name = dotted(target.value) if target is not None else None
                if name and self.model.parents.scope_of(stmt) is scope:
                    found.setdefault(name, []).append(stmt)
            return found

        return self.model.memo(("element writes", id(scope)), compute)

    def reaching_value(self, expr: ast.expr, scope: ast.AST, line: int) -> tuple[ast.expr | None, ast.AST, int]:
        """The value of the one plain assignment of `expr` that reaches `line`: the last one before
        it in the function, else the only one in the class's methods (`self.x`) or the module."""
        name = dotted(expr)
        earlier = self._reaching_assignments(name, scope, line)
        if earlier:
            return (_plain_value(earlier[-1], name), scope, earlier[-1].lineno)
        if name.startswith("self."):
            cls = self.model.parents.enclosing_class(scope)
            found = [
                (stmt, method) for method in (self.model.methods(cls).values() if cls else ())
                for stmt in self.model.scope(method).assignments.get(name, ())
            ]
            if len(found) == 1:
                stmt, method = found[0]
                return _plain_value(stmt, name), method, stmt.lineno
            return None, scope, line
        if name in parameter_names(scope):
            return None, scope, line  # a parameter shadows the module's name: its callers say
        module_level = self.model.scope(self.model.tree).assignments.get(name, ())
        if len(module_level) == 1 and scope is not self.model.tree:
            return _plain_value(module_level[0], name), self.model.tree, module_level[0].lineno
        return None, scope, line

    def _reaching_assignments(self, name: str, scope: ast.AST, line: int) -> list[ast.stmt]:
        """The assignments of `name` in `scope` before `line` that can run before it (not on the
        other side of an `if` holding `line`), in source order."""
        parents = self.model.parents
        return [s for s in self.model.scope(scope).before(name, line) if not parents.on_other_branch(s, line)]

    def _switched(self, expr: ast.expr, scope: ast.AST, line: int) -> bool:
        """The last assignment of `expr` before `line` runs on one branch of an `if` that `line`
        is not under, and another value (an earlier assignment, or the parameter) reaches `line`
        when it does not: `if not train: out = torch.sigmoid(out)` then `return out` hands back
        probabilities or logits as the switch says, and `compare(a, b, train=True)` gets logits."""
        name = dotted(expr)
        parents = self.model.parents
        earlier = self._reaching_assignments(name, scope, line)
        if not earlier or len(earlier) == 1 and name not in parameter_names(scope):
            return False
        return any(
            isinstance(node, ast.If) and not node.lineno <= line <= node.end_lineno
            for node in parents.chain(earlier[-1])[1:]
        )

    def _torch_function(self, func: ast.expr) -> bool:
        """`F.softmax`, `torch.log`: a function of torch's, named through an import."""
        qualname = self.model.imports.qualname(func) or ""
        return qualname.startswith("torch.") and (dotted(func) or "").split(".")[0] in self.model.imports.aliases

    def _call_origin(self, call: ast.Call, scope: ast.AST, line: int, depth: int) -> Origin | None:
        func = call.func
        qualname = self.model.imports.qualname(func) or ""
        head = (dotted(func) or "").split(".")[0]
        if self._torch_function(func):
            last = qualname.rsplit(".", 1)[-1]
            if last in MODULE_FUNCTIONS:
                return None  # the constructor itself: its result is a module, not a tensor
            if last in JOINING_FUNCTIONS and call.args and isinstance(call.args[0], ast.Name):
                found = self._collected_origin(call.args[0], scope, line, depth)
                return replace(found, direct=False, whole=False) if found else None
            if last in JOINING_FUNCTIONS and call.args and isinstance(call.args[0], (ast.List, ast.Tuple)):
                # `torch.cat([pos.sigmoid(), neg.sigmoid()])`: what every joined piece is
                found = [self.origin(e, scope, line, depth + 1) for e in call.args[0].elts]
                if not found or None in found or len({o.function for o in found}) != 1:
                    return None
                return replace(found[0], direct=False, whole=False)
            if (last in RESAMPLING_FUNCTIONS or last in SAME_VALUES) and call.args:
                # `F.interpolate(probs, size)`, `torch.gather(probs, 1, target)`: the input's values
                found = self.origin(call.args[0], scope, line, depth + 1)
                return replace(found, direct=False, whole=False) if found else None
            return Origin(last, call, _first_argument(call))
        module = self.module_object(func, scope, line, depth)
        function = _module_function(self.model, module) if module is not None else None
        if function is not None:
            # the input of an nn.Sequential is not what its last layer was applied to
            argument = None if _is_sequential(self.model, module) else _first_argument(call)
            return Origin(function, call, argument, module)
        if module is not None or dotted(getattr(func, "value", None)) == "self":
            return self._returned_origin(call, scope, depth)  # an object or method called, not a tensor method
        if isinstance(func, ast.Attribute) and func.attr in TENSOR_METHODS and head not in self.model.imports.aliases:
            return Origin(func.attr, call, func.value)
        if isinstance(func, ast.Attribute) and head not in self.model.imports.aliases and (
            func.attr in SAME_VALUES or _caps_from_above(func.attr, call)
        ):
            found = self.origin(func.value, scope, line, depth + 1)
            return replace(found, direct=False, whole=False) if found else None
        return self._returned_origin(call, scope, depth)

    def _returned_origin(self, call: ast.Call, scope: ast.AST, depth: int, element: int | None = None) -> Origin | None:
        """The origin of what a function, method or nn.Module `forward` of the project returns,
        when it has one `return` (`def pi(self, x): ... return F.softmax(x, dim)`); `element` picks
        one item of a returned tuple (`probs, classes = model(x)`)."""
        context = CallContext(self.model, scope, class_of_scope(self.model, scope))
        callee = resolve_callee(self.model, call, context)
        # a model one of several classes builds (`net = U2NET() if full else U2NETP()`): what every
        # one of their forwards returns there, when they agree
        found = [_returned(c, element, depth) for c in ([callee] if callee else module_forwards(self.model, call, context))]
        if not found or None in found or len({o.function for o in found}) != 1:
            return None
        return found[0]

    def module_object(self, func: ast.expr, scope: ast.AST, line: int, depth: int = 0) -> ast.Call | None:
        """The constructor call of the nn.Module object `func` names (or is); `nn.Softmax(1).cuda()`
        is its constructor's module."""
        if isinstance(func, ast.Call):
            return constructor(func)
        if depth > MAX_DEPTH or not isinstance(func, (ast.Name, ast.Attribute)) or not dotted(func):
            return None
        value, value_scope, value_line = self.reaching_value(func, scope, line)
        if isinstance(value, ast.Call):
            value = constructor(value)
            receiver = value.func.value if isinstance(value.func, ast.Attribute) and value.func.attr in RETURNS_SELF else None
            if receiver is None:
                return value
            value = receiver  # `D = D.to(device)`: the module `D` was before
        if isinstance(value, (ast.Name, ast.Attribute)):
            return self.module_object(value, value_scope, value_line, depth + 1)
        return None


    def unchanged(self, expr: ast.expr, scope: ast.AST, after: int, before: int) -> bool:
        """No name `expr` reads is assigned on lines after..before (a value computed from `expr`
        at line `after` can be recomputed at line `before`)."""
        table = self.model.scope(scope).assignments
        names = {dotted(n) for n in ast.walk(expr) if isinstance(n, (ast.Name, ast.Attribute))} - {None}
        return all(not (after < s.lineno <= before) for name in names for s in table.get(name, ()))


def element_target(stmt: ast.stmt) -> ast.Subscript | None:
    """The `name[...]` a statement writes (`=` with one target, or an augmented assignment)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
    elif isinstance(stmt, ast.AugAssign):
        target = stmt.target
    else:
        return None
    return target if isinstance(target, ast.Subscript) else None


def constant_setting(model: "ModuleModel", expr: ast.expr) -> bool | None:
    """The truth of a switch the module fixes: a module-level `USE_AMP = False` no code assigns
    otherwise, or `CFG.unscale` set in the body of a module-level namespace class `CFG` that no
    code reassigns (a notebook's settings); `not` of one too. None for anything else."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        inner = constant_setting(model, expr.operand)
        return None if inner is None else not inner
    if isinstance(expr, ast.Name):
        written = module_setting(model, expr.id)
    elif isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in model.classes:
        written = class_setting(model, model.classes[expr.value.id], expr.attr)
    else:
        return None
    truths = {v.value for v in written if isinstance(v, ast.Constant) and isinstance(v.value, bool)}
    if len(truths) != 1 or not all(isinstance(v, ast.Constant) for v in written):
        return None
    return truths.pop()


def branch_setting(model: "ModuleModel", branch: ast.If) -> bool | None:
    """The truth of an `if` test the code fixes: a module's constant switch (`constant_setting`),
    or `self.<switch>` of a class every construction of which leaves (or passes) that
    `__init__` parameter at the same literal (`Trainer(model, args)` with
    `distributed_training=False`). None for anything else."""
    known = constant_setting(model, branch.test)
    if known is not None:
        return known
    flag = branch.test
    if not (isinstance(flag, ast.Attribute) and isinstance(flag.value, ast.Name) and flag.value.id == "self"):
        return None
    cls = model.parents.enclosing_class(model.parents.scope_of(branch))
    given = constructed_with(model, cls, flag.attr) if cls is not None else []
    truths = {v.value for v in given if isinstance(v, ast.Constant) and isinstance(v.value, bool)}
    return truths.pop() if given and len(truths) == 1 and all(isinstance(v, ast.Constant) for v in given) else None


def module_setting(model: "ModuleModel", name: str) -> list[ast.expr]:
    """The values the module's top level gives `name` (`ACCUMULATION_STEPS = 1` in a config
    module), when no other code of it assigns the name; [] otherwise."""
    top = [getattr(s, "value", None) for s in model.scope(model.tree).assignments.get(name, ())]
    if not top or None in top:
        return []  # most names end here, before the module-wide look below
    return top if len(_assigned_anywhere(model).get(name, [])) == len(top) else []


def class_setting(model: "ModuleModel", cls: ast.ClassDef, field: str) -> list[ast.expr]:
    """The values the body of the module's namespace class `cls` gives `field` (`accum_iter = 1`
    in `class CFG:`), when no method sets the field on `self` and no code of the module assigns
    `CFG.accum_iter` (a main's `CFG.accum_iter = args.accum`); or the one value its `__init__`
    gives it from a constant of the module (`self.accum = accum`, a notebook's `accum = 1`
    parameters cell); [] otherwise."""
    if reassigned(model, f"{cls.name}.{field}"):
        return []
    if field in model.class_attributes(cls):
        return _set_from_a_constant(model, cls, field)
    return class_body_values(cls, field)


def dict_setting(model: "ModuleModel", name: str, key: str) -> list[ast.expr]:
    """The value a module-level dict of settings gives `key` (`param = {'accum': 1, ...}`, a
    notebook's parameters cell), when the module assigns the name once and writes none of its
    elements anywhere; [] otherwise."""
    assigned = model.scope(model.tree).assignments.get(name, ())
    settings = assigned[0].value if len(assigned) == 1 and isinstance(assigned[0], ast.Assign) else None
    if not isinstance(settings, ast.Dict) or len(_assigned_anywhere(model).get(name, ())) != 1:
        return []  # assigned again somewhere
    if any((target := element_target(stmt)) is not None and dotted(target.value) == name for stmt in model.statements):
        return []  # `param['accum'] = args.accum` somewhere
    return [v for k, v in zip(settings.keys, settings.values) if isinstance(k, ast.Constant) and k.value == key]


def _copies_a_dict(init: ast.FunctionDef) -> str | None:
    """The parameter whose items `__init__` sets on `self` (`for k, v in d.items(): setattr(self,
    k, v)`), when that is all it does."""
    match init.body:
        case [ast.For(
            target=ast.Tuple(elts=[ast.Name(id=key), ast.Name(id=value)]),
            iter=ast.Call(func=ast.Attribute(value=ast.Name(id=given), attr="items"), args=[]),
            body=[ast.Expr(value=ast.Call(func=ast.Name(id="setattr"), args=[ast.Name(id="self"), ast.Name(id=k2), ast.Name(id=v2)]))],
        )] if (k2, v2) == (key, value) and given in parameter_names(init):
            return given
    return None


def instance_setting(model: "ModuleModel", built: ast.Call, cls: ast.ClassDef, field: str) -> list[ast.expr]:
    """`cfg.accum` where `cfg = Config(d=param)` and `Config.__init__` sets each item of `d` on
    `self`: what the module's settings dict `param` gives the key."""
    init = model.methods(cls).get("__init__")
    parameter = _copies_a_dict(init) if isinstance(init, ast.FunctionDef) else None
    if parameter is None:
        return []
    positional = [a.arg for a in init.args.args[1:]]
    given = next((k.value for k in built.keywords if k.arg == parameter), None)
    if given is None and parameter in positional and positional.index(parameter) < len(built.args):
        given = built.args[positional.index(parameter)]
    return dict_setting(model, given.id, field) if isinstance(given, ast.Name) else []


def _set_from_a_constant(model: "ModuleModel", cls: ast.ClassDef, field: str) -> list[ast.expr]:
    """`self.field = NAME` (or a literal) at the top of `__init__`, the only assignment of the
    field in the class, `NAME` set once at module level and no parameter of `__init__`."""
    init = model.methods(cls).get("__init__")
    setting = [
        stmt for method in model.methods(cls).values()
        for stmt in model.scope(method).assignments.get(f"self.{field}", ())
    ]
    if init is None or len(setting) != 1 or len(model.class_attributes(cls)[field]) != 1:
        return []  # set elsewhere too, or by a base class
    if setting[0] not in init.body or not isinstance(setting[0], ast.Assign):
        return []
    value = setting[0].value
    if isinstance(value, ast.Name) and value.id not in parameter_names(init):
        module_level = model.scope(model.tree).assignments.get(value.id, ())
        value = module_level[0].value if len(module_level) == 1 and isinstance(module_level[0], ast.Assign) else None
    return [value] if isinstance(value, ast.Constant) else []


def reassigned(model: "ModuleModel", name: str) -> bool:
    """Whether any code of the module assigns the dotted `name`."""
    return bool(_assigned_anywhere(model).get(name))


def is_dataclass(cls: ast.ClassDef) -> bool:
    """`@dataclass` (or `@dataclasses.dataclass(...)`): its `__init__` sets each field from the
    keyword of its name, else from the body's default."""
    return any(
        (dotted(d.func if isinstance(d, ast.Call) else d) or "").rsplit(".", 1)[-1] == "dataclass"
        for d in cls.decorator_list
    )


def class_body_values(cls: ast.ClassDef, field: str) -> list[ast.expr]:
    """The values the body of `cls` gives `field` (`accum = 1` in `class CFG:`)."""
    return [
        stmt.value for stmt in cls.body
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None
        and any(dotted(t) == field for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]))
    ]


def built_only(model: "ModuleModel", name: str) -> bool:
    """Every assignment of `name` in the module builds a new object (a constructor the roles
    know: `torch.optim.Adam(...)`), none makes it an alias of another name."""
    values = _assigned_anywhere(model).get(name, [])
    return bool(values) and bool(model.roles.constructors.get(name)) and all(isinstance(v, ast.Call) for v in values)


def _assigned_anywhere(model: "ModuleModel") -> dict[str, list[ast.expr]]:
    """Every value assigned to each dotted name, in any scope of the module."""

    def compute():
        found: dict[str, list[ast.expr]] = {}
        for node in ast.walk(model.tree):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    name = dotted(target)
                    if name is not None:
                        found.setdefault(name, []).append(node.value if not isinstance(node, ast.AugAssign) else node)
        return found

    return model.memo(("assigned anywhere",), compute)


def _returned(callee, element: int | None, depth: int) -> Origin | None:
    """The origin of what `callee` returns (its `element`-th item), when it has one `return`, or
    several that agree (`return a, sigmoid(b), c` with the head, `return a, sigmoid(b)` without)."""
    if isinstance(callee.function, ast.Lambda):
        return None
    returns = callee.module.returns(callee.function)
    if not returns or len(returns) > 1 and element is None:
        return None
    found = []
    for returned in returns:
        value = returned
        if element is not None:
            if not (isinstance(value, ast.Tuple) and element < len(value.elts)):
                return None
            value = value.elts[element]
        origin = callee.module.values.origin(value, callee.function, returned.lineno, depth + 1)
        if origin is None:
            return None
        found.append(origin)
    if len({o.function for o in found}) != 1:
        return None
    return replace(found[0], direct=False, whole=False)


def _module_function(model: "ModuleModel", constructor: ast.Call) -> str | None:
    """`softmax` for `nn.Softmax(dim=1)`, and for an `nn.Sequential(...)` whose last layer is one."""
    qualname = model.imports.qualname(constructor.func) or ""
    if not qualname.startswith("torch.nn."):
        return None
    last = qualname.rsplit(".", 1)[-1]
    if last == "Sequential" and constructor.args and isinstance(constructor.args[-1], ast.Call):
        return _module_function(model, constructor.args[-1])
    return MODULE_FUNCTIONS.get(last)


def _is_sequential(model: "ModuleModel", constructor: ast.Call) -> bool:
    return (model.imports.qualname(constructor.func) or "").endswith(".Sequential")


def _plain_value(stmt: ast.stmt, name: str) -> ast.expr | None:
    """The value of `name = value` (one target); None for tuple targets, `+=`, loops ..."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and dotted(stmt.targets[0]) == name:
        return stmt.value
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        return stmt.value
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple):
        names = [dotted(e) for e in stmt.targets[0].elts]
        if names.count(name) != 1:
            return None
        if isinstance(stmt.value, ast.Call):
            # `probs, classes = model(x)`: that item of what the call returns
            return ast.Subscript(stmt.value, ast.Constant(names.index(name)), ast.Load())
        if isinstance(stmt.value, (ast.Tuple, ast.List)) and len(stmt.value.elts) == len(names):
            return stmt.value.elts[names.index(name)]  # `outputs, scores = [], []`
    return None


def _caps_from_above(method: str, call: ast.Call) -> bool:
    """`p.clamp(max=1 - 1e-20)`: values capped from above only, so a probability that
    underflows to 0 stays 0 (a floor, `clamp(min=eps)`, changes what the value is)."""
    return method in CLAMPS and not call.args and {k.arg for k in call.keywords} == {"max"}


def _added_items(method: str, argument: ast.expr) -> list[ast.expr] | None:
    """The items `append(argument)` / `extend(argument)` add to a list (`extend([x] * r)` adds
    copies of `x`); None when they cannot be read (or the method changes the list otherwise)."""
    if method == "append":
        return [argument]
    if method != "extend":
        return None
    if isinstance(argument, ast.BinOp) and isinstance(argument.op, ast.Mult):
        argument = argument.left if isinstance(argument.left, ast.List) else argument.right
    return list(argument.elts) if isinstance(argument, (ast.List, ast.Tuple)) else None


def _int_constant(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and type(expr.value) is int


def _first_argument(call: ast.Call) -> ast.expr | None:
    if call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "input"), None)


def keyword(call: ast.Call, name: str, position: int | None = None) -> ast.expr | None:
    """The argument `name` of a call, by keyword or at `position`."""
    found = next((k.value for k in call.keywords if k.arg == name), None)
    if found is None and position is not None and len(call.args) > position:
        found = call.args[position]
    return found


# -- expressions on the lines that mention a word ------------------------------------------------

def nodes_on_lines(model: "ModuleModel", words: tuple[str, ...]) -> list[tuple[ast.stmt, ast.AST]]:
    """(statement, node) for every expression node of the statements whose own lines mention one
    of `words`, in source order. The model walks statements only; expression rules ask here, so
    only the few statements that can matter are walked."""

    def compute() -> list[tuple[ast.stmt, ast.AST]]:
        pattern = re.compile("|".join(map(re.escape, words)))
        lines = sorted({model.line_at(m.start()) for m in pattern.finditer(model.text)})

        def mentioned(first: int, last: int) -> bool:
            index = bisect.bisect_left(lines, first)
            return index < len(lines) and lines[index] <= last

        found = []
        for stmt, first, last in model.memo(("own lines",), lambda: [(s, *_own_lines(s)) for s in model.statements]):
            if not mentioned(first, last):
                continue
            found.extend((stmt, node) for root in _own_parts(stmt) for node in ast.walk(root))
        found.sort(key=lambda pair: (getattr(pair[1], "lineno", 0), getattr(pair[1], "col_offset", 0)))
        return found

    return model.memo(("nodes_on_lines", words), compute)


def _own_lines(stmt: ast.stmt) -> tuple[int, int]:
    """The lines of a statement's own parts: a compound statement's header (and decorators)."""
    first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
    body = getattr(stmt, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
        return first, max(first, body[0].lineno - 1)
    return first, stmt.end_lineno or stmt.lineno


def _own_parts(stmt: ast.stmt) -> list[ast.AST]:
    """What a statement evaluates itself (its decorators too), not its nested blocks."""
    return [*getattr(stmt, "decorator_list", ()), *expression_roots(stmt)]


def iter_calls(model: "ModuleModel", words: tuple[str, ...]) -> Iterator[tuple[ast.stmt, ast.Call]]:
    for stmt, node in nodes_on_lines(model, words):
        if isinstance(node, ast.Call):
            yield stmt, node
