"""Is the loss that reaches backward() normalized (divided by something) on its way there?"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from gradlint.model.callees import RETURNS_SELF, CallContext, bind_arguments, class_of_scope, concrete_overrides, constructor, is_abstract, module_forwards, resolve_callee
from gradlint.model.names import dotted, with_names_replaced
from gradlint.model.roles import Role
from gradlint.model.values import element_target, nodes_on_lines

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

MAX_DEPTH = 8
DIVIDING_METHODS = frozenset({"div", "div_", "true_divide", "divide"})
NORMALIZING_METHODS = DIVIDING_METHODS | {"mul", "mul_", "multiply"}
# taking some of a tensor's elements, or the same elements in another shape or type
SELECTING_METHODS = frozenset({
    "float", "double", "squeeze", "unsqueeze", "contiguous", "to", "clone", "reshape", "view", "flatten", "gather", "index_select",
})
PASS_THROUGH_METHODS = SELECTING_METHODS | {"mean", "sum"}
MODEL_FORWARD = re.compile(r"model|net$|Net$|module|forward", re.IGNORECASE)
RAW_LOSS_CALLEE = re.compile(r"crit|loss_f|lossf|Loss$|coder$|^F$|" + MODEL_FORWARD.pattern, re.IGNORECASE)
# a loss object's own reduction (a mean over its batch) says nothing of the window: not read
CRITERION = re.compile(r"crit|loss", re.IGNORECASE)
# a loss function imported from a library (`torch_geometric.graphgym.loss.compute_loss`)
# or any function of a library's loss module (`openfold.utils.loss.compute_fape`)
IMPORTED_LOSS_FUNCTION = re.compile(r"\w\.(compute|get|calc|calculate)_loss$|\w\.(loss|losses)\.\w+$")
MASK_CASTS = frozenset({"float", "half", "bfloat16", "double", "to", "type_as", "type", "detach", "unsqueeze", "view", "reshape", "flatten"})
COUNT_CASTS = MASK_CASTS | {"clamp", "clamp_min", "item"}  # `mask.sum().clamp(min=1)`, `.item()`: still the mask's count
# A named multiplier that weighs one term of a multi-task loss (`args.kl_weight * kl`, a
# StyleGAN phase's `gain`): it sets the term's share, it does not divide by the window.
LOSS_WEIGHT_WORDS = frozenset({"weight", "w", "ratio", "coef", "coeff", "lambda", "lam", "alpha", "beta", "gamma", "gain"})
TEMPERATURE_NAMES = frozenset({"T", "temperature", "tau", "kd_temperature", "distill_temperature"})
NORMALIZER_WORDS = ("num_items", "num_tokens", "n_tokens", "total_tokens", "accum", "normaliz", "divisor", "denominator")
# The number of processes: dividing by it averages over ranks (`reduce_mean(loss, world_size)`),
# which leaves each rank's loss as large as before, so it does not divide by the window.
PROCESS_COUNT_NAMES = frozenset({"world_size", "num_gpus", "n_gpu", "n_gpus", "ngpus", "num_processes", "num_replicas"})
PER_SAMPLE_WORDS = frozenset({"reward", "rewards", "advantage", "advantages", "adv", "advs", "returns"})
LENGTH_WORDS = frozenset({"len", "length", "lengths", "ntokens", "tokens"})  # what a loss is weighted up by
BATCH_SIZE_WORDS = frozenset({"batch", "bs", "runt"})
WINDOW_TOTAL_WORDS = frozenset({"total", "global", "effective", "effec", "eff", "accum", "accumulated", "world", "all"})
WINDOW_PART_WORDS = frozenset({"micro", "microbatch", "mb", "chunk", "sub", "piece", "shard", "slice"})
CONCATENATIONS = frozenset({"cat", "stack", "concat"})
# reducing one tensor (DataParallel's per-replica losses) as its `.mean()` does; over a stack of
# the window's losses (`torch.mean(torch.stack(losses))`) they may divide by it: opaque then
REDUCING_FUNCTIONS = frozenset({"torch.mean", "torch.sum"})
OPAQUE_FUNCTIONS = frozenset({"sum", "torch.stack", "torch.cat", "torch.sum", "torch.mean", "max", "min"})


def loss_normalized(
    model: "ModuleModel", expr: ast.expr, scope: ast.AST, line: int, defaults: dict[str, ast.expr] | None = None,
    bound: tuple[tuple[str, ast.expr], ...] = (), caller: "tuple[ModuleModel, ast.AST, int] | None" = None,
) -> bool | None:
    """True when `expr` is visibly divided (or scaled by a non-integer factor) before use;
    False when it is visibly a raw loss; None when the model cannot tell. For a helper's
    `scope`: `defaults`, the parameters its call leaves at their defaults; `bound`, the
    arguments it passes, read in `caller` (module, function, line of the call)."""
    binding = (dict(bound), _Analysis(caller[0]), caller[1], caller[2]) if caller is not None else None
    return _Analysis(model, binding, defaults).expr(expr, scope, line, 0)


def running_counter_divisor(model: "ModuleModel", expr: ast.expr, scope: ast.AST, line: int) -> ast.expr | None:
    """The counter a raw loss is divided by on its way (`loss / accum_n_steps`, counted up
    one by one), when the analysis passes through one."""
    analysis = _Analysis(model)
    analysis.expr(expr, scope, line, 0)
    return analysis.counters[0] if analysis.counters else None


class _Analysis:
    """`caller` = (bound arguments, the caller's analysis, its scope, the call's line) while a
    helper's returns are read: a parameter it hands back is what the caller passed."""

    def __init__(self, model: "ModuleModel", caller=None, defaults: dict[str, ast.expr] | None = None, returned: bool = False):
        self.model = model
        self.caller = caller
        self.returned = returned  # reading what a called function returns, not a helper's backward
        self.defaults = defaults or {}
        self.counters: list[ast.expr] = []  # running counters divided by on the way
        self.sample_sums: list[ast.expr] = []  # batch sizes multiplied by on the way (`loss * bs`)
        self.forwards: list[ast.Call] = []  # model forwards whose returned loss was taken as raw

    def over_processes(self, read, expr: ast.expr, scope: ast.AST, line: int, depth: int) -> bool | None:
        """A loss multiplied by the number of processes, read with `read`: as raw as it was, but a
        sum over every sample of every process (`* bs` on the way too, yolov5's convention toward
        a nominal batch size) sums on over the window by design: not told."""
        sums, forwards = len(self.sample_sums), len(self.forwards)
        verdict = read(expr, scope, line, depth)
        # a model's forward returning the loss (ultralytics' `self.loss, items = self.model(batch)`)
        # may have summed it over the batch as well: not told either
        return None if len(self.sample_sums) > sums or len(self.forwards) > forwards else verdict

    def batch_size(self, expr: ast.expr, scope: ast.AST, line: int) -> bool:
        """`bs`, `imgs.shape[0]`, or a name assigned one (`bs = tobj.shape[0]`)."""
        if _batch_size_kind(expr) is not None:
            return True
        if not isinstance(expr, ast.Name):
            return False
        value, _, _ = self.model.values.reaching_value(expr, scope, line)
        return value is not None and _batch_size_kind(value) is not None

    def counts(self, expr: ast.expr, scope: ast.AST, line: int) -> bool:
        """A count (`_is_count`), a name saying it is a length (`sentence_len`, `n_tokens`), or
        a name the code assigns one (`batch_size = inputs.size(0)`)."""
        if _is_count(expr) or _names_a_length(expr):
            return True
        if not isinstance(expr, ast.Name):
            return False
        value, _, _ = self.model.values.reaching_value(expr, scope, line)
        return value is not None and _is_count(value)

    def expr(self, expr: ast.expr, scope: ast.AST, line: int, depth: int) -> bool | None:
        if depth > MAX_DEPTH:
            return None
        match expr:
            case ast.BinOp(op=ast.Div() | ast.FloorDiv(), left=left, right=right):
                if self.left_at_one(right, scope, line):  # `loss / gradient_accumulation_steps` the call leaves at 1
                    return self.expr(left, scope, line, depth + 1)
                if self.running_counter(right, scope):
                    self.counters.append(right)
                    return self.expr(left, scope, line, depth + 1)
                if self.counts_processes(right, scope, line, depth) or self.corrects_partial_batch(right, scope, line):
                    return self.expr(left, scope, line, depth + 1)
                if _is_loss_weight(right):  # `loss / args.mask_ratio`: a term's weight, not the window
                    return self.expr(left, scope, line, depth + 1)
                if (
                    _averages_its_terms(left, self.counted_items(right, scope, line), scope)
                    or _averages_written_terms(left, right) or _own_size(left, right)
                    or self.masked_mean(left, right, scope, line)
                    or self.per_micro_batch(right, scope, line, depth)
                    or self.counts_its_inputs(right, scope, line)
                ):
                    return self.expr(left, scope, line, depth + 1)  # a mean over the terms: as raw as they are
                return True
            case ast.BinOp(op=ast.Mult(), left=left, right=right) if _is_weight_literal(left) or _is_weight_literal(right):
                # `0.05 * box_loss`: a term's fixed weight, not the window's (a literal cannot follow it)
                return self.expr(right if _is_weight_literal(left) else left, scope, line, depth + 1)
            case ast.BinOp(op=ast.Mult(), left=left, right=right) if (
                self.counts_processes(left, scope, line, depth) or self.counts_processes(right, scope, line, depth)
            ):  # `loss * world_size`: DDP's mean over processes undone, the window untouched
                scaled = right if self.counts_processes(left, scope, line, depth) else left
                return self.over_processes(self.expr, scaled, scope, line, depth + 1)
            case ast.BinOp(op=ast.Mult(), left=left, right=right):
                factor, value = (left, right) if self.counts(left, scope, line) else (right, left)
                if self.counts(factor, scope, line):  # `loss * 2`, `loss.mean() * targets.size(1)`: scaled up
                    if self.batch_size(factor, scope, line):
                        self.sample_sums.append(factor)
                    at_least_one = not _is_int_literal(factor) or factor.value >= 1
                    return False if at_least_one and self.expr(value, scope, line, depth + 1) is False else None
                if self.corrects_partial_batch(left, scope, line) or self.corrects_partial_batch(right, scope, line):
                    scaled = right if self.corrects_partial_batch(left, scope, line) else left
                    return self.expr(scaled, scope, line, depth + 1)  # the batch's share, not the window's
                if self.yielded_share(left, scope, line) or self.yielded_share(right, scope, line):
                    return True  # each piece's share of the batch it was cut from: the shares sum to 1
                if _is_loss_weight(left) or _is_loss_weight(right) or _is_mask(left) or _is_mask(right):
                    weighed = right if _is_loss_weight(left) or _is_mask(left) else left
                    return self.expr(weighed, scope, line, depth + 1)  # a weight or a mask does not divide
                if _per_sample_factor(left) != _per_sample_factor(right):
                    # `-log_probs * advantages.detach()`: a policy-gradient objective, weighed per
                    # sample of this micro-batch, not divided by anything
                    return self.expr(right if _per_sample_factor(left) else left, scope, line, depth + 1)
                return True
            case ast.BinOp(op=ast.Add() | ast.Sub(), left=left, right=right):
                if self.running_sum(left, scope, line):  # `loss = loss + term` from `loss = 0`
                    return self.expr(right, scope, line, depth + 1)
                mixed = _mixed_terms(expr)
                if mixed is not None:  # `a * c + b * (1 - c)`: a mix of two terms, c and 1 - c their shares
                    return _all(*(self.expr(term, scope, line, depth + 1) for term in mixed))
                return _all(self.expr(left, scope, line, depth + 1), self.expr(right, scope, line, depth + 1))
            case ast.BinOp(op=ast.Pow(), left=base, right=ast.Constant(value=int() | float())):
                return self.expr(base, scope, line, depth + 1)  # `(diff ** 2).mean()`: squared, not divided
            case ast.UnaryOp(operand=operand):
                return self.expr(operand, scope, line, depth + 1)
            case ast.IfExp(test=test, body=body, orelse=orelse):
                accumulating = _accumulating_side(test, body, orelse)
                if accumulating is not None:  # `loss / n if n > 1 else loss`: raw only where n is 1
                    return self.expr(accumulating, scope, line, depth + 1)
                return _all(self.expr(body, scope, line, depth + 1), self.expr(orelse, scope, line, depth + 1))
            case ast.Call(func=ast.Attribute(value=ast.BinOp(op=ast.Mult(), left=left, right=right), attr="mean"), args=[], keywords=[]):
                # `(losses * weights).mean()`: per-element weights averaged out do not divide the
                # total; it is normalized only when one side visibly is
                verdicts = (self.expr(left, scope, line, depth + 1), self.expr(right, scope, line, depth + 1))
                return True if True in verdicts else (False if False in verdicts else None)
            case ast.Call(func=func) if (self.model.imports.qualname(func) or "").startswith("torch."):
                return self.call(func, expr, scope, depth)  # `torch.mean(loss)`: a function, not a method of `torch`
            case ast.Call(func=ast.Attribute(value=ast.Name() as owner, attr="get"), args=[ast.Constant(value=str()) as key, *_]):
                # `loss_dict.get("total_loss", ...)`: the entry, as `loss_dict["total_loss"]` reads it
                return self.expr(ast.copy_location(ast.Subscript(owner, key, ast.Load()), expr), scope, line, depth + 1)
            case ast.Call(func=ast.Attribute(value=receiver, attr=method), args=[divisor]) if (
                method in DIVIDING_METHODS and self.counts_processes(divisor, scope, line, depth)
            ):
                return self.expr(receiver, scope, line, depth + 1)
            case ast.Call(func=ast.Attribute(value=receiver, attr="apply" | "map"), args=[ast.Lambda(args=ast.arguments(args=[ast.arg(arg=entry)]), body=body)]):
                # `losses.apply(lambda x: x / n)` (a TensorDict's entries): the body, with the entry the receiver
                mapped = with_names_replaced(body, lambda n: receiver if n.id == entry else None)
                return self.expr(mapped, scope, line, depth + 1)
            case ast.Call(func=ast.Attribute(value=receiver, attr="mul" | "mul_" | "multiply"), args=[factor], keywords=[]):
                return self.expr(ast.BinOp(receiver, ast.Mult(), factor), scope, line, depth)  # as `receiver * factor`
            case ast.Call(func=ast.Attribute(value=receiver, attr="scale"), args=[inner], keywords=[]) if (
                self.model.roles.of(receiver) is Role.SCALER
            ):  # `scaler.scale(loss / n)` a helper returns: the loss the scaler was handed
                return self.expr(inner, scope, line, depth + 1)
            case ast.Call(func=ast.Attribute(value=receiver, attr=method)) if method in NORMALIZING_METHODS:
                return True
            case ast.Call(func=ast.Attribute(value=receiver, attr="mean"), args=[], keywords=[]) if _elementwise_error(receiver):
                return self.mean_of_errors(receiver, scope, line, depth)  # `((pred - y) ** 2).mean()`
            case ast.Call(func=ast.Attribute(value=receiver, attr=method)) if method in PASS_THROUGH_METHODS:
                return self.expr(receiver, scope, line, depth + 1)
            case ast.Call(func=func):
                return self.call(func, expr, scope, depth)
            case ast.Attribute(value=ast.Call(func=func) as produced):  # `model(**batch).loss`
                return self.call(func, produced, scope, depth)
            case ast.Name() | ast.Attribute():
                return self.name(expr, scope, line, depth)
            case ast.Subscript(value=value):
                written = self.last_element_write(expr, scope, line)
                if written is not None:  # `runner.outputs['loss'] /= self.update_interval`
                    return self.assignment(written, expr, scope, depth + 1)
                passed = self.passed_element(expr, scope)
                if passed is not None:
                    _, caller, caller_scope, caller_line = self.caller
                    return caller.expr(passed, caller_scope, caller_line, depth + 1)
                inner = self.name(value, scope, line, depth) if dotted(value) else False
                if inner is None and isinstance(value, ast.Name):
                    # an entry of a dict of losses over cached micro-batches (`losses["total_loss"]`)
                    made, _, _ = self.model.values.reaching_value(value, scope, line)
                    if isinstance(made, ast.Call) and self.spans_cached_micro_batches(made, scope):
                        return None
                return inner if inner is not None else False
            case ast.Dict(values=values):  # `{"ce": ce, "kl": kl}`: the loss terms a model returns
                return _any_normalized([self.expr(v, scope, line, depth + 1) for v in values])
            case ast.DictComp(value=value):  # `{k: v / accum for k, v in losses.items()}`: each entry
                return self.expr(value, scope, line, depth + 1)
        return None

    def mean_of_errors(self, errors: ast.expr, scope: ast.AST, line: int, depth: int) -> bool:
        """A mean over the micro-batch of an error written out (`(pred - y) ** 2`, `abs(pred -
        y)`): the micro-batch's own loss, raw unless one of the names it is made of was divided
        on its way (`diff = (pred - y) / n`)."""
        names = {n.id: n for n in ast.walk(errors) if isinstance(n, ast.Name)}
        return True in [self.expr(n, scope, line, depth + 1) for n in names.values()]

    def last_element_write(self, element: ast.Subscript, scope: ast.AST, line: int) -> ast.stmt | None:
        """The last statement of `scope` before `line` writing `container['key']` (`=` or `/=`),
        for an element read with a constant key: under that key, or under each key of a loop over
        the container (`for k, v in loss.items(): loss[k] = v / n`)."""
        container, key = dotted(element.value), element.slice
        if container is None or not isinstance(key, ast.Constant):
            return None
        written = [
            stmt for stmt in self.model.values.element_writes(scope).get(container, ())
            if stmt.lineno < line and (
                isinstance(index := element_target(stmt).slice, ast.Constant) and index.value == key.value
                or self._each_key(stmt, index, container)
            )
        ]
        return written[-1] if written else None

    def _each_key(self, stmt: ast.stmt, index: ast.expr, container: str) -> bool:
        """The write's key is the loop's key over the container's own keys or items."""
        return isinstance(index, ast.Name) and any(
            isinstance(loop, ast.For) and _iterates_keys(loop, container, index.id)
            for loop in self.model.parents.chain(stmt)[1:]
        )

    def total(self, terms: ast.expr, scope: ast.AST, line: int, depth: int) -> bool | None:
        """`sum(terms)`: `sum(loss_dict.values())`, `sum([ce, kl])`, as its terms are."""
        if isinstance(terms, ast.Call) and dotted(terms.func) in ("list", "tuple") and len(terms.args) == 1:
            terms = terms.args[0]  # `sum(list(loss.values()))`
        match terms:
            case ast.Call(func=ast.Attribute(value=container, attr="values"), args=[], keywords=[]):
                filled = self.filled_entries(container, scope, line, depth)
                return filled if filled is not None else self.expr(container, scope, line, depth + 1)
            case ast.List(elts=elements) | ast.Tuple(elts=elements):
                return _any_normalized([self.expr(e, scope, line, depth + 1) for e in elements])
            case ast.Name() | ast.Attribute():
                return self.expr(terms, scope, line, depth + 1)
            case ast.GeneratorExp(elt=ast.Name(id=term), generators=[ast.comprehension(target=ast.Name(id=target), ifs=[])]) | ast.ListComp(
                elt=ast.Name(id=term), generators=[ast.comprehension(target=ast.Name(id=target), ifs=[])]
            ) if term == target:  # `sum(loss for loss in loss_dict.values())`
                return self.total(terms.generators[0].iter, scope, line, depth + 1)
            case ast.GeneratorExp(elt=element, generators=[ast.comprehension(target=ast.Name(id=target), iter=items, ifs=[])]) | ast.ListComp(
                elt=element, generators=[ast.comprehension(target=ast.Name(id=target), iter=items, ifs=[])]
            ) if isinstance(items, (ast.Name, ast.Attribute)):
                # `sum([(-l).mean() for l in logits])`: each term as an element of `logits` (not of a
                # dict's `.values()`, whose entries the code may have divided in place)
                return self.expr(_with_element(element, target, items), scope, line, depth + 1)
        return None

    def filled_entries(self, container: ast.expr, scope: ast.AST, line: int, depth: int) -> bool | None:
        """The entries of a dict started empty and filled one key at a time before `line`
        (`weighted = {}`, then `weighted[i] = loss_i * w[i]` per dataset), as their values are;
        an entry divided in place (`weighted[k] /= n`) is normalized."""
        name = dotted(container)
        start, _, _ = self.model.values.reaching_value(container, scope, line) if name else (None, None, 0)
        empty_call = isinstance(start, ast.Call) and dotted(start.func) == "dict" and not start.args and not start.keywords
        if not (isinstance(start, ast.Dict) and not start.keys or empty_call):
            return None
        writes = [w for w in self.model.values.element_writes(scope).get(name, ()) if w.lineno < line]
        if not writes:
            return None
        return _any_normalized([
            self.expr(w.value, scope, w.lineno, depth + 1) if isinstance(w, ast.Assign) else isinstance(w.op, (ast.Div, ast.FloorDiv)) or None
            for w in writes
        ])

    def call(self, func: ast.expr, call: ast.Call, scope: ast.AST, depth: int, element=None) -> bool | None:
        """`element` = (index, count) when the result is unpacked (`loss, logs = f(...)`)."""
        qualname = self.model.imports.qualname(func) or ""
        if qualname == "sum" and len(call.args) == 1 and not call.keywords:
            return self.total(call.args[0], scope, call.lineno, depth)
        if qualname == "torch.where" and len(call.args) == 3:  # either value, as a conditional expression
            return _any_normalized([self.expr(a, scope, call.lineno, depth + 1) for a in call.args[1:]])
        if qualname in REDUCING_FUNCTIONS and len(call.args) == 1 and not call.keywords and _reduces_one_value(self.model, call.args[0]):
            return self.expr(call.args[0], scope, call.lineno, depth + 1)  # `torch.mean(loss)` as `loss.mean()`
        if qualname == "torch.mean" and len(call.args) == 1 and not call.keywords and _elementwise_error(call.args[0]):
            return self.mean_of_errors(call.args[0], scope, call.lineno, depth)  # `torch.mean((pred - y) ** 2)`
        if qualname == "torch.sum" and len(call.args) == 1 and not call.keywords and _masked_product(call.args[0]):
            return self.expr(call.args[0], scope, call.lineno, depth + 1)  # `torch.sum(loss * loss_mask)`: one loss's kept elements
        if qualname in OPAQUE_FUNCTIONS or qualname.endswith(("torch.div", "torch.true_divide")):
            return True if qualname.endswith(("div", "divide")) else None
        built = self.torch_criterion(func, call, scope)
        if built is not None:  # `nn.MSELoss()(out, y)`, or `LossG(out, y)` after `LossG = nn.MSELoss()`
            return None if _reduces_by_sum(built) else False
        if self.spans_cached_micro_batches(call, scope):
            # a loss over the whole window's batch, whatever function computes it (a project
            # criterion's mean included): its gradients sum, undivided
            return None
        context = CallContext(self.model, scope, class_of_scope(self.model, scope))
        helper = resolve_callee(self.model, call, context)
        if helper is not None and isinstance(helper.function, ast.Lambda):
            helper = None
        overrides = None
        if helper is not None and is_abstract(helper.function) and isinstance(func, ast.Attribute) and dotted(func.value) == "self":
            # `self.objective(results)` of a base class: what every subclass's override computes
            overrides, helper = concrete_overrides(helper), None
            if not overrides:
                return None
        # a function or method of the project that computes the loss, or the `forward` of the
        # project model called (`loss, out = model(x, y)` where every caller passes a `Net()`,
        # not a criterion's): what it returns
        called = (dotted(func) or "").rsplit(".", 1)[-1]
        wrapped = self.model.roles.of(func) is Role.DDP_MODEL  # `dual_system(batch)`, prepared or wrapped in DDP: a model
        reads_forward = helper is None and (wrapped or MODEL_FORWARD.search(called) is not None) and CRITERION.search(called) is None
        helpers = overrides or ([helper] if helper is not None else module_forwards(self.model, call, context) if reads_forward else [])
        verdicts = []
        for callee in helpers:
            returns = [(_element(r, element), r.lineno) for r in callee.module.returns(callee.function)]
            if not returns:
                return None  # abstract (`raise NotImplementedError`): the subclasses compute it
            inner = _Analysis(callee.module, (bind_arguments(callee, call), self, scope, call.lineno), returned=True)
            verdicts += [inner.expr(r, callee.function, line + 1, depth + 1) if r is not None else None for r, line in returns]
            self.sample_sums.extend(inner.sample_sums)
            self.forwards.extend(inner.forwards)
        if True in verdicts:
            return True
        if verdicts and all(v is False for v in verdicts):
            return False
        if overrides:
            return None  # the subclasses do not agree, or cannot be read
        # what it returns cannot be told: read the call as if the function were unknown
        if _told_how_to_normalize(call):
            return None  # `model(**batch, num_items_in_batch=n)`: the callee divides
        if self.sums_over_samples(func, call, scope):
            return None  # a sum over the micro-batch's samples sums on over the window, as one batch's would
        if qualname.startswith("torch.") or RAW_LOSS_CALLEE.search(qualname.rsplit(".", 1)[-1]) or wrapped:
            if wrapped or MODEL_FORWARD.search(qualname.rsplit(".", 1)[-1]):
                self.forwards.append(call)  # how the model reduces its loss is not read
            return False  # the raw value of a loss function, a criterion, a model's forward
        if _models_loss_method(func) or (helper is None and IMPORTED_LOSS_FUNCTION.search(qualname)):
            # `model.module.get_loss_acc(out, y)`, graphgym's `compute_loss(pred, true)`: the loss
            # of this batch, computed by the model or by a library the model cannot read
            return False
        return None  # some other function: it may well divide inside

    def torch_criterion(self, func: ast.expr, call: ast.Call, scope: ast.AST) -> ast.Call | None:
        """The `torch.nn` loss module the call runs: built where it is called, or the value the
        called name was last given (whatever the name: `LossG = torch.nn.MSELoss()`)."""
        if isinstance(func, (ast.Name, ast.Attribute)) and dotted(func) is not None:
            func, _, _ = self.model.values.reaching_value(func, scope, call.lineno)
        if not isinstance(func, ast.Call):
            return None
        built = constructor(func)  # `.cuda()` returns the criterion
        qualname = self.model.imports.qualname(built.func) or ""
        return built if qualname.startswith("torch.nn.") and qualname.endswith("Loss") else None

    def masked_mean(self, total: ast.expr, divisor: ast.expr, scope: ast.AST, line: int) -> bool:
        """`_masked_mean`, also where the masked product was kept in a name first (`kl = -logp *
        adv * mask`, then `kl.sum() / mask.sum()`)."""
        if _masked_mean(total, divisor):
            return True
        summed = total.func.value if isinstance(total, ast.Call) and isinstance(total.func, ast.Attribute) and total.func.attr == "sum" else None
        if not isinstance(summed, ast.Name):
            return False
        value, _, _ = self.model.values.reaching_value(summed, scope, line)
        return value is not None and _masked_mean(value, divisor)

    def sums_over_samples(self, func: ast.expr, call: ast.Call, scope: ast.AST) -> bool:
        """A loss reduced by a sum (`reduction='sum'`, the older `size_average=False`) on the call
        (`F.mse_loss(..., reduction='sum')`) or on the criterion it calls, built in the function,
        the class or the module (`loss_fn = nn.BCELoss(reduction='sum').cuda()`)."""
        if _reduces_by_sum(call):
            return True
        if not isinstance(func, (ast.Name, ast.Attribute)) or dotted(func) is None:
            return False
        built, _, _ = self.model.values.reaching_value(func, scope, call.lineno)
        return isinstance(built, ast.Call) and _reduces_by_sum(constructor(built))  # `.cuda()` returns the criterion

    def spans_cached_micro_batches(self, call: ast.Call, scope: ast.AST) -> bool:
        """Gradient caching: the loss is taken over this micro-batch's output concatenated with
        the other micro-batches' cached outputs (`torch.cat(cached[:j] + [out] + cached[j + 1:])`),
        given directly or through names assigned in the function."""
        if not self.model.memo(("concatenates slices", id(scope)), lambda: _concatenates_slices(scope)):
            return False  # the function concatenates no slice of a list: nothing to follow
        table = self.model.scope(scope)

        def assigned(name: str) -> list[ast.expr]:
            values = [getattr(s, "value", None) for s in table.before(name, call.lineno)]
            values += [  # `inputs[key] = torch.cat(...)` for `loss(**inputs)`
                s.value for s in ast.walk(scope) if isinstance(s, ast.Assign) and s.lineno < call.lineno
                and any(isinstance(t, ast.Subscript) and dotted(t.value) == name for t in s.targets)
            ]
            return [v for v in values if v is not None]

        def sliced(value: ast.expr, depth: int) -> bool:
            nodes = list(ast.walk(value))
            if any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice) for n in nodes):
                return True
            return depth > 0 and any(
                sliced(v, depth - 1) for n in nodes if isinstance(n, ast.Name) for v in assigned(n.id)
            )

        def concatenates_cache(value: ast.expr, depth: int) -> bool:
            return any(
                isinstance(n, ast.Call) and (dotted(n.func) or "").rsplit(".", 1)[-1] in CONCATENATIONS
                and sliced(n, 1)
                for n in ast.walk(value)
            ) or depth > 0 and any(
                concatenates_cache(v, depth - 1) for n in ast.walk(value) if isinstance(n, ast.Name)
                for v in assigned(n.id)
            )

        return any(concatenates_cache(a, 1) for a in [*call.args, *(k.value for k in call.keywords)])

    def adds_cached_window_terms(self, stmt: ast.AugAssign, scope: ast.AST) -> bool:
        """`loss += value` over `for key, value in loss_dict.items()`, where every value of
        `loss_dict` reaching the loop is a loss over cached micro-batches (spans_cached_micro_batches)."""
        added = stmt.value
        if isinstance(added, ast.Call):
            return self.spans_cached_micro_batches(added, scope)
        if not isinstance(added, ast.Name):
            return False
        loop = next((
            node for node in self.model.parents.chain(stmt)[1:]
            if isinstance(node, ast.For) and added.id in {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        ), None)
        if loop is None:
            return False
        container = loop.iter
        if isinstance(container, ast.Call) and isinstance(container.func, ast.Attribute) and container.func.attr in ("items", "values"):
            container = container.func.value
        name = dotted(container) if isinstance(container, (ast.Name, ast.Attribute)) else None
        reaching = [s for s in self.model.scope(scope).before(name, loop.lineno) if not self.model.parents.on_other_branch(s, loop.lineno)] if name else []
        values = [getattr(s, "value", None) for s in reaching]
        return bool(values) and all(isinstance(v, ast.Call) and self.spans_cached_micro_batches(v, scope) for v in values)

    def left_at_one(self, divisor: ast.expr, scope: ast.AST, line: int) -> bool:
        """A parameter of the helper its call leaves at a default of 1, not reassigned before."""
        default = self.defaults.get(divisor.id) if isinstance(divisor, ast.Name) else None
        return (
            isinstance(default, ast.Constant) and default.value == 1 and not isinstance(default.value, bool)
            and not self.model.scope(scope).before(divisor.id, line)
        )

    def running_sum(self, expr: ast.expr, scope: ast.AST, line: int) -> bool:
        """A name whose only earlier value is the `None` or `0` a sum starts from."""
        name = dotted(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
        earlier = self.model.scope(scope).before(name, line) if name else []
        return bool(earlier) and all(_starts_a_sum(stmt) for stmt in earlier)

    def name(self, expr: ast.expr, scope: ast.AST, line: int, depth: int) -> bool | None:
        name = dotted(expr)
        if name is None:
            return None
        table = self.model.scope(scope)
        # an assignment on the other branch of an `if` the line sits in never reaches it
        assignments = [s for s in table.before(name, line) if not self.model.parents.on_other_branch(s, line)]
        if not assignments:
            passed = self.passed(expr, scope)
            if passed is not None:
                arguments, caller, caller_scope, caller_line = self.caller
                return caller.expr(passed, caller_scope, caller_line, depth + 1)
            base = dotted(expr.value) if isinstance(expr, ast.Attribute) else None
            if base in table.assignments:  # `outputs.loss` of an output assigned here
                producers = [getattr(s, "value", None) for s in table.assignments[base]]
                if any(isinstance(v, ast.BinOp) for v in producers):
                    # `losses = model.compute_loss(batch) / n`: a loss object dividing its terms
                    # (its `__truediv__`), read as the arithmetic says
                    return _any_normalized([self.expr(v, scope, line, depth + 1) for v in producers if v is not None])
                told = any(isinstance(v, ast.Call) and _told_how_to_normalize(v) for v in producers)
                return None if told else False
            return None
        scaled = _scaled_in_place(self.model, name, scope, assignments[-1].lineno, line)
        if scaled is not None:  # `loss.mul_(1.0 / n)` after `loss = criterion(...)`: as `loss * (1.0 / n)`
            call, op = scaled
            return self.expr(ast.BinOp(expr, op, call.args[0]), scope, call.lineno, depth + 1)
        # `loss = None` / `loss = 0` start a sum the loop adds terms to: no value of their own
        verdict = _any_normalized([self.assignment(stmt, expr, scope, depth) for stmt in assignments if not _starts_a_sum(stmt)])
        if verdict is None and _is_per_sample_quantity(name):
            return False  # rewards, advantages, log-probabilities of this micro-batch's samples
        return verdict

    def counted_items(self, divisor: ast.expr, scope: ast.AST, line: int) -> ast.expr:
        """A helper's divisor in its own names: `batch_size` its caller passes as `len(labels)`
        (or a name set so) while passing `labels` for `batch_labels` is `len(batch_labels)`."""
        if not isinstance(divisor, ast.Name) or self.model.scope(scope).before(divisor.id, line):
            return divisor
        passed = self.passed(divisor, scope)
        if passed is None:
            return divisor
        bound, caller, caller_scope, caller_line = self.caller
        if isinstance(passed, ast.Name):
            passed = caller.model.values.reaching_value(passed, caller_scope, caller_line)[0] or passed
        if not (isinstance(passed, ast.Call) and dotted(passed.func) == "len" and len(passed.args) == 1 and dotted(passed.args[0])):
            return divisor
        counted = dotted(passed.args[0])
        parameter = next((p for p, argument in bound.items() if dotted(argument) == counted), None)
        return ast.Call(ast.Name("len", ast.Load()), [ast.Name(parameter, ast.Load())], []) if parameter else divisor

    def passed(self, expr: ast.expr, scope: ast.AST) -> ast.expr | None:
        """The argument the caller passed for a parameter of the helper being read."""
        if self.caller is None or not isinstance(expr, ast.Name):
            return None
        is_parameter = scope is not None and any(a.arg == expr.id for a in _parameters(scope))
        return self.caller[0].get(expr.id) if is_parameter else None

    def passed_element(self, element: ast.Subscript, scope: ast.AST) -> ast.Subscript | None:
        """`batch[loss_name]` in a helper its caller hands the dict and the key's literal
        (`self.make_step(batch, "disc_loss")`): the caller's `batch["disc_loss"]`, which the caller
        may have divided in place before the call."""
        container = self.passed(element.value, scope)
        key = self.passed(element.slice, scope) if isinstance(element.slice, ast.Name) else element.slice
        if container is None or not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return None
        return ast.copy_location(ast.Subscript(container, key, ast.Load()), element)

    def yielded_share(self, factor: ast.expr, scope: ast.AST, line: int) -> bool:
        """`for micro, weight in self._iter_micro_batches(batch):` then `loss * weight`, where the
        generator yields `(piece, part / total)` (or `1.0` for the batch left whole): each piece's
        share of the batch it was cut from, and the shares of the window's pieces sum to 1."""
        if not isinstance(factor, ast.Name):
            return False
        loops = self.model.memo(("for loops", id(scope)), lambda: [n for n in ast.walk(scope) if isinstance(n, ast.For)])
        for loop in (n for n in loops if n.lineno <= line <= n.end_lineno):
            names = loop.target.elts if isinstance(loop.target, ast.Tuple) else []
            position = next((i for i, n in enumerate(names) if isinstance(n, ast.Name) and n.id == factor.id), None)
            if position is None or not isinstance(loop.iter, ast.Call):
                continue
            callee = resolve_callee(self.model, loop.iter, CallContext(self.model, scope, class_of_scope(self.model, scope)))
            function = callee.function if callee is not None else None
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return False
            shares = [
                y.value.elts[position] for y in ast.walk(function)
                if isinstance(y, ast.Yield) and isinstance(y.value, ast.Tuple) and len(y.value.elts) > position
            ]
            yields = [y for y in ast.walk(function) if isinstance(y, ast.Yield)]
            return (
                bool(shares) and len(shares) == len(yields)
                and all(isinstance(v, ast.BinOp) and isinstance(v.op, ast.Div) or isinstance(v, ast.Constant) and v.value == 1 for v in shares)
                and any(isinstance(v, ast.BinOp) for v in shares)
            )
        return False

    def corrects_partial_batch(self, factor: ast.expr, scope: ast.AST, line: int) -> bool:
        """`batch_size / x.shape[0]`, `batch["runt_size"] / args.batch_size`, or a name given such
        a ratio: it weighs a short batch by its share of a full one (1 for full batches), so it
        does not divide by the window's length."""
        name = dotted(factor) if isinstance(factor, ast.Name) else None
        if name is not None:
            earlier = self.model.scope(scope).before(name, line)
            values = [s.value for s in earlier if isinstance(s, ast.Assign)]
            return bool(earlier) and len(values) == len(earlier) and all(_is_batch_size_ratio(v) for v in values)
        return _is_batch_size_ratio(factor)

    def per_micro_batch(self, divisor: ast.expr, scope: ast.AST, line: int, depth: int) -> bool:
        """`batch.ntokens`, `batch["num_tokens"]`: a count read off the loop's own micro-batch (or
        a helper's parameter its caller gives one): the mean over this batch, not the window."""
        if depth > MAX_DEPTH:
            return False
        read = divisor.value if isinstance(divisor, ast.Subscript) else divisor
        name = dotted(read)
        if name is None:
            return False
        if isinstance(divisor, ast.Name):
            passed = self.passed(divisor, scope) if not self.model.scope(scope).before(name, line) else None
            if passed is None:
                return False
            _, caller, caller_scope, caller_line = self.caller
            return caller.per_micro_batch(passed, caller_scope, caller_line, depth + 1)
        head = name.split(".")[0]
        around = [l for l in ast.walk(scope) if isinstance(l, (ast.For, ast.AsyncFor)) and l.lineno <= line <= l.end_lineno]
        # a count of an item cut into micro-batches by a loop inside its own (`data_pack["local_bsz"]`
        # over `for mb in range(n_micro)`) is the window's, not one micro-batch's
        return any(
            any(isinstance(n, ast.Name) and n.id == head for n in ast.walk(loop.target))
            and not any(inner is not loop and loop.lineno < inner.lineno <= inner.end_lineno <= loop.end_lineno for inner in around)
            for loop in around
        )

    def counts_its_inputs(self, divisor: ast.expr, scope: ast.AST, line: int) -> bool:
        """In a loss function whose returned loss is being read: a divisor that only counts the
        elements of the data it was handed (`n_frames = sum(t.shape[0] for t in targets)`,
        `len(preds)`): the mean over its own batch, which says nothing of the window."""
        if not self.returned:
            return False
        if isinstance(divisor, ast.Name) and self.model.scope(scope).before(divisor.id, line):
            divisor, _, _ = self.model.values.reaching_value(divisor, scope, line)
        counted = _counted_names(divisor) if divisor is not None else None
        parameters = {a.arg for a in _parameters(scope)}
        return bool(counted) and all(name in parameters or self.made_from(name, parameters, scope, line) for name in counted)

    def made_from(self, name: str, parameters: set[str], scope: ast.AST, line: int) -> bool:
        """A local computed from the handed data alone, with imported or module-level names
        (`padding_mask = labels.eq(IGNORE_INDEX)`): its count is one of that data's."""
        value, _, _ = self.model.values.reaching_value(ast.Name(name, ast.Load()), scope, line)
        names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} if value is not None else set()
        read = {n for n in names if n in parameters}
        module_names = self.model.scope(self.model.tree).assignments
        return bool(read) and all(n in parameters or n in module_names or self.model.imports.origin(n) is not None for n in names)

    def running_counter(self, divisor: ast.expr, scope: ast.AST) -> bool:
        """A name the code counts up one by one (`accum_n_steps += 1`): dividing by it weighs
        the window's micro-batches 1, 1/2, 1/3 ... instead of dividing each by the window's length."""
        name = dotted(divisor) if isinstance(divisor, (ast.Name, ast.Attribute)) else None
        return name is not None and any(
            isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Add) and isinstance(s.value, ast.Constant) and s.value.value == 1
            for s in self.model.scope(scope).assignments.get(name, ())
        )

    def counts_processes(self, divisor: ast.expr, scope: ast.AST, line: int, depth: int) -> bool:
        """`world_size`, `args.world_size`, `dist.get_world_size()`, or a name given one of them
        (a helper's parameter: what its caller passed)."""
        if depth > MAX_DEPTH:
            return False
        if isinstance(divisor, ast.Call):
            return dotted(divisor.func) is not None and dotted(divisor.func).endswith("get_world_size")
        name = dotted(divisor)
        if name is None:
            return False
        last = name.rsplit(".", 1)[-1].lower()
        if last in PROCESS_COUNT_NAMES or last.endswith("_world_size"):
            return True
        earlier = self.model.scope(scope).before(name, line)
        values = [getattr(s, "value", None) for s in earlier if isinstance(s, (ast.Assign, ast.AnnAssign))]
        if earlier and len(values) == len(earlier):
            return all(v is not None and self.counts_processes(v, scope, s.lineno, depth + 1) for v, s in zip(values, earlier))
        passed = self.passed(divisor, scope) if not earlier else None
        if passed is not None:
            arguments, caller, caller_scope, caller_line = self.caller
            return caller.counts_processes(passed, caller_scope, caller_line, depth + 1)
        return False

    def assignment(self, stmt: ast.stmt, target: ast.expr, scope: ast.AST, depth: int) -> bool | None:
        if isinstance(stmt, ast.AugAssign):
            if isinstance(stmt.op, (ast.Div, ast.FloorDiv)) and (
                self.counts_processes(stmt.value, scope, stmt.lineno, depth)
                or _averages_its_terms(stmt.target, stmt.value, scope)  # `total_loss /= len(turns)`
            ):
                return self.name(target, scope, stmt.lineno, depth + 1)
            if isinstance(stmt.op, ast.Mult) and _is_weight_literal(stmt.value):  # `lbox *= 0.05`
                return self.name(target, scope, stmt.lineno, depth + 1)
            if isinstance(stmt.op, ast.Mult) and self.counts_processes(stmt.value, scope, stmt.lineno, depth):
                return self.over_processes(self.name, target, scope, stmt.lineno, depth + 1)  # `loss *= world_size`
            if isinstance(stmt.op, (ast.Div, ast.FloorDiv)) or (
                isinstance(stmt.op, ast.Mult) and not _is_count(stmt.value)
            ):
                return True
            share = _adds_item_shares(stmt, scope)
            if share is not None:  # `loss += term / len(terms)` over the terms: as raw as the term
                return self.expr(share, scope, stmt.lineno, depth + 1)
            divided = isinstance(stmt.value, ast.BinOp) and isinstance(stmt.value.op, (ast.Div, ast.FloorDiv))
            if isinstance(stmt.op, ast.Add) and divided and self.expr(stmt.value, scope, stmt.lineno, depth + 1) is True:
                return True  # `batch_loss += loss / accum_steps`: a sum of divided terms (not of weighted ones)
            if isinstance(stmt.op, ast.Add) and self.adds_cached_window_terms(stmt, scope):
                return None  # the terms of a loss over the whole window's batch (gradient caching)
            return False if isinstance(stmt.op, (ast.Add, ast.Sub)) else None
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            return self.terms(stmt, target, scope, depth)
        value = stmt.value
        unpacked = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        if isinstance(unpacked, ast.Tuple) and isinstance(value, (ast.Name, ast.Attribute)) and dotted(value) is not None:
            # `loss, items = loss` where a criterion may return a tuple: an element of what it was
            return self.name(value, scope, stmt.lineno, depth + 1)
        if isinstance(value, ast.Name) and value.id == dotted(target):
            return None
        if isinstance(unpacked, ast.Tuple) and isinstance(value, ast.Call):
            names = [dotted(e) for e in unpacked.elts]
            if dotted(target) in names:
                element = (names.index(dotted(target)), len(names))
                return self.call(value.func, value, scope, depth + 1, element)
        return self.expr(value, scope, stmt.lineno, depth + 1)


    def terms(self, loop: ast.For | ast.AsyncFor, target: ast.expr, scope: ast.AST, depth: int) -> bool | None:
        """`for term in [ce_loss, kl_loss]:` -- the loop variable is each listed term in turn."""
        if not (isinstance(loop.iter, (ast.List, ast.Tuple)) and loop.iter.elts and dotted(loop.target) == dotted(target)):
            return None
        return _any_normalized([self.expr(term, scope, loop.lineno, depth + 1) for term in loop.iter.elts])


