"""Training loops: the units rules reason about, and how each accumulates gradients."""

from __future__ import annotations

import ast
import bisect
import itertools
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Callable

from gradlint.model.callees import Callee, CallContext, callers, class_hierarchy, class_named, class_of_instance, class_of_scope, constructed_with, parameter_names, passed_to_base_init, resolve_callee
from gradlint.model.frames import handed_over, passed_for
from gradlint.model.events import STEPS, Event, Kind, switch_owner, unit_events
from gradlint.model.guards import Boundary, Guard, has_modulo, is_tail_test, modulo_part, negated_source, switches_off
from gradlint.model.names import dotted, is_literal, names_sharded_class
from gradlint.model.spelling import call_starts
from gradlint.model.values import class_setting, dict_setting, instance_setting, is_dataclass, reassigned

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

LOOPS = (ast.For, ast.AsyncFor, ast.While)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
MICRO_BATCH_WORDS = ("micro", "chunk", "split", "accum", "shard")
BATCH_CUTS = frozenset({"split", "chunk", "tensor_split"})
RESHAPES = frozenset({"reshape", "view"})
DEVICE_MOVES = frozenset({"cpu", "cuda", "to", "contiguous"})
CALLER_SYNC_DEPTH = 3  # callers up whose `with model.no_sync():` around the call may switch the sync


@dataclass(frozen=True)
class Accumulation:
    """The step waits for `factor` micro-batches: behind a boundary `guard` (flat shape), or
    after an `inner_loop` of micro-batches (nested shape)."""

    factor: ast.expr
    guard: Guard | None = None
    inner_loop: ast.For | None = None
    path: Event | None = None  # a step of the accumulating branch, when another branch does not
    # False for an inner loop over items of unknown kind (`for batch in batch_steps:`): several
    # backward passes per step (DDP all-reduces each), but whether their losses are micro-batches
    # to average or parts of one loss to sum, the code does not say
    counts_micro_batches: bool = True

    def covers(self, event: Event) -> bool:
        """Whether `event` can run on the accumulating path: not on the other branch of the
        `if` that accumulates, not under a test that the factor is 1 (`if accum_steps == 1:`)."""
        if self.path is not None and event.exclusive_with(self.path):
            return False
        factor = dotted(self.factor)
        return factor is None or not any(_factor_is_one(g.test, g.holds, factor) for g in event.guards)

    def in_micro_batch_loop(self, event: Event) -> bool:
        """`event` runs once per micro-batch of the window: inside its micro-batch loop, where
        there is one (a pass before that loop runs once per window)."""
        return self.inner_loop is None or self.inner_loop in event.loops

    def boundary_test(self, model: "ModuleModel", block: list[ast.stmt], first: ast.stmt) -> str | None:
        """Source of a test true on the window's last micro-batch, valid where `first` stands
        in `block`; None when the model cannot write one (the counter moves in between, the
        micro-batch loop has no index)."""
        guard = self.guard
        if guard is not None:
            # every name the test reads must hold at `first` what it holds at the test: not the
            # counter moved in between, nor a value computed after the backward (`stats["skip"]`)
            read = guard.boundary.counters | {dotted(n) for n in ast.walk(guard.test) if isinstance(n, (ast.Name, ast.Attribute))}
            start = block.index(first)
            guard_stmt = next((s for s in block[start:] if _contains(s, guard.node)), None)
            stop = block.index(guard_stmt) if guard_stmt is not None else len(block)
            if any(assigns_any(s, frozenset(read - {None})) for s in block[start:stop]):
                return None
            return model.inline_source(guard.test) if guard.holds else negated_source(guard.test)
        loop = self.inner_loop
        target = loop.target
        if isinstance(target, ast.Tuple) and _called(loop.iter, "enumerate"):
            target = target.elts[0]
        elif not _called(loop.iter, "range") or len(loop.iter.args) != 1:
            return None
        if not isinstance(target, ast.Name) or _yielded(model, loop, self.factor):
            return None
        factor = model.source(self.factor)  # synthetic `len(x)` nodes unparse
        if not isinstance(self.factor, (ast.Name, ast.Attribute, ast.Constant, ast.Call)):
            factor = f"({factor})"
        return f"{target.id} == {factor} - 1"

    def counts_samples(self, model: "ModuleModel", scope: ast.AST) -> bool:
        """The counter advances by something other than 1 (`seen += x.shape[0]`): the factor
        counts samples, not micro-batches, and is no divisor for the loss."""
        counters = self.guard.boundary.counters if self.guard is not None else frozenset()
        assignments = model.scope(scope).assignments
        return any(
            isinstance(stmt, ast.AugAssign) and not is_literal(stmt.value, 1) and not _truth_count(stmt.value, assignments)
            for name in counters for stmt in assignments.get(name, ())
        )

    @property
    def may_be_off(self) -> bool:
        """The step's test also holds when accumulation is off (`not N or i % N == 0`): the
        factor may be None or 0 there."""
        return self.guard is not None and switches_off(self.guard.test, self.factor)

    def counts_a_generator(self, model: "ModuleModel", scope: ast.AST) -> bool:
        """`len(self._iter_micro_batches(batch))`: the window's pieces come from a project
        generator, which has no `len()`, so no code can divide by the factor as written."""
        factor = self.factor
        if not (isinstance(factor, ast.Call) and dotted(factor.func) == "len" and factor.args and isinstance(factor.args[0], ast.Call)):
            return False
        callee = resolve_callee(model, factor.args[0], CallContext(model, scope, class_of_scope(model, scope)))
        return callee is not None and isinstance(callee.function, FUNCTIONS) and any(
            isinstance(node, (ast.Yield, ast.YieldFrom)) for node in ast.walk(callee.function)
        )

    def runs_every_micro_batch(self, event: Event) -> bool:
        """The event runs on every micro-batch, not once per window: outside every boundary
        test (flat shape), or inside the micro-batch loop (nested shape); and on the
        accumulating path."""
        if not self.covers(event):
            return False
        if self.inner_loop is not None:
            index = _loop_index(self.inner_loop)
            return self.inner_loop in event.loops and not any(_picks_one(g, index) for g in event.guards)
        counters = self.guard.boundary.counters if self.guard is not None and self.guard.boundary else frozenset()
        return not any(
            self._windows(g.boundary or g.inside_window) or _reset_by_itself(g) or _opens_window(g, counters) or _periodic(g)
            for g in event.guards
        )

    def on_the_steps_micro_batch(self, event: Event) -> bool:
        """The event runs under a test of its own that holds on the micro-batch the step runs on
        (`if i % N == 0: zero_grad()` before the backward, the step under `if i % N == 0 or
        last:` after it)."""
        guard = self.guard
        if guard is None or guard.boundary is None:
            return False
        window = ast.dump(modulo_part(guard.test))
        return any(g.boundary is not None and g.holds == guard.holds and ast.dump(modulo_part(g.test)) == window for g in event.guards)

    def runs_off_the_step(self, event: Event) -> bool:
        """The event runs once per window, but on another micro-batch than the step: under a test
        of the window's counter and factor other than the step's (`if step % N == 0: clip(...)`
        beside `if (step + 1) % N == 0: optimizer.step()`)."""
        if self.guard is None or self.guard.boundary is None or not self.covers(event) or self.guard in event.guards:
            return False
        return not self.on_the_steps_micro_batch(event) and any(_same_window(g.boundary, self.guard.boundary) for g in event.guards)

    def runs_inside_the_window(self, event: Event) -> bool:
        """The event runs on the window's non-final micro-batches only: on the side of the
        window's test where the step does not run (`if (i + 1) % N != 0: ... else: step()`)."""
        return self.guard is not None and self.covers(event) and any(_inside_the_window(g, self.guard) for g in event.guards)

    def _windows(self, boundary: Boundary | None) -> bool:
        """A boundary of this window: on the counters the step's test counts (a resume's `epoch
        == first_epoch and step < resume_step` is none)."""
        if boundary is None:
            return False
        return self.guard is None or bool(boundary.counters & self.guard.boundary.counters)

    def at_step(self, event: Event) -> bool:
        """The event runs once per window, where the step runs: under the step's boundary
        test, or after the micro-batch loop."""
        if self.inner_loop is not None:
            return self.inner_loop not in event.loops
        return self.guard in event.guards


