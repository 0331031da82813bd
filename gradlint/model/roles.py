"""Which names are optimizers, scalers, DDP models, schedulers, accelerators or engines."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from enum import Enum

from gradlint.model.names import ImportTable, dotted


class Role(Enum):
    OPTIMIZER = "optimizer"
    SCALER = "scaler"
    DDP_MODEL = "ddp model"
    SCHEDULER = "scheduler"
    ACCELERATOR = "accelerator"
    ENGINE = "engine"


OPTIMIZER_CLASSES = frozenset(
    "SGD Adam AdamW Adagrad Adadelta Adamax RMSprop Rprop NAdam RAdam LBFGS SparseAdam ASGD "
    "Adafactor Lion Lamb LAMB FusedAdam FusedLAMB FusedSGD AdamW8bit Adam8bit PagedAdamW "
    "PagedAdamW8bit Muon Shampoo SophiaG Adan".split()
)
OPTIMIZER_NAME = re.compile(r"(^|_)(opt|optim|optimizer|optimiser)s?(_|$)|optimizer", re.IGNORECASE)
SCHEDULER_NAME = re.compile(r"sched", re.IGNORECASE)
METHOD_CALL = re.compile(r"\.(step|zero_grad|scale|backward)\s*\(")  # starts with a literal: fast
RECEIVER = re.compile(r"[A-Za-z_][\w.]*$")
FRAMEWORK_NAME = re.compile(r"(^|_)(accelerator|engine|fabric|model_engine)$")


def classify_constructor(qualname: str) -> Role | None:
    """The role of an object built by calling `qualname`."""
    last = qualname.rsplit(".", 1)[-1]
    if "GradScaler" in last:
        return Role.SCALER
    if last in ("DistributedDataParallel", "DDP"):
        # apex's DDP has no no_sync(): it delays all-reduces its own way
        return None if qualname.startswith("apex.") else Role.DDP_MODEL
    if "lr_scheduler" in qualname or "schedule" in last.lower() or last.endswith("LR"):
        return Role.SCHEDULER
    if last == "Accelerator":
        return Role.ACCELERATOR
    if qualname.endswith("deepspeed.initialize"):
        return Role.ENGINE
    if last in OPTIMIZER_CLASSES or last.startswith("create_optimizer") or qualname.startswith("torch.optim."):
        return Role.OPTIMIZER
    return None


class Roles:
    """Roles of dotted names across the module (scopes are not separated: names are telling)."""

    def __init__(self, statements: list[ast.stmt], text: str, imports: ImportTable):
        self._roles: dict[str, Role] = {}
        self.constructors: dict[str, list[ast.Call]] = defaultdict(list)  # name -> calls that built it
        for node in statements:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for constructor in _constructors(node.value):
                    qualname = imports.qualname(constructor.func)
                    role = classify_constructor(qualname) if qualname else None
                    if role:
                        self._assign(targets, role)
                        for name in filter(None, map(dotted, targets)):
                            self.constructors[name].append(constructor)
        # What is called on which name, read off the text: `optimizer` passed in as a parameter
        # is an optimizer because the code calls its step() and zero_grad().
        methods: dict[str, set[str]] = defaultdict(set)
        for match in METHOD_CALL.finditer(text):
            receiver = RECEIVER.search(text, max(0, match.start() - 80), match.start())
            if receiver and not receiver.group().endswith("."):
                methods[receiver.group()].add(match.group(1))
        for name, called in methods.items():
            if name not in self._roles:
                self._roles.update(_role_from_usage(name, called))

    def _assign(self, targets: list[ast.expr], role: Role) -> None:
        for target in targets:
            if isinstance(target, (ast.Tuple, ast.List)):
                # `engine, optimizer, _, _ = deepspeed.initialize(...)`: the engine comes first.
                if role is Role.ENGINE and target.elts:
                    self._assign([target.elts[0]], role)
                continue
            name = dotted(target)
            if name and (role is not Role.DDP_MODEL or self._roles.get(name) is None):
                self._roles[name] = role

    def of(self, expr: ast.AST) -> Role | None:
        name = dotted(expr)
        return self._roles.get(name) if name else None

    def named(self, role: Role) -> list[str]:
        return [name for name, r in self._roles.items() if r is role]


def _constructors(value: ast.expr):
    """Calls whose result is what gets assigned (both branches of a conditional expression)."""
    if isinstance(value, ast.Call):
        yield value
    elif isinstance(value, ast.IfExp):
        yield from _constructors(value.body)
        yield from _constructors(value.orelse)


def _role_from_usage(name: str, called: set[str]) -> dict[str, Role]:
    last = name.rsplit(".", 1)[-1]
    if FRAMEWORK_NAME.search(last) and "backward" in called:
        return {name: Role.ACCELERATOR if "accelerator" in last else Role.ENGINE}
    if SCHEDULER_NAME.search(last) and "step" in called:
        return {name: Role.SCHEDULER}
    if "scale" in called and ("scaler" in last.lower()):
        return {name: Role.SCALER}
    if "step" in called and ("zero_grad" in called or OPTIMIZER_NAME.search(last)):
        return {name: Role.OPTIMIZER}
    return {}