def _reduces_one_value(model: "ModuleModel", value: ast.expr) -> bool:
    """`torch.mean(loss)`, `torch.mean(compute_fape(...))`: one loss reduced, read as it is; not
    a stack or concatenation of several (the window's losses, perhaps)."""
    if isinstance(value, (ast.Name, ast.Attribute)):
        return True
    if not isinstance(value, ast.Call) or isinstance(value.func, ast.Attribute) and value.func.attr in CONCATENATIONS:
        return False
    return (model.imports.qualname(value.func) or "").rsplit(".", 1)[-1] not in CONCATENATIONS


def _masked_product(value: ast.expr) -> bool:
    return isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult) and (_is_mask(value.left) or _is_mask(value.right))


def _iterates_keys(loop: ast.For, container: str, key: str) -> bool:
    """`for key in loss`, `for key in loss.keys()`, `for key, value in loss.items()`."""
    iterated, target = loop.iter, loop.target
    if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Attribute) and iterated.func.attr in ("keys", "items") and not iterated.args:
        iterated = iterated.func.value
        if isinstance(target, ast.Tuple) and target.elts:
            target = target.elts[0]
    return dotted(iterated) == container and isinstance(target, ast.Name) and target.id == key


def _parameters(function: ast.AST) -> list[ast.arg]:
    args = getattr(function, "args", None)
    return [*args.posonlyargs, *args.args, *args.kwonlyargs] if isinstance(args, ast.arguments) else []


