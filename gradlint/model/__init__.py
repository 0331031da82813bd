"""The training-loop model of a module, built from the stdlib ast (DESIGN §2.1)."""

from __future__ import annotations

import ast
import bisect
import itertools
import re
from functools import cached_property
from typing import TYPE_CHECKING

from gradlint.diagnostics import Span
from gradlint.fixplan import Position
from gradlint.sources.document import LINE_BREAK, split_lines
from gradlint.model.events import MAX_HELPER_DEPTH, Event, Kind
from gradlint.model.base_steps import SteppedByBase, stepped_by_base
from gradlint.model.framework_steps import FrameworkMicroStep, derives_from_hf_trainer, framework_micro_steps
from gradlint.model.loops import Accumulation, TrainingLoop, find_training_loops
from gradlint.model.names import BUILTIN_NAMES, GRADIENT_WORDS, ImportTable, dotted, partial_target
from gradlint.model.spelling import CALLED_NAME, Words, call_starts, occurrences, spelled
from gradlint.model.roles import Role, Roles
from gradlint.model.scopes import Parents, Scope, expression_roots
from gradlint.model.values import Values

if TYPE_CHECKING:
    from gradlint.model.callees import ProjectResolver

def _slice_bytes(line: str, start: int, end: int | None) -> str:
    """ast columns are UTF-8 byte offsets."""
    if line.isascii():
        return line[start:end]
    return line.encode("utf-8")[start:end].decode("utf-8", errors="replace")


FUNCTION_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)
OTHER_FRAMEWORKS = frozenset({
    "paddle", "mindspore", "oneflow", "mxnet", "tensorflow", "jax", "flax", "warp", "megengine", "jittor",
})
BACKWARD_CALL = re.compile(r"backward(?<!def backward)\s*\(")  # a call, not an autograd Function's def
HF_TRAINING_STEP = re.compile(r"self(?<!\wself)\.training_step\s*\(")  # a transformers Trainer's, in a copied loop
# what an update is spelled with: a step, or a framework's call (Lightning's manual backward, an
# Accelerate accelerator's or a DeepSpeed engine's methods) that stands for one
STEP_WORD = re.compile(r"step|manual_backward|ccelerat|engine")
# File-level triggers of the loss-function rules (DESIGN §6): a file none of them matches is not
# parsed for those rules; what is judged is read off the ast.
LOG_CALL = spelled(["log"], r"\(")  # torch.log(p), p.log()
CROSS_ENTROPY_CALL = Words("cross_entropy", "CrossEntropyLoss")
BCE_CALL = Words("binary_cross_entropy", "BCEWithLogitsLoss", "BCELoss")
__all__ = ["ModuleModel", "TrainingLoop", "Accumulation", "Event", "Kind", "Role"]


def _spans(lines: list[int], first_line: int, last_line: int) -> bool:
    """Whether one of the sorted `lines` lies in first_line..last_line."""
    index = bisect.bisect_left(lines, first_line)
    return index < len(lines) and lines[index] <= last_line


def _picked_functions(value: ast.expr) -> set[str] | None:
    """The plain names a value is one of (`a`, `a if c else b`; `None` first, as a default, adds
    none); None for anything else."""
    if isinstance(value, ast.Name):
        return {value.id}
    if isinstance(value, ast.Constant) and value.value is None:
        return set()
    if isinstance(value, ast.IfExp):
        body, orelse = _picked_functions(value.body), _picked_functions(value.orelse)
        return body | orelse if body is not None and orelse is not None else None
    return None


def _call_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


