"""GL402: a sync switch DDP never reads in time: `no_sync()` around backward() alone, or
`require_backward_grad_sync` set between the forward and the backward."""

from __future__ import annotations

import ast
from typing import Iterator

from gradlint.fixplan import FixPlan, MoveStatement
from gradlint.model import ModuleModel
from gradlint.model.callees import CallContext, callers, resolve_callee
from gradlint.model.events import is_apex_scale_loss
from gradlint.model.names import dotted, names_sharded_class, partial_target
from gradlint.model.values import nodes_on_lines
from gradlint.rules.base import Finding, Rule
from gradlint.rules.shared import contains

# Calls a with-body may make without running the model: backward and arithmetic on the loss.
INERT_METHODS = frozenset({"backward", "scale", "mean", "sum", "item", "detach", "float", "div", "mul", "div_", "mul_"})
INERT_FUNCTIONS = frozenset({"print", "len", "float"})
INSPECTING = frozenset({"hasattr", "getattr", "isinstance", "setattr", "print", "type", "id", "len"})
LOOPS = (ast.For, ast.AsyncFor, ast.While)
# Statements that must not move into the context with the forward.
STEPPING = frozenset({"step", "zero_grad", "unscale_", "update", "clip_grad_norm_", "clip_grad_value_"})


class NoSyncWithoutForward(Rule):
    code = "GL402"
    fix_applicability = "safe"
    name = "no-sync-without-forward"
    summary = "`with model.no_sync():` wraps only backward(), or the sync flag is set after the forward: DDP reads it in the forward"
    triggers = ("no_sync", "require_backward_grad_sync")

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        for with_stmt, context, ddp in _no_sync_contexts(model):
            if not _only_backward(with_stmt, ddp):
                continue
            scope = model.parents.scope_of(with_stmt)
            forward = _forward_before(model, scope, with_stmt.lineno, ddp)
            if forward is None and _enclosing_loop(model, scope, with_stmt.lineno) is None:
                # a per-micro-batch helper: the forward ran in its caller, before the call
                forward = next(
                    (f for call, ctx in callers(model, scope) if ctx.module is model
                     for f in [_forward_before(model, ctx.scope, call.lineno, ddp)] if f is not None),
                    None,
                )
            if forward is None:
                continue
            message = (
                f"`with {model.source(context)}:` wraps the backward but not the forward "
                f"(`{model.source(forward)}`): DDP decides in the forward whether the backward "
                f"all-reduces, so gradients are still synchronised on every micro-batch; run the "
                f"forward inside the context too"
            )
            yield Finding(self.code, model.span(context), message, _fix(model, forward, with_stmt))
        yield from self._late_switches(model)

    def _late_switches(self, model: ModuleModel) -> Iterator[Finding]:
        """`ddp.require_backward_grad_sync = last` set after the forward and before the backward
        of the iteration: DDP read the flag in the forward, so each backward syncs as the
        iteration before asked (the window's first micro-batch all-reduces, the one that steps
        does not)."""
        for stmt, target in _sync_flag_assignments(model):
            ddp = dotted(target.value)
            scope = model.parents.scope_of(stmt)
            loop = _enclosing_loop(model, scope, stmt.lineno)
            if ddp is None or loop is None or _sharded(model, stmt, ddp):
                continue
            forward = _forward_before(model, scope, stmt.lineno, ddp)
            if forward is None or not _backward_after(loop, stmt) or _set_before(model, loop, ddp, forward):
                continue
            if not _accumulates(model, stmt):
                continue  # a window fixed at one micro-batch: the flag says "sync" every time
            message = (
                f"`{model.source(target)}` is set after the forward (`{model.source(forward)}`) it is "
                f"meant for: DDP reads the flag in the forward, so each micro-batch's backward syncs "
                f"as the one before it asked (the window's first micro-batch all-reduces and the one "
                f"that steps does not, so ranks step on gradients the others never averaged); set "
                f"it before the forward"
            )
            yield Finding(self.code, model.span(target), message, _early_switch_fix(model, forward, stmt))