SUMMING_FUNCTIONS = frozenset({"sum", "np.sum", "numpy.sum", "torch.sum", "max", "int", "float"})


def _counted_names(expr: ast.expr, bound: dict[str, str] | None = None) -> set[str] | None:
    """The names whose sizes `expr` is made of (`len(x)`, `x.shape[0]`, `sum(t.size(0) for t in
    ts)` -> {ts}, `mask.numel() - mask.long().sum()` -> {mask}), integer literals aside; None
    when it holds anything but sizes."""
    bound = bound or {}
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in COUNT_CASTS:
        expr = expr.func.value
    sized = _sized(expr)
    if sized is not None:
        head = sized.split(".")[0]
        return {bound.get(head, head)}
    match expr:
        case ast.Constant(value=int()):
            return set()
        case ast.BinOp(op=ast.Add() | ast.Sub() | ast.Mult(), left=left, right=right):
            parts = [_counted_names(left, bound), _counted_names(right, bound)]
            return None if None in parts else parts[0] | parts[1]
        case ast.Call(func=ast.Attribute(value=summed, attr="sum"), args=[]) if isinstance(_mask_stripped(summed), ast.Name):
            counted = _mask_stripped(summed).id
            return {bound.get(counted, counted)}  # `mask.long().sum()`: how many elements it keeps
        case ast.Call(func=func, args=[*args], keywords=[]) if dotted(func) in SUMMING_FUNCTIONS and args:
            parts = [_counted_names(a, bound) for a in args]
            return None if None in parts else set().union(*parts)
        case ast.ListComp(elt=element, generators=[ast.comprehension(target=ast.Name(id=target), iter=items, ifs=[])]) | ast.GeneratorExp(
            elt=element, generators=[ast.comprehension(target=ast.Name(id=target), iter=items, ifs=[])]
        ) if dotted(items) is not None:
            return _counted_names(element, {**bound, target: dotted(items).split(".")[0]})
    return None


