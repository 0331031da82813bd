"""The one seam through which the model follows calls, and what following them gives."""

import ast
import textwrap

from gradlint.model import ModuleModel, Role
from gradlint.model.callees import CallContext, Callee, bind_arguments, callers, resolve_callee
from gradlint.model.events import EventWalker, Kind
from gradlint.model.loops import TrainingLoop


def model_of(source: str, project=None) -> ModuleModel:
    source = textwrap.dedent(source)
    return ModuleModel(ast.parse(source), source, project)


def call_in(model: ModuleModel, function: str, callee: str) -> tuple[ast.Call, CallContext]:
    """The call of `callee` (as written) inside `function` (`Class.method` or a name)."""
    for call, statement in model.calls_named(callee.rsplit(".", 1)[-1]):
        scope = model.parents.scope_of(statement)
        owner = model.parents.enclosing_class(scope)
        name = f"{owner.name}.{scope.name}" if owner else getattr(scope, "name", "<module>")
        if name == function and ast.unparse(call.func) == callee:
            return call, CallContext(model, scope, owner)
    raise AssertionError(f"no call of {callee} in {function}")


def resolved(model, function, callee) -> Callee | None:
    call, context = call_in(model, function, callee)
    return resolve_callee(model, call, context)


TRAINER = """
    import torch

    class BaseTrainer:
        def optimize(self):
            self.optimizer.step()

        def backward(self, loss):
            loss.backward()

    class Trainer(BaseTrainer):
        def run_step(self, batch):
            loss = self.compute(batch)
            self.backward(loss)
            self.optimize()

        def backward(self, loss):
            super().backward(loss / 4)

        def compute(self, batch):
            def closure():
                return self.model(batch).mean()
            return closure()
"""


def test_self_methods_resolve_through_the_class_then_its_bases():
    model = model_of(TRAINER)
    assert resolved(model, "Trainer.run_step", "self.backward").function.name == "backward"
    assert resolved(model, "Trainer.run_step", "self.backward").function is model.methods(model.classes["Trainer"])["backward"]
    inherited = resolved(model, "Trainer.run_step", "self.optimize")
    assert inherited.function is model.methods(model.classes["BaseTrainer"])["optimize"]
    assert inherited.cls is model.classes["Trainer"]  # `self` is still a Trainer there


def test_super_skips_the_class_itself():
    model = model_of(TRAINER)
    parent = resolved(model, "Trainer.backward", "super().backward")
    assert parent.function is model.methods(model.classes["BaseTrainer"])["backward"]


def test_closures_resolve_in_the_function_that_defines_them():
    model = model_of(TRAINER)
    closure = resolved(model, "Trainer.compute", "closure")
    assert closure.function.name == "closure" and closure.cls is model.classes["Trainer"]


CALLABLE_OBJECT = """
    import torch

    class LossScaler:
        def __init__(self):
            self._scaler = torch.amp.GradScaler("cuda")

        def __call__(self, loss, optimizer, update_grad=True):
            self._scaler.scale(loss).backward()
            if update_grad:
                self._scaler.step(optimizer)
                self._scaler.update()

    def train_one_epoch(model, loader, optimizer, loss_scaler, accum):
        for i, (x, y) in enumerate(loader):
            loss = model(x, y)
            loss_scaler(loss, optimizer, update_grad=(i + 1) % accum == 0)

    def main(model, loader):
        optimizer = torch.optim.AdamW(model.parameters())
        train_one_epoch(model, loader, optimizer, LossScaler(), 4)
"""


def test_a_callable_object_passed_in_resolves_to_its_call_method():
    model = model_of(CALLABLE_OBJECT)
    callee = resolved(model, "train_one_epoch", "loss_scaler")
    assert callee.function.name == "__call__" and callee.cls is model.classes["LossScaler"]
    call, _ = call_in(model, "train_one_epoch", "loss_scaler")
    assert set(bind_arguments(callee, call)) == {"loss", "optimizer", "update_grad"}