def _no_sync_contexts(model: ModuleModel):
    """(with statement, context expression, DDP model) for `with model.no_sync():`, also through
    `ctx = model.no_sync() if ... else nullcontext()`."""
    for stmt, context in nodes_on_lines(model, ("no_sync", "with ")):
        if not isinstance(stmt, (ast.With, ast.AsyncWith)) or all(i.context_expr is not context for i in stmt.items):
            continue
        owner = next(filter(None, map(_no_sync_owner, _context_values(model, stmt, context))), None)
        if owner and not _sharded(model, stmt, owner):
            yield stmt, context, owner


def _sync_flag_assignments(model: ModuleModel) -> Iterator[tuple[ast.Assign, ast.Attribute]]:
    """(statement, target) for `x.require_backward_grad_sync = value`."""
    for stmt, node in nodes_on_lines(model, ("require_backward_grad_sync",)):
        if isinstance(stmt, ast.Assign) and any(node is t for t in stmt.targets) and isinstance(node, ast.Attribute) \
                and node.attr == "require_backward_grad_sync":
            yield stmt, node


def _accumulates(model: ModuleModel, stmt: ast.stmt) -> bool:
    """The training loops around the statement may accumulate (or none is known): where every
    one's window is fixed at a single micro-batch, the boundary the flag tests is always there."""
    around = [loop for loop in model.loops if loop.node.lineno <= stmt.lineno <= loop.node.end_lineno]
    return not around or any(loop.accumulation is not None for loop in around)


def _backward_after(loop: ast.stmt, stmt: ast.stmt) -> bool:
    """A backward runs later in the same pass of the loop's body."""
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "backward"
        and n.lineno > stmt.end_lineno
        for s in loop.body for n in ast.walk(s)
    )


def _set_before(model: ModuleModel, loop: ast.stmt, ddp: str, forward: ast.Call) -> bool:
    """The flag is also set before the forward in the loop's body (the late one then only
    restores it)."""
    return any(
        isinstance(n, ast.Attribute) and n.attr == "require_backward_grad_sync" and isinstance(n.ctx, ast.Store)
        and dotted(n.value) == ddp and n.lineno < forward.lineno
        for s in loop.body for n in ast.walk(s)
    )


def _context_values(model: ModuleModel, stmt: ast.stmt, context: ast.expr) -> list[ast.expr]:
    """What a `with` item may be: itself, or for a name (`with ctx:`) or a call of one (`with
    ctx():`) every value the function gave that name before, on whichever branch; for a call of
    a function of the module (`with maybe_no_sync(step):`), every value it returns."""
    scope = model.parents.scope_of(stmt)
    if isinstance(context, ast.Call):
        callee = resolve_callee(model, context, CallContext(model, scope, model.parents.enclosing_class(scope)))
        if callee is not None and callee.module is model and not isinstance(callee.function, ast.Lambda):
            return [r for r in model.returns(callee.function) if r is not None]
    name = context.func if isinstance(context, ast.Call) and not context.args and not context.keywords else context
    if not isinstance(name, ast.Name):
        return [context]
    earlier = model.scope(scope).before(name.id, stmt.lineno)
    return [value for s in earlier if (value := getattr(s, "value", None)) is not None]


def _no_sync_owner(value: ast.expr) -> str | None:
    """The model whose `no_sync` the value is, called or not (`model.no_sync()`, `model.no_sync`
    called later, either side of a conditional expression)."""
    return next(
        (dotted(n.value) for n in ast.walk(value) if isinstance(n, ast.Attribute) and n.attr == "no_sync"),
        None,
    )


def _sharded(model: ModuleModel, stmt: ast.stmt, owner: str) -> bool:
    """The model is FSDP (a parameter annotated so, a name made by the wrapper or by a helper of
    the module that returns one, also as an element of a tuple it returns): FSDP reads its
    no_sync flag in the backward's hooks, so a context around the backward alone is right."""
    scope = model.parents.scope_of(stmt)
    arguments = getattr(scope, "args", None)
    makers = [a.annotation for a in (arguments.args + arguments.kwonlyargs if arguments else [])
              if a.arg == owner and a.annotation is not None]
    return any(names_sharded_class(m) for m in makers) or _made_sharded(model, owner, scope, stmt.lineno, depth=0)