class TrainingLoop:
    """A loop (or a step function) whose body runs backward() and an optimizer step."""

    def __init__(self, model: "ModuleModel", node: ast.AST, events: list[Event], accelerated: bool = False):
        self.model = model
        self.node = node
        self.events = events
        self.accelerated = accelerated  # a view of a loop whose backward Accelerate runs (ordered_by_hand)

    @property
    def scope(self) -> ast.AST:
        return self.node if isinstance(self.node, FUNCTIONS) else self.model.parents.scope_of(self.node)

    def of(self, *kinds: Kind) -> list[Event]:
        return [e for e in self.events if e.kind in kinds]

    def clears_a_part(self, zero: Event) -> bool:
        """`model.generator.zero_grad()` where the loop runs `model(d)` (or reads
        `model.parameters()`, to clip them): a sub-module's zero_grad clears only that part's
        gradients, to keep it still in a step whose optimizer covers the whole model (a GAN's turns
        sharing one optimizer; the parts an RL fine-tuning leaves frozen), not the step's gradients."""
        if zero.kind is not Kind.ZERO_GRAD or zero.optimizer is not None or "." not in (zero.target or ""):
            return False
        whole = zero.target.rsplit(".", 1)[0]
        return any(
            isinstance(node, ast.Call) and (dotted(node.func) in (whole, f"{whole}.parameters", f"{whole}.named_parameters"))
            for node in ast.walk(self.node)
        )

    @cached_property
    def optimizer(self) -> str | None:
        """The one optimizer this loop steps; None when it steps several (GANs) or none."""
        names = {e.optimizer for e in self.of(*STEPS)}
        return names.pop() if len(names) == 1 and None not in names else None

    @cached_property
    def optimizers(self) -> frozenset[str]:
        """The optimizers this loop steps; empty when a step's optimizer is unknown."""
        names = {e.optimizer for e in self.of(*STEPS)}
        return frozenset() if None in names else frozenset(names)

    @cached_property
    def plain(self) -> bool:
        """Gradients are managed by this code alone, no framework doing it, and one optimizer
        steps, or several step together on the same backward (not a GAN's alternation)."""
        if not self.steps_by_hand:
            return False
        return len(self.optimizers) == 1 or self._stepped_together()

    @property
    def steps_by_hand(self) -> bool:
        """The code steps every optimizer itself (several maybe, each known), no framework."""
        return bool(self.optimizers) and not self.of(Kind.FRAMEWORK)

    @cached_property
    def by_hand(self) -> "TrainingLoop | None":
        """The loop whose gradients the code manages: itself when plain; where a framework runs
        on branches of its own (`if args.deepspeed: model.backward(loss) ... else:
        loss.backward()` and the steps likewise), the loop without those branches' calls, when
        that is plain; else None."""
        if self.plain:
            return self
        framework = self.of(Kind.FRAMEWORK)
        kept = [e for e in self.events if e.kind is not Kind.FRAMEWORK]
        own = [e for e in kept if e.kind is Kind.BACKWARD or e.kind in STEPS]
        if not framework or not own or not all(f.exclusive_with(e) for f in framework for e in own):
            return None
        view = TrainingLoop(self.model, self.node, kept)
        return view if view.plain else None

    @cached_property
    def ordered_by_hand(self) -> "TrainingLoop | None":
        """The loop as the order rules read it: itself when plain; for a loop that leaves only
        backward to Accelerate (`accelerator.backward(loss)`, which scales the loss and, under
        `accumulate()`, divides it and defers the prepared optimizer's step and zero_grad),
        a view where that call is the backward, since the code still orders its own clip,
        step, zero_grad and scheduler; None for other frameworks, which run the step too."""
        if self.plain:
            return self
        view = self._backward_by_accelerator
        return view if view is not None and view.plain else self.by_hand

    @cached_property
    def turns_ordered_by_hand(self) -> list["TrainingLoop"]:
        """Each optimizer's turn as the order rules read it: a GAN's, its backward passes maybe
        Accelerate's (`accelerator_d.backward(d_loss)`, then `accelerator.backward(loss)`)."""
        view = self._backward_by_accelerator if self.of(Kind.FRAMEWORK) else self
        return view.optimizer_phases if view is not None else []

    @cached_property
    def _backward_by_accelerator(self) -> "TrainingLoop | None":
        """The loop with each `accelerator.backward(loss)` read as the backward; None when some
        other framework's call is among its events, or none at all."""
        framework = self.of(Kind.FRAMEWORK)
        if not framework or not all(e.by_accelerator for e in framework):
            return None
        events = [
            replace(e, kind=Kind.BACKWARD, loss=e.node.args[0]) if _accelerator_backward(e) else e
            for e in self.events if e.kind is not Kind.FRAMEWORK or _accelerator_backward(e)
        ]
        return TrainingLoop(self.model, self.node, events, accelerated=True)

    @cached_property
    def optimizer_phases(self) -> list["TrainingLoop"]:
        """The loop as each optimizer sees it: itself (or its own branches) when plain; for optimizers that take
        turns (a GAN's generator then discriminator, each zero/backward/step), one view per
        turn, from the previous turn's step to this one's; none when the model cannot tell."""
        if self.by_hand is not None:
            return [self.by_hand]
        steps = self.of(*STEPS)
        if self.of(Kind.FRAMEWORK) or len(self.optimizers) < 2:
            return []
        turns: list[list[Event]] = []
        for step in steps:
            if turns and turns[-1][-1].optimizer == step.optimizer:
                turns[-1].append(step)
            else:
                turns.append([step])
        if len(turns) != len(self.optimizers):
            return []  # an optimizer steps in two separate turns
        phases, start = [], -1
        for turn in turns:
            end = turn[-1].order
            events = [e for e in self.events if start < e.order <= end]
            phases.append(TrainingLoop(self.model, self.node, events))
            start = end
        return phases

    def _stepped_together(self) -> bool:
        """Every two steps of different optimizers that run on one path (not the two sides of
        `if fp16:`) follow the same backward, and sit under the same tests, one maybe under one
        more (`if opt.train_retriever: retr_optimizer.step()` inside the window's step branch)."""
        backwards = self.of(Kind.BACKWARD)
        for first, second in itertools.combinations(self.of(*STEPS), 2):
            if first.optimizer == second.optimizer or first.exclusive_with(second):
                continue
            if any(
                first.order < b.order < second.order and not b.exclusive_with(first) and not b.exclusive_with(second)
                for b in backwards
            ):
                return False  # a backward between: they take turns (a GAN's)
            shorter, longer = sorted((tuple(map(id, first.guards)), tuple(map(id, second.guards))), key=len)
            if longer[: len(shorter)] != shorter:
                return False
        return True

    def follows_previous_step(self, event: Event) -> bool:
        """Loop-carried order: an event before the iteration's first step (zero_grad at the
        top of the body) runs after the previous iteration's step."""
        steps = self.of(*STEPS)
        return isinstance(self.node, LOOPS) and bool(steps) and event.order < steps[0].order

    @cached_property
    def callers(self) -> list["TrainingLoop"]:
        """A step function's callers, each seen as the loop (or function) around the call,
        with this function's events inside: do they zero the grads, update the scaler, call
        it once per micro-batch? Empty for loops."""
        if not isinstance(self.node, FUNCTIONS):
            return []
        views = []
        cls = self.model.parents.enclosing_class(self.node)
        bases = {id(base) for _, base in class_hierarchy(self.model, cls)[1:]} if cls is not None else set()
        for _, context in callers(self.model, self.node):
            module = context.module
            around = next(
                (n for n in module.parents.chain(context.statement)[1:] if isinstance(n, LOOPS)), context.scope
            ) if context.statement is not None else context.scope
            # a base class's loop calling the override on `self`: run on an object of this class
            instance = Callee(self.model, self.node, cls) if id(context.cls) in bases else None
            if isinstance(around, LOOPS + FUNCTIONS):
                views.append(TrainingLoop(module, around, unit_events(module, around, instance)))
        return views

    def provided_by_callers(self, *kinds: Kind) -> bool:
        """Whether some caller runs an event of `kinds` outside this function."""
        return any(e.kind in kinds and e.scope is not self.node for view in self.callers for e in view.events)

    @cached_property
    def controls_sync(self) -> bool:
        """Gradient sync is switched on the loop's path: a NO_SYNC event in it or a helper it
        calls (not one under `torch.no_grad()`, around an evaluation), or a `with` whose context
        manager was made from one before the loop (`sync_context = model.no_sync if ddp else
        nullcontext`); for a step function, by the callers around their calls of it (a few
        callers up, a function calling itself no caller of its own)."""
        return self._switches_sync or self._sync_switched_by_callers(CALLER_SYNC_DEPTH)

    def _sync_switched_by_callers(self, depth: int) -> bool:
        return depth > 0 and any(
            view._switches_sync or view._sync_switched_by_callers(depth - 1)
            for view in self.callers if view.node is not self.node
        )

    @cached_property
    def _switches_sync(self) -> bool:
        if any(not e.without_grad and not any(_tests_fsdp(g.test) and g.holds for g in e.guards) for e in self.of(Kind.NO_SYNC)):
            return True
        seen: set[int] = set()
        for event in self.events:
            for context in event.contexts:
                if id(context) in seen:
                    continue
                seen.add(id(context))
                # a helper's event also runs under the `with` of the loop's own code around its call
                places = [(event.module or self.model, event.scope)] + ([(self.model, self.scope)] if event.inlined else [])
                if any(_made_from_sync_control(module, scope, context) for module, scope in places):
                    return True
        loops = {id(l): l for e in self.events for l in e.loops if e.module in (None, self.model)}
        if isinstance(self.node, ast.For):
            loops[id(self.node)] = self.node
        return any(_iterates_sync_switching_generator(self.model, l) for l in loops.values())

    @cached_property
    def accumulation(self) -> Accumulation | None:
        """How the loop accumulates (the first accumulating path when branches differ)."""
        return self.accumulations[0] if self.accumulations else None

    @cached_property
    def accumulations(self) -> list[Accumulation]:
        """Every way the loop accumulates: the whole loop's, or each branch's when branches
        accumulate differently (an AMP branch handing the clip to a scaler object, a plain
        branch clipping on its own)."""
        steps, backwards = self.of(*STEPS), self.of(Kind.BACKWARD)
        if not steps or not backwards:
            return []
        found = self._accumulation(steps, backwards, None)
        if found is not None:
            return [found]
        # One branch accumulates while another steps on every batch
        # (`if accum_steps > 1: ... else: ...`): the accumulating paths alone.
        paths = []
        for step in steps:
            path_steps = [s for s in steps if not s.exclusive_with(step)]
            if any(_split_by_window_test(s, step) for s in steps if s not in path_steps):
                continue  # `if i == k: opt1.step() else: opt0.step()`: every iteration steps, one way or another
            if len(path_steps) < len(steps):
                # the path's backwards: those beside its step, and those across its boundary test
                path = [b for b in backwards if not excluded_off_boundary(b, step)]
                paths.append(self._accumulation(path_steps, path, step))
        if not any(paths):
            # One branch backpropagates once per batch, another per micro-batch before a shared
            # step (`if accum == 1: backward(loss) else: for j in range(accum): backward(...)`).
            for backward in backwards:
                path = [b for b in backwards if not b.exclusive_with(backward)]
                if len(path) < len(backwards):
                    paths.append(self._accumulation([s for s in steps if not s.exclusive_with(backward)], path, backward))
        distinct: list[Accumulation] = []  # one per branch: two steps of one branch are one path
        for found in filter(None, paths):
            if not found.covers(found.path):
                continue  # a branch where the factor is 1 (`else` of `if accum_steps > 1:`)
            if all(found.path.exclusive_with(other.path) for other in distinct):
                distinct.append(found)
        return distinct

    def on_path(self, *kinds: Kind) -> list[Event]:
        """Events of `kinds` on the accumulating path (all of them when every path accumulates)."""
        accumulation = self.accumulation
        return [e for e in self.of(*kinds) if accumulation is None or accumulation.covers(e)]

    def _accumulation(self, steps: list[Event], backwards: list[Event], path: Event | None) -> Accumulation | None:
        backwards = [b for b in backwards if not self.consumed_by_hand(b)]
        if not backwards or not steps:
            return None
        # a step that then leaves the loop (`if converged: opt.step(); break`) flushes at the exit
        guard = _common_boundary([s for s in steps if not flushes_at_exit(s)] or steps)
        if guard is not None and (
            all(guard not in b.guards for b in backwards)
            # `if update: backward(); step() else: with no_sync(): backward()`, where the other
            # side does not step too (`if fp32: backward(); step() else: scaled backward and step`)
            or (
                any(guard.excludes(g) or _inside_the_window(g, guard) for b in backwards for g in b.guards)
                and not any(guard.excludes(g) for s in self.of(*STEPS) for g in s.guards)
            )
        ):
            if self._always_one(guard.boundary.factor):
                return None
            return Accumulation(guard.boundary.factor, guard=guard, path=path)
        found = _inner_loop_accumulation(steps, backwards, path, self._micro_batches_cut)
        if found is None and len({id(b.loops[-1]) for b in backwards if b.loops}) > 1:
            # updates in turn (StudioGAN: the main update, then a lazy regulariser's): the window
            # before the first step
            first = min(steps, key=lambda s: s.order)
            found = _inner_loop_accumulation(steps, [b for b in backwards if b.order < first.order], path, self._micro_batches_cut)
        if found is not None and self._always_one(found.factor):
            return None  # `for j in range(config['accumulation_steps'])` with the setting fixed at 1
        return found

    def window_before(self, steps: list[Event]) -> Accumulation | None:
        """The micro-batch loop of this function whose passes all run before `steps` taken
        elsewhere (by the base class method that calls this override, once it returns)."""
        backwards = [b for b in self.of(Kind.BACKWARD) if not self.consumed_by_hand(b)]
        found = _inner_loop_accumulation(steps, backwards, None, self._micro_batches_cut)
        return None if found is None or self._always_one(found.factor) else found

    def restored_after(self, clear: Event, step: Event) -> bool:
        """Gradients written back after the clear and before the step (a backup restored: PGD's
        `restore_grad()` after the attacks' clears, fp32 master copies): the step reads those."""
        return any(
            e.kind in (Kind.GRAD_COPY, Kind.GRAD_WRITE) and clear.order < e.order < step.order
            # the other branch of a loop's `if`: a later pass restores (PGD's `if t != k - 1:
            # zero_grad() else: restore_grad()` over its attack steps)
            and (not e.exclusive_with(clear) or bool(set(map(id, e.loops)) & set(map(id, clear.loops))))
            for e in self.events
        )

    def consumed_by_hand(self, backward: Event) -> bool:
        """The pass's gradients are used and cleared before any step, so no step applies them
        through `.grad`: a helper that backpropagates and clears within the one call (a
        sharpness or Fisher probe, SAM's ascent), or code that reads them by hand before its
        clear (`saved[p] += p.grad`, an accumulation kept by hand)."""
        held = {id(g) for g in backward.guards}
        steps = self.of(*STEPS)
        module = backward.module or self.model
        for clear in self.of(Kind.ZERO_GRAD):
            # a test inside a clearing helper of its own (`if p.grad is not None:`) is the helper's business
            own = clear.scope is not backward.scope
            tested = [g for g in clear.guards if id(g) not in held and not (own and _inside(g.node, clear.scope))]
            if clear.order <= backward.order or tested or clear.scope is not backward.scope and clear.site is not backward.site:
                continue
            if any(backward.order < s.order < clear.order for s in steps):
                return False
            if backward.site is not None and clear.site is backward.site:
                return True
            if clear.scope is backward.scope:
                reads = module.memo(("gradient reads", id(clear.scope)), lambda: _gradient_read_lines(clear.scope))
                return any(backward.node.lineno < line <= clear.node.lineno for line in reads)
        return False

    def _micro_batches_cut(self, loop: ast.For) -> ast.expr | None:
        """`phase_img` of `for img, z in zip(phase_img, phase_z)` where `phase_img =
        batch.split(batch_gpu)`: items cut from a batch (`split`, `chunk` by a size or count,
        not a string's separator) are micro-batches whatever their names, as are the items of a
        loop that turns DDP's sync off for some of them."""
        if loop not in self.model.parents.parent:
            return None  # a helper's loop, in another module
        iterable = _iterated(loop)
        if any(e.kind is Kind.NO_SYNC and loop in e.loops for e in self.events):
            return iterable  # `with model.no_sync() if i < n - 1 else nullcontext():`: its items are micro-batches
        scope = self.model.parents.scope_of(loop)
        if isinstance(iterable, ast.Name):  # `data = zip(...)`, then `for ... in enumerate(data)`
            value = self.model.values.reaching_value(iterable, scope, loop.lineno)[0]
            iterable = value if _called(value, "zip") else iterable
        parts = iterable.args if _called(iterable, "zip") else [iterable]
        return next((
            part for part in parts
            if isinstance(part, ast.Name) and _cuts_a_batch(self.model.values.reaching_value(part, scope, loop.lineno)[0])
        ), None)

    def _always_one(self, factor: ast.expr) -> bool:
        """`accum_steps = 1`: a factor whose every assignment here is 1 (a parameter also takes
        what callers pass: `if warmup: accumulate = 1` is one of its values)."""
        name = dotted(factor)
        if isinstance(factor, ast.Subscript) and isinstance(factor.value, ast.Name) and isinstance(factor.slice, ast.Constant):
            settings = factor.value.id  # `CFG['grad_accum']` of a module-level settings dict
            if settings in parameter_names(self.scope) and not self.model.scope(self.scope).assignments.get(settings):
                return _handed_fields_of_one(self.model, factor, self.scope)  # `main(Config().__dict__)`
            local = settings in parameter_names(self.scope) or self.model.scope(self.scope).assignments.get(settings)
            values = [] if local and self.scope is not self.model.tree else dict_setting(self.model, settings, factor.slice.value)
            return bool(values) and all(isinstance(v, ast.Constant) and v.value == 1 for v in values)
        if name is None:
            return False
        if name in parameter_names(self.scope):
            return self._passed_one(factor)
        if name.startswith("self.") and name.count(".") == 1:
            cls = class_of_scope(self.model, self.scope)
            given = passed_to_base_init(self.model, cls, name[5:])
            if given is not None:  # `super().__init__(..., accum_iter=1)` for the base's `self.accum_iter = accum_iter`
                return isinstance(given, ast.Constant) and given.value == 1
            constructed = constructed_with(self.model, cls, name[5:])
            if constructed:  # `Worker(model, ...)` everywhere, leaving `gradient_accumulate_every=1`
                return all(isinstance(v, ast.Constant) and v.value == 1 for v in constructed)
        assignments = [
            stmt for scope in {id(s): s for s in (self.scope, self.model.tree)}.values()
            for stmt in self.model.scope(scope).assignments.get(name, ())
        ]
        if isinstance(factor, ast.Attribute) and assignments and all(self._on_a_branch(stmt) for stmt in assignments):
            return False  # `if args.smoke_test: args.grad_accum = 1`: the option keeps its own value otherwise
        values = [getattr(stmt, "value", None) for stmt in assignments]
        owner = dotted(factor.value) if isinstance(factor, ast.Attribute) else None
        if not values and owner not in (None, "self") and owner in parameter_names(self.scope):
            # `state.accumulate_grad_batches` of a settings object every caller hands over
            return _setting_of_one(self.model, factor, self.scope, factor.lineno)
        if not values and isinstance(factor, ast.Attribute):
            values = self._config_default(factor)
        return bool(values) and all(isinstance(v, ast.Constant) and v.value == 1 for v in values)

    def _on_a_branch(self, stmt: ast.stmt) -> bool:
        """The statement runs only on one branch of an `if` that does not hold the loop."""
        return any(
            isinstance(node, ast.If) and not (node.lineno <= self.node.lineno <= node.end_lineno)
            for node in self.model.parents.chain(stmt)[1:]
        )

    def _passed_one(self, factor: ast.expr) -> bool:
        """A window parameter every caller passes 1 for: the literal, or the field of a settings
        class fixing it at 1 (`train_lf(..., self.config.accumulation_step, ...)` where the
        trainer's `config` is `ClassifierConfig`). A parameter the function reassigns first
        (`if warmup: accumulate = 1`) takes the callers' values too, and is no window of 1."""
        passed = passed_for(self.model, self.scope, factor, factor.lineno) if isinstance(factor, ast.Name) else None
        return bool(passed) and all(_setting_of_one(module, argument, scope, line) for module, argument, scope, line in passed)

    def _star_imported(self, owner: str | None) -> bool:
        """A plain name this module neither binds nor imports by name: a star import may bring it."""
        return (
            owner is not None and "." not in owner and self.model.project is not None
            and not self.model.scope(self.scope).assignments.get(owner) and not self.model.scope(self.model.tree).assignments.get(owner)
            and owner not in parameter_names(self.scope) and owner not in self.model.classes and owner not in self.model.functions
        )

    def _config_default(self, factor: ast.Attribute) -> list[ast.expr]:
        """`args.grad_accum` where `args = TrainConfig()`, or `CFG.grad_accum` of a namespace
        class `CFG` of this module (a notebook's settings): the value the class's body gives the
        field, when no method of it (and no code here) sets it otherwise."""
        owner = dotted(factor.value)
        imported = self.model.imports.origin(owner) if isinstance(factor.value, ast.Name) else None
        if imported is not None and self.model.project is not None and not self.model.scope(self.scope).assignments.get(owner):
            if reassigned(self.model, dotted(factor)):
                return []  # `CFG.accum_iter = args.accum` here
            return self.model.project.setting(self.model, f"{imported}.{factor.attr}")  # `config.ACCUM_STEPS` of a project module
        if self._star_imported(owner):
            return self.model.project.star_setting(self.model, owner, factor.attr)  # `cfg.accum` of `from cfg import *`
        if isinstance(factor.value, ast.Name) and self.model.classes.get(factor.value.id) is not None:
            built = (self.model, self.model.classes[factor.value.id])
        elif reassigned(self.model, dotted(factor)):
            return []  # `CFG.accum = args.accum` on the instance
        else:
            value, scope, _ = self.model.values.reaching_value(factor.value, self.scope, factor.lineno) if owner else (None, None, 0)
            built = class_of_instance(self.model, value) if isinstance(value, ast.Call) else None
            if built is not None and built[0] is self.model and (value.args or value.keywords):
                # `cfg = Config(d=param)` copying a settings dict's items; other arguments may set the field
                return instance_setting(self.model, value, built[1], factor.attr)
        if built is None:
            return []
        module, cls = built
        return class_setting(module, cls, factor.attr)