class ModuleModel:
    """Everything rules may ask about one module: roles, training loops, source text."""

    def __init__(self, tree: ast.Module, text: str, project: "ProjectResolver | None" = None):
        self.tree = tree
        self.text = text
        # Answers for names imported from other modules of the project (DESIGN §2.3).
        self.project = project
        self._scopes: dict[int, Scope] = {}
        self._memo: dict[tuple, object] = {}
        self._methods: dict[int, dict[str, ast.FunctionDef]] = {}
        self.roles_pending = False  # its Roles are reading base classes' methods (roles._base_method)

    # Built on first use: a module with no backward() call never needs roles or parents.
    # Statements only: walking every expression node of a big module costs more than parsing it.
    @cached_property
    def statements(self) -> list[ast.stmt]:
        return self.parents.statements

    @cached_property
    def imports(self) -> ImportTable:
        return ImportTable(self.statements, self._star_origin)

    def _star_origin(self, name: str) -> str | None:
        """`name` as a star import brings it (`model.train_test`), unless the module binds it
        itself or it is a builtin."""
        if self.project is None or name in BUILTIN_NAMES or name in self.functions or name in self.classes:
            return None
        return self.project.through_star(self, name)

    @cached_property
    def roles(self) -> Roles:
        return Roles(self)

    @cached_property
    def values(self) -> Values:
        return Values(self)

    @cached_property
    def _line_starts(self) -> list[int]:
        if "\r" in self.text:
            return [0, *(m.end() for m in LINE_BREAK.finditer(self.text))]
        return [0, *itertools.accumulate(len(line) + 1 for line in self.text.split("\n")[:-1])]

    def line_at(self, offset: int) -> int:
        """The 1-based line of a character offset of the text."""
        return bisect.bisect_right(self._line_starts, offset)

    @cached_property
    def parents(self) -> Parents:
        return Parents(self.tree)

    @cached_property
    def lines(self) -> list[str]:
        return split_lines(self.text)

    @cached_property
    def functions(self) -> dict[str, ast.FunctionDef]:
        """Module-level functions, the helpers a loop may call."""
        return {n.name: n for n in self.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}

    @cached_property
    def classes(self) -> dict[str, ast.ClassDef]:
        """Module-level classes, for `self.` methods, base classes and callable instances."""
        return {n.name: n for n in self.tree.body if isinstance(n, ast.ClassDef)}

    def nested_functions(self, function: ast.AST) -> dict[str, ast.FunctionDef]:
        """Functions defined in `function`'s own blocks (closures), not deeper."""
        return {s.name: s for s in self._own_statements(function) if isinstance(s, FUNCTION_TYPES)}

    def returned_closure(self, function: ast.AST) -> ast.FunctionDef | None:
        """The function `function` defines and returns by name at each of its returns (a
        factory: `def get_step_fn(...): def step_fn(...): ... return step_fn`)."""
        returned = {r.id if isinstance(r, ast.Name) else None for r in self.returns(function)}
        name = returned.pop() if len(returned) == 1 else None
        return self.nested_functions(function).get(name) if name else None

    def returns(self, function: ast.AST) -> list[ast.expr]:
        """The values `function`'s own `return` statements give (not those of nested functions)."""
        return [s.value for s in self._own_statements(function) if isinstance(s, ast.Return) and s.value is not None]

    def _own_statements(self, scope: ast.AST) -> list[ast.stmt]:
        """The definitions and returns of a function's (or the module's) own code, not of the
        functions nested in it: grouped once per module, every function is asked about."""
        return self._definitions_and_returns.get(id(scope), [])

    @cached_property
    def _definitions_and_returns(self) -> dict[int, list[ast.stmt]]:
        found: dict[int, list[ast.stmt]] = {}
        for stmt in self.statements:
            if isinstance(stmt, (*FUNCTION_TYPES, ast.Return)):
                found.setdefault(id(self.parents.scope_of(stmt)), []).append(stmt)
        return found

    def class_attributes(self, cls: ast.ClassDef) -> dict[str, list[ast.expr]]:
        """`self.X = value` anywhere in the class or the base classes the model can read:
        attribute name -> the values assigned, nearest class first."""

        def compute():
            return {
                attribute: [value for _, _, value in assigned]
                for attribute, assigned in self.class_attributes_where(cls).items()
            }

        return self.memo(("attributes", id(cls)), compute)

    def class_attributes_where(self, cls: ast.ClassDef) -> "dict[str, list[tuple[ModuleModel, ast.ClassDef, ast.expr]]]":
        """class_attributes, each value with the module and the class whose code assigns it (a
        base class of another module names what it builds from that module's imports)."""

        def compute():
            from gradlint.model.callees import class_hierarchy

            found: dict[str, list[tuple[ModuleModel, ast.ClassDef, ast.expr]]] = {}
            for module, owner in class_hierarchy(self, cls):
                for method in module.methods(owner).values():
                    for name, stmts in module.scope(method).assignments.items():
                        head, _, attribute = name.partition(".")
                        if head == "self" and attribute and "." not in attribute:
                            found.setdefault(attribute, []).extend(
                                (module, owner, s.value) for s in stmts
                                if isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None
                            )
            return found

        return self.memo(("attributes where", id(cls)), compute)

    def calls_named(self, name: str) -> list[tuple[ast.Call, ast.stmt]]:
        """Calls `name(...)` and `x.name(...)` in the module, each with the statement holding
        it. Only the expressions on lines that spell the call are read."""

        def compute():
            starts, roots = self._expression_roots
            held = set()
            for line in {self.line_at(start) for start in call_starts(self.text, [name])}:
                index = bisect.bisect_right(starts, line) - 1
                while index >= 0 and roots[index][0].end_lineno >= line:  # roots do not nest
                    held.add(index)
                    index -= 1
            return [
                (node, stmt) for index in sorted(held) for root, stmt in [roots[index]]
                for node in ast.walk(root) if isinstance(node, ast.Call) and _call_name(node.func) == name
            ]

        return self.memo(("calls", name), compute)

    def partials_of(self, name: str) -> list[tuple[ast.Call, ast.stmt]]:
        """`partial(name, ...)` calls (`functools.partial`): each runs `name` when called."""
        return [
            (call, stmt) for call, stmt in self.calls_named("partial")
            if (target := partial_target(call)) is not None and _call_name(target) == name
        ]

    def alias_calls(self, name: str) -> list[tuple[ast.Call, ast.stmt]]:
        """Calls of a local name the module binds to `name` or another function (`train =
        pretrain if args.stage == "pretrain" else finetune`, then `train(model, ...)`)."""
        return [pair for alias, targets in self.function_aliases.items() if name in targets for pair in self.calls_named(alias)]

    @cached_property
    def function_aliases(self) -> dict[str, frozenset[str]]:
        """Names every assignment of which picks among functions by name (`train_fn = a if c
        else b`, `train_fn = a`): alias -> the names it may hold."""
        found: dict[str, set[str]] = {}
        broken: set[str] = set()
        for stmt in self.statements:
            if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
                continue
            alias = stmt.targets[0].id
            picked = _picked_functions(stmt.value)
            if picked is None or alias in picked:
                broken.add(alias)
            else:
                found.setdefault(alias, set()).update(picked)
        callable_names = {*self.functions, *self.imports.aliases}
        return {
            alias: frozenset(names) for alias, names in found.items()
            if alias not in broken and names <= callable_names and alias not in callable_names
        }

    @cached_property
    def _expression_roots(self) -> tuple[list[int], list[tuple[ast.AST, ast.stmt]]]:
        """Every statement's expression roots with the statement, in source order, and their
        first lines: one index for every name `calls_named` is asked about."""
        roots = sorted(
            ((root, stmt) for stmt in self.statements for root in expression_roots(stmt)), key=lambda pair: pair[0].lineno
        )
        return [root.lineno for root, _ in roots], roots

    def methods(self, cls: ast.ClassDef) -> dict[str, ast.FunctionDef]:
        if id(cls) not in self._methods:
            self._methods[id(cls)] = {
                n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
        return self._methods[id(cls)]

    def memo(self, key: tuple, compute, while_computing=None):
        """Per-module memo for facts asked again by every loop around the same code; a fact
        asked again while it is being computed (mutual recursion) is `while_computing`."""
        if key not in self._memo:
            self._memo[key] = while_computing
            self._memo[key] = compute()
        return self._memo[key]

    def touches_gradients(self, function: ast.AST) -> bool:
        """Whether a function can hold a gradient event: its source mentions one, or it calls
        (by name) a function of the module that does."""
        if isinstance(function, ast.Lambda):
            return True
        return id(function) in self._gradient_functions

    @cached_property
    def _functions(self) -> list[ast.FunctionDef]:
        return [f for f in self.statements if isinstance(f, FUNCTION_TYPES)]

    def function_text(self, function: ast.AST) -> str:
        """The function's lines as written (decorators aside)."""
        return self.memo(("text", id(function)), lambda: "\n".join(self.lines[function.lineno - 1 : function.end_lineno]))

    def function_calls(self, function: ast.AST) -> set[str]:
        """Every name the function's text calls (`step` of `optimizer.step(`)."""

        def compute() -> set[str]:
            starts, calls = self._calls_by_offset
            first = self._line_starts[function.lineno - 1]
            last = self._line_starts[function.end_lineno] if function.end_lineno < len(self._line_starts) else len(self.text)
            index = bisect.bisect_left(starts, first)
            return {name for _, end, name in calls[index : bisect.bisect_left(starts, last)] if end <= last}

        return self.memo(("called", id(function)), compute)

    @cached_property
    def _calls_by_offset(self) -> tuple[list[int], list[tuple[int, int, str]]]:
        """(start, end, name) of every call the text spells, read once: each function's calls
        are a slice of them (a method's text is inside its class's, a closure's inside its
        function's)."""
        calls = [(m.start(), m.end(), m.group(1)) for m in CALLED_NAME.finditer(self.text)]
        return [start for start, _, _ in calls], calls

    def assignments_within(self, node: ast.AST) -> list[ast.Assign]:
        """The `=` statements on the node's lines (nested functions' too), in source order: a
        question about a function's assignments need not walk its expressions."""
        lines, found = self._assignments_by_line
        return found[bisect.bisect_left(lines, node.lineno) : bisect.bisect_right(lines, node.end_lineno)]

    @cached_property
    def _assignments_by_line(self) -> tuple[list[int], list[ast.Assign]]:
        found = sorted((s for s in self.statements if isinstance(s, ast.Assign)), key=lambda s: (s.lineno, s.col_offset))
        return [s.lineno for s in found], found

    def _with_callers(self, seed: set[int]) -> set[int]:
        """`seed` and the functions that call one of them by name, to MAX_HELPER_DEPTH levels."""
        found, names = set(seed), {f.name for f in self._functions if id(f) in seed}
        for _ in range(MAX_HELPER_DEPTH):
            if not names:
                break
            more = {id(f) for f in self._functions if id(f) not in found and names & self.function_calls(f)}
            found |= more
            names = {f.name for f in self._functions if id(f) in more}
        return found

    @cached_property
    def _gradient_functions(self) -> set[int]:
        ddp_models = tuple(name.rsplit(".", 1)[-1] for name in self.roles.named(Role.DDP_MODEL))
        words = GRADIENT_WORDS + ddp_models
        return self._with_callers({id(f) for f in self._functions if any(w in self.function_text(f) for w in words)})

    @cached_property
    def backward_lines(self) -> list[int]:
        """Lines holding a `backward(` call (not an autograd Function's `def backward`), or a
        call of the training step a transformers Trainer subclass inherits (it backpropagates)."""
        lines = [self.line_at(m.start()) for m in BACKWARD_CALL.finditer(self.text)]
        if HF_TRAINING_STEP.search(self.text) and any(self.inherits_hf_training_step(c) for c in self.classes.values()):
            lines = sorted({*lines, *(self.line_at(m.start()) for m in HF_TRAINING_STEP.finditer(self.text))})
        return lines

    def inherits_hf_training_step(self, cls: ast.ClassDef | None) -> bool:
        """`cls` derives from transformers' `Trainer` and keeps its `training_step` (forward,
        loss divided by the accumulation steps, backward), as loops copied from it call."""
        from gradlint.model.callees import class_hierarchy

        if cls is None or all(known is not cls for known in self.classes.values()):
            return False  # read in the module defining the class
        hierarchy = class_hierarchy(self, cls)
        if any("training_step" in module.methods(known) for module, known in hierarchy):
            return False
        return derives_from_hf_trainer(hierarchy)

    @cached_property
    def stepped_by_base(self) -> list[SteppedByBase]:
        """Overrides that backpropagate and leave the step to the base class method calling
        them (guided-diffusion's `forward_backward` per subclass): base_steps.py."""
        return stepped_by_base(self)

    @cached_property
    def framework_micro_steps(self) -> list[FrameworkMicroStep]:
        """Methods a framework runs once per micro-batch and steps after a window of (a
        transformers Trainer subclass's own `training_step`): framework_steps.py."""
        return framework_micro_steps(self)

    @cached_property
    def backward_helper_names(self) -> set[str] | None:
        """Names under which code that reaches a backward call is called from elsewhere."""
        return self._helper_names(self._backward_functions, reaching_backward=True)

    @cached_property
    def _backward_functions(self) -> set[int]:
        return self._with_callers({id(f) for f in self._functions if self.calls_backward_in(f)})

    def calls_backward_in(self, function: ast.AST) -> bool:
        """Whether one of the function's lines holds a `backward(` call (backward_lines)."""
        return _spans(self.backward_lines, function.lineno, function.end_lineno)

    @cached_property
    def gradient_helper_names(self) -> set[str] | None:
        """Names under which gradient-touching code of this module is called."""
        return self._helper_names(self._gradient_functions)

    def _helper_names(self, functions: set[int], reaching_backward: bool = False) -> set[str] | None:
        """Names of the functions and methods among `functions`, plus the names the project
        adds for imported ones (that touch gradients, or `reaching_backward`); None when a class
        whose `__call__` is among them exists: its instances go by any name (`loss_scaler =
        NativeScaler()`, passed in as a parameter)."""
        if any(
            isinstance(c, ast.ClassDef) and id(self.methods(c).get("__call__")) in functions
            for c in self.statements
        ):
            return None
        names = {f.name for f in self._functions if id(f) in functions}
        if self.project is not None:
            names |= self.memo(("project names", reaching_backward), lambda: self._project_names(reaching_backward))
        return names | self._results_of(names)

    def _results_of(self, helpers: set[str]) -> set[str]:
        """Names bound to the function a helper factory returns (`train_step =
        make_train_step(model, opt)`): it touches gradients where the factory does."""
        return {target for target, called, func in self._bound_call_results if called in helpers and self._makes_closure(func)}

    def _makes_closure(self, func: ast.expr) -> bool:
        """Whether `func` names a function of this module, or of the project, that returns a
        function it defines."""
        function = self.functions.get(func.id) if isinstance(func, ast.Name) else None
        if function is not None:
            return self.returned_closure(function) is not None
        return self.project is not None and self.project.makes_closure(self, func)

    @cached_property
    def _bound_call_results(self) -> list[tuple[str, str, ast.expr]]:
        """(name, the called name's last part, the function called) of each `name = f(...)`."""
        _, assignments = self._assignments_by_line
        return [
            (s.targets[0].id, (dotted(s.value.func) or "").rsplit(".", 1)[-1], s.value.func) for s in assignments
            if len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Call)
        ]

    def _project_names(self, reaching_backward: bool) -> set[str]:
        """The names the project adds (gradient_names), and the methods the module's classes
        inherit from classes of other modules that touch gradients (or reach backward): a
        mixin two bases up (`self.optimizer_zero(opt)`)."""
        from gradlint.model.callees import class_hierarchy

        names = self.project.gradient_names(self, reaching_backward)
        for cls in self.classes.values():
            for module, owner in class_hierarchy(self, cls)[1:] if cls.bases else ():
                if module is not self:
                    functions = module._backward_functions if reaching_backward else module._gradient_functions
                    names |= {name for name, method in module.methods(owner).items() if id(method) in functions}
        return names

    @cached_property
    def stepping_helper_names(self) -> set[str] | None:
        """Names under which code that may take a step is called: the module's functions that
        spell one (or call one that does), and every gradient-touching name the project adds."""
        seed = {id(f) for f in self._functions if _spans(self._step_word_lines, f.lineno, f.end_lineno)}
        return self._helper_names(self._with_callers(seed))

    @cached_property
    def _event_lines(self) -> list[int]:
        """Lines where a gradient event could be: its words, a DDP model's name, or a call of a
        helper that touches gradients."""
        helpers = self.gradient_helper_names
        if helpers is None:
            return list(range(1, len(self.lines) + 1))
        ddp_models = [name.rsplit(".", 1)[-1] for name in (*self.roles.named(Role.DDP_MODEL), *self.roles.entries())]
        offsets = [*occurrences(self.text, {*GRADIENT_WORDS, *helpers, *ddp_models})]
        return sorted({self.line_at(offset) for offset in offsets})

    def may_step(self, first_line: int, last_line: int) -> bool:
        """Whether the lines may take an optimizer step, themselves or through a helper: a loop
        whose backward passes update nothing trains nothing (a test of gradients, a hook), and
        is not walked at all."""
        if _spans(self._step_word_lines, first_line, last_line):
            return True
        lines = self._step_call_lines
        return lines is None or _spans(lines, first_line, last_line)

    @cached_property
    def _step_word_lines(self) -> list[int]:
        frameworks = [name.rsplit(".", 1)[-1] for role in (Role.ACCELERATOR, Role.ENGINE) for name in self.roles.named(role)]
        offsets = [m.start() for m in STEP_WORD.finditer(self.text)]
        offsets += occurrences(self.text, frameworks)
        return sorted({self.line_at(offset) for offset in offsets})

    @cached_property
    def _step_call_lines(self) -> list[int] | None:
        """Lines calling a helper that may step; None when any call may be one (a callable
        object may)."""
        helpers = self.stepping_helper_names
        if helpers is None:
            return None
        return sorted({self.line_at(start) for start in call_starts(self.text, helpers)})

    def may_hold_events(self, first_line: int, last_line: int) -> bool:
        return _spans(self._event_lines, first_line, last_line)

    def scope(self, node: ast.AST) -> Scope:
        if id(node) not in self._scopes:
            self._scopes[id(node)] = Scope(node)
        return self._scopes[id(node)]

    @cached_property
    def loops(self) -> list[TrainingLoop]:
        return [] if self.trains_another_framework else find_training_loops(self)

    @cached_property
    def trains_another_framework(self) -> bool:
        """The module imports another deep-learning framework (PaddlePaddle, MindSpore, Warp ...)
        and not torch: its `backward()`, `step()` and `clear_grad()` are not torch's."""
        roots = {qualname.lstrip(".").split(".")[0] for qualname in self.imports.aliases.values()}
        return "torch" not in roots and not roots.isdisjoint(OTHER_FRAMEWORKS)

    def inline_source(self, node: ast.AST) -> str:
        """The node's text for one line of code: as written when it fits on one, else unparsed
        (a test spread over lines inside parentheses that are not part of the node)."""
        if getattr(node, "end_lineno", None) is None or node.lineno != node.end_lineno:
            return ast.unparse(node)
        return self.source(node)

    def source(self, node: ast.AST) -> str:
        """The node's text as written (ast.get_source_segment re-splits the module per call)."""
        if getattr(node, "end_lineno", None) is None:
            return ast.unparse(node)
        first, last = node.lineno - 1, node.end_lineno - 1
        lines = self.lines
        if first == last:
            return _slice_bytes(lines[first], node.col_offset, node.end_col_offset)
        return "\n".join(
            [_slice_bytes(lines[first], node.col_offset, None), *lines[first + 1 : last],
             _slice_bytes(lines[last], 0, node.end_col_offset)]
        )

    def column(self, line: int, byte_offset: int) -> int:
        """ast counts columns in UTF-8 bytes; diagnostics and libcst count characters."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return byte_offset
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace"))

    def position(self, node: ast.AST) -> Position:
        return Position(node.lineno, self.column(node.lineno, node.col_offset))

    def span(self, node: ast.AST) -> Span:
        return Span(
            node.lineno,
            self.column(node.lineno, node.col_offset),
            node.end_lineno,
            self.column(node.end_lineno, node.end_col_offset),
        )