def _mask_stripped(expr: ast.expr) -> ast.expr:
    """`mask.long()`, `mask.float()` -> `mask`."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in MASK_CASTS | {"long", "int", "bool"}:
        expr = expr.func.value
    return expr


def _own_size(total: ast.expr, divisor: ast.expr) -> bool:
    """`loss / loss.numel()`, `loss.sum() / loss.shape[0]`, `torch.sum((pred - y) ** 2) /
    pred.shape[0] / pred.shape[1]`: the mean of the loss's own elements or samples (1 for a
    summed scalar), this micro-batch's and no more."""
    sized = _sized(divisor)
    if sized is None:
        return False
    if isinstance(total, ast.BinOp) and isinstance(total.op, ast.Div) and _sized(total.right) == sized:
        total = total.left  # divided by another of its dimensions first
    if isinstance(total, ast.Call) and isinstance(total.func, ast.Attribute) and total.func.attr == "sum" and not total.args:
        total = total.func.value
    elif isinstance(total, ast.Call) and dotted(total.func) in ("torch.sum", "sum") and len(total.args) == 1:
        return any(dotted(n) == sized for n in ast.walk(total.args[0]) if isinstance(n, (ast.Name, ast.Attribute)))
    return dotted(total) == sized


def _sized(divisor: ast.expr) -> str | None:
    """The name whose own size `divisor` is: `x.numel()`, `x.nelement()`, `x.size(k)`,
    `x.shape[k]`, `len(x)`."""
    match divisor:
        case ast.Call(func=ast.Attribute(value=owner, attr="numel" | "nelement"), args=[]):
            return dotted(owner)
        case ast.Call(func=ast.Attribute(value=owner, attr="size"), args=[ast.Constant(value=int())]):
            return dotted(owner)
        case ast.Subscript(value=ast.Attribute(value=owner, attr="shape"), slice=ast.Constant(value=int())):
            return dotted(owner)
        case ast.Call(func=ast.Name(id="len"), args=[owner]):
            return dotted(owner)
    return None