def _cuts_a_batch(value: ast.expr | None) -> bool:
    """`x.split(size)`, `x.chunk(n)`, `torch.split(x, size)`: a tensor cut into micro-batches; or
    `x.reshape(x.shape[0] // size, size, ...)`, its first dimension folded into micro-batches of
    `size`."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in DEVICE_MOVES:
        value = value.func.value  # `.cpu()`, `.to(device)`: the same pieces, elsewhere
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in RESHAPES:
        first = value.args[0] if value.args else None
        return isinstance(first, ast.BinOp) and isinstance(first.op, ast.FloorDiv) and _first_dimension(first.left)
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in BATCH_CUTS):
        return False
    size = value.args[1] if dotted(value.func.value) == "torch" and len(value.args) > 1 else value.args[0] if value.args else None
    return size is not None and not (isinstance(size, ast.Constant) and isinstance(size.value, str))


def _first_dimension(expr: ast.expr) -> bool:
    """`x.shape[0]`, `x.size(0)`, `len(x)`: how many rows a batch has."""
    match expr:
        case ast.Subscript(value=ast.Attribute(attr="shape"), slice=ast.Constant(value=0)):
            return True
        case ast.Call(func=ast.Attribute(attr="size"), args=[ast.Constant(value=0)]):
            return True
        case ast.Call(func=ast.Name(id="len"), args=[_]):
            return True
    return False


def _inside(node: ast.AST, function: ast.AST | None) -> bool:
    """`node` lies in the lines of `function` (a function other than the one asking)."""
    return isinstance(function, FUNCTIONS) and function.lineno <= node.lineno <= function.end_lineno


def _gradient_read_lines(scope: ast.AST) -> list[int]:
    """Lines of a function that read some `.grad` by hand."""
    return [n.lineno for n in ast.walk(scope) if isinstance(n, ast.Attribute) and n.attr == "grad" and isinstance(n.ctx, ast.Load)]


def _inner_loop_accumulation(
    steps: list[Event], backwards: list[Event], path: Event | None, micro_batches_cut: Callable[[ast.For], ast.expr | None]
) -> Accumulation | None:
    """Backward passes all inside one inner loop, the steps after it: the loop's items are the
    window (micro-batches where the loop says so, items of unknown kind otherwise). Where the
    innermost loop tells no window (a sequence cut into segments, each backpropagated), the loop
    around it may (`for micro in range(acc_steps): for idx in range(0, T, seg): ...`)."""
    looped = [b for b in backwards if b.loops]
    if not looped or any(b.order > min(c.order for c in looped) for b in backwards if not b.loops):
        return None
    # a pass of its own before the loop (an auxiliary loss, backpropagated once) is no micro-batch
    backwards = looped
    for depth in range(1, min(len(b.loops) for b in backwards) + 1):
        inner = {id(b.loops[-depth]): b.loops[-depth] for b in backwards}
        if len(inner) != 1:
            return None
        loop = next(iter(inner.values()))
        if any(loop in s.loops for s in steps):
            return None
        found = _loop_accumulation(loop, path, micro_batches_cut)
        if found is not None:
            return found
    return None


def _loop_accumulation(loop: ast.AST, path: Event | None, micro_batches_cut: Callable[[ast.For], ast.expr | None]) -> Accumulation | None:
    """The window of the micro-batch loop `loop` that the steps follow."""
    if any(isinstance(stmt, (ast.Return, ast.Break)) for stmt in getattr(loop, "body", ())):
        return None  # its body leaves the loop on the first pass: one micro-batch, no window
    factor = _micro_batch_count(loop)
    cut = micro_batches_cut(loop) if factor is None and isinstance(loop, ast.For) else None
    if cut is not None:
        factor = ast.Call(ast.Name("len", ast.Load()), [cut], [])
    if factor is not None:
        return Accumulation(factor, inner_loop=loop, path=path)
    if isinstance(loop, ast.For) and not _called(loop.iter, "range"):
        items = ast.Call(ast.Name("len", ast.Load()), [_iterated(loop)], [])
        return Accumulation(items, inner_loop=loop, path=path, counts_micro_batches=False)
    return None


def _iterated(loop: ast.For) -> ast.expr:
    """What `for x in ...` runs over, `enumerate(...)` taken off; of `zip(a, b)`, its first
    iterable (a zip has no `len()`; its items are as many as the shortest's)."""
    iterable = loop.iter
    if _called(iterable, "enumerate") and iterable.args:
        iterable = iterable.args[0]
    return iterable.args[0] if _called(iterable, "zip") and iterable.args else iterable


def _setting_of_one(module: "ModuleModel", value: ast.expr, scope: ast.AST, line: int) -> bool:
    """`value` is 1 where a caller passes it: the literal, or `<settings>.field` where every
    settings object it can be (a namespace class, handed over by the callers) fixes the field at
    1 in its body."""
    if isinstance(value, ast.Constant):
        return value.value == 1
    if not isinstance(value, ast.Attribute):
        return False
    classes = [
        _settings_class(owner, expr, owner_scope, at, value.attr)
        for owner, expr, owner_scope, at in handed_over(module, value.value, scope, line)
    ]
    if not classes or None in classes:
        return False
    return all(
        (values := class_setting(owner, cls, value.attr)) and all(isinstance(v, ast.Constant) and v.value == 1 for v in values)
        for owner, cls in classes
    )


def _handed_fields_of_one(module: "ModuleModel", factor: ast.Subscript, scope: ast.AST) -> bool:
    """`config['accumulation_steps']` of a dict every caller (maybe through further callers)
    hands over as the `__dict__` of a settings object whose class fixes the field at 1
    (`Config().__dict__`, `Config.__init__` setting `self.accumulation_steps = 1`)."""
    handed = handed_over(module, factor.value, scope, factor.lineno)
    return bool(handed) and all(
        isinstance(expr, ast.Attribute) and expr.attr == "__dict__"  # the dict is `settings.field`'s
        and _setting_of_one(owner, ast.Attribute(expr.value, factor.slice.value, ast.Load()), owner_scope, at)
        for owner, expr, owner_scope, at in handed
    )


def _settings_class(
    module: "ModuleModel", expr: ast.expr, scope: ast.AST, line: int, field: str,
) -> tuple["ModuleModel", ast.ClassDef] | None:
    """The namespace class `expr` names (`ClassifierConfig`), or whose instance it holds
    (`self.config`, `config = Config()`, or a dataclass built without `field`:
    `state = TrainingState(model=model, optimizer=optimizer)`), when nothing here sets the
    field on the instance afterwards."""
    named = isinstance(expr, ast.Name) and class_named(module, expr) is not None
    if not named and dotted(expr) and reassigned(module, f"{dotted(expr)}.{field}"):
        return None  # `state.accumulate_grad_batches = args.accum` after the construction
    if dotted(expr) and _handed_to_setattr(module, expr, scope, line):
        return None  # `update_config((train_config, fsdp_config), **kwargs)`: options set from outside
    value = module.values.reaching_value(expr, scope, line)[0] if dotted(expr) and not named else expr
    if isinstance(value, ast.Call) and not value.args and not value.keywords:
        return class_of_instance(module, value)
    if isinstance(value, ast.Call) and not value.args and all(k.arg not in (None, field) for k in value.keywords):
        built = class_of_instance(module, value)
        return built if built is not None and is_dataclass(built[1]) else None
    return class_named(module, value) if isinstance(value, ast.Name) else None


def _handed_to_setattr(module: "ModuleModel", expr: ast.expr, scope: ast.AST, line: int) -> bool:
    """`expr` (or a tuple holding it) is handed, before `line` in `scope`, to a project function
    that sets attributes by name (`setattr(config, key, value)` over the command line's options):
    its fields may hold anything."""
    name = dotted(expr)
    context = CallContext(module, scope, class_of_scope(module, scope))
    for call in (n for n in ast.walk(scope) if isinstance(n, ast.Call) and n.lineno < line):
        handed = [e for a in call.args for e in (a.elts if isinstance(a, (ast.Tuple, ast.List)) else [a])]
        if not any(dotted(h) == name for h in handed):
            continue
        callee = resolve_callee(module, call, context)
        if callee is not None and any(isinstance(n, ast.Call) and dotted(n.func) == "setattr" for n in ast.walk(callee.function)):
            return True
    return False


def _factor_is_one(test: ast.expr, holds: bool, factor: str) -> bool:
    """Whether `test` being `holds` means the accumulation factor is 1, or unset (`if n is not
    None: loss / n ... else:` backpropagates the whole loss only where there is no window)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _factor_is_one(test.operand, not holds, factor)
    if dotted(test) == factor:  # `if accum_steps:` false: None or 0
        return not holds
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot)) and (
        dotted(test.left) == factor and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
    ):
        return holds == isinstance(test.ops[0], ast.Is)
    if isinstance(test, ast.BoolOp):
        conjunction = isinstance(test.op, ast.And)
        if conjunction == holds:  # `a and b` true, or `a or b` false: every part is as tested
            return any(_factor_is_one(v, holds, factor) for v in test.values)
        return False
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and dotted(test.left) == factor):
        return False
    op, bound = test.ops[0], test.comparators[0]
    if not (isinstance(bound, ast.Constant) and type(bound.value) is int):
        return False
    one_when_true = (isinstance(op, ast.Eq) and bound.value == 1) or (isinstance(op, ast.LtE) and bound.value == 1) or (
        isinstance(op, ast.Lt) and bound.value == 2
    )
    one_when_false = (isinstance(op, ast.NotEq) and bound.value == 1) or (isinstance(op, ast.Gt) and bound.value == 1) or (
        isinstance(op, ast.GtE) and bound.value == 2
    )
    return one_when_true if holds else one_when_false


def _made_from_sync_control(model: "ModuleModel", scope: ast.AST, context: ast.expr) -> bool:
    """`with ctx:` / `with ctx():` where the function assigned `ctx` from a sync switch."""
    target = context.func if isinstance(context, ast.Call) else context
    name = dotted(target)
    if name is None:
        return False
    assignments = [s for s in model.scope(scope).assignments.get(name, ()) if not _only_for_fsdp(model, s)]
    values = [getattr(s, "value", None) for s in assignments]
    return any(switch_owner(node) is not None for value in values if value is not None for node in ast.walk(value))


def _iterates_sync_switching_generator(model: "ModuleModel", loop: ast.stmt) -> bool:
    """`for _ in accumulate_contexts(n, ddps):` over a project generator that yields inside a
    `with` built from the models' `no_sync`: each micro-batch of the loop runs under it."""
    if not (isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call)):
        return False
    scope = model.parents.scope_of(loop)
    callee = resolve_callee(model, loop.iter, CallContext(model, scope, class_of_scope(model, scope)))
    if callee is None or isinstance(callee.function, ast.Lambda):
        return False
    nodes = list(ast.walk(callee.function))
    yields_within = any(isinstance(n, (ast.With, ast.AsyncWith)) and any(isinstance(y, ast.Yield) for y in ast.walk(n)) for n in nodes)
    return yields_within and any(switch_owner(n) is not None for n in nodes)


