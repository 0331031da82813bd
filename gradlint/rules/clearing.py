"""GL104: an optimizer that steps with gradients nobody ever clears."""

from __future__ import annotations

import ast
from typing import Iterator

from gradlint.fixplan import InsertStatement
from gradlint.model import Kind, ModuleModel, TrainingLoop
from gradlint.model.clearing import clearings_around, clears_for
from gradlint.model.events import STEPS
from gradlint.model.guards import has_modulo
from gradlint.model.names import dotted, within
from gradlint.model.scopes import innermost
from gradlint.rules.base import Finding, Rule
from gradlint.rules.shared import code, end_of_step_run


class MissingZeroGrad(Rule):
    """Per optimizer, so a GAN that zeroes D's optimizer but never G's is found. Loops only:
    a step function (`def train_step`) is cleared by its caller as often as not, and a loop
    whose gradients a framework manages is skipped."""

    code = "GL104"
    name = "missing-zero-grad"
    summary = "an optimizer steps in a loop whose gradients are never cleared"
    fix_applicability = "unsafe"

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        for loop in model.loops:
            if isinstance(loop.node, (ast.FunctionDef, ast.AsyncFunctionDef)) or loop.of(Kind.FRAMEWORK):
                continue
            steps = {}
            for step in loop.of(*STEPS):
                if step.optimizer is not None:
                    steps.setdefault(step.optimizer, []).append(step)
            clearings = clearings_around(model, loop) if steps else []
            for optimizer, its_steps in steps.items():
                if _built_in_loop(model, loop, optimizer):
                    continue
                relevant = [c for c in clearings if clears_for(model, [c], optimizer, set(steps))]
                # the walk names a helper's `optimizer.zero_grad()` by what each call passes it
                zeros = [z for z in loop.of(Kind.ZERO_GRAD) if z.optimizer is not None and _zeroed(optimizer, {z.optimizer})]
                if zeros:
                    step = _step_never_cleared(model, loop, its_steps, zeros, relevant)
                    if step is None:
                        continue
                    never = (
                        f"that are never cleared where it runs (`{model.source(zeros[0].node)}` at line "
                        f"{zeros[0].node.lineno} runs only on the other side of a test)"
                    )
                else:
                    step = its_steps[0]
                    if any(z.optimizer is None for z in loop.of(Kind.ZERO_GRAD)):
                        continue  # a clear the model cannot attribute (an inherited helper's `optimizer.zero_grad()`)
                    if relevant and not _only_before(model, loop, step, relevant):
                        continue
                    never = (
                        "that are never cleared" if not relevant else
                        f"cleared only before the loop (`{model.source(relevant[0].node)}` at line {relevant[0].node.lineno})"
                    )
                message = (
                    f"{code(model, step)} steps with gradients {never}: `.grad` keeps "
                    f"the sum of every backward so far, so step k applies the gradients of batches "
                    f"1..k and the updates grow without bound; call `{optimizer}.zero_grad()` after the step"
                )
                yield Finding(self.code, model.span(step.anchor), message, self._fix(model, loop, step, optimizer))

    def _fix(self, model, loop, step, optimizer):
        if step.inlined or step.scope is not loop.scope:
            return None
        anchor = end_of_step_run(model, loop, step)
        return self.plan(f"Insert `{optimizer}.zero_grad()` after the step", InsertStatement(f"{optimizer}.zero_grad()", model.position(anchor), "after"))


def _zeroed(optimizer: str, zeroed: set[str | None]) -> bool:
    """The optimizer, or the one a project wrapper holds (`self.optimizer.opt.zero_grad()` in
    the wrapper's `pre_step`, while the loop steps `self.optimizer`), or the wrapper holding it
    (`optimizer.zero_grad()` of a wrapper whose method clears the `optimizer._optim` the loop
    steps), is cleared in the loop."""
    return any(name and (within(name, optimizer) or within(optimizer, name)) for name in zeroed)