def _is_mask(expr: ast.expr) -> bool:
    """`mask`, `attention_mask.float()`, `pad_mask.to(dtype)`: which elements count, not a
    divisor."""
    name = _mask_name(expr)
    return name is not None and "mask" in name.rsplit(".", 1)[-1].lower()


def _mask_name(expr: ast.expr) -> str | None:
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in MASK_CASTS:
        expr = expr.func.value
    return dotted(expr)


def _masked_mean(total: ast.expr, divisor: ast.expr) -> bool:
    """`(loss * mask).sum() / mask.sum()`, `... / mask.sum(-1).clamp(min=1)`: the mean over the
    elements a mask keeps (this micro-batch's tokens), no more."""
    while isinstance(divisor, ast.Call) and isinstance(divisor.func, ast.Attribute) and divisor.func.attr in COUNT_CASTS:
        divisor = divisor.func.value
    if isinstance(divisor, ast.BinOp) and isinstance(divisor.op, ast.Add) and _is_small_float(divisor.right):
        divisor = divisor.left  # `mask.sum(-1) + 1e-6`: kept from zero, still the count
    if isinstance(divisor, ast.Call) and isinstance(divisor.func, ast.Attribute) and divisor.func.attr == "sum":
        counted = divisor.func.value
    elif isinstance(divisor, ast.Call) and dotted(divisor.func) == "torch.sum" and divisor.args:
        counted = divisor.args[0]
    else:
        return False
    name = _mask_name(counted) if _is_mask(counted) else None
    return name is not None and any(
        isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
        and name in (_mask_name(node.left), _mask_name(node.right))
        for node in ast.walk(total)
    )