def _made_sharded(model: ModuleModel, name: str, scope: ast.AST, line: int, depth: int) -> bool:
    """The assignment of `name` reaching `line` gives it an FSDP model: `FSDP(...)`, or what a
    helper of the module returns, the element `name` unpacks (`student, params = load(...)`),
    by the helper's annotation or by what its returns are made of (a few helpers deep)."""
    if depth > 3:
        return False
    value, where, _ = model.values.reaching_value(ast.parse(name, mode="eval").body, scope, line)
    element = None
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Call) and isinstance(getattr(value.slice, "value", None), int):
        value, element = value.value, value.slice.value  # the element a tuple-unpacking assignment takes
    if not isinstance(value, ast.Call):
        return False
    if element is None and names_sharded_class(value.func):
        return True
    helper = resolve_callee(model, value, CallContext(model, where, model.parents.enclosing_class(where)))
    if helper is None or helper.module is not model or not isinstance(helper.function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if names_sharded_class(_part(helper.function.returns, element)):
        return True
    returned = [_part(value, element) for value in model.returns(helper.function)]
    return bool(returned) and all(
        isinstance(value, ast.Name) and _made_sharded(model, value.id, helper.function, value.lineno, depth + 1)
        for value in returned
    )


def _part(value: ast.expr | None, element: int | None) -> ast.expr | None:
    """The `element`-th part of a returned tuple (or of a `Tuple[...]` annotation); the value
    itself when no element is asked."""
    if element is None or value is None:
        return value
    if isinstance(value, ast.Subscript):  # `Tuple[FullyShardedDataParallel, ...]`
        value = value.slice
    if isinstance(value, ast.Tuple) and element < len(value.elts):
        return value.elts[element]
    return None


def _only_backward(with_stmt: ast.stmt, ddp: str) -> bool:
    """The body runs a backward and calls nothing that could run the model (apex's
    `with amp.scale_loss(loss, optimizer) as scaled_loss:` only scales the loss)."""
    calls = [n for stmt in with_stmt.body for n in ast.walk(stmt) if isinstance(n, ast.Call)]
    for call in calls:
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in INERT_METHODS and dotted(func.value) != ddp:
            continue
        if isinstance(func, ast.Name) and func.id in INERT_FUNCTIONS:
            continue
        if is_apex_scale_loss(call):
            continue
        return False
    return any(isinstance(c.func, ast.Attribute) and c.func.attr == "backward" for c in calls)


def _enclosing_loop(model: ModuleModel, scope: ast.AST, line: int) -> ast.stmt | None:
    loops = [
        s for s in model.statements
        if isinstance(s, LOOPS) and s.lineno < line <= s.end_lineno and model.parents.scope_of(s) is scope
    ]
    return max(loops, key=lambda s: s.lineno, default=None)


def _forward_before(model: ModuleModel, scope: ast.AST, line: int, ddp: str) -> ast.Call | None:
    """The last call before `line`, in the innermost loop around it (else in the function) and
    not on the other branch of an `if` from it, that runs the DDP model: `ddp(x)`, `ddp.forward(x)`,
    a call given `ddp`, or a helper that calls it."""
    region = _enclosing_loop(model, scope, line) or scope
    body = region.body if hasattr(region, "body") else []
    calls = sorted(
        (n for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Call) and n.lineno < line),
        key=lambda n: (n.lineno, n.col_offset),
    )
    context = CallContext(model, scope, model.parents.enclosing_class(scope))
    branches = [(n.body, n.orelse) for n in ast.walk(region) if isinstance(n, ast.If) and n.orelse]
    running_partials = _partials_given(body, ddp)
    for call in reversed(calls):
        if any(_within(call, a) and _within(line, b) or _within(call, b) and _within(line, a)
               for a, b in branches):
            continue  # `if update: ...clip(model)... else: with model.no_sync(): ...`
        if partial_target(call) is not None:
            continue  # `partial(training_losses, ddp_model, ...)` runs nothing yet: its calls do
        if _runs(call, ddp) or isinstance(call.func, ast.Name) and call.func.id in running_partials:
            return None if _under_no_sync(region, call) else call
        callee = resolve_callee(model, call, context)
        if callee is not None and callee.module is model and any(
            isinstance(n, ast.Call) and _runs(n, ddp) for n in ast.walk(callee.function)
        ):
            return call
    return None