def _step_never_cleared(model: ModuleModel, loop: TrainingLoop, steps, zeros, clearings):
    """A step on a path of the loop where no clear runs: every `zero_grad()` of its optimizer
    sits on the other side of a settings test (`if use_amp: scaled backward, step` / `else:
    zero_grad, backward, step`), and nothing else could clear its gradients (no clear outside
    these, none the model cannot attribute)."""
    own = {id(z.node) for z in zeros}
    if any(id(c.node) not in own and not _between_runs(model, loop, c.node) for c in clearings):
        return None
    unattributed = [z for z in loop.of(Kind.ZERO_GRAD) if z.optimizer is None]
    return next((
        s for s in steps
        if all(_apart_every_pass(z, s) for z in zeros) and all(_apart_every_pass(z, s) for z in unattributed)
    ), None)


def _between_runs(model: ModuleModel, loop: TrainingLoop, node: ast.AST) -> bool:
    """A clear in the loop's own function code, before or after the loop (a validation pass's
    `model.zero_grad()` once per epoch): it runs between runs of the loop, never between two of
    its iterations."""
    if loop.node.lineno <= getattr(node, "lineno", 0) <= loop.node.end_lineno or not any(n is node for n in ast.walk(loop.scope)):
        return False
    return model.parents.scope_of(innermost(loop.scope, node)) is loop.scope


def _apart_every_pass(clear, step) -> bool:
    """The clear and the step never run in one pass, and a setting keeps them apart (not a test of
    the window's position: SQLova's clear at `i % N == 0` and step at `i % N == N - 1` run in the
    same window, on different micro-batches)."""
    def positional(guard) -> bool:
        return guard.boundary is not None or guard.inside_window is not None

    by_position = any(
        gc.excludes(gs) and (positional(gc) or positional(gs)) for gc in clear.guards for gs in step.guards
    )
    return clear.exclusive_with(step) and not by_position


def _only_before(model: ModuleModel, loop: TrainingLoop, step, clearings) -> bool:
    """Every clearing that could clear the step's gradients is a statement of the loop's own
    function before the loop (`optimizer.zero_grad()` once, then `for batch in loader:
    backward(); step()`), and the step runs on every iteration: each step adds to the last. A
    step every N micro-batches of the pass (`if (i + 1) % K == 0:`) adds to the last window's
    too, though a loop around clears once per pass (per epoch)."""
    if step.loops or step.elsewhere:
        return False
    periodic = bool(step.guards) and _every_window_of_the_pass(loop, step)
    if step.guards and not periodic:
        return False
    function = loop.scope
    return all(
        c.node.end_lineno < loop.node.lineno and (_run_once(model, function, c.node) or periodic and _in_function(function, c.node))
        for c in clearings
    )


def _every_window_of_the_pass(loop: TrainingLoop, step) -> bool:
    """The step's only tests are a modulo window's (`(i + 1) % K == 0`, its tail too) in a loop
    that is not itself one window long (`for micro in range(K):`): a pass steps many times."""
    accumulation = loop.accumulation
    if accumulation is None or accumulation.guard is None or not has_modulo(accumulation.guard.test):
        return False
    bound = loop.node.iter if isinstance(loop.node, (ast.For, ast.AsyncFor)) else None
    if isinstance(bound, ast.Call) and dotted(bound.func) == "range" and any(ast.dump(a) == ast.dump(accumulation.factor) for a in bound.args):
        return False
    return all(g.boundary is not None for g in step.guards)


def _in_function(function: ast.AST, node: ast.AST) -> bool:
    return any(inner is node for inner in ast.walk(function))


def _run_once(model: ModuleModel, function: ast.AST, node: ast.AST) -> bool:
    """The node runs once per call of `function`: in its own code (no closure's), in no loop
    (`model.zero_grad()` atop an outer loop clears for each of its iterations)."""
    if not any(inner is node for inner in ast.walk(function)):
        return False  # another function's, or another module's
    statement = innermost(function, node)
    return model.parents.scope_of(statement) is function and not any(
        isinstance(s, (ast.For, ast.AsyncFor, ast.While)) for s in model.parents.chain(statement)
    )


def _built_in_loop(model: ModuleModel, loop: TrainingLoop, optimizer: str) -> bool:
    """An optimizer constructed inside the loop starts from fresh parameters every iteration."""
    first, last = loop.node.lineno, loop.node.end_lineno
    assignments = model.scope(loop.scope).assignments.get(optimizer, ())
    return any(first <= a.lineno <= last for a in assignments)