def test_the_callable_objects_events_run_at_the_call_under_the_callers_boundary():
    model = model_of(CALLABLE_OBJECT)
    (loop,) = model.loops
    assert [e.kind for e in loop.events] == [Kind.BACKWARD, Kind.SCALER_STEP, Kind.SCALER_UPDATE]
    backward, step, _ = loop.events
    call, _ = call_in(model, "train_one_epoch", "loss_scaler")
    assert backward.site is call and backward.anchor is call  # another object's method
    assert step.optimizer == "optimizer" and step.target == "loss_scaler._scaler"
    assert loop.accumulation is not None and ast.unparse(loop.accumulation.factor) == "accum"
    assert backward.loss_source.scope is model.functions["train_one_epoch"]  # the caller's loss
    assert backward.loss_normalized() is False


def test_callers_and_the_roles_they_pass():
    model = model_of(
        """
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP

        def train(net, loader, opt, accum):
            for i, (x, y) in enumerate(loader):
                net(x, y).backward()
                if (i + 1) % accum == 0:
                    opt.step()
                    opt.zero_grad()

        def main(model, loader):
            wrapped = DDP(model)
            train(wrapped, loader, torch.optim.SGD(model.parameters(), lr=0.1), 8)
        """
    )
    train = model.functions["train"]
    ((_, context),) = callers(model, train)
    assert context.scope is model.functions["main"]
    (loop,) = model.loops
    assert [e.target for e in loop.of(Kind.FORWARD)] == ["net"]


def test_unknown_callees_stay_unknown():
    model = model_of(
        """
        from engine import train_one_epoch

        def main(model, loader):
            train_one_epoch(model, loader)
            model.fit(loader)
        """
    )
    assert resolved(model, "main", "train_one_epoch") is None
    assert resolved(model, "main", "model.fit") is None


def test_mutual_recursion_is_walked_once():
    model = model_of(
        """
        def a(model, opt, x, depth):
            model(x).backward()
            opt.step()
            b(model, opt, x, depth - 1)

        def b(model, opt, x, depth):
            if depth:
                a(model, opt, x, depth)

        for x in data:
            a(model, optimizer, x, 3)
        """
    )
    loop = next(l for l in model.loops if isinstance(l.node, ast.For))
    assert [e.kind for e in loop.events] == [Kind.BACKWARD, Kind.STEP]


SHARED_HELPER = """
    import torch
    from torch.nn.parallel import DistributedDataParallel


    def compute_loss(model, batch, grad_scale=1.0):
        images, labels = batch
        return torch.nn.functional.cross_entropy(model(images), labels) * grad_scale


    def warmup(net, loader, optimizer):
        for batch in loader:
            loss = compute_loss(net, batch)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()


    def train(net, loader, optimizer, rank, accum=4):
        ddp_net = DistributedDataParallel(net, device_ids=[rank])
        for i, batch in enumerate(loader):
            loss = compute_loss(ddp_net, batch, grad_scale=1 / accum)
            loss.backward()
            if (i + 1) % accum == 0:
                optimizer.step()
                optimizer.zero_grad()
    """


def test_a_helper_quiet_for_one_caller_is_walked_again_for_a_caller_passing_other_roles():
    model = model_of(SHARED_HELPER)
    warmup, train = (next(l for l in model.loops if model.parents.scope_of(l.node).name == name) for name in ("warmup", "train"))
    # warmup hands a plain module in: the helper's forward is no event there
    assert [e.kind for e in warmup.events] == [Kind.BACKWARD, Kind.STEP, Kind.ZERO_GRAD]
    # train hands the DDP model to the same helper: its forward synchronises gradients
    forward = next(e for e in train.events if e.kind is Kind.FORWARD)
    assert forward.scope is model.functions["compute_loss"] and forward.target == "ddp_net"


class OtherModules:
    """What the project-wide model plugs into the seam: here, one other module."""

    def __init__(self, modules: dict[str, ModuleModel]):
        self.modules = modules

    def function(self, module, qualname):
        name, _, function = qualname.rpartition(".")
        other = self.modules.get(name)
        found = other.functions.get(function) if other else None
        return Callee(other, found) if found else None

    def class_def(self, module, qualname):
        return None

    def subclasses(self, module, cls):
        return []

    def registered_elsewhere(self, module, cls):
        return False

    def callers(self, module, function):
        return []

    def instantiations(self, module, cls):
        return []

    def gradient_names(self, module, reaching_backward=False):
        return {"backward_and_clip"}

    def returned_roles(self, module, qualname):
        return ()


