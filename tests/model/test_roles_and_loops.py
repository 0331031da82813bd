"""Roles through imports and aliases; which loops train and how they accumulate."""

import ast
import textwrap

from gradlint.model import ModuleModel, Role
from gradlint.model.events import Kind


def model_of(source: str) -> ModuleModel:
    source = textwrap.dedent(source)
    return ModuleModel(ast.parse(source), source)


def role(model: ModuleModel, name: str):
    return model.roles.of(ast.parse(name, mode="eval").body)


def test_roles_through_imports_and_aliases():
    model = model_of(
        """
        import torch
        from torch import optim
        from torch.cuda.amp import GradScaler as Scaler
        from torch.nn.parallel import DistributedDataParallel as DDP
        from transformers import get_linear_schedule_with_warmup
        from accelerate import Accelerator
        import deepspeed

        opt = optim.AdamW(params)
        self.scaler = Scaler()
        net = DDP(net, device_ids=[rank])
        sched = get_linear_schedule_with_warmup(opt, 10, 100)
        lr_sched = torch.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=10)
        accelerator = Accelerator(gradient_accumulation_steps=4)
        engine, ds_opt, _, _ = deepspeed.initialize(model=net, config=cfg)
        """
    )
    assert role(model, "opt") is Role.OPTIMIZER
    assert role(model, "self.scaler") is Role.SCALER
    assert role(model, "net") is Role.DDP_MODEL
    assert role(model, "sched") is Role.SCHEDULER
    assert role(model, "lr_sched") is Role.SCHEDULER
    assert role(model, "accelerator") is Role.ACCELERATOR
    assert role(model, "engine") is Role.ENGINE


def test_roles_from_what_the_code_calls_on_a_parameter():
    model = model_of(
        """
        def train(model, optimizer, lr_scheduler, loader):
            for x, y in loader:
                model(x).sum().backward()
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
        """
    )
    assert role(model, "optimizer") is Role.OPTIMIZER
    assert role(model, "lr_scheduler") is Role.SCHEDULER
    assert role(model, "model") is None


def test_the_innermost_loop_is_the_training_loop_and_helpers_are_followed():
    model = model_of(
        """
        import torch
        opt = torch.optim.SGD(params, lr=0.1)

        def train_step(x, y):
            loss = crit(net(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()

        for epoch in range(10):
            for x, y in loader:
                train_step(x, y)
        """
    )
    loops = [loop for loop in model.loops if isinstance(loop.node, ast.For)]
    assert [loop.node.lineno for loop in loops] == [12]
    kinds = [e.kind for e in loops[0].events]
    assert kinds == [Kind.BACKWARD, Kind.STEP, Kind.ZERO_GRAD]
    assert all(e.inlined for e in loops[0].events)


def test_a_backward_reaching_no_step_trains_nothing_but_a_step_two_helpers_down_does():
    model = model_of(
        """
        import torch

        class Trainer:
            def __init__(self, net):
                self.net = net
                self.opt = torch.optim.AdamW(net.parameters(), lr=1e-4)

            def _apply(self):
                self.opt.step()
                self.opt.zero_grad()

            def update(self):
                self._apply()

            def fit(self, loader):
                for x, y in loader:
                    loss = torch.nn.functional.mse_loss(self.net(x), y)
                    loss.backward()
                    self.update()

            def gradient_norms(self, loader):
                norms = []
                for x, y in loader:
                    self.net(x).sum().backward()
                    norms.append(sum(p.grad.norm() for p in self.net.parameters()))
                return norms
        """
    )
    loops = [loop for loop in model.loops if isinstance(loop.node, ast.For)]
    assert [loop.node.lineno for loop in loops] == [17]
    assert [e.kind for e in loops[0].events] == [Kind.BACKWARD, Kind.STEP, Kind.ZERO_GRAD]


