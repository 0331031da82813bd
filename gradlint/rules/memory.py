"""GL6xx: training code that keeps memory alive it does not need."""

from __future__ import annotations

import ast
from typing import Iterator

from gradlint.fixplan import FixPlan, ReplaceExpression
from gradlint.model import FUNCTION_TYPES, Kind, ModuleModel
from gradlint.model.callees import CallContext, bind_arguments, class_of_scope, resolve_callee
from gradlint.model.grad_mode import gradients_off
from gradlint.model.graph_holders import DETACHING_METHODS, NUMBER_TYPES, GraphHolders, no_graph, scaled_term
from gradlint.model.names import assigned_value, dotted
from gradlint.model.values import iter_calls, nodes_on_lines
from gradlint.rules.base import Finding, Rule

LOOPS = (ast.For, ast.AsyncFor, ast.While)


class LossKeptWithGraph(Rule):
    code = "GL601"
    fix_applicability = "safe"
    name = "loss-kept-with-graph"
    summary = "a running total of the loss tensor keeps every iteration's autograd graph alive"

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        seen = set()
        for loop in model.loops:
            # a step method's totals on `self` outlive each call, as a loop's outlive each pass
            method = isinstance(loop.node, FUNCTION_TYPES) and model.parents.enclosing_class(loop.node) is not None
            if not isinstance(loop.node, LOOPS) and not method:
                continue
            returned, unpacked = _returning_their_loss(model, loop)
            holders = GraphHolders.of(model, loop.node, _backpropagated_here(loop) | unpacked)
            for stmt, total, loss, part_of in _running_sums(model, loop.node, holders, returned):
                if method and not total.startswith("self."):
                    continue
                if id(stmt) in seen or _backpropagated(model, _holder(total), model.parents.scope_of(stmt)) or _reset_each_iteration(model, loop.node, stmt, total):
                    continue
                if gradients_off(model, stmt) or _fallback_of_a_conversion(model, loop, stmt, loss):
                    continue  # added under `torch.no_grad()`: the sum records no graph
                seen.add(id(stmt))
                keep = "detach()" if _used_as_tensor(model, _holder(total)) else "item()"
                reset = _later_reset(loop.node, stmt, total)
                each = "call's" if method else "iteration's"
                held = (
                    f"keeps every {each} graph (and the activations it saved) alive until it is "
                    f"reset at line {reset.lineno}: memory grows with each step of that window"
                    if reset is not None else
                    f"keeps every {each} graph (and the activations it saved) alive, and memory "
                    f"grows with each step"
                )
                message = (
                    f"`{model.source(stmt)}` adds {_described(model, loss, part_of)}: `{total}` "
                    f"{held}; accumulate `{_converted(model, loss, keep)}`"
                )
                yield Finding(self.code, model.span(stmt), message, _conversion(model, loss, keep, "Accumulate"))
            for call, loss, part_of, callee, total in _meter_updates(model, loop, holders):
                if id(call) in seen or _under_no_grad(model, loop, call) or _fallback_of_a_conversion(model, loop, call, loss):
                    continue
                seen.add(id(call))
                owner = callee.module.parents.enclosing_class(callee.function)
                message = (
                    f"`{model.source(call)}` hands {_described(model, loss, part_of)} to `{owner.name}.{callee.function.name}`, "
                    f"which adds it to `{total}`: the object keeps every iteration's graph (and the "
                    f"activations it saved) alive, and memory grows with each step; pass `{_converted(model, loss, 'detach()')}`"
                )
                yield Finding(self.code, model.span(call), message, _conversion(model, loss, "detach()", "Pass"))


def _described(model: ModuleModel, value: ast.expr, part_of: str | None) -> str:
    if part_of is None:
        return "the loss tensor with its autograd graph"
    return f"`{model.source(value)}` with the autograd graph it shares with the backpropagated `{part_of}`"