def _partials_given(body: list[ast.stmt], ddp: str) -> set[str]:
    """Names bound to `functools.partial(f, ddp_model, ...)`: calling one runs the DDP model."""
    return {
        target.id for stmt in body for node in ast.walk(stmt)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and partial_target(node.value) is not None
        and _runs(node.value, ddp) for target in node.targets if isinstance(target, ast.Name)
    }


def _under_no_sync(region: ast.AST, call: ast.Call) -> bool:
    """The forward already runs in a no_sync context (the caller's, for a per-micro-batch helper)."""
    return any(
        isinstance(n, (ast.With, ast.AsyncWith)) and _within(call, n.body) and any(
            isinstance(i.context_expr, ast.Call) and getattr(i.context_expr.func, "attr", None) == "no_sync"
            for i in n.items
        )
        for n in ast.walk(region)
    )


def _within(node, block: list[ast.stmt]) -> bool:
    line = node if isinstance(node, int) else node.lineno
    return block[0].lineno <= line <= block[-1].end_lineno


def _runs(call: ast.Call, ddp: str) -> bool:
    if dotted(call.func) in (ddp, f"{ddp}.forward"):
        return True
    name = (dotted(call.func) or "").rsplit(".", 1)[-1]
    inspects = name in INSPECTING or name.startswith("clip_grad")  # clip_grad_norm(model, max_norm)
    return not inspects and any(_gives(a, ddp) for a in [*call.args, *(k.value for k in call.keywords)])


def _gives(argument: ast.expr, ddp: str) -> bool:
    """The argument is the DDP model, maybe as one side of a choice (`ddp_model if is_dist else
    model`, `training_losses(model=ddp_model, ...)`)."""
    if isinstance(argument, ast.IfExp):
        return _gives(argument.body, ddp) or _gives(argument.orelse, ddp)
    return dotted(argument) == ddp


def _assigned(stmt: ast.stmt) -> set[str]:
    """Plain names a statement assigns, on any of its branches."""
    return {
        n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _fix(model: ModuleModel, forward: ast.Call, with_stmt: ast.stmt) -> FixPlan | None:
    """Move the statements from the forward to the `with` into its body, when they share a block
    and no step, clip or zero_grad would move with them."""
    block = model.parents.block.get(with_stmt) or []
    first = next((s for s in block if contains(s, forward)), None)
    if first is None or block.index(first) > block.index(with_stmt):
        return None
    between = block[block.index(first) : block.index(with_stmt)]
    if any(
        isinstance(n, ast.Call) and (getattr(n.func, "attr", None) or getattr(n.func, "id", None)) in STEPPING
        for s in between for n in ast.walk(s)
    ):
        return None
    # what picks the context (`ctx = model.no_sync if ... else nullcontext`) stays before it
    needed = {n.id for item in with_stmt.items for n in ast.walk(item.context_expr) if isinstance(n, ast.Name)}
    staying = [s for s in between if _assigned(s) & needed]
    moved = [s for s in between if s not in staying]
    produced = set().union(*map(_assigned, moved))
    if not any(contains(s, forward) for s in moved) or any(
        isinstance(n, ast.Name) and n.id in produced for s in staying for n in ast.walk(s)
    ):
        return None  # the forward picks the context, or the choice reads what it computes
    anchor = model.position(with_stmt.body[0])
    return FixPlan(
        "Move the forward into the no_sync context",
        tuple(MoveStatement(model.position(s), anchor, "before") for s in moved),
    )


def _early_switch_fix(model: ModuleModel, forward: ast.Call, stmt: ast.stmt) -> FixPlan | None:
    """Move the flag's statement (with the `if ddp:` around it, when that holds only it) to
    before the statement running the forward, when both share a block and nothing in between
    assigns a name the flag's value reads."""
    movable = model.parents.movable(stmt)
    block = model.parents.block.get(movable) or []
    first = next((s for s in block if contains(s, forward)), None)
    if first is None or block.index(first) > block.index(movable):
        return None
    read = {n.id for n in ast.walk(movable) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    if any(_assigned(s) & read for s in block[block.index(first) : block.index(movable)]):
        return None
    return FixPlan(
        "Set the sync flag before the forward",
        (MoveStatement(model.position(movable), model.position(first), "before"),),
    )