def test_flat_and_nested_accumulation():
    flat = model_of(
        """
        import torch
        opt = torch.optim.SGD(params, lr=0.1)
        for i, (x, y) in enumerate(loader):
            (crit(net(x), y) / 4).backward()
            if (i + 1) % 4 == 0:
                opt.step()
                opt.zero_grad()
        """
    )
    nested = model_of(
        """
        import torch
        opt = torch.optim.SGD(params, lr=0.1)
        for batch in loader:
            for micro in range(accum):
                (crit(net(batch[micro]), y) / accum).backward()
            opt.step()
            opt.zero_grad()
        """
    )
    assert ast.unparse(flat.loops[0].accumulation.factor) == "4"
    assert flat.loops[0].accumulation.guard is not None
    assert ast.unparse(nested.loops[0].accumulation.factor) == "accum"
    assert nested.loops[0].accumulation.inner_loop is not None


def test_no_accumulation_when_every_iteration_steps_or_factor_is_one():
    every = model_of(
        """
        import torch
        opt = torch.optim.SGD(params, lr=0.1)
        for x, y in loader:
            crit(net(x), y).backward()
            if step % log_every == 0:
                print(step)
            opt.step()
        """
    )
    one = model_of(
        """
        import torch
        accum = 1
        opt = torch.optim.SGD(params, lr=0.1)
        for i, (x, y) in enumerate(loader):
            crit(net(x), y).backward()
            if (i + 1) % accum == 0:
                opt.step()
        """
    )
    assert every.loops[0].accumulation is None
    assert one.loops[0].accumulation is None


def test_frameworks_and_gans_are_not_plain():
    accelerate = model_of(
        """
        from accelerate import Accelerator
        accelerator = Accelerator()
        for batch in loader:
            with accelerator.accumulate(model):
                accelerator.backward(model(**batch).loss)
                optimizer.step()
                optimizer.zero_grad()
        """
    )
    gan = model_of(
        """
        import torch
        opt_g = torch.optim.Adam(g.parameters())
        opt_d = torch.optim.Adam(d.parameters())
        for real in loader:
            d_loss(real).backward()
            opt_d.step()
            g_loss().backward()
            opt_g.step()
        """
    )
    assert not accelerate.loops[0].plain
    assert not gan.loops[0].plain


def test_ddp_on_one_branch_and_a_deepspeed_engine_on_the_other_is_ddp():
    """Whichever branch comes first in the file: the DDP branch runs the loop's own backward."""
    engine_first = """
        import deepspeed
        from torch.nn.parallel import DistributedDataParallel as DDP

        if args.deepspeed:
            model, optimizer, _, _ = deepspeed.initialize(args=args, model=net)
        else:
            model = DDP(net, device_ids=[rank])
        """
    ddp_first = """
        import deepspeed
        from torch.nn.parallel import DistributedDataParallel as DDP

        if not args.deepspeed:
            model = DDP(net, device_ids=[rank])
        else:
            model, optimizer, _, _ = deepspeed.initialize(args=args, model=net)
        """
    assert role(model_of(engine_first), "model") is Role.DDP_MODEL
    assert role(model_of(ddp_first), "model") is Role.DDP_MODEL
    assert role(model_of(engine_first.replace("model = DDP(net, device_ids=[rank])", "model = net")), "model") is Role.ENGINE


def test_a_parameter_running_its_own_backward_and_step_is_no_optimizer():
    """`model.backward(loss); model.step()` is a DeepSpeed engine under a plain name, not an
    optimizer; an `optimizer.backward(loss)` of an fp16 optimizer wrapper stays one."""
    model = model_of(
        """
        def train(model, optimizer, loader):
            for x, y in loader:
                model.backward(model(x).sum())
                model.step()
                model.zero_grad()
                optimizer.backward(model(x).sum())
                optimizer.step()
        """
    )
    assert role(model, "model") is None
    assert role(model, "optimizer") is Role.OPTIMIZER


RUNNER = """
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP


    class Runner:
        def __init__(self, cfg, model, loader):
            self.cfg, self._model, self.loader = cfg, model, loader
            self._wrapped_model = None
            self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)

        @property
        def model(self):
            if self._wrapped_model is None:
                if self.cfg.distributed:
                    self._wrapped_model = DDP(self._model, device_ids=[self.cfg.gpu])
                else:
                    self._wrapped_model = self._model
            return self._wrapped_model

        def train_epoch(self):
            for i, (x, y) in enumerate(self.loader):
                loss = torch.nn.functional.cross_entropy(self.model(x), y) / self.cfg.accum
                loss.backward()
                if (i + 1) % self.cfg.accum == 0:
                    self.optimizer.step()
                    self.optimizer.zero_grad()
    """