def _only_for_fsdp(model: "ModuleModel", stmt: ast.stmt) -> bool:
    """`if isinstance(model, FSDP) and ...: ctx = model.no_sync`: FSDP's switch, which leaves a
    DDP model of the same loop synchronising on every micro-batch."""
    child: ast.AST = stmt
    for node in model.parents.ancestors(stmt):
        if isinstance(node, ast.If) and any(child is s for s in node.body) and _tests_fsdp(node.test):
            return True
        child = node
    return False


def _tests_fsdp(test: ast.expr) -> bool:
    """`isinstance(x, FSDP)` (or FullyShardedDataParallel) holding, alone or within an `and`."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_tests_fsdp(v) for v in test.values)
    return (
        isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
        and len(test.args) == 2 and names_sharded_class(test.args[1])
    )


def assigns_any(stmt: ast.stmt, names: frozenset[str]) -> bool:
    """Whether `stmt` (or a statement inside it) assigns one of the dotted `names`."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
            targets = [node.target]
        else:
            continue
        if any(dotted(t) in names for t in targets):
            return True
    return False


def _contains(outer: ast.AST, inner: ast.AST) -> bool:
    return any(node is inner for node in ast.walk(outer))


def _speaks_of_batches(expr: ast.expr) -> bool:
    words = {w for node in ast.walk(expr) for w in _identifier_words(node)}
    return any(word.startswith(prefix) for word in words for prefix in (*MICRO_BATCH_WORDS, "batch", "mb", "bs"))