def _converted(model: ModuleModel, value: ast.expr, method: str) -> str:
    """The value with no graph: `loss.item()`; `float(out.get("loss", 0))`, whose default has no
    tensor method."""
    source = model.source(value)
    return f"float({source})" if _defaulted(value) else f"{source}.{method}"


def _conversion(model: ModuleModel, value: ast.expr, method: str, verb: str) -> FixPlan | None:
    """The fix converting the value where it is handed over; none for `out.get("loss", 0)`: a
    float in place of a tensor changes what the total is, not only what it keeps."""
    if _defaulted(value):
        return None
    converted = _converted(model, value, method)
    return FixPlan(f"{verb} `{converted}`", (ReplaceExpression(model.position(value), model.source(value), converted),))


def _defaulted(value: ast.expr) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get"


def _fallback_of_a_conversion(model: ModuleModel, loop, node: ast.AST, value: ast.expr) -> bool:
    """`try: meter.update(loss.item())` / `except: meter.update(loss)`: the handler runs only
    when the value could not be converted (a plain number, as the loss is on a branch that
    computes no term), so what it adds holds no graph."""
    name = dotted(value)
    stmt = node if isinstance(node, ast.stmt) else model.parents.holding(model.parents.scope_of(loop.node), node)
    if name is None or stmt is None:
        return False
    for inner in model.parents.chain(stmt):
        parent = model.parents.parent.get(inner)
        if isinstance(parent, ast.Try) and any(inner in handler.body for handler in parent.handlers):
            return any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in DETACHING_METHODS
                and dotted(n.func.value) == name
                for s in parent.body for n in ast.walk(s)
            )
    return False


def _under_no_grad(model: ModuleModel, loop, call: ast.Call) -> bool:
    """The meter is handed the loss under `torch.no_grad()`: what it adds records no graph."""
    holder = model.parents.holding(model.parents.scope_of(loop.node), call)
    return holder is not None and gradients_off(model, holder)


def _meter_updates(model: ModuleModel, loop, holders: "GraphHolders"):
    """(call, loss argument, the loss it is part of, method, total) for `meter.update(loss, n)` in the loop, where the
    method of a project class adds the parameter given the loss to an attribute of its object
    (`self.sum += val * n`, an AverageMeter) and the object outlives the iteration."""
    if not holders.losses:
        return
    candidates, assigned_here = [], set()
    for node in ast.walk(loop.node):  # one pass: what the loop assigns, and calls handed a loss
        if isinstance(node, ast.Assign):
            assigned_here.update(dotted(t) for t in node.targets)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and any(
            holders.holding(a) is not None for a in [*node.args, *(k.value for k in node.keywords)]
        ):
            candidates.append(node)
    context = CallContext(model, loop.scope, class_of_scope(model, loop.scope))
    for node in candidates:
        owner = node.func.value  # `losses.update(...)`, or a meter a dict holds: `meters["loss"].update(...)`
        receiver = dotted(owner.value if isinstance(owner, ast.Subscript) else owner)
        if receiver is None or receiver in assigned_here:
            continue  # a meter made in the iteration dies with it
        callee = resolve_callee(model, node, context)
        if callee is None or callee.cls is None or not isinstance(callee.function, FUNCTION_TYPES):
            continue
        for param, argument in bind_arguments(callee, node).items():
            loss, part_of = holders.holding(argument) or (None, None)
            if loss is not None and _converted_before(model, loop.node, loss, node.lineno):
                continue
            total = _attribute_sum_of(callee, param) if loss is not None else None
            if total is not None:
                yield node, loss, part_of, callee, total
                break


def _attribute_sum_of(callee, param: str) -> str | None:
    """`self.sum` when the method runs `self.sum += param` (or `param * n`), or folds the
    parameter into the attribute's own value (`self.avg = (self.avg * self.n + param) / (self.n +
    1)`), with the parameter as it was passed (not converted first)."""
    scope = callee.module.scope(callee.function)
    for stmt in ast.walk(callee.function):
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add):
            total = dotted(stmt.target)
            folded = _loss_term(stmt.value, {param}) is not None
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.BinOp):
            total = dotted(stmt.targets[0])
            operands = {dotted(leaf) for leaf in _arithmetic_operands(stmt.value)}
            folded = total in operands and param in operands
        else:
            continue
        if folded and total and total.startswith("self.") and not scope.before(param, stmt.lineno):
            return total
    return None