def _is_small_float(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and isinstance(expr.value, float) and 0 < expr.value < 1e-2


def _averages_its_terms(total: ast.expr, divisor: ast.expr, scope: ast.AST) -> bool:
    """`loss / len(preds)` where a loop over `preds` (or `range(len(preds))`, `enumerate(preds)`,
    `zip(preds, labels)`) adds one term to `loss` per item: the mean of the terms (subtoken losses, deep-supervision
    heads), not a division by the window."""
    if isinstance(divisor, ast.Call) and dotted(divisor.func) == "max" and len(divisor.args) == 2 and not divisor.keywords:
        counted = [a for a in divisor.args if not (isinstance(a, ast.Constant) and a.value == 1)]
        divisor = counted[0] if len(counted) == 1 else divisor  # `max(len(terms), 1)`, kept from 0
    if not (
        isinstance(total, ast.Name) and isinstance(divisor, ast.Call) and dotted(divisor.func) == "len"
        and len(divisor.args) == 1
    ):
        return False
    items = divisor.args[0]  # `preds`, or `set(perts)`: the same expression the loop runs over
    return any(
        isinstance(loop, ast.For) and _iterates(loop, items) and any(_adds_to(s, total.id) for s in ast.walk(loop))
        for loop in ast.walk(scope)
    )


def _adds_to(stmt: ast.AST, total: str) -> bool:
    """`total += term` or `total = total + term`."""
    if isinstance(stmt, ast.AugAssign):
        return isinstance(stmt.op, ast.Add) and dotted(stmt.target) == total
    return (
        isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and dotted(stmt.targets[0]) == total
        and isinstance(stmt.value, ast.BinOp) and isinstance(stmt.value.op, ast.Add) and dotted(stmt.value.left) == total
    )


def _adds_item_shares(stmt: ast.AugAssign, scope: ast.AST) -> ast.expr | None:
    """`loss_D += f(logit) / len(logits)` in a loop over `logits`: the mean of the items'
    terms, added one share at a time; the term comes back."""
    value = stmt.value
    if not (
        isinstance(stmt.op, ast.Add) and isinstance(value, ast.BinOp) and isinstance(value.op, ast.Div)
        and isinstance(value.right, ast.Call) and dotted(value.right.func) == "len" and len(value.right.args) == 1
    ):
        return None
    items = value.right.args[0]
    holding = any(
        isinstance(loop, ast.For) and _iterates(loop, items) and any(n is stmt for n in ast.walk(loop))
        for loop in ast.walk(scope)
    )
    return value.left if holding else None


def _iterates(loop: ast.For, items: ast.expr) -> bool:
    """The loop runs once per item of `items` (`range(len(items))`, `enumerate(items)`,
    `items.values()`, and `zip(items, labels)` too)."""
    over = loop.iter
    if isinstance(over, ast.Call) and dotted(over.func) in ("range", "enumerate") and len(over.args) == 1:
        over = over.args[0]
    if isinstance(over, ast.Call) and isinstance(over.func, ast.Attribute) and over.func.attr in ("items", "values", "keys") and not over.args:
        over = over.func.value  # a dict's entries, as many as `len(d)`
    iterated = over.args if isinstance(over, ast.Call) and dotted(over.func) == "zip" else [over]
    spelled = ast.dump(items)
    return any(
        ast.dump(each) == spelled or (isinstance(each, ast.Call) and dotted(each.func) == "len" and each.args and ast.dump(each.args[0]) == spelled)
        for each in iterated
    )


def _averages_written_terms(total: ast.expr, divisor: ast.expr) -> bool:
    """`(policy + value + aux) / 3`: a sum of written terms over a literal no larger than their
    count weighs the terms against each other (their mean); a window's division would not be
    tied to how many terms the loss has."""
    terms = 1
    while isinstance(total, ast.BinOp) and isinstance(total.op, (ast.Add, ast.Sub)):
        terms, total = terms + 1, total.left
    return terms >= 2 and _is_int_literal(divisor) and 2 <= divisor.value <= terms


def _starts_a_sum(stmt: ast.stmt) -> bool:
    """`loss = 0`, `loss = None`, `lbox = torch.zeros(1, device=device)`, `torch.tensor(0.0).cuda()`:
    what a sum of terms starts from, no value of its own."""
    value = getattr(stmt, "value", None) if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in RETURNS_SELF:
        value = value.func.value  # `.cuda()`, `.to(device)`: the same zero, elsewhere
    if isinstance(value, ast.Call) and (dotted(value.func) or "").rsplit(".", 1)[-1] in ("zeros", "zeros_like"):
        return True
    return _is_zero_or_none(value) or (
        isinstance(value, ast.Call) and (dotted(value.func) or "").endswith("tensor") and len(value.args) == 1
        and _is_zero_or_none(value.args[0]) and value.args[0].value is not None
    )


def _is_zero_or_none(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Constant) and (value.value is None or (type(value.value) in (int, float) and value.value == 0))


def _names_a_length(expr: ast.expr) -> bool:
    """`sentence_len`, `seq_length`, `n_tokens`: a length a per-item loss is weighted up by."""
    name = dotted(expr)
    return name is not None and bool(set(name.rsplit(".", 1)[-1].lower().split("_")) & LENGTH_WORDS)


def _is_per_sample_quantity(name: str) -> bool:
    """`rewards`, `advantages`, `log_probs`, `returns`: what RL code computes per sample of the
    micro-batch it just generated or read, never already divided by a window."""
    words = set(name.rsplit(".", 1)[-1].lower().split("_"))
    return bool(words & PER_SAMPLE_WORDS) or bool(words & {"logprobs", "logprob"}) or {"log", "probs"} <= words or {"log", "prob"} <= words


def _accumulating_side(test: ast.expr, body: ast.expr, orelse: ast.expr) -> ast.expr | None:
    """The side of `x / n if n > 1 else x` taken when the window `n` is more than one micro-batch
    (`n > 1`, `n != 1`, `n >= 2`; `n == 1`, `n <= 1` pick the other side), where one side divides
    by the `n` the test reads; None for other tests."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant)):
        return None
    window, op, bound = ast.dump(test.left), test.ops[0], test.comparators[0].value
    divides = any(
        isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) and ast.dump(n.right) == window
        for side in (body, orelse) for n in ast.walk(side)
    )
    if not divides or type(bound) is not int:
        return None
    if isinstance(op, ast.Gt) and bound == 1 or isinstance(op, ast.NotEq) and bound == 1 or isinstance(op, ast.GtE) and bound == 2:
        return body
    if isinstance(op, ast.Eq) and bound == 1 or isinstance(op, ast.LtE) and bound == 1 or isinstance(op, ast.Lt) and bound == 2:
        return orelse
    return None


def _per_sample_factor(expr: ast.expr) -> bool:
    """`advantages.detach()`, `-adv[idx]`, `rewards.unsqueeze(-1)`: a per-sample RL weight (a
    reward, an advantage, a return; not the log-probabilities it weighs) as a factor of a
    product (through signs, casts and indexing)."""
    while True:
        if isinstance(expr, ast.UnaryOp):
            expr = expr.operand
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in MASK_CASTS:
            expr = expr.func.value
        elif isinstance(expr, ast.Subscript):
            expr = expr.value
        else:
            break
    name = dotted(expr)
    return name is not None and bool(set(name.rsplit(".", 1)[-1].lower().split("_")) & PER_SAMPLE_WORDS)


def _models_loss_method(func: ast.expr) -> bool:
    """A loss method of a model (`model.get_loss(...)`, `net.module.compute_loss(...)`)."""
    if not (isinstance(func, ast.Attribute) and "loss" in func.attr.lower()):
        return False
    receiver = dotted(func.value)
    return receiver is not None and RAW_LOSS_CALLEE.search(receiver.rsplit(".", 1)[-1]) is not None


IN_PLACE_SCALING = {"mul_": ast.Mult(), "div_": ast.Div()}


def _scaled_in_place(model: "ModuleModel", name: str, scope: ast.AST, after: int, line: int) -> tuple[ast.Call, ast.operator] | None:
    """The last `name.mul_(x)` / `name.div_(n)` statement of the scope between the name's last
    assignment (line `after`) and `line`, with its operator."""
    found = None
    for stmt, node in nodes_on_lines(model, ("mul_(", "div_(")):
        if (
            isinstance(stmt, ast.Expr) and stmt.value is node and isinstance(node, ast.Call) and after < node.lineno < line
            and isinstance(node.func, ast.Attribute) and node.func.attr in IN_PLACE_SCALING and len(node.args) == 1
            and dotted(node.func.value) == name and model.parents.scope_of(stmt) is scope
        ):
            found = (node, IN_PLACE_SCALING[node.func.attr])
    return found


ERROR_OPERATORS = (ast.Sub, ast.Add, ast.Mult, ast.Pow)
# `abs(d)`, `d.pow(2)`, `torch.square(d)`, and element-wise maps of the model's outputs
# (`1 - scores.softmax(dim=1)[:, 0]`): none divides by anything beyond the micro-batch
ERROR_FUNCTIONS = frozenset({
    "abs", "pow", "square", "softmax", "log_softmax", "sigmoid", "logsigmoid", "log", "exp", "tanh", "relu", "softplus", "clamp",
})


def _elementwise_error(expr: ast.expr) -> bool:
    """`(pred - y) ** 2`, `(pred - y).pow(2)`, `torch.abs(pred - y)`, `1 - p.softmax(1)[:, 0]`,
    `(q_net(s).gather(1, a) - target) ** 2`: a difference of two tensors, mapped element-wise,
    with no division anywhere in it (a model's forward or a selection of its outputs has none)."""
    nodes = list(ast.walk(expr))
    if not any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) for n in nodes):
        return False
    for node in nodes:
        if isinstance(node, ast.BinOp) and not isinstance(node.op, ERROR_OPERATORS):
            return False
        if isinstance(node, ast.Call) and not _maps_elements(node):
            return False
    return True