def _identifier_words(node: ast.AST) -> list[str]:
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name.lower().split("_")


def _truth_count(expr: ast.expr, assignments) -> bool:
    """`int(should_step)`: a count of 0 or 1, the flag a comparison or test (`global_step +=
    int(should_step)` counts steps, not samples)."""
    if not (_called(expr, "int") and len(expr.args) == 1):
        return False
    flag = expr.args[0]
    values = [a.value for a in assignments.get(flag.id, ()) if isinstance(a, ast.Assign)] if isinstance(flag, ast.Name) else [flag]
    return bool(values) and all(
        isinstance(v, (ast.Compare, ast.BoolOp)) or isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.Not)
        for v in values
    )


def _called(expr: ast.expr, name: str) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == name


def _yielded(model: "ModuleModel", loop: ast.For, factor: ast.expr) -> bool:
    """`len(split_microbatches(...))` of a generator of the project: no len() to test against."""
    if not (_called(factor, "len") and isinstance(factor.args[0], ast.Call)):
        return False
    scope = model.parents.scope_of(loop)
    callee = resolve_callee(model, factor.args[0], CallContext(model, scope, class_of_scope(model, scope)))
    return callee is not None and any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(callee.function))


def _asserts_single_pass(loop: ast.For) -> bool:
    """`assert i == 0` in the body of `for i in range(0, ...)`: the loop runs once (a micro-batch
    feature kept in the code but switched off), so nothing accumulates across its iterations."""
    index, args = _loop_index(loop), loop.iter.args
    start = args[0] if len(args) > 1 else ast.Constant(0)
    return index is not None and is_literal(start, 0) and any(
        isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Compare) and len(stmt.test.ops) == 1
        and isinstance(stmt.test.ops[0], ast.Eq)
        and {dotted(stmt.test.left), dotted(stmt.test.comparators[0])} >= {index}
        and any(is_literal(side, 0) for side in (stmt.test.left, stmt.test.comparators[0]))
        for stmt in loop.body
    )


