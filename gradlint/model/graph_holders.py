"""What holds the autograd graph of the tensors a training loop backpropagates: the losses,
the terms added up into them, the entries of a dict of outputs summed into one, and the tensors
computed from them that keep the graph (for GL601's running totals and meters)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from gradlint.model.names import assigned_value, dotted

if TYPE_CHECKING:
    from gradlint.model import ModuleModel

SIZE_CALLS = frozenset({"size", "len", "numel"})
DETACHING_METHODS = frozenset({"item", "detach", "tolist", "numpy"})
NUMBER_TYPES = frozenset({"float", "int"})
# what a tensor keeps its graph through: `loss.sum()`, `loss.cpu()`, `torch.exp(loss)`
GRAPH_KEEPING_METHODS = frozenset({"sum", "mean", "cpu", "cuda", "to", "clone", "float", "double", "squeeze", "view", "reshape"})
GRAPH_KEEPING_FUNCTIONS = frozenset({"torch.exp", "torch.sum", "torch.mean", "torch.abs", "torch.sqrt", "torch.log"})
# calls that make numbers, not tensors: a factor they give is a weight, not a term
NUMBER_MAKERS = frozenset({"float", "int", "len", "round", "min", "max", "abs", "pow"})


@dataclass
class GraphHolders:
    """What holds the graph of the tensors a loop backpropagates: the losses themselves, the
    tensors added up into one in the iteration (`loss = cls_loss + 0.5 * box_loss`, their terms),
    the entries of a dict of outputs summed into one (`loss = sum(v for k, v in ret.items() if
    "loss" in k)`), and what keeps a graph computed from any of them (`loss.sum()`,
    `torch.exp(loss)`)."""

    losses: set[str]
    terms: dict[str, str] = field(default_factory=dict)  # term -> the loss it is added into
    entries: dict[str, tuple[Callable[[object], bool], str]] = field(default_factory=dict)  # dict -> (which keys, loss)
    read_from: dict[str, str] = field(default_factory=dict)  # dict a loss was read from (`loss = out["loss"]`) -> the loss

    @classmethod
    def of(cls, model: "ModuleModel", loop: ast.stmt, losses: set[str]) -> "GraphHolders":
        holders = cls(losses)
        for node in ast.walk(loop):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and dotted(node.targets[0]) in losses:
                built, loss = node.value, dotted(node.targets[0])
                entry = _entry(built)
                if entry is not None and _made_in_iteration(model, loop, entry[0], node.lineno, strict=False):
                    holders.read_from[entry[0]] = loss  # `results = step(batch); loss = results["loss"]`
            elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and dotted(node.target) in losses:
                built, loss = node.value, dotted(node.target)
            else:
                continue
            holders._add_parts(model, loop, node, built, loss)
        return holders

    def _add_parts(self, model: "ModuleModel", loop: ast.stmt, stmt: ast.stmt, built: ast.expr, loss: str) -> None:
        for part, weighted in _summands(built):
            summed = _sums_a_dict(part) if isinstance(part, ast.Call) else None
            if summed is not None:
                holder, keys = summed
                if _made_in_iteration(model, loop, holder, stmt.lineno, strict=False):
                    self.entries[holder] = (keys, loss)
                continue
            name = dotted(part)
            if name is None or name in self.losses:
                continue
            if weighted:  # `w * kl`: the factor the iteration computes with a call is the term
                other = weighted[1] if weighted[0] is part else weighted[0]
                if isinstance(other, ast.Call) or not _made_in_iteration(model, loop, name, stmt.lineno, strict=True):
                    continue  # `loss_step(batch) * num_tokens`: the name may be the count it is weighed by
                if dotted(other) and _made_in_iteration(model, loop, dotted(other), stmt.lineno, strict=True):
                    continue  # both computed here: which one is the weight is not known
            elif not _made_in_iteration(model, loop, name, stmt.lineno, strict=False):
                continue
            self.terms.setdefault(name, loss)

    def holding(self, value: ast.expr) -> tuple[ast.expr, str | None] | None:
        """(what to convert, the loss it is part of or None for a loss itself) when the value
        holds a backpropagated graph."""
        term = scaled_term(value)
        name = dotted(term)
        if name in self.losses:
            return term, None
        if name in self.terms:
            return term, self.terms[name]
        entry = _entry(term)
        if entry is not None and entry[0] in self.entries:
            keys, loss = self.entries[entry[0]]
            return (term, loss) if keys(entry[1]) else None
        if isinstance(term, ast.Subscript) and not isinstance(term.slice, ast.Constant) and dotted(term.value) in self.read_from:
            return term, self.read_from[dotted(term.value)]  # `results[key]` over the keys: the loss among them
        kept = _graph_kept_from(term)
        if kept is not None:
            inner = self.holding(kept)
            if inner is not None:
                return term, inner[1] if inner[1] is not None else dotted(scaled_term(kept))
        return None


def _summands(expr: ast.expr):
    """(part, factors) for each part added up into `expr`: `a + b - c` gives a, b, c with no
    factors; `w * kl` gives each factor with both factors, to be told apart by where they come
    from; `loss / n` gives `loss`."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
        yield from _summands(expr.left)
        yield from _summands(expr.right)
    elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
        yield from _summands(expr.left)
    elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        for factor in (expr.left, expr.right):
            yield factor, (expr.left, expr.right)
    elif isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        yield from _summands(expr.operand)
    else:
        yield expr, None