def _maps_elements(call: ast.Call) -> bool:
    """An element-wise function, a selection or reshaping of a tensor, or a model's forward."""
    called = (dotted(call.func) or "").rsplit(".", 1)[-1]
    if called in ERROR_FUNCTIONS or (isinstance(call.func, ast.Attribute) and (called in SELECTING_METHODS or called == "detach")):
        return True
    return isinstance(call.func, ast.Name) and MODEL_FORWARD.search(called) is not None and CRITERION.search(called) is None


def _is_weight_literal(expr: ast.expr) -> bool:
    """A float literal (`0.05`, `1e-3`), or a negated number (`-1 * loglikelihood`): a fixed
    weight of a loss term, or its sign."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub) and isinstance(expr.operand, ast.Constant):
        return type(expr.operand.value) in (int, float)
    return isinstance(expr, ast.Constant) and type(expr.value) is float


def _is_loss_weight(expr: ast.expr, one_of: bool = False) -> bool:
    """`args.kl_weight`, `self.hparams.ins_loss_ratio`, `lambda_gp`, the other term's share
    `(1 - alpha)`, a distillation temperature `T` (`kl * T * T`), one of a list of weights
    (`w_loss[0]`, `weights[2]`, `cfg.loss_w[i]` for the i-th dataset's loss): a term's weight,
    not an accumulation or normalizing quantity. `one_of`: the name holds several (`loss_weights[0]`),
    so a plural names weights too; alone, `weights` is as likely their sum, a normalizer."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub) and isinstance(expr.left, ast.Constant) and expr.left.value == 1:
        return _is_loss_weight(expr.right)
    if isinstance(expr, ast.Subscript) and (_is_int_literal(expr.slice) or isinstance(expr.slice, ast.Name)):
        return _is_loss_weight(expr.value, one_of=True)
    name = dotted(expr) or _config_key(expr)
    if name is None:
        return False
    last = name.rsplit(".", 1)[-1]
    if last in TEMPERATURE_NAMES:
        return True
    words = {
        singular if one_of and (singular := word.removesuffix("s")) in LOSS_WEIGHT_WORDS else word
        for word in last.lower().split("_")
    }
    # `all_weight`, `total_weight`: the weights summed, a normalizer, not one term's weight
    return bool(words & LOSS_WEIGHT_WORDS) and not words & WINDOW_TOTAL_WORDS and not any(word in last.lower() for word in NORMALIZER_WORDS)


def _mixed_terms(expr: ast.BinOp) -> tuple[ast.expr, ast.expr] | None:
    """The two terms of `a * c + b * (1 - c)` (either order, either side of each product): a
    convex mix, whose shares `c` and `1 - c` weigh the terms whatever `c` is called."""
    if not (isinstance(expr.op, ast.Add) and isinstance(expr.left, ast.BinOp) and isinstance(expr.right, ast.BinOp)):
        return None
    sides = []
    for product in (expr.left, expr.right):
        if not isinstance(product.op, ast.Mult):
            return None
        sides.append(((product.left, product.right), (product.right, product.left)))
    for share, term in sides[0]:
        for other_share, other_term in sides[1]:
            for a, b in ((share, other_share), (other_share, share)):
                complement = isinstance(b, ast.BinOp) and isinstance(b.op, ast.Sub) and isinstance(b.left, ast.Constant) and b.left.value == 1
                if complement and dotted(a) is not None and dotted(a) == dotted(b.right):
                    return term, other_term
    return None


def _element(value: ast.expr, element) -> ast.expr | None:
    """The part of a returned value an unpacking assignment takes."""
    if element is None:
        return value
    index, count = element
    if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == count:
        return value.elts[index]
    return None


def _concatenates_slices(scope: ast.AST) -> bool:
    """Any `torch.cat`/`stack` in the function, and any slice of a list (`cached[:j]`)."""
    nodes = list(ast.walk(scope))
    return any(
        isinstance(n, ast.Call) and (dotted(n.func) or "").rsplit(".", 1)[-1] in CONCATENATIONS for n in nodes
    ) and any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice) for n in nodes)