def _loop_index(loop: ast.For) -> str | None:
    """`i` of `for i in range(...)` or `for i, x in enumerate(...)`."""
    target = loop.target
    if isinstance(target, ast.Tuple) and target.elts and _called(loop.iter, "enumerate"):
        target = target.elts[0]
    return target.id if isinstance(target, ast.Name) and (_called(loop.iter, "range") or _called(loop.iter, "enumerate")) else None


def _reset_by_itself(guard: Guard) -> bool:
    """A test the guarded code itself sets back: `if start: ...; start = False` runs once until
    something raises the flag again (the step, for a window's first micro-batch); `if steps >=
    K: evaluate(); steps = 0` once per K micro-batches, maybe `or` at the epoch's end (`or i + 1
    == len(loader)`). Not on every micro-batch."""
    if not guard.holds or not isinstance(guard.node, ast.If):
        return False
    reset = {
        ast.unparse(target) for stmt in guard.node.body for node in ast.walk(stmt)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value in (0, False)
        for target in node.targets
    }
    if not reset:
        return False
    test = guard.test
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
    periodic = [
        any(isinstance(n, (ast.Name, ast.Attribute, ast.Subscript)) and ast.unparse(n) in reset for n in ast.walk(part))
        for part in parts
    ]
    return any(periodic) and all(p or is_tail_test(part) for p, part in zip(periodic, parts))