def _arithmetic_operands(expr: ast.expr):
    """The operands arithmetic combines into `expr` (through `+ - * /` and signs, not calls)."""
    if isinstance(expr, ast.BinOp):
        yield from _arithmetic_operands(expr.left)
        yield from _arithmetic_operands(expr.right)
    elif isinstance(expr, ast.UnaryOp):
        yield from _arithmetic_operands(expr.operand)
    else:
        yield expr


def _backpropagated_here(loop) -> set[str]:
    """Names of the loop's own tensors that backward runs on: a helper's `loss.backward()` names
    the helper's `loss` (unless the loop passed it in), not what the helper returns to the loop."""
    names = set()
    view = loop.ordered_by_hand or loop  # `accelerator.backward(loss)` runs on `loss` as well
    for backward in view.of(Kind.BACKWARD):
        source = backward.loss_source
        if source is not None and source.scope is loop.scope:
            names.add(dotted(scaled_term(source.expr)))  # `(loss / accum).backward()` runs on `loss`'s graph
        elif source is None and backward.site is None and backward.loss is not None:
            names.add(dotted(scaled_term(backward.loss)))
    return names - {None}


def _returning_their_loss(model: ModuleModel, loop) -> tuple[set[int], set[str]]:
    """Ids of the loop's calls of a helper that runs backward on its own loss and returns that
    tensor (`total += train_step(batch)`, `train_step` ending in `return loss`): the loop then
    holds the loss, graph and all; and the names the loop unpacks it into from a helper
    returning it in a tuple (`loss, metadata = microbatch_step(...)`, `return loss, metadata`)."""
    calls, names = set(), set()
    context = CallContext(model, loop.scope, class_of_scope(model, loop.scope))
    for backward in (loop.ordered_by_hand or loop).of(Kind.BACKWARD):
        source, site = backward.loss_source, backward.site
        if source is None or site is None or source.scope is loop.scope:
            continue
        callee = resolve_callee(model, site, context)
        if callee is None or callee.function is not source.scope:
            continue  # a helper of the helper: what the call returns is another matter
        loss = dotted(scaled_term(source.expr))
        returned = source.module.returns(source.scope)
        if loss is not None and returned and all(dotted(r) == loss for r in returned):
            calls.add(id(site))
        unpacked = _unpacked_loss(loop.node, site, returned, loss)
        if unpacked is not None:
            names.add(unpacked)
    return calls, names


def _unpacked_loss(loop: ast.AST, site: ast.Call, returned: list[ast.expr], loss: str | None) -> str | None:
    """`loss, metadata = step(...)` in the loop, where every `return` of `step` is a tuple with
    its backpropagated loss at the same place: the name the loop binds that loss to."""
    positions = {
        next((i for i, e in enumerate(r.elts) if dotted(e) == loss), None) if isinstance(r, ast.Tuple) else None
        for r in returned
    }
    stmt = next((n for n in ast.walk(loop) if isinstance(n, ast.Assign) and n.value is site), None)
    if loss is None or len(positions) != 1 or None in positions or stmt is None or len(stmt.targets) != 1:
        return None
    (position,) = positions
    target = stmt.targets[0]
    if not (isinstance(target, ast.Tuple) and position < len(target.elts)):
        return None
    return dotted(target.elts[position])


