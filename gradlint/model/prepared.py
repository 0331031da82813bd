"""Objects handed to a framework's `prepare(...)` (Accelerate, Fabric's setup): the framework's
wrapper decides when they act (an AcceleratedScheduler steps only when gradients synchronise)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradlint.model.events import STEPS
from gradlint.model.frames import constructions, handed_over, spelled_in
from gradlint.model.names import dotted
from gradlint.model.roles import Role

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

PREPARE_METHODS = frozenset({"prepare", "prepare_model", "prepare_optimizer", "prepare_scheduler", "setup", "setup_optimizers"})


def prepared_names(model: "ModuleModel") -> frozenset[str]:
    """Names passed to, or assigned from, an accelerator's `prepare(...)`."""

    def compute() -> frozenset[str]:
        names: set[str] = set()
        for stmt in model.statements:
            value = getattr(stmt, "value", None)
            if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
                continue
            if value.func.attr not in PREPARE_METHODS or model.roles.of(value.func.value) is not Role.ACCELERATOR:
                continue
            names.update(n for n in map(dotted, value.args) if n)
            for target in getattr(stmt, "targets", [getattr(stmt, "target", None)]):
                elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
                names.update(n for n in map(dotted, elements) if n)
        return frozenset(names)

    return model.memo(("prepared",), compute)


def is_prepared(model: "ModuleModel", event) -> bool:
    """The object `event` calls a method of was handed to `prepare(...)`: in its own module, or
    by every caller that hands it in (`Trainer(model, optimizer, accelerator)` after
    `accelerator.prepare(...)` in the script)."""
    module = event.module or model
    receiver = event.node.func.value if isinstance(event.node, ast.Call) and isinstance(event.node.func, ast.Attribute) else None
    if receiver is None or event.scope is None:
        return False
    origins = handed_over(module, receiver, event.scope, event.node.lineno)
    return bool(origins) and all(dotted(expr) in prepared_names(owner) for owner, expr, _, _ in origins)


def accelerate_window(model: "ModuleModel", event) -> ast.expr | None:
    """N of the Accelerate accumulation window `event` runs in: inside `accelerator.accumulate(...)`
    of an Accelerator built with `gradient_accumulation_steps=N` (N not the literal 1), here or by
    the callers handing it in, and not under `if accelerator.sync_gradients:`. There the prepared
    optimizer steps once per window, and anything not prepared acts every micro-batch."""
    module = event.module or model
    if any(g.holds and _tests_sync(g.test) for g in event.guards):
        return None  # `if accelerator.sync_gradients:` (maybe `and` other tests): at the window's end only
    for context in _accumulate_contexts(event):
        for built in _accelerators_built(module, context.func.value, event.scope, context.lineno):
            steps = next((k.value for k in built.keywords if k.arg == "gradient_accumulation_steps"), None) if built else None
            if steps is not None and not (isinstance(steps, ast.Constant) and steps.value == 1):
                return steps
    return None


def divides_nothing(model: "ModuleModel", event) -> bool:
    """`accelerator.backward(loss)` outside any `accumulate(...)`, of an Accelerator built (here or
    by every caller handing it in) with no accumulation window: it scales for mixed precision
    and divides the loss by nothing, as `loss.backward()` would."""
    module = event.module or model
    node = event.node
    if _accumulate_contexts(event):
        return False
    built = _accelerators_built(module, node.func.value, event.scope, node.lineno) if isinstance(node.func, ast.Attribute) else []
    return bool(built) and all(b is not None and _without_window(b) for b in built)


def _accumulate_contexts(event) -> list[ast.Call]:
    """The `accelerator.accumulate(...)` contexts around the event."""
    return [c for c in event.contexts if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "accumulate"]


def _accelerators_built(module: "ModuleModel", accelerator: ast.expr, scope: ast.AST, line: int) -> list[ast.Call | None]:
    """The `Accelerator(...)` calls that built the object `accelerator` names, one per place it
    comes from (None where that place builds it some other way)."""
    found = []
    for owner, expr, where, at in handed_over(module, accelerator, scope, line):
        value = owner.values.reaching_value(expr, where, at)[0] if dotted(expr) else None
        built = isinstance(value, ast.Call) and (owner.imports.qualname(value.func) or "").endswith("Accelerator")
        found.append(value if built else None)
    return found


def _without_window(built: ast.Call) -> bool:
    """No `gradient_accumulation_steps` above 1, no accumulation or DeepSpeed plugin, nothing
    handed in through `**kwargs`."""
    keywords = {k.arg: k.value for k in built.keywords}
    steps = keywords.get("gradient_accumulation_steps")
    return (
        None not in keywords and not built.args
        and (steps is None or isinstance(steps, ast.Constant) and steps.value == 1)
        and not {"gradient_accumulation_plugin", "deepspeed_plugin"} & set(keywords)
    )


def _tests_sync(test: ast.expr) -> bool:
    """`accelerator.sync_gradients`, alone or as a part of an `and`."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    return any(isinstance(part, ast.Attribute) and part.attr == "sync_gradients" for part in parts)


def schedule_counts_micro_batches(model: "ModuleModel", sched, factor: ast.expr) -> bool:
    """The scheduler was built with the window's factor in its arguments
    (`num_warmup_steps=args.warmup * args.gradient_accumulation_steps`), or in a value one of them
    names (`T_max=total_steps` with `total_steps = iterations * accum`): its schedule is counted
    in micro-batches, so stepping it on every one keeps to it. A scheduler handed in is read where
    the callers build it, the factor spelled as they pass its parts (`config` for `config`)."""
    module = sched.module or model
    receiver = sched.node.func.value if isinstance(sched.node, ast.Call) and isinstance(sched.node.func, ast.Attribute) else None
    if receiver is None or sched.scope is None:
        return False
    for owner, call, scope, line, wanted in constructions(module, receiver, sched.scope, sched.node.lineno, factor):
        spelling = ast.dump(wanted)
        if any(ast.dump(n) == spelling for n in spelled_in(owner, call, scope, line)):
            return True
    return False


def events_in_accelerate_windows(model: "ModuleModel", loop, kind):
    """(event, N, the prepared optimizer's step) for each event of `kind` that runs on every
    micro-batch of an `accelerator.accumulate(...)` window of N, in a loop stepping a prepared
    optimizer (which steps once per window)."""
    step = next((e for e in loop.of(*STEPS) if is_prepared(model, e)), None)
    for event in loop.of(kind) if step is not None else ():
        window = accelerate_window(model, event)
        if window is not None:
            yield event, window, step


def accumulating_accelerator(model: "ModuleModel", event) -> str:
    """The accelerator whose `accumulate(...)` window `event` runs in, as written there."""
    module = event.module or model
    context = _accumulate_contexts(event)[0]
    return module.source(context.func.value) if module is model else ast.unparse(context.func.value)


# what only a DeepSpeed engine (or Accelerate's DeepSpeed state) has
DEEPSPEED_ATTRIBUTES = frozenset({"get_global_grad_norm", "deepspeed_plugin", "deepspeed_config"})


def runs_under_deepspeed(model: "ModuleModel", node: ast.AST) -> bool:
    """The code asks for a DeepSpeed engine's own state (`model.get_global_grad_norm()`,
    `accelerator.state.deepspeed_plugin`): Accelerate runs it on DeepSpeed, whose engine
    accumulates, clears and steps by its own schedule."""
    return any(isinstance(n, ast.Attribute) and n.attr in DEEPSPEED_ATTRIBUTES for n in ast.walk(node))