def _periodic(guard: Guard) -> bool:
    """Every M-th micro-batch of another count (`if self.current_step % VALIDATION_FREQUENCY ==
    0:`): once in a while, not on every micro-batch."""
    return guard.boundary is not None and has_modulo(guard.test)


def _opens_window(guard: Guard, counters: frozenset[str]) -> bool:
    """`if self.accum_counter == 0:` on the window's counter (reset at the step), or `if it % N
    == 1:` (any one residue of the window's counter, maybe `or N == 1`, `N < 2 or ...`): one
    micro-batch of each window, not every one."""
    test = guard.test
    if not guard.holds:
        return False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return dotted(test.operand) in counters
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return any(_one_residue(t, counters) for t in test.values) and all(
            _one_residue(t, counters) or _equals_one(t) for t in test.values
        )
    return _one_residue(test, counters) or (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
        and any(
            dotted(side) in counters and isinstance(other, ast.Constant) and other.value == 0
            for side, other in ((test.left, test.comparators[0]), (test.comparators[0], test.left))
        )
    )


def _one_residue(test: ast.expr, counters: frozenset[str]) -> bool:
    """`counter % N == c` for the window's counter and a constant residue."""
    return (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.left, ast.BinOp) and isinstance(test.left.op, ast.Mod) and dotted(test.left.left) in counters
        and isinstance(test.comparators[0], ast.Constant) and isinstance(test.comparators[0].value, int)
    )