def _running_sums(model: ModuleModel, loop: ast.stmt, holders: "GraphHolders", loss_calls: set[int]):
    """(statement, total, loss node, the loss it is part of) for `total += loss` and `total =
    total + loss` in the loop (`totals['loss'] += loss` too), where `loss` is (a size-weighted)
    tensor holding a backpropagated graph, or the call of a helper returning the loss it ran
    backward on (`loss_calls`)."""
    for stmt in ast.walk(loop):
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add):
            total, value = _spelled_total(stmt.target), stmt.value
        elif (
            isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.BinOp)
            and isinstance(stmt.value.op, ast.Add) and dotted(stmt.value.left) == dotted(stmt.targets[0])
        ):
            total, value = dotted(stmt.targets[0]), stmt.value.right
        else:
            continue
        read = _read_entry(model, loop, value, stmt.lineno)
        loss, part_of = (value, None) if id(value) in loss_calls else holders.holding(read) or (None, None)
        loss = value if loss is read and read is not value else loss  # converted where it is added
        if total and loss is not None and total not in holders.losses and not _converted_before(model, loop, loss, stmt.lineno):
            yield stmt, total, loss, part_of


def _read_entry(model: ModuleModel, loop: ast.stmt, value: ast.expr, line: int) -> ast.expr:
    """`value` of `value = results[key]` before `line` in the loop, maybe reshaped or converted
    from itself after (`value = value.reshape(shape)`): the entry it reads (for `totals[key] +=
    value`); the expression itself otherwise."""
    if not isinstance(value, ast.Name):
        return value
    earlier = sorted(
        (s for s in model.scope(model.parents.scope_of(loop)).before(value.id, line) if s.lineno >= loop.lineno),
        key=lambda s: s.lineno,
    )
    read = assigned_value(earlier[0], value.id) if earlier else None
    if not (isinstance(read, ast.Subscript) and not isinstance(read.slice, ast.Constant)):
        return value
    remade = [assigned_value(s, value.id) for s in earlier[1:]]
    return read if all(v is not None and any(dotted(n) == value.id for n in ast.walk(v)) for v in remade) else value


def _spelled_total(target: ast.expr) -> str | None:
    """`total`, `self.total`, or an entry of a dict of totals read with a constant key
    (`loss_dict['train_loss']`) or a key the loop runs over (`results_epoch[key]`)."""
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) and dotted(target.value):
        return f"{dotted(target.value)}[{target.slice.value!r}]"
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Name) and dotted(target.value):
        return f"{dotted(target.value)}[{target.slice.id}]"
    return dotted(target)


def _holder(total: str) -> str:
    """The name holding a total: the dict of `loss_dict['train_loss']`, the total itself else."""
    return total.split("[", 1)[0]


def _written(target: ast.expr, total: str) -> bool:
    """An assignment to the total, or to the dict holding it."""
    return _spelled_total(target) in (total, _holder(total))


def _converted_before(model: ModuleModel, loop: ast.stmt, loss: ast.expr, line: int) -> bool:
    """The loop sets the name to a number or a detached copy before `line` (`loss =
    loss.item()` after the backward, then `meter.update(loss)`), maybe through a scaling of it
    (`loss = loss / world_size`) or a helper it is handed to that converts what it returns
    (`[loss] = all_reduce_to_floats([loss])`): no graph is held there."""
    name = dotted(loss)
    scope = model.parents.scope_of(loop)
    earlier = sorted((s for s in model.scope(scope).before(name, line) if s.lineno >= loop.lineno), key=lambda s: s.lineno) if name else []
    if name and _detached_in_place(loop, name, earlier[-1].lineno if earlier else loop.lineno, line):
        return True  # `loss.detach_()` after its last assignment
    while earlier:
        latest = earlier.pop()
        value = assigned_value(latest, name)
        if no_graph(value) or _converted_by_helper(model, scope, latest, name):
            return True
        rescaled = isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Mult, ast.Div)) and name in (dotted(value.left), dotted(value.right))
        if not rescaled:
            return False
    return False


def _detached_in_place(loop: ast.stmt, name: str, after: int, before: int) -> bool:
    """`name.detach_()` as a statement of the loop between two lines."""
    return any(
        isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
        and node.value.func.attr == "detach_" and dotted(node.value.func.value) == name and after <= node.lineno < before
        for node in ast.walk(loop)
    )