def test_events_from_another_module_know_it_and_are_reported_at_the_call():
    utils = model_of(
        """
        import torch

        def backward_and_clip(loss, model, max_norm):
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        """
    )
    train = model_of(
        """
        import torch
        from utils import backward_and_clip

        def train(model, loader, optimizer):
            for x, y in loader:
                optimizer.zero_grad()
                loss = model(x, y)
                backward_and_clip(loss, model, 1.0)
                optimizer.step()
        """,
        project=OtherModules({"utils": None}),
    )
    train.project.modules["utils"] = utils
    (loop,) = train.loops
    backward = loop.of(Kind.BACKWARD)[0]
    assert backward.module is utils and backward.foreign
    assert backward.anchor is backward.site and train.source(backward.anchor).startswith("backward_and_clip(")
    assert backward.loss_source.module is train  # the loss is the caller's


def test_roles_come_from_code_not_comments():
    model = model_of(
        """
        import torch
        from torch.nn.parallel import DistributedDataParallel

        def wrap(module, rank):
            return DistributedDataParallel(module.cuda(rank), device_ids=[rank])

        def build(model):
            return model, torch.optim.AdamW(model.parameters())

        # helper.step() and helper.zero_grad() are called by the scheduler thread
        ddp = wrap(net, 0)
        net2, opt = build(net)
        """
    )
    roles = model.roles
    assert roles.named_role("ddp") is Role.DDP_MODEL
    assert roles.named_role("opt") is Role.OPTIMIZER and roles.named_role("net2") is None
    assert roles.named_role("helper") is None


def test_a_step_function_alone_knows_what_its_callers_do():
    model = model_of(
        """
        import torch

        def train_step(model, batch, optimizer, scaler):
            with torch.autocast("cuda"):
                loss = model(batch)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            return loss

        def fit(model, loader, optimizer, scaler):
            for batch in loader:
                optimizer.zero_grad()
                train_step(model, batch, optimizer, scaler)
                scaler.update()
        """
    )
    step_function = model.functions["train_step"]
    alone = TrainingLoop(model, step_function, EventWalker(model, step_function).walk(step_function.body))
    assert not alone.of(Kind.ZERO_GRAD, Kind.SCALER_UPDATE)
    (view,) = alone.callers
    assert isinstance(view.node, ast.For)
    assert alone.provided_by_callers(Kind.ZERO_GRAD) and alone.provided_by_callers(Kind.SCALER_UPDATE)
    assert not alone.provided_by_callers(Kind.CLIP)
    # seen from the loop, zero_grad at the top follows the previous iteration's step
    (loop,) = model.loops
    assert loop.follows_previous_step(loop.of(Kind.ZERO_GRAD)[0])
    assert not loop.follows_previous_step(loop.of(Kind.SCALER_UPDATE)[0])


class CallersElsewhere(OtherModules):
    """A project whose other modules call `function`."""

    def __init__(self, calls):
        super().__init__({})
        self.calls = calls

    def callers(self, module, function):
        return self.calls


def test_a_step_function_handed_its_loss_asks_what_callers_pass():
    optimizers = model_of(
        """
        import torch

        class EveryStepOptimizer:
            def __init__(self, optimizer, grad_accum):
                self.optimizer = optimizer
                self.grad_accum = grad_accum
                self.scaler = torch.amp.GradScaler("cuda")

            def step(self, loss, global_step):
                self.scaler.scale(loss).backward()
                if (global_step + 1) % self.grad_accum == 0:
                    self.scaler.step(self.optimizer)
                    self.scaler.update()
                    self.optimizer.zero_grad(set_to_none=True)
        """,
        project=None,
    )
    train = model_of(
        """
        import torch.nn.functional as F

        def train(model, loader, ed_optimizer):
            for global_step, (x, y) in enumerate(loader):
                loss = F.mse_loss(model(x), y)
                ed_optimizer.step(loss, global_step)
        """
    )
    (call, statement) = train.calls_named("step")[0]
    scope = train.parents.scope_of(statement)
    optimizers.project = CallersElsewhere([(call, CallContext(train, scope, None, statement))])
    (unit,) = optimizers.loops
    assert unit.accumulation is not None
    assert unit.of(Kind.BACKWARD)[0].loss_normalized() is False