def _equals_one(test: ast.expr) -> bool:
    """`N == 1` (`N < 2`, `N <= 1`): a window of one micro-batch."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant)):
        return False
    bound = {ast.Eq: 1, ast.LtE: 1, ast.Lt: 2}.get(type(test.ops[0]))
    return bound is not None and test.comparators[0].value == bound


def _picks_one(guard: Guard, index: str | None) -> bool:
    """`if i == 0:` (or `== last`, or `i == N - 1 and clip > 0`) inside the micro-batch loop:
    once per window, not per micro-batch."""
    test = guard.test
    terms = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    return index is not None and guard.holds and any(
        isinstance(term, ast.Compare) and len(term.ops) == 1 and isinstance(term.ops[0], ast.Eq)
        and index in {dotted(term.left), dotted(term.comparators[0])}
        for term in terms
    )


def excluded_off_boundary(event: Event, step: Event) -> bool:
    """`event` is on another branch from `step` for a reason other than the step's boundary
    test (the other side of `if amp:`, not the micro-batches between two steps)."""
    return any(a.excludes(b) for a in event.guards for b in step.guards if b.boundary is None)


def _inside_the_window(guard: Guard, step_guard: Guard) -> bool:
    """`guard` is the side of a window's test where its non-final micro-batches run, of the
    window the step's test closes (`if i % N != 0: with no_sync(): ... backward()` beside `if
    i % N == 0: ... backward(); step()`)."""
    return _same_window(guard.inside_window, step_guard.boundary)


def counted_between(model: "ModuleModel", earlier: Guard, later: Guard) -> bool:
    """The window's counter is counted between two tests spelled alike (`if n % N == 0:
    zero_grad()` ... `n += 1` ... `if n % N == 0: step()`): the earlier holds on the micro-batch
    after the later's, the first of the next window."""
    scope = model.parents.scope_of(earlier.node)
    if later.boundary is None or scope is not model.parents.scope_of(later.node) or scope is earlier.node:
        return False
    assigned = model.scope(scope).assignments
    return any(
        earlier.node.end_lineno < stmt.lineno < later.node.lineno
        for counter in later.boundary.counters for stmt in assigned.get(counter, ())
    )


def _same_window(one: Boundary | None, other: Boundary | None) -> bool:
    """Two tests of one window: the same counters, the same factor."""
    return one is not None and other is not None and one.counters == other.counters and ast.dump(one.factor) == ast.dump(other.factor)


def _split_by_window_test(one: Event, other: Event) -> bool:
    """The two sit on the two sides of a test of the iteration (a window's boundary), not of a
    setting: they are two moments of one run, not two configurations."""
    return any(a.excludes(b) and (a.boundary or b.boundary or a.inside_window or b.inside_window) for a in one.guards for b in other.guards)


def flushes_at_exit(step: Event) -> bool:
    """A step in the training loop's own body (no inner loop around it) whose block then
    leaves the loop (`break`, `return`): an early stop's last update, not a window's."""
    parents = step.module.parents if step.module is not None else None
    block = parents.block.get(step.stmt) if parents is not None and not step.loops and not step.inlined else None
    return block is not None and any(isinstance(s, (ast.Break, ast.Return)) for s in block[block.index(step.stmt) + 1 :])


def _common_boundary(steps: list[Event]) -> Guard | None:
    guards = [s.boundary_guard for s in steps]
    first = guards[0]
    return first if first is not None and all(g is first for g in guards) else None


def _micro_batch_count(loop: ast.stmt) -> ast.expr | None:
    """N of `for _ in range(N)`; `len(x)` of a loop over micro-batches `x` (or over the
    slices `range(0, len(x), micro_bs)`); else None."""
    if not isinstance(loop, ast.For):
        return None
    iterable = _iterated(loop)
    if _called(iterable, "range"):
        args = iterable.args
        if _asserts_single_pass(loop):
            return None
        if len(args) == 1 and not (isinstance(args[0], ast.Constant) and args[0].value in (0, 1)):
            return args[0]
        if len(args) == 3 and is_literal(args[0], 0) and not is_literal(args[2], 1) and _speaks_of_batches(iterable):
            # slicing a batch: `for j in range(0, len(x), micro_bs): x[j : j + micro_bs]`
            # (not the time steps of truncated backpropagation through time)
            return ast.Call(ast.Name("len", ast.Load()), [iterable], [])
        return None
    text = ast.unparse(iterable).lower()
    if any(word in text for word in MICRO_BATCH_WORDS) or _is_data_loader(iterable):
        # a loop over a whole loader with the step after it: one update per pass (full-batch
        # gradient descent, L-BFGS closures), the loader's batches are its micro-batches
        return ast.Call(ast.Name("len", ast.Load()), [iterable], [])
    return None


def _steps_in_own_body(events: list[Event]) -> bool:
    """The loop's own code, its inner training loops left out, backpropagates and steps an
    optimizer (not in a helper it calls)."""
    own = [e for e in events if not e.inlined]
    return any(e.kind is Kind.BACKWARD for e in own) and any(e.kind in (Kind.STEP, Kind.SCALER_STEP) for e in own)


def _is_data_loader(iterable: ast.expr) -> bool:
    """`loader`, `self.train_loader`, `tqdm(data_loader)`: a name of a data loader (maybe wrapped)."""
    while isinstance(iterable, ast.Call) and iterable.args:
        iterable = iterable.args[0]
    name = dotted(iterable)
    return name is not None and "loader" in name.rpartition(".")[2].lower()


def find_training_loops(model: "ModuleModel") -> list[TrainingLoop]:
    """The innermost loops that train, and step functions that train outside any loop."""
    units = []
    pending, walked = list(_candidates(model)), set()
    while pending:
        node = pending.pop(0)
        if id(node) in walked:
            continue
        walked.add(id(node))
        events = unit_events(model, node)
        if not _trains(events):
            continue
        inner = _training_inner_loops(events)
        if inner:
            # a loop inside (or inside a helper called from) this one trains: it is the training
            # loop, unless it is a helper's (an evaluation helper training a probe, judged apart)
            # and this loop also backpropagates and steps in its own body; a function holding a
            # training loop is no step function
            own_loops = [n for n in ast.walk(node) if isinstance(n, LOOPS)]
            own_code = {id(n) for n in own_loops}
            events = [e for e in events if not any(id(loop) in inner for loop in e.loops)]
            if isinstance(node, FUNCTIONS) or not inner.isdisjoint(own_code):
                # its own loops that train are units, candidates or not: one calling a callable
                # object made beside it (`loss_scaler(loss, optimizer, ...)`) names no helper
                pending.extend(n for n in own_loops if id(n) in inner and id(n) not in walked)
                if isinstance(node, FUNCTIONS) or not _steps_in_own_body(events):
                    continue
                # a WGAN's batch loop: the critic trains in its inner loop, the generator in the
                # batch loop's own body, a training loop of its own
            if not _trains(events):
                continue
        units.append(TrainingLoop(model, node, events))
    # A step function that a training unit of the module calls is judged there, with its
    # caller's context (guards, roles, the call site); alone it would be reported twice.
    seen_through = {id(e.scope) for unit in units for e in unit.events if e.inlined}
    return [u for u in units if not (isinstance(u.node, FUNCTIONS) and id(u.node) in seen_through)]


def _candidates(model: "ModuleModel"):
    """Loops and functions that can reach a backward call (holding one, or a call of a helper
    that reaches one, at any depth) and a step. Others are not walked at all."""
    backward_lines = model.backward_lines
    if not backward_lines and model.project is None:
        return  # autograd Functions define backward() but never call it
    units = [n for n in model.statements if isinstance(n, LOOPS + FUNCTIONS)]
    helpers = model.backward_helper_names
    if helpers is None:  # a callable object reaches backward: any call may be one
        yield from sorted(units, key=lambda n: (n.lineno, n.col_offset))
        return
    lines = sorted({
        *backward_lines,
        *(model.line_at(start) for start in call_starts(model.text, helpers)),
    })
    units.sort(key=lambda n: (n.lineno, n.col_offset))
    for node in units:
        first = bisect.bisect_left(lines, node.lineno)
        if first < len(lines) and lines[first] <= node.end_lineno and model.may_step(node.lineno, node.end_lineno):
            yield node


def _accelerator_backward(event: Event) -> bool:
    node = event.node
    return (
        event.kind is Kind.FRAMEWORK and event.by_accelerator and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and node.func.attr == "backward" and bool(node.args)
    )


def _trains(events: list[Event]) -> bool:
    kinds = {e.kind for e in events}
    return bool(kinds & {Kind.BACKWARD, Kind.FRAMEWORK}) and bool(kinds & {Kind.STEP, Kind.SCALER_STEP, Kind.FRAMEWORK})


def _training_inner_loops(events: list[Event]) -> set[int]:
    """ids of the loops inside (or inside a helper called from) the unit that train on their own."""
    inner_loops = {id(loop): loop for e in events for loop in e.loops}
    return {key for key, loop in inner_loops.items() if _trains([e for e in events if any(l is loop for l in e.loops)])}