def _converted_by_helper(model: ModuleModel, scope: ast.AST, stmt: ast.stmt, name: str) -> bool:
    """`[loss] = reduce_for_logging(variables=[loss])`: the loss is handed to a project function
    that converts tensors to numbers (`.item()`, `float(...)`), and what it returns replaces it."""
    value = getattr(stmt, "value", None)
    if not isinstance(value, ast.Call) or not any(dotted(n) == name for n in ast.walk(value) if n is not value.func):
        return False
    callee = resolve_callee(model, value, CallContext(model, scope, class_of_scope(model, scope)))
    if callee is None or not isinstance(callee.function, FUNCTION_TYPES):
        return False
    return any(
        isinstance(n, ast.Call) and (
            (isinstance(n.func, ast.Attribute) and n.func.attr in DETACHING_METHODS)
            or (isinstance(n.func, ast.Name) and n.func.id in NUMBER_TYPES)
        )
        for n in ast.walk(callee.function)
    )


def _loss_term(value: ast.expr, losses: set[str]) -> ast.expr | None:
    term = scaled_term(value)
    return term if dotted(term) in losses else None


def _backpropagated(model: ModuleModel, total: str, scope: ast.AST) -> bool:
    """`total.backward()` (or a backward of anything computed from it): where the total lives,
    in the function holding the sum for a local name (a helper's own `loss.backward()` is
    another `loss`), anywhere in the module for an attribute."""
    local = "." not in total
    return any(
        isinstance(call.func, ast.Attribute) and call.func.attr == "backward"
        and any(dotted(n) == total for n in ast.walk(call))
        and (not local or model.parents.scope_of(stmt) is scope)
        for stmt, call in iter_calls(model, ("backward",))
    )


def _reset_each_iteration(model: ModuleModel, loop: ast.stmt, stmt: ast.stmt, total: str) -> bool:
    """`total = 0` (or any fresh value) earlier in the iteration, in the sum's block or one
    enclosing it inside the loop, or on every branch of an `if` there (`if not fertility: s =
    cost(...) else: s = cost(..., out=out)`, then `s += fertility_cost`): the sum lives one
    iteration only."""
    node: ast.AST | None = stmt
    while node is not None and node is not loop:
        block = model.parents.block.get(node, [])
        before = block[: block.index(node)] if node in block else []
        if any(_sets_afresh(s, total) for s in before):
            return True
        node = model.parents.parent.get(node)
    return False


def _sets_afresh(stmt: ast.stmt, total: str) -> bool:
    """The statement gives `total` a value not made from itself, on every path through it."""
    if isinstance(stmt, ast.Assign):
        return any(_written(t, total) for t in stmt.targets) and not any(dotted(n) == _holder(total) for n in ast.walk(stmt.value))
    if isinstance(stmt, ast.If):
        return bool(stmt.orelse) and all(any(_sets_afresh(s, total) for s in branch) for branch in (stmt.body, stmt.orelse))
    return False


def _later_reset(loop: ast.stmt, stmt: ast.stmt, total: str) -> ast.Assign | None:
    """`total = 0.0` after the sum inside the loop (a logging or accumulation window): the graphs
    live until that reset, not for the whole run."""
    return next(
        (
            node for node in ast.walk(loop)
            if isinstance(node, ast.Assign) and node.lineno > stmt.lineno and _sets_afresh(node, total)
        ),
        None,
    )


def _used_as_tensor(model: ModuleModel, total: str) -> bool:
    """`total.item()`, `total.cpu()`, `dist.all_reduce(total)`: a float would not do."""
    last = total.rsplit(".", 1)[-1]
    for _, node in nodes_on_lines(model, (last,)):
        if isinstance(node, ast.Attribute) and dotted(node.value) == total:
            return True
        if isinstance(node, ast.Call) and any(dotted(a) == total for a in node.args):
            name = node.func.id if isinstance(node.func, ast.Name) else ""
            if name not in ("print", "float", "str", "round", "int", "format"):
                return True
    return False