def _sums_a_dict(call: ast.Call) -> tuple[str, Callable[[object], bool]] | None:
    """(the dict, which of its keys count) for `sum(v for k, v in out.items() if "loss" in k)`,
    `sum([...])` or `sum(out.values())`; None where the filter is anything else."""
    if not (isinstance(call.func, ast.Name) and call.func.id == "sum" and len(call.args) == 1):
        return None
    argument = call.args[0]
    if isinstance(argument, ast.Call) and isinstance(argument.func, ast.Attribute) and argument.func.attr == "values" and dotted(argument.func.value):
        return dotted(argument.func.value), lambda key: True
    if not isinstance(argument, (ast.GeneratorExp, ast.ListComp)) or len(argument.generators) != 1:
        return None
    loop = argument.generators[0]
    source = loop.iter
    if not (isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr in ("items", "values") and dotted(source.func.value)):
        return None
    holder = dotted(source.func.value)
    if not loop.ifs:
        return holder, lambda key: True
    if source.func.attr != "items" or len(loop.ifs) != 1 or not isinstance(loop.target, ast.Tuple):
        return None
    test, key_name = loop.ifs[0], dotted(loop.target.elts[0])
    if (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In)
        and isinstance(test.left, ast.Constant) and isinstance(test.left.value, str) and dotted(test.comparators[0]) == key_name
    ):
        word = test.left.value
        return holder, lambda key: isinstance(key, str) and word in key
    return None


def _entry(value: ast.expr) -> tuple[str, object] | None:
    """(dict, constant key) for `out["loss"]` and `out.get("loss", 0)`."""
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and dotted(value.value):
        return dotted(value.value), value.slice.value
    if (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get"
        and value.args and isinstance(value.args[0], ast.Constant) and dotted(value.func.value)
    ):
        return dotted(value.func.value), value.args[0].value
    return None


def _graph_kept_from(value: ast.expr) -> ast.expr | None:
    """`loss` of `loss.sum()`, `loss.cpu()`, `torch.exp(loss)`: a tensor computed from it with
    its graph."""
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr in GRAPH_KEEPING_METHODS and not value.keywords:
        return func.value
    if dotted(func) in GRAPH_KEEPING_FUNCTIONS and len(value.args) == 1:
        return value.args[0]
    return None


def _made_in_iteration(model: "ModuleModel", loop: ast.stmt, name: str, line: int, strict: bool) -> bool:
    """The name is last given a value in the loop before `line`, by a call that makes tensors
    (not `float(...)`, `.item()`); unless `strict`, also by arithmetic or an entry (`out["kl"]`)."""
    scope = model.parents.scope_of(loop)
    given = [s for s in model.scope(scope).before(name, line) if loop.lineno <= s.lineno <= loop.end_lineno]
    if not given:
        return False
    value = assigned_value(max(given, key=lambda s: s.lineno), name)
    if isinstance(value, ast.Call):
        return not no_graph(value) and dotted(value.func) not in NUMBER_MAKERS
    return not strict and isinstance(value, (ast.BinOp, ast.Subscript))


def no_graph(value: ast.expr | None) -> bool:
    """`x.item()`, `float(x)`, `x.detach()` and their kin (`x.detach().cpu().item()`, `x.data`)
    as the value a name is given."""
    if isinstance(value, ast.Attribute) and value.attr == "data":
        return True
    while isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in DETACHING_METHODS:
            return True
        if isinstance(func, ast.Name) and func.id in NUMBER_TYPES:
            return True
        value = func.value if isinstance(func, ast.Attribute) else None
    return False


def scaled_term(value: ast.expr) -> ast.expr:
    """`loss` of `loss / accum_steps` or `loss * x.size(0)`; else the value itself."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Mult, ast.Div)):
        for term, other in ((value.left, value.right), (value.right, value.left)):
            if dotted(term) and _plain_number(other):
                return term
    return value


def _plain_number(expr: ast.expr) -> bool:
    """A batch size or constant: `x.size(0)`, `len(x)`, `bs`, `2`."""
    if isinstance(expr, ast.Call):
        name = expr.func.attr if isinstance(expr.func, ast.Attribute) else getattr(expr.func, "id", "")
        return name in SIZE_CALLS
    return isinstance(expr, (ast.Constant, ast.Name, ast.Attribute, ast.Subscript))