def _reduces_by_sum(call: ast.Call) -> bool:
    """`reduction='sum'`, or `size_average=False` without `reduce=False` (a per-element loss)."""
    spelled = {k.arg: k.value.value for k in call.keywords if isinstance(k.value, ast.Constant)}
    return spelled.get("reduction") == "sum" or (spelled.get("size_average") is False and "reduce" not in spelled)


def _told_how_to_normalize(call: ast.Call) -> bool:
    """A loss computed with the window's size or token count passed in (HF's
    `num_items_in_batch`, `num_tokens=`, `accum_steps=` ...) is normalized by its callee."""
    arguments = [*call.args, *(k.value for k in call.keywords)]
    names = [k.arg or "" for k in call.keywords] + [ast.unparse(a) for a in arguments]
    return any(word in name.lower() for name in names for word in NORMALIZER_WORDS)


def _with_element(expression: ast.expr, name: str, items: ast.expr) -> ast.expr:
    """`expression` with the comprehension variable `name` read as an element, `items[0]`."""
    return with_names_replaced(expression, lambda n: ast.Subscript(items, ast.Constant(0), ast.Load()) if n.id == name else None)


def _config_key(expr: ast.expr) -> str | None:
    """`in_batch_neg_lambda` of `config["in_batch_neg_lambda"]`: a setting read by its key."""
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
        return expr.slice.value
    return None


def _is_count(expr: ast.expr) -> bool:
    """An integer literal or a count of elements (`x.size(1)`, `x.shape[0]`, `len(x)`,
    `x.numel()`): multiplying by it scales a loss up, it never divides by the window."""
    match expr:
        case ast.Call(func=ast.Attribute(attr="size" | "numel")) | ast.Call(func=ast.Name(id="len")):
            return True
        case ast.Subscript(value=ast.Attribute(attr="shape")):
            return True
    return _is_int_literal(expr)


def _is_batch_size_ratio(expr: ast.expr) -> bool:
    """A configured batch size against the current batch's (`args.batch_size / x.shape[0]`,
    `batch["runt_size"] / bs`). Not two measured sizes (`micro.shape[0] / batch.shape[0]`: a
    slice's share of the batch it was cut from, which is the window) nor a micro-batch's or a
    window's size (`x.size(0) / total_batch_size`): those divide by the window."""
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div)):
        return False
    kinds = [_batch_size_kind(side) for side in (expr.left, expr.right)]
    return None not in kinds and "named" in kinds


def _batch_size_kind(expr: ast.expr) -> str | None:
    """"measured" (`x.size(0)`, `x.shape[0]`, `len(batch)`), "named" (`args.batch_size`, `bs`,
    `batch["runt_size"]`) or None: not the size of one batch, or of a part of the window or
    the whole of it (`micro.shape[0]`, `total_batch_size`)."""
    match expr:
        case ast.Call(func=ast.Attribute(value=measured, attr="size"), args=[ast.Constant(value=0)]):
            return "measured" if not _words(measured) & WINDOW_PART_WORDS else None
        case ast.Call(func=ast.Name(id="len"), args=[measured]) | ast.Subscript(
            value=ast.Attribute(value=measured, attr="shape"), slice=ast.Constant(value=0)
        ):
            return "measured" if not _words(measured) & WINDOW_PART_WORDS else None
        case ast.Subscript(slice=ast.Constant(value=str(key))):
            words = set(key.lower().split("_"))
        case _:
            words = _words(expr)
    named = words & BATCH_SIZE_WORDS and ("size" in words or "bs" in words)
    return "named" if named and not words & (WINDOW_TOTAL_WORDS | WINDOW_PART_WORDS) else None


def _words(expr: ast.expr) -> set[str]:
    """The words of the last part of a name (`args.micro_batch_size` -> micro, batch, size)."""
    return set((dotted(expr) or "").rsplit(".", 1)[-1].lower().split("_"))


def _is_int_literal(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and isinstance(expr.value, int) and not isinstance(expr.value, bool)


def _any_normalized(verdicts: list[bool | None]) -> bool | None:
    """Several values that may reach backward (a name's assignments, a sum's terms): normalized
    when one visibly is (precision first), raw only when every one visibly is."""
    if True in verdicts:
        return True
    return False if verdicts and all(v is False for v in verdicts) else None


def _all(a: bool | None, b: bool | None) -> bool | None:
    if a is False or b is False:
        return False
    return True if a is True and b is True else None