def test_a_property_returning_the_ddp_wrapper_gives_self_attribute_the_ddp_role():
    """LAVIS-style runner: `self.model` reads `@property def model`, which wraps in DDP on the
    distributed branch; a property that returns the bare model gives no role."""
    runner = model_of(RUNNER)
    assert role(runner, "self.model") is Role.DDP_MODEL
    assert [e.target for e in runner.loops[0].events if e.kind is Kind.FORWARD] == ["self.model"]
    bare = model_of(RUNNER.replace("return self._wrapped_model", "return self._model"))
    assert role(bare, "self.model") is None
    assert not [e for e in bare.loops[0].events if e.kind is Kind.FORWARD]


def test_each_branch_that_accumulates_is_a_path_of_its_own():
    """AMP through a scaler object on one branch, plain backward and step on the other, and no
    accumulation at all when the factor is 1: two accumulating paths, each with its own step."""
    model = model_of(
        """
        import torch

        class Scaler:
            def __init__(self):
                self._scaler = torch.amp.GradScaler("cuda")

            def __call__(self, loss, optimizer, update_grad=True):
                self._scaler.scale(loss).backward()
                if update_grad:
                    self._scaler.step(optimizer)
                    self._scaler.update()

        def train(model, loader, optimizer, accum, amp):
            loss_scaler = Scaler()
            for i, (x, y) in enumerate(loader):
                if accum > 1:
                    loss = model(x, y) / accum
                    if amp:
                        loss_scaler(loss, optimizer, update_grad=(i + 1) % accum == 0)
                    else:
                        loss.backward()
                        if (i + 1) % accum == 0:
                            optimizer.step()
                    if (i + 1) % accum == 0:
                        optimizer.zero_grad()
                else:
                    optimizer.zero_grad()
                    if amp:
                        loss_scaler(model(x, y), optimizer)
                    else:
                        model(x, y).backward()
                        optimizer.step()
        """
    )
    [loop] = model.loops
    paths = loop.accumulations
    assert [p.path.kind for p in paths] == [Kind.SCALER_STEP, Kind.STEP]
    assert loop.accumulation is paths[0]
    plain_step = next(e for e in loop.of(Kind.STEP) if paths[1].covers(e))
    assert not paths[0].covers(plain_step) and plain_step.node.lineno == 24


def test_a_step_method_calling_itself_is_read_without_end():
    """A method whose loop calls the method itself (recursion, or a half-edited file) is its own
    caller: whether callers switch the sync is asked of other functions only, a few levels up."""
    model = model_of("""
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP

        class Trainer:
            def __init__(self, model, optimizer):
                self.model, self.optimizer = DDP(model), optimizer

            def update(self, chunks):
                for chunk in chunks:
                    loss = self.model(**chunk) / len(chunks)
                    loss.backward()
                self.optimizer.step()
                self.optimizer.zero_grad()
                self.update(chunks[1:])
    """)
    (loop,) = model.loops
    assert loop.by_hand is not None and not loop.controls_sync


TAIL_LOOP = """
import torch

def train(model, loader, optimizer, n):
    for epoch in range(3):
        for i, (x, y) in enumerate(loader):
            CLEAR_FIRST
            loss = torch.nn.functional.mse_loss(model(x), y) / n
            loss.backward()
            if i % n == 0:
                optimizer.step()
                CLEAR_AFTER
"""


def test_a_window_start_clear_drops_the_tail_only_before_the_first_backward():
    """`if i % n == 0: zero_grad()` before the backward clears the last epoch's partial window
    at the next epoch's first micro-batch (dropped); after the step under the same test it comes
    after that micro-batch's backward and the step applies the tail with it (carried)."""
    from gradlint.model.tail import epoch_tail

    before = model_of(TAIL_LOOP.replace("CLEAR_FIRST", "if i % n == 0:\n                optimizer.zero_grad()").replace("CLEAR_AFTER", "pass"))
    after = model_of(TAIL_LOOP.replace("CLEAR_FIRST", "pass").replace("CLEAR_AFTER", "optimizer.zero_grad()"))
    assert epoch_tail(before, before.loops[0]).cleared_before
    assert not epoch_tail(after, after.loops[0]).cleared_before
