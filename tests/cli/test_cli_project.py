"""Training loops spread over the modules of a project (DESIGN §2.3), checked end to end:
`main.py` wraps the model in DDP and calls `engine.train_one_epoch`; a `utils.py` helper does the
backward; packages with relative imports and a `src/` layout. Findings follow what the other
modules do, and a cached result is dropped when a module it looked into changes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ENGINE = """
import torch
import torch.nn.functional as F


def train_one_epoch(model, loader, optimizer, device, accum_iter=4):
    model.train()
    optimizer.zero_grad()
    for data_iter_step, (samples, targets) in enumerate(loader):
        samples, targets = samples.to(device), targets.to(device)
        outputs = model(samples)
        loss = F.cross_entropy(outputs, targets) / accum_iter
        loss.backward()
        if (data_iter_step + 1) % accum_iter == 0 or data_iter_step + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
"""

ENGINE_NO_SYNC = """
import contextlib

import torch
import torch.nn.functional as F


def train_one_epoch(model, loader, optimizer, device, accum_iter=4):
    model.train()
    for data_iter_step, (samples, targets) in enumerate(loader):
        last = (data_iter_step + 1) % accum_iter == 0 or data_iter_step + 1 == len(loader)
        context = contextlib.nullcontext() if last else model.no_sync()
        with context:
            outputs = model(samples.to(device))
            loss = F.cross_entropy(outputs, targets.to(device)) / accum_iter
            loss.backward()
        if last:
            optimizer.step()
            optimizer.zero_grad()
"""

MAIN_DDP = """
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from engine import train_one_epoch
from models import build_model


def main(args):
    dist.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    device = torch.device("cuda", local_rank)
    model = build_model(args).to(device)
    model = DistributedDataParallel(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        train_one_epoch(model, loader, optimizer, device, accum_iter=args.accum_iter)


if __name__ == "__main__":
    main(argparse.ArgumentParser().parse_args())
"""

MAIN_SINGLE = MAIN_DDP.replace(
    "    model = DistributedDataParallel(model, device_ids=[local_rank])\n", ""
)

UTILS = """
import torch


def backward_step(loss, model):
    loss.backward()
"""

UTILS_DIVIDES = """
import torch


def backward_step(loss, model, accum_steps):
    (loss / accum_steps).backward()
"""

TRAIN = """
import torch
import torch.nn.functional as F

from utils import backward_step

model = torch.nn.Linear(32, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
grad_accum = 8
for step, (x, y) in enumerate(loader):
    loss = F.cross_entropy(model(x), y)
    backward_step(loss, model)
    if (step + 1) % grad_accum == 0 or step + 1 == len(loader):
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
"""

TRAIN_DIVIDES = TRAIN.replace("backward_step(loss, model)", "backward_step(loss, model, grad_accum)")


def project(root: Path, files: dict[str, str]) -> Path:
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        past = path.stat().st_mtime - 60
        os.utime(path, (past, past))
    return root


def codes(run) -> list[tuple[str, str]]:
    """(file, code) of each finding, from the concise output."""
    found = []
    for line in run.stdout.splitlines():
        parts = line.split(":")
        if len(parts) > 3 and parts[3].strip().startswith("GL"):
            found.append((Path(parts[0]).name, parts[3].split()[0]))
    return found


def check(gradlint, *args):
    """The two rules these projects are about (the loops also drop a tail: GL205 is not asked)."""
    return gradlint("check", "--select", "GL201,GL401", "--format", "concise", *args)


def test_ddp_in_main_accumulation_in_engine_without_no_sync_is_gl401(workdir, gradlint):
    project(workdir, {"engine.py": ENGINE, "main.py": MAIN_DDP, "models.py": "def build_model(args):\n    pass\n"})
    run = check(gradlint, ".")
    assert codes(run) == [("engine.py", "GL401")], run
    assert "engine.py:13:9:" in run.stdout  # at the backward in engine.py


def test_engine_with_no_sync_or_without_ddp_is_silent(workdir, gradlint):
    project(workdir, {"engine.py": ENGINE_NO_SYNC, "main.py": MAIN_DDP})
    assert codes(check(gradlint, ".")) == []
    (workdir / "engine.py").write_text(textwrap.dedent(ENGINE))
    (workdir / "main.py").write_text(textwrap.dedent(MAIN_SINGLE))
    assert codes(check(gradlint, ".")) == []


def test_engine_checked_alone_still_knows_its_callers(workdir, gradlint):
    project(workdir, {"engine.py": ENGINE, "main.py": MAIN_DDP})
    assert codes(check(gradlint, "engine.py")) == [("engine.py", "GL401")]
    stdin = gradlint("check", "--select", "GL201,GL401", "--format", "concise", "-", input=textwrap.dedent(ENGINE))
    assert codes(stdin) == []  # stdin has no project: the callers are unknown


def test_backward_in_a_utils_helper_without_division_is_gl201(workdir, gradlint):
    project(workdir, {"utils.py": UTILS, "train.py": TRAIN})
    run = check(gradlint, ".")
    assert codes(run) == [("train.py", "GL201")], run
    assert "train.py:12:5:" in run.stdout and "backward_step" in run.stdout


def test_helper_that_divides_is_silent(workdir, gradlint):
    project(workdir, {"utils.py": UTILS_DIVIDES, "train.py": TRAIN_DIVIDES})
    assert codes(check(gradlint, ".")) == []


def test_src_layout_with_relative_imports(workdir, gradlint):
    package = TRAIN.replace("from utils import backward_step", "from .utils import backward_step")
    module_style = TRAIN.replace("from utils import backward_step", "from . import utils").replace(
        "    backward_step(", "    utils.backward_step("
    )
    absolute = TRAIN.replace("from utils import backward_step", "from trainer.utils import backward_step")
    project(workdir, {
        "src/trainer/__init__.py": "",
        "src/trainer/utils.py": UTILS,
        "src/trainer/train_relative.py": package,
        "src/trainer/train_module.py": module_style,
        "scripts/train_absolute.py": absolute,
    })
    found = codes(check(gradlint, "."))
    assert sorted(found) == [
        ("train_absolute.py", "GL201"), ("train_module.py", "GL201"), ("train_relative.py", "GL201"),
    ]


def test_a_name_that_is_not_a_project_module_stays_unknown(workdir, gradlint):
    elsewhere = TRAIN.replace("from utils import backward_step", "from mylib.training import backward_step")
    project(workdir, {"train.py": elsewhere})
    assert codes(check(gradlint, ".")) == []


def test_cached_results_follow_the_modules_they_used(workdir, gradlint, monkeypatch):
    from gradlint import runner

    checked = []
    original = runner.process
    monkeypatch.setattr(runner, "process", lambda task: checked.append(Path(task.path).name) or original(task))
    project(workdir, {"engine.py": ENGINE, "main.py": MAIN_DDP, "utils.py": UTILS, "train.py": TRAIN})
    assert sorted(codes(check(gradlint, "."))) == [("engine.py", "GL401"), ("train.py", "GL201")]
    checked.clear()
    assert sorted(codes(check(gradlint, "."))) == [("engine.py", "GL401"), ("train.py", "GL201")]
    assert checked == []  # everything from the cache

    (workdir / "utils.py").write_text(textwrap.dedent(UTILS).replace("loss.backward()", "(loss / 8).backward()"))
    assert codes(check(gradlint, ".")) == [("engine.py", "GL401")]
    # train.py used utils.py's code; engine.py asked every project file who calls its loop, and
    # an edited file may have become a caller, so it is checked again too
    assert "train.py" in checked and "engine.py" in checked

    checked.clear()
    (workdir / "main.py").write_text(textwrap.dedent(MAIN_SINGLE))
    assert codes(check(gradlint, ".")) == []
    assert "engine.py" in checked  # engine.py used main.py's call


FP16_UTIL = """
def zero_grad(model_params):
    for param in model_params:
        if param.grad is not None:
            param.grad.detach_()
            param.grad.zero_()
"""

TRAIN_UTIL = """
import torch

from fp16_util import zero_grad


class TrainLoop:
    def __init__(self, model, data, lr):
        self.model = model
        self.data = data
        self.params = list(model.parameters())
        self.opt = torch.optim.AdamW(self.params, lr=lr)

    def run_loop(self):
        for batch, target in self.data:
            self.forward_backward(batch, target)
            self.opt.step()

    def forward_backward(self, batch, target):
        zero_grad(self.params)
        loss = torch.nn.functional.mse_loss(self.model(batch), target)
        loss.backward()
"""


def test_gradients_cleared_by_a_helper_imported_from_another_module_is_not_gl104(tmp_path):
    def gl104(folder, fp16_util):
        folder.mkdir()
        project(folder, {"fp16_util.py": fp16_util, "train_util.py": TRAIN_UTIL})
        run = subprocess.run(
            [sys.executable, "-m", "gradlint", "check", "--no-cache", "--format", "concise", "."],
            check=False, cwd=folder, capture_output=True, text=True, timeout=120,
        )
        return [line.split(":")[1] for line in run.stdout.splitlines() if " GL104 " in line]

    assert gl104(tmp_path / "clears", FP16_UTIL) == []
    assert gl104(tmp_path / "forgets", "def zero_grad(model_params):\n    pass\n") == ["17"]


SCALER_UTIL = """
import torch


class MetricLogger:
    def __init__(self):
        self.meters = {}


class NativeScalerWithGradNormCount:
    state_dict_key = "amp_scaler"

    def __init__(self):
        self._scaler = torch.cuda.amp.GradScaler()

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, update_grad=True):
        self._scaler.scale(loss).backward()
        if update_grad:
            if clip_grad is not None:
                self._scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
            self._scaler.step(optimizer)
            self._scaler.update()
"""

ENGINE_SCALER = """
import torch

import util.misc as misc


def train_one_epoch(model, data_loader, optimizer, device, epoch, loss_scaler, args=None):
    model.train(True)
    metric_logger = misc.MetricLogger()
    accum_iter = args.accum_iter
    optimizer.zero_grad()
    for data_iter_step, (samples, targets) in enumerate(data_loader):
        with torch.cuda.amp.autocast():
            outputs = model(samples.to(device))
            loss = torch.nn.functional.cross_entropy(outputs, targets.to(device))
        loss /= accum_iter
        loss_scaler(loss, optimizer, parameters=model.parameters(),
                    update_grad=(data_iter_step + 1) % accum_iter == 0)
        if (data_iter_step + 1) % accum_iter == 0:
            optimizer.zero_grad()
"""

MAIN_SCALER = """
import torch

import util.misc as misc
from util.misc import NativeScalerWithGradNormCount as NativeScaler
from engine import train_one_epoch


def main(args):
    model = torch.nn.Linear(8, 2).to(args.device)
    if args.distributed:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    loss_scaler = NativeScaler()
    for epoch in range(args.epochs):
        train_one_epoch(model, loader, optimizer, args.device, epoch, loss_scaler, args=args)
"""


def test_scaler_object_made_in_main_and_ddp_reach_the_engine(workdir, gradlint):
    """timm/MAE style: the engine's loop has no backward() or step() of its own; the helper
    object main.py passes in does both, on the DDP model main.py wraps. (The engine is read
    because it imports a project module that calls backward().)"""
    project(workdir, {
        "util/__init__.py": "", "util/misc.py": SCALER_UTIL, "engine.py": ENGINE_SCALER, "main.py": MAIN_SCALER,
    })
    run = check(gradlint, ".")
    assert codes(run) == [("engine.py", "GL401")], run  # divided: no GL201
    (workdir / "main.py").write_text(textwrap.dedent(MAIN_SCALER).replace(
        "        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])\n", "        pass\n"
    ))
    assert codes(check(gradlint, ".")) == []


def test_scaler_object_reaches_an_engine_that_imports_other_names_of_its_module(workdir, gradlint):
    """The engine spells neither backward nor step, and imports only the logger from the module
    that defines the scaler class: that import is enough to read the loop, which main.py hands
    the scaler object and the DDP model."""
    engine = textwrap.dedent(ENGINE_SCALER).replace("import util.misc as misc", "from util.misc import MetricLogger")
    engine = engine.replace("misc.MetricLogger()", "MetricLogger()").replace(
        "        loss_scaler(loss, optimizer, parameters=model.parameters(),\n"
        "                    update_grad=(data_iter_step + 1) % accum_iter == 0)\n",
        "        update_grad = (data_iter_step + 1) % accum_iter == 0\n"
        "        loss_scaler(loss, optimizer, parameters=model.parameters(), update_grad=update_grad)\n",
    )
    assert "update_grad = (" in engine and "backward" not in engine
    project(workdir, {"util/__init__.py": "", "util/misc.py": SCALER_UTIL, "engine.py": engine, "main.py": MAIN_SCALER})
    assert codes(check(gradlint, ".")) == [("engine.py", "GL401")]
    assert codes(check(gradlint, "engine.py")) == [("engine.py", "GL401")]
    (workdir / "main.py").write_text(textwrap.dedent(MAIN_SCALER).replace(
        "        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])\n", "        pass\n"
    ))
    assert codes(check(gradlint, ".")) == []


TRAIN_AND_MAIN_SCALER = """
import torch

from util.misc import NativeScalerWithGradNormCount, MetricLogger


def train_one_epoch(config, model, criterion, data_loader, optimizer, epoch, loss_scaler):
    model.train()
    optimizer.zero_grad()
    logger = MetricLogger()
    for idx, (samples, targets) in enumerate(data_loader):
        with torch.autocast("cuda"):
            outputs = model(samples)
        loss = criterion(outputs, targets) / config.accumulation_steps
        loss_scaler(loss, optimizer, clip_grad=config.clip_grad, parameters=model.parameters(),
                    update_grad=(idx + 1) % config.accumulation_steps == 0)
        if (idx + 1) % config.accumulation_steps == 0:
            optimizer.zero_grad()


def main(config, model, data_loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[config.local_rank])
    loss_scaler = NativeScalerWithGradNormCount()
    criterion = torch.nn.CrossEntropyLoss()
    for epoch in range(config.epochs):
        data_loader.sampler.set_epoch(epoch)
        train_one_epoch(config, model, criterion, data_loader, optimizer, epoch, loss_scaler)
"""


def test_scaler_object_made_beside_the_loop_reaches_it(workdir, gradlint):
    """Swin style: `main` and `train_one_epoch` share a module; the scaler object main makes
    from an imported class is what runs backward and step in the loop."""
    project(workdir, {"util/__init__.py": "", "util/misc.py": SCALER_UTIL, "main.py": TRAIN_AND_MAIN_SCALER})
    assert codes(check(gradlint, "main.py")) == [("main.py", "GL401")]
    tail = gradlint("check", "--select", "GL205", "--format", "concise", "main.py")
    assert codes(tail) == [("main.py", "GL205")]  # the last partial window never steps
    single = TRAIN_AND_MAIN_SCALER.replace(
        "    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[config.local_rank])\n", ""
    )
    (workdir / "main.py").write_text(textwrap.dedent(single))
    assert codes(check(gradlint, "main.py")) == []
    # an object of a class whose __call__ runs no gradient code is no step: no training loop
    (workdir / "main.py").write_text(textwrap.dedent(TRAIN_AND_MAIN_SCALER).replace(
        "loss_scaler = NativeScalerWithGradNormCount()", "loss_scaler = MetricLogger()"
    ))
    assert codes(check(gradlint, "main.py")) == []


def test_scaler_object_returned_in_a_tuple_by_a_factory_beside_the_loop(workdir, gradlint):
    """MALE style: a factory of the module builds the DDP model, the optimizer and the scaler
    object and returns the three; `main` unpacks them and hands them to the loop."""
    factory = TRAIN_AND_MAIN_SCALER.replace(
        """def main(config, model, data_loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[config.local_rank])
    loss_scaler = NativeScalerWithGradNormCount()
""",
        """def initialize_model(config, model):
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[config.local_rank])
    loss_scaler = NativeScalerWithGradNormCount()
    return model, optimizer, loss_scaler


def main(config, model, data_loader):
    model, optimizer, loss_scaler = initialize_model(config, model)
""",
    )
    assert "return model, optimizer, loss_scaler" in factory
    project(workdir, {"util/__init__.py": "", "util/misc.py": SCALER_UTIL, "main.py": factory})
    assert codes(check(gradlint, "main.py")) == [("main.py", "GL401")]
    (workdir / "main.py").write_text(textwrap.dedent(factory).replace(
        "    loss_scaler = NativeScalerWithGradNormCount()\n", "    loss_scaler = MetricLogger()\n"
    ))
    assert codes(check(gradlint, "main.py")) == []


DIST_UTILS = """
import os

import torch
from torch.nn.parallel import DistributedDataParallel as DDP

LOCAL_RANK = int(os.getenv("LOCAL_RANK", -1))


def wrap_distributed(model):
    \"\"\"DDP with the options this torch version supports.\"\"\"
    if torch.__version__ >= "1.11":
        return DDP(model, device_ids=[LOCAL_RANK], output_device=LOCAL_RANK, static_graph=True)
    return DDP(model, device_ids=[LOCAL_RANK], output_device=LOCAL_RANK)


def to_device(model):
    return model.to(LOCAL_RANK)
"""

TRAIN_WRAPPED = """
import torch

from utils.distributed import LOCAL_RANK, wrap_distributed


def train(model, loader, optimizer, scaler, compute_loss, accumulate=4):
    if LOCAL_RANK != -1:
        model = wrap_distributed(model)
    last_step = -1
    for i, (images, targets) in enumerate(loader):
        with torch.autocast("cuda"):
            loss = compute_loss(model(images), targets) / accumulate
        scaler.scale(loss).backward()
        if i - last_step >= accumulate:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
            last_step = i
"""


def test_model_wrapped_by_a_project_helper_that_returns_ddp_is_gl401(workdir, gradlint):
    """yolov5 style: `model = wrap_distributed(model)` where utils/distributed.py returns
    `DDP(...)` on every path; a helper that returns the model unwrapped gives no role."""
    project(workdir, {"utils/__init__.py": "", "utils/distributed.py": DIST_UTILS, "train.py": TRAIN_WRAPPED})
    assert codes(check(gradlint, ".")) == [("train.py", "GL401")]
    (workdir / "train.py").write_text(textwrap.dedent(TRAIN_WRAPPED).replace("wrap_distributed", "to_device"))
    assert codes(check(gradlint, ".")) == []


FACTORY = """
import torch
from torch.nn.parallel import DistributedDataParallel


def build_models(model, args):
    ema_model = None
    if args.distributed:
        ddp_model = DistributedDataParallel(model, device_ids=[args.gpu])
    else:
        ddp_model = None
    return model, ema_model, ddp_model
"""

CLS_ENGINE = """
import torch


def train_one_epoch(loader, model, optimizer, criterion, args):
    model.train()
    for batch_idx, (x, y) in enumerate(loader):
        loss = criterion(model(x.to(args.device)), y.to(args.device)) / args.grad_accum
        loss.backward()
        if batch_idx % args.grad_accum == 0:
            optimizer.step()
            optimizer.zero_grad()
"""

CLS_MAIN = """
import torch

from pkg.models import build_models
from pkg.engines import train_one_epoch


def run(args, loader, criterion):
    model = torch.nn.Linear(16, 4)
    model, ema_model, ddp_model = build_models(model, args)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        train_one_epoch(loader, ddp_model if args.distributed else model, optimizer, criterion, args)
"""


def test_ddp_model_from_a_factory_tuple_passed_conditionally_through_a_package_is_gl401(workdir, gradlint):
    """The factory returns (model, ema, ddp) from another module; main passes `ddp_model if
    args.distributed else model` to an engine its package re-exports: DDP whenever distributed.
    Passing the EMA model instead (no DDP on either branch) is silent."""
    project(workdir, {
        "pkg/__init__.py": "",
        "pkg/models.py": FACTORY,
        "pkg/engines/__init__.py": "from .classification import train_one_epoch\n",
        "pkg/engines/classification.py": CLS_ENGINE,
        "main.py": CLS_MAIN,
    })
    assert codes(check(gradlint, ".")) == [("classification.py", "GL401")]
    (workdir / "main.py").write_text(textwrap.dedent(CLS_MAIN).replace("ddp_model if", "ema_model if"))
    assert codes(check(gradlint, ".")) == []


DS_OR_DDP_ENGINE = """
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, accum_steps):
    model.train()
    for it, (images, labels) in enumerate(loader):
        with torch.autocast("cuda", enabled=scaler is not None):
            loss = criterion(model(images.cuda()), labels.cuda()) / accum_steps
        if scaler is None:
            model.backward(loss)
            model.step()
        else:
            scaler.scale(loss).backward()
            if (it + 1) % accum_steps == 0:
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
"""

DS_ONLY_ENGINE = """
def train_one_epoch(model, loader, optimizer, criterion, scaler, accum_steps):
    model.train()
    for it, (images, labels) in enumerate(loader):
        loss = criterion(model(images.cuda()), labels.cuda()) / accum_steps
        model.backward(loss)
        if (it + 1) % accum_steps == 0:
            model.step()
            model.zero_grad()
"""

DS_OR_DDP_MAIN = """
import deepspeed
import torch
from torch.nn.parallel import DistributedDataParallel

from engine import train_one_epoch


def main(args, net, loader, criterion):
    if args.deepspeed:
        scaler = None
        model, optimizer, _, _ = deepspeed.initialize(args=args, model=net, model_parameters=net.parameters())
    else:
        model = net.cuda()
        if args.distributed:
            model = DistributedDataParallel(model, device_ids=[args.gpu])
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
        scaler = torch.amp.GradScaler("cuda")
    for epoch in range(args.epochs):
        train_one_epoch(model, loader, optimizer, criterion, scaler, args.accum_steps)
"""


def test_deepspeed_or_ddp_behind_a_flag_is_gl401_on_the_plain_backward(workdir, gradlint):
    """VideoMAE style: `main` builds a DeepSpeed engine or a DDP model behind a flag and the
    engine calls `model.backward(loss)` on one branch, its own scaled backward on the other:
    the plain branch accumulates over a DDP model. An engine that only calls the DeepSpeed API
    is silent, and so is the same loop when `main` never wraps the model in DDP."""
    project(workdir, {"engine.py": DS_OR_DDP_ENGINE, "main.py": DS_OR_DDP_MAIN})
    run = check(gradlint, ".")
    assert codes(run) == [("engine.py", "GL401")], run
    assert "scaler.scale(loss).backward()" in run.stdout
    (workdir / "engine.py").write_text(textwrap.dedent(DS_ONLY_ENGINE))
    assert codes(check(gradlint, ".")) == []
    (workdir / "engine.py").write_text(textwrap.dedent(DS_OR_DDP_ENGINE))
    (workdir / "main.py").write_text(
        textwrap.dedent(DS_OR_DDP_MAIN).replace("model = DistributedDataParallel(model, device_ids=[args.gpu])", "model = model.to(args.gpu)")
    )
    assert codes(check(gradlint, ".")) == []


def test_deepspeed_or_ddp_engine_with_no_sync_is_silent(workdir, gradlint):
    """The same pair, with the plain branch's non-final micro-batches under `model.no_sync()`."""
    engine = DS_OR_DDP_ENGINE.replace(
        "            scaler.scale(loss).backward()\n",
        "            if (it + 1) % accum_steps != 0:\n"
        "                with model.no_sync():\n"
        "                    scaler.scale(loss).backward()\n"
        "            else:\n"
        "                scaler.scale(loss).backward()\n",
    )
    project(workdir, {"engine.py": engine, "main.py": DS_OR_DDP_MAIN})
    assert codes(check(gradlint, ".")) == []


FP16_TRAINER = """
import torch


class MixedPrecisionTrainer:
    \"\"\"Keeps fp32 master weights; the script calls backward() per micro-batch, optimize() once.\"\"\"

    def __init__(self, model, use_fp16=False, loss_scale=2.0 ** 16):
        self.model = model
        self.use_fp16 = use_fp16
        self.loss_scale = loss_scale
        self.master_params = [p for p in model.parameters() if p.requires_grad]

    def zero_grad(self):
        for param in self.master_params:
            param.grad = None

    def backward(self, loss):
        if self.use_fp16:
            (loss * self.loss_scale).backward()
        else:
            loss.backward()

    def optimize(self, opt):
        if self.use_fp16:
            for param in self.master_params:
                param.grad.mul_(1.0 / self.loss_scale)
        opt.step()
"""

CLASSIFIER_SCRIPT = """
import torch
import torch.nn.functional as F
from torch.nn.parallel.distributed import DistributedDataParallel as DDP

from trainer.fp16 import MixedPrecisionTrainer


def split_microbatches(microbatch, *tensors):
    size = len(tensors[0])
    if microbatch == -1:
        yield tensors
    else:
        for i in range(0, size, microbatch):
            yield tuple(x[i : i + microbatch] for x in tensors)


def main(args, classifier, data, val_data):
    mp_trainer = MixedPrecisionTrainer(classifier, use_fp16=args.fp16)
    model = DDP(classifier, device_ids=[args.local_rank])
    opt = torch.optim.AdamW(mp_trainer.master_params, lr=args.lr)

    def forward_backward_log(data_loader, prefix="train"):
        batch, labels = next(data_loader)
        for i, (sub_batch, sub_labels) in enumerate(split_microbatches(args.microbatch, batch, labels)):
            loss = F.cross_entropy(model(sub_batch), sub_labels)
            if loss.requires_grad:
                if i == 0:
                    mp_trainer.zero_grad()
                mp_trainer.backward(loss * len(sub_batch) / len(batch))

    for step in range(args.iterations):
        forward_backward_log(data)
        mp_trainer.optimize(opt)
        if not step % args.eval_interval:
            with torch.no_grad():
                with model.no_sync():
                    model.eval()
                    forward_backward_log(val_data, prefix="val")
                    model.train()
"""


def test_trainer_object_of_another_module_steps_for_a_closure_loop(workdir, gradlint):
    """guided-diffusion style: a closure slices the batch into micro-batches and backpropagates
    through an imported trainer object, whose optimize() steps once per batch. The DDP model
    all-reduces on every slice; the no_sync around the evaluation (no grad) changes nothing.
    Zeroing on the first slice only is right."""
    project(workdir, {"trainer/__init__.py": "", "trainer/fp16.py": FP16_TRAINER, "classifier_train.py": CLASSIFIER_SCRIPT})
    found = gradlint("check", "--format", "concise", "classifier_train.py")  # every rule: no GL202
    assert codes(found) == [("classifier_train.py", "GL401")]
    assert "classifier_train.py:30:" in found.stdout  # at the backward inside the micro-batch loop
    synced = CLASSIFIER_SCRIPT.replace(
        "                mp_trainer.backward(loss * len(sub_batch) / len(batch))",
        "                mp_trainer.backward(loss * len(sub_batch) / len(batch))\n"
        "        # (the slices above run under no_sync but the last)",
    ).replace(
        "            loss = F.cross_entropy(model(sub_batch), sub_labels)\n",
        "            last = (i + 1) * args.microbatch >= len(batch)\n"
        "            with (contextlib.nullcontext() if last else model.no_sync()):\n"
        "                loss = F.cross_entropy(model(sub_batch), sub_labels)\n",
    ).replace("import torch\n", "import contextlib\n\nimport torch\n", 1)
    (workdir / "classifier_train.py").write_text(textwrap.dedent(synced))
    assert codes(gradlint("check", "--format", "concise", "classifier_train.py")) == []


NETWORK_TRAINER = """
import torch


class Trainer:
    def __init__(self, model, loss, optimizer, *, stride_apply=1):
        self.model = model
        self.loss = loss
        self.optimizer = optimizer
        self.stride_apply = stride_apply

    def train_batch(self, data, targets, apply_gradients=True):
        loss = self.loss(self.model(data), targets) / self.stride_apply
        loss.backward()
        if apply_gradients:
            self.optimizer.step()
            self.optimizer.zero_grad()

    def train(self, scenes):
        for batch_idx, (data, targets) in enumerate(scenes):
            last = batch_idx + 1 == len(scenes)
            self.train_batch(data, targets, apply_gradients=(batch_idx + 1) % self.stride_apply == 0 or last)
"""

TRAIN_WITH_NETWORK = """
import torch

from . import network


def main(args, net_cpu, loss, optimizer, loader):
    if args.ddp:
        net = torch.nn.parallel.DistributedDataParallel(net_cpu.cuda(), device_ids=[args.local_rank])
    elif args.data_parallel:
        net = torch.nn.DataParallel(net_cpu.cuda())
    else:
        net = net_cpu
    trainer = network.Trainer(net, loss, optimizer, stride_apply=args.stride_apply)
    trainer.train(loader)
"""


def test_ddp_model_given_to_a_re_exported_trainer_class_is_gl401(workdir, gradlint):
    """openpifpaf style: `train.py` builds `network.Trainer(net, ...)` (a class the package
    re-exports) with a model that is DDP on one branch; the trainer keeps it as `self.model`
    and steps every `stride_apply` batches."""
    project(workdir, {
        "pkg/__init__.py": "",
        "pkg/network/__init__.py": "from .trainer import Trainer\n",
        "pkg/network/trainer.py": NETWORK_TRAINER,
        "pkg/train.py": TRAIN_WITH_NETWORK,
    })
    assert codes(check(gradlint, "pkg")) == [("trainer.py", "GL401")]
    plain = TRAIN_WITH_NETWORK.replace("torch.nn.parallel.DistributedDataParallel(", "torch.compile(")
    (workdir / "pkg" / "train.py").write_text(textwrap.dedent(plain))
    assert codes(check(gradlint, "pkg")) == []


REGISTRY_TASK = """
import torch


class BaseTask:
    \"\"\"Made by name from the config through the registry; the runner hands it the model.\"\"\"

    def train_step(self, model, samples):
        return model(samples)["loss"]

    def train_epoch(self, epoch, model, data_loader, optimizer, scaler=None, accum_grad_iters=1):
        return self._train_inner_loop(epoch, len(data_loader), model, data_loader, optimizer, scaler, accum_grad_iters)

    def _train_inner_loop(self, epoch, iters_per_epoch, model, data_loader, optimizer, scaler=None, accum_grad_iters=1):
        use_amp = scaler is not None
        model.train()
        for i in range(iters_per_epoch):
            samples = next(data_loader)
            with torch.autocast("cuda", enabled=use_amp):
                loss = self.train_step(model=model, samples=samples)
            loss = loss / accum_grad_iters
            if use_amp:
                scaler.scale(loss).backward()
            else:
                loss.backward()
            if (i + 1) % accum_grad_iters == 0:
                if use_amp:
                    scaler.step(optimizer)
                    scaler.update()
                else:
                    optimizer.step()
                optimizer.zero_grad()
"""

REGISTRY_RUNNER = """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from lib.common.registry import registry


class RunnerBase:
    def __init__(self, cfg, task, model, loader):
        self.config = cfg
        self.task = task
        self._model = model
        self._wrapped_model = None
        self.loader = loader

    @property
    def model(self):
        if self._wrapped_model is None:
            if self.config.distributed:
                self._wrapped_model = DDP(self._model.cuda(), device_ids=[self.config.gpu])
            else:
                self._wrapped_model = self._model
        return self._wrapped_model

    def train_epoch(self, epoch):
        self.model.train()
        return self.task.train_epoch(
            epoch=epoch,
            model=self.model,
            data_loader=self.loader,
            optimizer=self.optimizer,
            scaler=self.scaler,
            accum_grad_iters=self.config.accum_grad_iters,
        )

    @property
    def optimizer(self):
        return torch.optim.AdamW(self._model.parameters())

    @property
    def scaler(self):
        return torch.amp.GradScaler("cuda") if self.config.amp else None


def build_runner(cfg, model, loader):
    task = registry.get_task_class(cfg.task)()
    return RunnerBase(cfg, task, model, loader)
"""


def test_task_made_by_a_registry_gets_the_runners_ddp_model(workdir, gradlint):
    """LAVIS style: the runner calls `self.task.train_epoch(model=self.model, ...)` on a task
    the registry made, so no import leads from one to the other; the task's train_epoch is the
    only definition of that name whose parameters the call fits (the runner's own takes only
    `epoch`), and the runner's model property wraps the model in DDP."""
    files = {
        "lib/__init__.py": "",
        "lib/common/__init__.py": "",
        "lib/common/registry.py": "class Registry:\n    def get_task_class(self, name):\n        return self.tasks[name]\n\n\nregistry = Registry()\n",
        "lib/tasks/__init__.py": "",
        "lib/tasks/base_task.py": REGISTRY_TASK,
        "lib/runners/__init__.py": "",
        "lib/runners/runner_base.py": REGISTRY_RUNNER,
    }
    project(workdir, files)
    found = check(gradlint, "lib")
    assert codes(found) == [("base_task.py", "GL401")]
    # another class whose train_epoch the call fits too: which one runs cannot be told
    (workdir / "lib" / "tasks" / "other_task.py").write_text(
        "class OtherTask:\n    def train_epoch(self, epoch, model, data_loader, optimizer, scaler=None, accum_grad_iters=1):\n"
        "        return model\n"
    )
    assert codes(check(gradlint, "--no-cache", "lib")) == []  # (a new file invalidates nothing cached)


TRAIN_UTILS_BOUNDARY = """
import torch


def batch_backward(scaler, info_dict):
    loss = info_dict["loss"]
    scaler.scale(loss).backward()


def update_parameter_and_lr(model, optimizer, scheduler, scaler, info_dict):
    accum_grad = info_dict.get("accum_grad", 1)
    batch_idx = info_dict["batch_idx"]
    if (batch_idx + 1) % accum_grad == 0:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), info_dict["grad_clip"])
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        scheduler.step()
"""

EXECUTOR = """
import torch

from utils.train_utils import batch_backward, update_parameter_and_lr


class Executor:
    def train(self, model, optimizer, scheduler, train_data_loader, scaler, info_dict):
        model.train()
        for batch_idx, batch in enumerate(train_data_loader):
            info_dict["batch_idx"] = batch_idx
            with torch.autocast("cuda", dtype=torch.float16):
                info_dict["loss"] = model(**batch)["loss"]
            batch_backward(scaler, info_dict)
            update_parameter_and_lr(model, optimizer, scheduler, scaler, info_dict)
"""


def test_a_window_tested_in_another_module_is_named_as_written_there(workdir, gradlint):
    """wenet style: the boundary `(batch_idx + 1) % accum_grad` is tested in train_utils.py; the
    findings in executor.py name its factor from that module's code (this used to crash, the
    factor's position being read from executor.py's lines)."""
    project(workdir, {"utils/__init__.py": "", "utils/train_utils.py": TRAIN_UTILS_BOUNDARY, "executor.py": EXECUTOR})
    run = gradlint("check", "--no-cache", "--format", "concise", "executor.py")
    assert "internal error" not in run.stdout + run.stderr
    assert ("executor.py", "GL205") in codes(run)
    assert "`accum_grad`" in run.stdout


TOOLS_INIT = """
from .train import evaluate, train
"""

TOOLS_TRAIN = """
import torch
from torch.optim import LBFGS


def train(model, loss_fn, loader, optimizer, epochs, distributed_model=None):
    for epoch in range(epochs):
        train_one_epoch(model, loss_fn, loader, optimizer, distributed_model)


def train_one_epoch(model, loss_fn, data_loader, optimizer, distributed_model=None):
    model_to_train = model if distributed_model is None else distributed_model
    if isinstance(optimizer, LBFGS):
        take_step_lbfgs(model=model_to_train, loss_fn=loss_fn, data_loader=data_loader, optimizer=optimizer)
    else:
        for batch in data_loader:
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model_to_train(batch), batch)
            loss.backward()
            optimizer.step()


def take_step_lbfgs(model, loss_fn, data_loader, optimizer):
    samples = sum(len(batch) for batch in data_loader)

    def closure():
        optimizer.zero_grad(set_to_none=True)
        total_loss = torch.zeros(())
        for batch in data_loader:
            batch_loss = loss_fn(model(batch), batch) * (len(batch) / samples)
            batch_loss.backward()
            total_loss += batch_loss.detach()
        return total_loss

    return optimizer.step(closure)


def evaluate(model, loader):
    return [model(batch) for batch in loader]
"""

RUN_TRAIN = """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from chem import tools


def run(args, model, loss_fn, loader, local_rank):
    if args.distributed:
        distributed_model = DDP(model, device_ids=[local_rank])
    else:
        distributed_model = None
    if args.lbfgs:
        optimizer = torch.optim.LBFGS(model.parameters(), history_size=200)
    else:
        optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    tools.train(model, loss_fn, loader, optimizer, args.epochs, distributed_model=distributed_model)
"""


def test_a_package_attribute_rebound_by_its_init_and_a_full_batch_closure(workdir, gradlint):
    """`tools.train(...)` where `tools/train.py` is a module but `tools/__init__.py` imports the
    function `train` from it: the call runs the function, so the DDP model made in run_train.py
    reaches the L-BFGS closure, which backpropagates every batch of the loader before one step
    with the all-reduce on (GL401; the batch losses are weighted by their share: no GL201)."""
    project(workdir, {
        "chem/__init__.py": "",
        "chem/tools/__init__.py": TOOLS_INIT,
        "chem/tools/train.py": TOOLS_TRAIN,
        "chem/cli/run_train.py": RUN_TRAIN,
    })
    run = gradlint("check", "--no-cache", "--format", "concise", ".")
    assert codes(run) == [("train.py", "GL401")], run
    assert "train.py:31:13:" in run.stdout and "len(data_loader)" in run.stdout
    single = RUN_TRAIN.replace("DDP(model, device_ids=[local_rank])", "None")
    (workdir / "chem/cli/run_train.py").write_text(textwrap.dedent(single))
    assert codes(gradlint("check", "--no-cache", "--format", "concise", ".")) == []


LOOP_MIXIN = """
import torch


class TrainingLoopMixin:
    def run_training_epoch(self):
        remaining = len(self.train_loader)
        start = True
        for idx, batch in enumerate(self.train_loader):
            if start:
                self.optimizer.zero_grad()
                this_update = min(self.update_frequency, remaining)
                start = False
            report = self.run_training_batch(batch, this_update)
            if (idx + 1) % self.update_frequency and remaining != this_update:
                continue
            self.finish_update()
            start = True
            remaining -= this_update

    def run_training_batch(self, batch, divisor):
        output = self.forward_batch(batch)
        loss = output["loss"] / divisor
        loss.backward()
        return output

    def forward_batch(self, batch):
        batch = {key: value.to(self.device) for key, value in batch.items()}
        return self.model(batch)

    def finish_update(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
"""

DEVICE_MIXIN = """
import torch


class DeviceMixin:
    def parallelize_model(self):
        if self.distributed:
            self.model = torch.nn.parallel.DistributedDataParallel(self.model, device_ids=[self.local_rank])
"""

MIXED_TRAINER = """
import torch

from loop import TrainingLoopMixin
from device import DeviceMixin


class Trainer(TrainingLoopMixin, DeviceMixin):
    def __init__(self, config, model, train_loader):
        self.config = config
        self.model = model.to(config.device)
        self.device = config.device
        self.train_loader = train_loader
        self.update_frequency = config.update_frequency
        self.distributed = config.distributed
        self.local_rank = config.local_rank
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
        self.parallelize_model()

    def train(self):
        for epoch in range(self.config.epochs):
            self.run_training_epoch()
"""


def test_a_mixin_runs_the_model_another_mixin_of_its_class_wraps_in_ddp(workdir, gradlint):
    """mmf style: the loop lives in a mixin reading `self.model`, which it never sets; the class
    combining it with a device mixin (another module) wraps the model in DDP there. The window's
    `continue` also holds a test the model cannot read (`remaining != this_update`, the last
    update of the epoch): the step still waits for the window's end."""
    project(workdir, {"loop.py": LOOP_MIXIN, "device.py": DEVICE_MIXIN, "trainer.py": MIXED_TRAINER})
    run = gradlint("check", "--no-cache", "--format", "concise", ".")
    assert codes(run) == [("loop.py", "GL401")], run
    assert "loop.py:14:22:" in run.stdout  # the loop's call of the method that runs forward and backward
    single = DEVICE_MIXIN.replace("torch.nn.parallel.DistributedDataParallel(self.model, device_ids=[self.local_rank])", "self.model")
    (workdir / "device.py").write_text(textwrap.dedent(single))
    assert codes(gradlint("check", "--no-cache", "--format", "concise", ".")) == []


BASE_TRAINER = """
class BaseTrainer:
    def train_loop(self, loader, optimizer):
        for batch in loader:
            loss = self.compute_loss(batch)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
"""

SUBCLASS_TRAINER = '''
import torch

from base_trainer import BaseTrainer


class ToyTrainer(BaseTrainer):
    """A subclass in another module: the base's loop calls methods defined here, further down
    this file than the base module has lines."""

    def __init__(self, model):
        self.model = model

    def prepare(self, batch):
        features, labels = batch
        return features.float(), labels.long()

    def run(self, loader, epochs=2):
        optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        for epoch in range(epochs):
            self.train_loop(loader, optimizer)

    def compute_loss(self, batch):
        features, labels = self.prepare(batch)
        return torch.nn.functional.cross_entropy(self.model(features), labels)
'''


def test_a_base_class_loop_calling_methods_of_a_subclass_in_another_module(workdir, gradlint):
    """The walk enters the base's method with `self` of the subclass: the subclass's methods are
    read in the subclass's module (reading them in the base's module crashed: IndexError)."""
    project(workdir, {"base_trainer.py": BASE_TRAINER, "toy.py": SUBCLASS_TRAINER})
    run = gradlint("check", "--no-cache", "--format", "concise", ".")
    assert "internal error" not in run.stdout + run.stderr, run
    assert codes(run) == [], run


SALIENCY_MODELS = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class SaliencyNet(nn.Module):
    def __init__(self, in_ch=3, out_ch=1):
        super().__init__()
        self.body = nn.Conv2d(in_ch, 16, 3, padding=1)
        self.side1 = nn.Conv2d(16, out_ch, 1)
        self.side2 = nn.Conv2d(16, out_ch, 1)

    def forward(self, x):
        h = F.relu(self.body(x))
        d1, d2 = self.side1(h), self.side2(h)
        return torch.sigmoid(d1 + d2), torch.sigmoid(d1), torch.sigmoid(d2)


class SaliencyNetSmall(SaliencyNet):
    def forward(self, x):
        h = F.relu(self.body(x))
        d1 = self.side1(h)
        return torch.sigmoid(d1), torch.sigmoid(d1), torch.sigmoid(d1)
"""

SALIENCY_TRAIN = """
import torch
import torch.nn as nn

from model import SaliencyNet, SaliencyNetSmall

bce_loss = nn.BCELoss()


def fused_bce(d0, d1, d2, labels):
    loss0 = bce_loss(d0, labels)
    return loss0, loss0 + bce_loss(d1, labels) + bce_loss(d2, labels)


model_name = "full"
if model_name == "full":
    net = SaliencyNet(3, 1)
else:
    net = SaliencyNetSmall(3, 1)
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
for epoch in range(100):
    for images, labels in loader:
        optimizer.zero_grad()
        d0, d1, d2 = net(images)
        loss0, loss = fused_bce(d0, d1, d2, labels)
        loss.backward()
        optimizer.step()
"""


def test_a_sigmoid_in_a_package_module_reaches_a_loss_function_given_the_outputs(workdir, gradlint):
    """U-2-Net style: `from model import SaliencyNet` re-exported by model/__init__.py, a net
    built by one of two classes (both end in sigmoids), its outputs unpacked at module level and
    handed to a loss function taking BCELoss of its parameters: GL503 at each BCE, no fix."""
    project(workdir, {
        "model/__init__.py": "from .nets import SaliencyNet, SaliencyNetSmall\n",
        "model/nets.py": SALIENCY_MODELS,
        "train.py": SALIENCY_TRAIN,
    })
    run = gradlint("check", "--no-cache", "--format", "concise", "train.py")
    assert codes(run) == [("train.py", "GL503")] * 3, run
    assert "[*]" not in run.stdout  # the sigmoid is applied in model/nets.py: no fix here


ACCUMULATING_OPTIMIZER = """
import torch
from torch.cuda.amp import GradScaler


class AccumulatingOptimizer:
    \"\"\"Backward on every call, an update every `grad_accum` calls.\"\"\"

    def __init__(self, params, lr, grad_accum=4, amp=True):
        self.optimizer = torch.optim.AdamW(params, lr=lr)
        self.scaler = GradScaler(enabled=amp)
        self.grad_accum = grad_accum

    def step(self, loss, global_step):
        self.scaler.scale(loss).backward()
        if (global_step + 1) % self.grad_accum == 0:
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.optimizer.zero_grad(set_to_none=True)
"""

TRAIN_WITH_OPTIMIZER_OBJECT = """
import torch.nn.functional as F

from training.optim import AccumulatingOptimizer


def main(model, loader, args):
    trainer_optimizer = AccumulatingOptimizer(model.parameters(), args.lr, grad_accum=args.grad_accum)
    global_step = 0
    for epoch in range(args.epochs):
        for batch in loader:
            loss = F.mse_loss(model(batch["x"]), batch["y"])
            if batch["runt_size"] > 0:
                loss = loss * (batch["runt_size"] / args.batch_size)
            trainer_optimizer.step(LOSS, global_step)
            global_step += 1
"""


def test_a_method_of_an_object_made_in_another_module_knows_its_callers(workdir, gradlint):
    """The loss reaches the step function through `trainer_optimizer.step(loss, ...)` in train.py,
    an object of a class imported from the project: the method is judged with what the caller
    passes (a short batch's share of a full one does not divide by the window)."""
    project(workdir, {
        "training/__init__.py": "",
        "training/optim.py": ACCUMULATING_OPTIMIZER,
        "train.py": TRAIN_WITH_OPTIMIZER_OBJECT.replace("LOSS", "loss"),
    })
    run = check(gradlint, "--no-cache", ".")
    assert codes(run) == [("optim.py", "GL201")], run
    (workdir / "train.py").write_text(textwrap.dedent(TRAIN_WITH_OPTIMIZER_OBJECT.replace("LOSS", "loss / args.grad_accum")))
    assert codes(check(gradlint, "--no-cache", ".")) == []


def test_star_imports_reach_the_engine_and_the_helpers(workdir, gradlint):
    """`from engine import *` in main.py (DDP made there, the accumulation loop in engine.py)
    and `from utils import *` beside a loop calling a helper that backpropagates: the names a
    star import brings resolve to the project module defining them, in both directions."""
    project(workdir, {
        "engine.py": ENGINE,
        "main.py": MAIN_DDP.replace("from engine import train_one_epoch", "from engine import *"),
        "models.py": "def build_model(args):\n    pass\n",
    })
    assert codes(check(gradlint, "--no-cache", ".")) == [("engine.py", "GL401")]
    project(workdir, {"utils.py": UTILS, "train.py": TRAIN.replace("from utils import backward_step", "from utils import *")})
    assert ("train.py", "GL201") in codes(check(gradlint, "--no-cache", "train.py"))
    # a name the module binds itself is its own, whatever the star brings
    local = TRAIN.replace("from utils import backward_step", "from utils import *\n\ndef backward_step(loss, model):\n    pass\n")
    (workdir / "train.py").write_text(textwrap.dedent(local))
    assert codes(check(gradlint, "--no-cache", "train.py")) == []


DDP_WHEN_DISTRIBUTED = """
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def create_ddp_model(model, **kwargs):
    \"\"\"DDP when there are several processes, the bare model otherwise.\"\"\"
    if not dist.is_initialized() or dist.get_world_size() == 1:
        return model
    ddp = DistributedDataParallel(model, **kwargs)
    return ddp
"""

TRAINER_BUILDING_ITS_MODEL = """
import torch

from engines.defaults import create_ddp_model
from models import build_model


class Trainer:
    def __init__(self, cfg, loader):
        self.cfg = cfg
        self.loader = loader
        self.model = self.build_model()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=cfg.lr)
        self._accum_counter = 0

    def build_model(self):
        model = build_model(self.cfg.model)
        model = create_ddp_model(model.cuda(), find_unused_parameters=False)
        return model

    def train(self):
        for epoch in range(self.cfg.epochs):
            for batch in self.loader:
                self.run_step(batch)

    def run_step(self, batch):
        if self._accum_counter == 0:
            self.optimizer.zero_grad()
        loss = self.model(batch)["loss"] / self.cfg.accum_steps
        loss.backward()
        self._accum_counter += 1
        if self._accum_counter >= self.cfg.accum_steps:
            self.optimizer.step()
            self._accum_counter = 0
"""


def test_a_factory_returning_ddp_when_distributed_makes_the_trainers_model_ddp(workdir, gradlint):
    """`create_ddp_model` returns the bare model in one process and DDP in several: a model it
    builds is DDP when the run is distributed, also through `self.model = self.build_model()`;
    the window's zero_grad at `counter == 0` clears once per window."""
    project(workdir, {
        "engines/__init__.py": "",
        "engines/defaults.py": DDP_WHEN_DISTRIBUTED,
        "engines/train.py": TRAINER_BUILDING_ITS_MODEL,
        "models.py": "def build_model(cfg):\n    pass\n",
    })
    run = gradlint("check", "--no-cache", "--select", "GL201,GL202,GL401", "--format", "concise", ".")
    assert codes(run) == [("train.py", "GL401")], run


BASE_TRAINER_UPDATING_THE_SCALER = """
import torch


class Trainer:
    def after_step(self):
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_value_(self.model.parameters(), 1.0)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.lr_scheduler.step()
"""

SEGMENTATION_TRAINER = """
import torch

from apps.trainer import Trainer


class SegTrainer(Trainer):
    def __init__(self, model, loader, lr=1e-4, amp=True):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=100)
        self.scaler = torch.amp.GradScaler("cuda", enabled=amp)

    def train_one_epoch(self):
        for images, masks in self.loader:
            self.optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = torch.nn.functional.binary_cross_entropy_with_logits(self.model(images), masks)
            self.scaler.scale(loss).backward()
            self.after_step()
"""


def test_a_scaler_updated_in_an_inherited_method_of_another_module_is_updated(workdir, gradlint):
    """The step and update of `after_step`, inherited from a base class in another module, both
    run in the loop: no GL303, although this module never spells `update()`."""
    project(workdir, {
        "apps/__init__.py": "",
        "apps/trainer.py": BASE_TRAINER_UPDATING_THE_SCALER,
        "seg/__init__.py": "",
        "seg/trainer.py": SEGMENTATION_TRAINER,
    })
    assert codes(gradlint("check", "--no-cache", "--format", "concise", "seg/trainer.py")) == []
    (workdir / "apps/trainer.py").write_text(textwrap.dedent(BASE_TRAINER_UPDATING_THE_SCALER.replace("        self.scaler.update()\n", "")))
    assert codes(gradlint("check", "--no-cache", "--format", "concise", "seg/trainer.py")) == [("trainer.py", "GL303")]


LOSS_PER_BATCH_TOKENS = '''
import torch.nn as nn


class SimpleLossCompute:
    """Per-token loss of one batch: divided by that batch's token count, not by the window."""

    def __init__(self, generator, criterion):
        self.generator = generator
        self.criterion = criterion

    def __call__(self, x, y, norm):
        x = self.generator(x)
        sloss = self.criterion(x.contiguous().view(-1, x.size(-1)), y.contiguous().view(-1)) / norm
        return sloss.data * norm, sloss


def run_epoch(data_iter, model, loss_compute, optimizer, accum_iter=1):
    total_loss, total_tokens = 0, 0
    for i, batch in enumerate(data_iter):
        out = model.forward(batch.src, batch.tgt, batch.src_mask, batch.tgt_mask)
        loss, loss_node = loss_compute(out, batch.tgt_y, batch.ntokens)
        loss_node.backward()
        if (i + 1) % accum_iter == 0 or i + 1 == len(data_iter):
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        total_loss += loss
        total_tokens += batch.ntokens
    return total_loss / total_tokens


def train_worker(model, generator, train_iter, optimizer, config):
    criterion = nn.KLDivLoss(reduction="sum")
    return run_epoch(train_iter, model, SimpleLossCompute(generator, criterion), optimizer, accum_iter=config["accum_iter"])
'''


def test_a_loss_divided_by_its_own_batch_token_count_is_not_divided_by_the_window(workdir, gradlint):
    """The annotated transformer's shape: the loss object divides by `batch.ntokens`, which the
    epoch loop reads off its own micro-batch; dividing by the window as well is silent."""
    project(workdir, {"train.py": LOSS_PER_BATCH_TOKENS})
    run = check(gradlint, ".")
    assert codes(run) == [("train.py", "GL201")], run
    assert "train.py:23:9:" in run.stdout
    divided = LOSS_PER_BATCH_TOKENS.replace("loss_node.backward()", "(loss_node / accum_iter).backward()")
    (workdir / "train.py").write_text(textwrap.dedent(divided))
    assert codes(check(gradlint, ".")) == []


ENGINE_BASE = '''
import torch
from torch.nn.parallel import DistributedDataParallel


class BaseTrainTester:
    def __init__(self, args):
        self.args = args

    def main(self, model, loader, criterion):
        model = DistributedDataParallel(model.cuda(self.args.local_rank), device_ids=[self.args.local_rank])
        optimizer = torch.optim.AdamW(model.parameters(), lr=self.args.lr)
        for step_id, sample in enumerate(loader):
            self.train_one_step(model, criterion, optimizer, step_id, sample)

    def train_one_step(self, model, criterion, optimizer, step_id, sample):
        """Overridden by each task's tester."""
'''

KEYPOSE = '''
from engine import BaseTrainTester


class TrainTester(BaseTrainTester):
    def train_one_step(self, model, criterion, optimizer, step_id, sample):
        if step_id % self.args.accumulate_grad_batches == 0:
            optimizer.zero_grad()
        out = model(sample["rgbs"], sample["pcds"])
        loss = criterion(out, sample["action"]) / self.args.accumulate_grad_batches
        loss.backward()
        if step_id % self.args.accumulate_grad_batches == self.args.accumulate_grad_batches - 1:
            optimizer.step()
'''


def test_a_base_class_in_another_module_hands_its_ddp_model_to_the_override(workdir, gradlint):
    """`engine.BaseTrainTester.main` wraps the model in DDP and calls `self.train_one_step(model,
    ...)`; the subclass in main_keypose.py overrides it and accumulates without no_sync."""
    project(workdir, {"engine.py": ENGINE_BASE, "main_keypose.py": KEYPOSE})
    run = check(gradlint, "main_keypose.py")
    assert codes(run) == [("main_keypose.py", "GL401")], run


SCRIPT_TRAIN = '''
import torch

from training.train_loop import train_one_epoch


def main(args, model, loader):
    model = torch.nn.parallel.DistributedDataParallel(model.cuda(args.gpu), device_ids=[args.gpu])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        train_one_epoch(model=model, data_loader=loader, optimizer=optimizer, args=args)
'''

SCRIPT_TRAIN_LOOP = '''
from training.grad_scaler import step_when


def train_one_epoch(model, data_loader, optimizer, args):
    for data_iter_step, (samples, labels) in enumerate(data_loader):
        loss = model(samples, labels) / args.accum_iter
        loss.backward()
        step_when(optimizer, (data_iter_step + 1) % args.accum_iter == 0)
'''

SCRIPT_GRAD_SCALER = '''
def step_when(optimizer, apply_update):
    if apply_update:
        optimizer.step()
        optimizer.zero_grad()
'''


def test_modules_a_script_imports_from_its_own_folder(workdir, gradlint):
    """`examples/image/train.py` is run as a script: its folder is first on the path, so its
    package `training` (and that package's own `from training.grad_scaler import ...`) is found
    there, not at the repository root."""
    project(workdir, {
        "examples/image/train.py": SCRIPT_TRAIN,
        "examples/image/training/__init__.py": "",
        "examples/image/training/train_loop.py": SCRIPT_TRAIN_LOOP,
        "examples/image/training/grad_scaler.py": SCRIPT_GRAD_SCALER,
    })
    run = check(gradlint, "examples/image/training/train_loop.py")
    assert codes(run) == [("train_loop.py", "GL401")], run


BASE_STRATEGY = '''
from abc import ABC, abstractmethod

import torch


class TrainingStrategy(ABC):
    def __init__(self, vlm, grad_accumulation_steps):
        self.vlm = vlm
        self.grad_accumulation_steps = grad_accumulation_steps

    @abstractmethod
    def run_setup(self, n_train_examples):
        ...

    def run_training(self, dataloader, epochs):
        for epoch in range(epochs):
            self.optimizer.zero_grad()
            for train_idx, batch in enumerate(dataloader):
                loss = self.vlm(**batch).loss
                (loss / self.grad_accumulation_steps).backward()
                if (train_idx + 1) % self.grad_accumulation_steps == 0 or train_idx + 1 == len(dataloader):
                    self.optimizer.step()
                    self.optimizer.zero_grad()
'''

DDP_STRATEGY = '''
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from strategies.base_strategy import TrainingStrategy


class DDPStrategy(TrainingStrategy):
    def run_setup(self, n_train_examples):
        self.vlm = DDP(self.vlm.cuda(), device_ids=[torch.cuda.current_device()])
        self.optimizer = torch.optim.AdamW(self.vlm.parameters(), lr=2e-5)
'''


def test_a_subclass_in_another_module_wraps_the_base_loops_model_in_ddp(workdir, gradlint):
    """The base class's loop runs `self.vlm`, which the DDP strategy (ddp.py) wraps in DDP in
    its setup: whenever that strategy trains, the loop's non-final micro-batches all-reduce."""
    project(workdir, {
        "strategies/__init__.py": "",
        "strategies/base_strategy.py": BASE_STRATEGY,
        "strategies/ddp.py": DDP_STRATEGY,
    })
    run = check(gradlint, "strategies/base_strategy.py")
    assert codes(run) == [("base_strategy.py", "GL401")], run
    (workdir / "strategies" / "ddp.py").write_text(textwrap.dedent(DDP_STRATEGY.replace("DDP(self.vlm.cuda(), device_ids=[torch.cuda.current_device()])", "self.vlm.cuda()")))
    assert codes(check(gradlint, "--no-cache", "strategies/base_strategy.py")) == []


CONFIG_UTIL = '''
import importlib


def construct_class_by_name(*args, class_name=None, **kwargs):
    module_name, _, name = class_name.rpartition(".")
    return getattr(importlib.import_module(module_name), name)(*args, **kwargs)
'''

PHASE_LOSS = '''
import torch
import torch.nn.functional as F


class Loss:
    def accumulate_gradients(self, phase, real_img, gen_z, gain):
        raise NotImplementedError()


class AdversarialLoss(Loss):
    def __init__(self, device, G, D, r1_gamma=10.0):
        self.device, self.G, self.D, self.r1_gamma = device, G, D, r1_gamma

    def accumulate_gradients(self, phase, real_img, gen_z, gain):
        if phase in ("Gmain", "Gboth"):
            loss_g = F.softplus(-self.D(self.G(gen_z)))
            loss_g.mean().mul(gain).backward()
        if phase in ("Dmain", "Dboth"):
            loss_fake = F.softplus(self.D(self.G(gen_z).detach()))
            loss_real = F.softplus(-self.D(real_img))
            (loss_fake + loss_real).mean().mul(gain).backward()
'''

PHASE_LOOP = '''
import types

import torch

from utils import config


def training_loop(G, D, loader, loss_kwargs, opt_kwargs, batch_size=64, batch_gpu=16, device="cuda"):
    loss = config.construct_class_by_name(device=device, G=G, D=D, **loss_kwargs)
    phases = []
    for name, module in [("G", G), ("D", D)]:
        opt = torch.optim.Adam(module.parameters(), **opt_kwargs)
        phases.append(types.SimpleNamespace(name=name + "both", module=module, opt=opt, interval=1))
    for real_img in loader:
        phase_real_img = real_img.to(device).split(batch_gpu)
        all_gen_z = [z.split(batch_gpu) for z in torch.randn(len(phases) * batch_size, 512, device=device).split(batch_size)]
        for phase, phase_gen_z in zip(phases, all_gen_z):
            phase.opt.zero_grad(set_to_none=True)
            rounds = zip(phase_real_img, phase_gen_z)
            for round_img, round_z in rounds:
                loss.accumulate_gradients(phase=phase.name, real_img=round_img, gen_z=round_z, gain=phase.interval)
            phase.opt.step()
'''


def test_a_loss_object_built_from_a_config_accumulates_rounds_of_split_batches(workdir, gradlint):
    """StyleGAN-style phases: the batch is cut into `batch_gpu` rounds (`split`), each round's
    mean loss (times the regularisation gain) backpropagates through a loss object a config
    names, and one step follows: the sum of the rounds, never divided by their number. The
    object's class is the project's one concrete `accumulate_gradients`."""
    project(workdir, {
        "utils/__init__.py": "", "utils/config.py": CONFIG_UTIL,
        "training/__init__.py": "", "training/loss.py": PHASE_LOSS, "training/training_loop.py": PHASE_LOOP,
    })
    run = check(gradlint, "training/training_loop.py")
    assert codes(run) == [("training_loop.py", "GL201")], run
    assert "over `len(phase_real_img)` micro-batches" in run.stdout, run


OTHER_LOSS = '''

class NonSaturatingLoss(Loss):
    def __init__(self, device, G, D):
        self.G, self.D = G, D

    def accumulate_gradients(self, phase, real_img, gen_z, gain):
        F.softplus(-self.D(self.G(gen_z))).mean().backward()
'''


def test_a_config_built_loss_object_that_divides_by_the_rounds_or_two_candidate_classes_are_silent(workdir, gradlint):
    divided = PHASE_LOSS.replace(".mul(gain).backward()", ".mul(gain).div(num_rounds).backward()")
    divided = divided.replace("gen_z, gain):", "gen_z, gain, num_rounds=1):")
    loop = PHASE_LOOP.replace("gain=phase.interval)", "gain=phase.interval, num_rounds=len(phase_real_img))")
    project(workdir, {
        "utils/__init__.py": "", "utils/config.py": CONFIG_UTIL,
        "training/__init__.py": "", "training/loss.py": divided, "training/training_loop.py": loop,
    })
    assert codes(check(gradlint, "training/training_loop.py")) == []
    # a second concrete class takes the same call: which one the config names is unknown
    project(workdir, {"training/loss.py": PHASE_LOSS + OTHER_LOSS, "training/training_loop.py": PHASE_LOOP})
    assert codes(check(gradlint, "--no-cache", "training/training_loop.py")) == []


WRAPPERS = '''
import torch
import torch.distributed as dist


class Wrapped(torch.nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)


def wrap_model(cfg, model):
    if dist.is_available() and dist.is_initialized():
        return torch.nn.parallel.DistributedDataParallel(model, device_ids=[cfg.local_rank])
    return Wrapped(model)
'''

ABSTRACT_TRAINER = '''
import torch

from engine.wrappers import wrap_model


class BaseTrainer:
    def __init__(self, cfg, model):
        self.cfg = cfg
        self.model = self.wrap_model(cfg, model)
        self.optim = torch.optim.AdamW(self.model.parameters(), lr=cfg.lr)
        self.scaler = torch.amp.GradScaler("cuda", enabled=cfg.amp)

    def wrap_model(self, cfg, model):
        return wrap_model(cfg, model)

    def model_forward(self, data):
        """Each project's trainer computes its loss."""
        raise NotImplementedError

    def train_step(self, data, last_iter_in_epoch=False):
        with torch.autocast("cuda", enabled=self.cfg.amp):
            loss = self.model_forward(data) / self.cfg.grad_accum_iter
        self.scaler.scale(loss).backward()
        if (self.iteration + 1) % self.cfg.grad_accum_iter == 0 or last_iter_in_epoch:
            self.scaler.step(self.optim)
            self.scaler.update()
            self.optim.zero_grad(set_to_none=True)

    def train(self, loader, epochs):
        self.iteration = 0
        for epoch in range(epochs):
            for index, data in enumerate(loader):
                self.train_step(data, last_iter_in_epoch=index + 1 == len(loader))
                self.iteration += 1
'''

PROJECT_TRAINER = '''
from engine.trainer import BaseTrainer


class BaseTrainer(BaseTrainer):
    """The project's trainer keeps the framework's name."""

    def model_forward(self, data):
        output = self.model(data)
        return output["loss"]
'''


def test_an_abstract_step_that_one_subclass_implements_runs_the_base_classes_ddp_model(workdir, gradlint):
    """The framework's trainer accumulates over `grad_accum_iter` micro-batches; the model it
    wraps (DDP whenever distributed runs) is run by the one project trainer overriding its
    abstract `model_forward`, in another module, under the same class name."""
    project(workdir, {
        "engine/__init__.py": "", "engine/wrappers.py": WRAPPERS, "engine/trainer.py": ABSTRACT_TRAINER,
        "projects/__init__.py": "", "projects/trainer.py": PROJECT_TRAINER,
    })
    run = check(gradlint, "engine/trainer.py")
    assert codes(run) == [("trainer.py", "GL401")], run
    assert "`self.model` is DistributedDataParallel" in run.stdout, run


def test_an_abstract_step_with_two_implementations_or_a_no_sync_window_is_silent(workdir, gradlint):
    other = PROJECT_TRAINER.replace("class BaseTrainer(BaseTrainer):", "class DepthTrainer(BaseTrainer):").replace('output["loss"]', 'output["depth_loss"]')
    project(workdir, {
        "engine/__init__.py": "", "engine/wrappers.py": WRAPPERS, "engine/trainer.py": ABSTRACT_TRAINER,
        "projects/__init__.py": "", "projects/trainer.py": PROJECT_TRAINER, "projects/depth.py": other,
    })
    assert codes(check(gradlint, "engine/trainer.py")) == []  # which trainer runs is the caller's choice
    synced = ABSTRACT_TRAINER.replace(
        '''        with torch.autocast("cuda", enabled=self.cfg.amp):
            loss = self.model_forward(data) / self.cfg.grad_accum_iter
        self.scaler.scale(loss).backward()
        if (self.iteration + 1) % self.cfg.grad_accum_iter == 0 or last_iter_in_epoch:''',
        '''        update = (self.iteration + 1) % self.cfg.grad_accum_iter == 0 or last_iter_in_epoch
        sync = contextlib.nullcontext() if update else getattr(self.model, "no_sync", contextlib.nullcontext)()
        with sync:
            with torch.autocast("cuda", enabled=self.cfg.amp):
                loss = self.model_forward(data) / self.cfg.grad_accum_iter
            self.scaler.scale(loss).backward()
        if update:''',
    ).replace("import torch\n", "import contextlib\n\nimport torch\n", 1)
    assert "no_sync" in synced and "import contextlib" in synced
    (workdir / "projects" / "depth.py").unlink()
    project(workdir, {"engine/trainer.py": synced})
    assert codes(check(gradlint, "--no-cache", "engine/trainer.py")) == []


OPTIMIZER_WRAPPER = '''
import torch


class ScheduledOptimizer:
    """The project's wrapper: sets the scheduled rate and clears the gradients before each
    update, and steps the torch optimizer it holds."""

    def __init__(self, parameters, lr, warmup):
        self.opt = torch.optim.Adam(parameters, lr=lr)
        self.lr, self.warmup = lr, warmup

    def pre_step(self, step):
        for group in self.opt.param_groups:
            group["lr"] = self.lr * min(1.0, (step + 1) / self.warmup)
        self.opt.zero_grad()

    def step(self):
        self.opt.step()
'''

BASE_SOLVER = '''
import torch


class BaseSolver:
    """Shared by the task solvers; each builds its own optimizer."""

    def backward(self, loss):
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
        if not torch.isfinite(grad_norm):
            print("skipping a step with a non-finite gradient norm")
        else:
            self.optimizer.step()
        return grad_norm
'''

WRAPPED_SOLVER = '''
from base import BaseSolver
from optim import ScheduledOptimizer


class Solver(BaseSolver):
    def __init__(self, model, config):
        self.model = model
        self.optimizer = ScheduledOptimizer(model.parameters(), config.lr, config.warmup)
        self.step = 0

    def exec(self, loader, criterion):
        for feats, labels in loader:
            self.optimizer.pre_step(self.step)
            loss = criterion(self.model(feats), labels)
            self.backward(loss)
            self.step += 1
'''


def test_an_optimizer_wrapper_of_another_module_that_clears_in_its_pre_step_is_not_gl104(workdir, gradlint):
    """The base class's backward steps `self.optimizer`, which the solver sets to the project's
    wrapper; the wrapper's `pre_step`, called at the top of every iteration, clears the torch
    optimizer it holds."""
    project(workdir, {"optim.py": OPTIMIZER_WRAPPER, "base.py": BASE_SOLVER, "solver.py": WRAPPED_SOLVER})
    assert codes(gradlint("check", "--select", "GL104", "--format", "concise", "solver.py")) == []
    project(workdir, {"optim.py": OPTIMIZER_WRAPPER.replace("        self.opt.zero_grad()\n", "")})
    assert codes(gradlint("check", "--no-cache", "--select", "GL104", "--format", "concise", "solver.py")) == [("solver.py", "GL104")]


ACTOR_BASE = """
class BaseActor:
    \"\"\"Runs a batch through the network and the objective: the trainer only sees the loss.\"\"\"

    def __init__(self, net, objective):
        self.net = net
        self.objective = objective

    def __call__(self, data):
        raise NotImplementedError

    def train(self, mode=True):
        self.net.train(mode)
"""

ACTOR_SEGMENTATION = """
from . import BaseActor


class SegActor(BaseActor):
    def __init__(self, net, objective, loss_weight=1.0):
        super().__init__(net, objective)
        self.loss_weight = loss_weight

    def __call__(self, data):
        out = self.forward_pass(data)
        loss = self.objective(out, data["mask"]) * self.loss_weight
        return loss, {"loss": loss.item()}

    def forward_pass(self, data):
        return self.net(data["image"])
"""

ACTOR_TRAINER = """
import contextlib


class BaseTrainer:
    def __init__(self, actor, loaders, optimizer):
        self.actor = actor
        self.loaders = loaders
        self.optimizer = optimizer

    def train(self, epochs):
        for epoch in range(epochs):
            for loader in self.loaders:
                self.cycle_dataset(loader)


class Trainer(BaseTrainer):
    def __init__(self, actor, loaders, optimizer, accum_iter=1):
        super().__init__(actor, loaders, optimizer)
        self.accum_iter = accum_iter

    def cycle_dataset(self, loader):
        self.actor.train(loader.training)
        self.optimizer.zero_grad()
        for i, data in enumerate(loader, 1):
            loss, stats = self.actor(data)
            loss = loss / self.accum_iter
            loss.backward()
            if i % self.accum_iter == 0 or i == len(loader):
                self.optimizer.step()
                self.optimizer.zero_grad()
"""

ACTOR_TRAIN_SCRIPT = """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from lib.actors import SegActor
from lib.trainer import Trainer


def run(settings, net, loaders):
    net.cuda()
    if settings.local_rank != -1:
        net = DDP(net, device_ids=[settings.local_rank], find_unused_parameters=True)
    actor = SegActor(net=net, objective=torch.nn.BCEWithLogitsLoss(), loss_weight=settings.weight)
    optimizer = torch.optim.AdamW(net.parameters(), lr=settings.lr)
    trainer = Trainer(actor, loaders, optimizer, accum_iter=settings.accum_iter)
    trainer.train(settings.epochs)
"""


def test_ddp_model_held_by_an_actor_object_the_trainer_calls_is_gl401(workdir, gradlint):
    """Tracking-framework style: the script wraps the network in DDP and hands it to an actor
    (whose base class the package's __init__ re-exports, imported as `from . import`); the
    trainer gets the actor and calls it per micro-batch, and the actor's method runs the net."""
    files = {
        "lib/__init__.py": "",
        "lib/actors/__init__.py": "from .base_actor import BaseActor\nfrom .segmentation import SegActor\n",
        "lib/actors/base_actor.py": ACTOR_BASE,
        "lib/actors/segmentation.py": ACTOR_SEGMENTATION,
        "lib/trainer.py": ACTOR_TRAINER,
        "lib/train_script.py": ACTOR_TRAIN_SCRIPT,
    }
    project(workdir, files)
    run = check(gradlint, "lib")
    assert codes(run) == [("trainer.py", "GL401")], run
    assert "`self.actor.net` is DistributedDataParallel" in run.stdout
    synced = ACTOR_TRAINER.replace(
        "            loss, stats = self.actor(data)\n            loss = loss / self.accum_iter\n            loss.backward()\n",
        "            last = i % self.accum_iter == 0 or i == len(loader)\n"
        "            with contextlib.nullcontext() if last else self.actor.net.no_sync():\n"
        "                loss, stats = self.actor(data)\n                loss = loss / self.accum_iter\n                loss.backward()\n",
    )
    assert synced != ACTOR_TRAINER
    (workdir / "lib" / "trainer.py").write_text(textwrap.dedent(synced))
    assert codes(check(gradlint, "lib")) == []
    single = ACTOR_TRAIN_SCRIPT.replace("net = DDP(net, device_ids=[settings.local_rank], find_unused_parameters=True)", "net = torch.compile(net)")
    (workdir / "lib" / "trainer.py").write_text(textwrap.dedent(ACTOR_TRAINER))
    (workdir / "lib" / "train_script.py").write_text(textwrap.dedent(single))
    assert codes(check(gradlint, "lib")) == []


def test_modules_found_through_folders_the_script_puts_on_sys_path(workdir, gradlint):
    """Research-code style: `main.py` appends `tools/` to sys.path and imports `engine` as a
    top-level module from there; the engine's accumulation loop gets main's DDP model. Without
    the sys.path line the import names no project module and nothing is reported."""
    main = MAIN_DDP.replace(
        "from engine import train_one_epoch\n",
        "ROOT_DIR = os.path.dirname(os.path.abspath(__file__))\n"
        "sys.path.append(os.path.join(ROOT_DIR, 'tools'))\n"
        "from engine import train_one_epoch\n",
    ).replace("import os\n", "import os\nimport sys\n", 1)
    assert main.count("sys.path.append") == 1
    project(workdir, {"tools/engine.py": ENGINE, "main.py": main, "models.py": "def build_model(args):\n    pass\n"})
    assert codes(check(gradlint, ".")) == [("engine.py", "GL401")]
    (workdir / "main.py").write_text(textwrap.dedent(main.replace("sys.path.append(os.path.join(ROOT_DIR, 'tools'))\n", "")))
    assert codes(check(gradlint, ".")) == []


def test_a_scheduler_class_found_through_sys_path_keeps_its_own_convention(workdir, gradlint):
    """VoteNet style: the batch-norm momentum scheduler comes from a folder put on sys.path; it
    is a project class no torch scheduler is a base of, so stepping it at the epoch's start is
    no GL106."""
    scheduler = """
    class BNMomentumScheduler:
        def __init__(self, model, bn_lambda, last_epoch=-1):
            self.model, self.lmbd, self.last_epoch = model, bn_lambda, last_epoch

        def step(self, epoch=None):
            self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
            momentum = self.lmbd(self.last_epoch)
            for module in self.model.modules():
                if isinstance(module, torch.nn.BatchNorm1d):
                    module.momentum = momentum
    """
    train = """
    import os
    import sys

    import torch

    BASE_DIR = os.path.dirname(os.path.abspath(__file__))
    sys.path.append(os.path.join(BASE_DIR, "pointnet2"))
    from pytorch_utils import BNMomentumScheduler


    def train(net, loader, epochs):
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
        bnm_scheduler = BNMomentumScheduler(net, bn_lambda=lambda e: max(0.5 * 0.5 ** (e // 20), 0.001))
        for epoch in range(epochs):
            bnm_scheduler.step()
            for points, labels in loader:
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(net(points), labels)
                loss.backward()
                optimizer.step()
    """
    project(workdir, {"pointnet2/pytorch_utils.py": "import torch\n" + textwrap.dedent(scheduler), "train.py": train})
    assert codes(gradlint("check", "--select", "GL106", "--format", "concise", ".")) == []
    (workdir / "train.py").write_text(textwrap.dedent(train).replace('sys.path.append(os.path.join(BASE_DIR, "pointnet2"))\n', ""))
    assert codes(gradlint("check", "--select", "GL106", "--format", "concise", ".")) == [("train.py", "GL106")]


def test_cleared_before_the_loop_and_by_a_helper_of_another_module_is_not_gl104(workdir, gradlint):
    """A clear before the loop is not the only one when a helper of another module, called in
    the loop, clears the parameters' gradients itself (`p.grad = None`, no optimizer named)."""
    helpers = """\
        import torch


        def release_gradients(model):
            for p in model.parameters():
                p.grad = None
        """
    train = """\
        import torch
        from helpers import release_gradients


        def pretrain(model, loader, lr):
            optimizer = torch.optim.Adam(model.parameters(), lr=lr)
            optimizer.zero_grad()
            for view_a, view_b in loader:
                loss = (model(view_a) - model(view_b)).pow(2).mean()
                loss.backward()
                optimizer.step()
                release_gradients(model)
        """
    project(workdir, {"helpers.py": helpers, "train.py": train})
    silent = gradlint("check", "--select", "GL104", "--format", "concise", ".")
    assert codes(silent) == [], silent
    project(workdir, {"train.py": train.replace("        release_gradients(model)\n", "")})
    once = gradlint("check", "--select", "GL104", "--format", "concise", "--no-cache", ".")
    assert codes(once) == [("train.py", "GL104")], once
    assert "cleared only before the loop" in once.stdout


FACTORY_ENGINE = """
import torch


class DetTrainer:
    def __init__(self, args, optimizer, loader):
        self.args, self.optimizer, self.loader = args, optimizer, loader
        self.accumulate = max(1, 64 // args.batch_size)

    def train(self, model):
        for epoch in range(self.args.epochs):
            self.train_one_epoch(model)

    def train_one_epoch(self, model):
        for i, (images, targets) in enumerate(self.loader):
            loss = model(images, targets)["loss"] / self.accumulate
            loss.backward()
            if (i + 1) % self.accumulate == 0 or i + 1 == len(self.loader):
                self.optimizer.step()
                self.optimizer.zero_grad()


class DetrTrainer:
    def __init__(self, args, optimizer, loader):
        self.args, self.optimizer, self.loader = args, optimizer, loader

    def train(self, model):
        for epoch in range(self.args.epochs):
            for images, targets in self.loader:
                loss = model(images, targets)["loss"]
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
                self.optimizer.step()
                self.optimizer.zero_grad()


def build_trainer(args, optimizer, loader):
    if args.trainer == "det":
        return DetTrainer(args, optimizer, loader)
    elif args.trainer == "detr":
        return DetrTrainer(args, optimizer, loader)
    raise NotImplementedError(args.trainer)
"""

FACTORY_MAIN = """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from engine import build_trainer


def main(args, model, loader):
    if args.distributed:
        model = DDP(model, device_ids=[args.gpu])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    trainer = build_trainer(args, optimizer, loader)
    trainer.train(model)
"""


def test_a_trainer_a_factory_chooses_by_config_gets_the_ddp_model_its_caller_passes(workdir, gradlint):
    """`build_trainer` returns one of two trainer classes as a config says; `trainer.train(model)`
    may run either's `train`, so each gets the DDP model main.py passes. Only the accumulating
    one lacks `no_sync`."""
    project(workdir, {"engine.py": FACTORY_ENGINE, "main.py": FACTORY_MAIN})
    assert codes(check(gradlint, ".")) == [("engine.py", "GL401")]
    assert codes(check(gradlint, "engine.py")) == [("engine.py", "GL401")]
    (workdir / "main.py").write_text(textwrap.dedent(FACTORY_MAIN).replace(
        "        model = DDP(model, device_ids=[args.gpu])\n", "        pass\n"
    ))
    assert codes(check(gradlint, ".")) == []


PAIR_ENGINE = """
import torch

import util.misc as misc


def train_one_epoch(model, data_loader, optimizer, device, epoch, loss_scaler, args=None):
    model.train(True)
    opt_ae, opt_disc = optimizer
    scaler_ae, scaler_disc = loss_scaler
    for step, images in enumerate(data_loader):
        loss = model(images.to(device), stage=0) / args.accum_iter
        scaler_ae(loss, opt_ae, parameters=model.parameters(), update_grad=(step + 1) % args.accum_iter == 0)
        if (step + 1) % args.accum_iter == 0:
            opt_ae.zero_grad()
        if epoch >= args.disc_start:
            d_loss = model(images.to(device), stage=1) / args.accum_iter
            scaler_disc(d_loss, opt_disc, parameters=model.parameters(), update_grad=(step + 1) % args.accum_iter == 0)
            if (step + 1) % args.accum_iter == 0:
                opt_disc.zero_grad()
"""

PAIR_MAIN = """
import torch

from util.misc import NativeScalerWithGradNormCount as NativeScaler
from engine import train_one_epoch


def main(args, model, loader):
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])
    opt_ae = torch.optim.Adam(model.module.autoencoder.parameters(), lr=args.lr)
    opt_disc = torch.optim.Adam(model.module.discriminator.parameters(), lr=args.lr)
    scaler_ae = NativeScaler()
    scaler_disc = NativeScaler()
    optimizer = [opt_ae, opt_disc]
    loss_scaler = [scaler_ae, scaler_disc]
    for epoch in range(args.epochs):
        train_one_epoch(model, loader, optimizer, args.device, epoch, loss_scaler, args=args)
"""


def test_scaler_objects_handed_over_in_a_list_and_unpacked_by_the_engine(workdir, gradlint):
    """A VQGAN engine unpacks the two optimizers and the two scaler objects main.py hands it as
    lists: each scaler is the NativeScaler-style object at its place, run on the DDP model."""
    project(workdir, {"util/__init__.py": "", "util/misc.py": SCALER_UTIL, "engine.py": PAIR_ENGINE, "main.py": PAIR_MAIN})
    assert codes(check(gradlint, ".")) == [("engine.py", "GL401")]
    (workdir / "main.py").write_text(textwrap.dedent(PAIR_MAIN).replace(
        "    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])\n", ""
    ).replace("model.module.", "model."))
    assert codes(check(gradlint, ".")) == []


DQN_AGENT = """
import torch.nn.functional as F


def optimize_dqn(policy_net, optimizer, states, targets):
    loss = F.smooth_l1_loss(policy_net(states), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss
"""

DQN_TRAIN = """
from rl.agent import optimize_dqn


def run(policy_net, optimizer, memory, episodes, steps):
    for episode in range(episodes):
        episode_loss = 0
        for t in range(steps):
            states, targets = memory.sample(128)
            episode_loss += optimize_dqn(policy_net, optimizer, states, targets)
        print(episode, episode_loss / steps)
"""


def test_a_running_total_of_the_loss_another_module_returns_after_its_backward(workdir, gradlint):
    """rl/agent.py's update returns the loss tensor it ran backward on; the script adds it to a
    running total (GL601 there), and stays silent once the update returns `loss.item()`."""
    project(workdir, {"rl/__init__.py": "", "rl/agent.py": DQN_AGENT, "train.py": DQN_TRAIN})
    run = gradlint("check", "--select", "GL601", "--format", "concise", ".")
    assert codes(run) == [("train.py", "GL601")], run
    (workdir / "rl" / "agent.py").write_text(textwrap.dedent(DQN_AGENT).replace("return loss", "return loss.item()"))
    assert codes(gradlint("check", "--select", "GL601", "--format", "concise", ".")) == []


OBJECT_TRAINER = """
import torch


class Trainer:
    def __init__(self, opt, net):
        self.model = net
        self.loss_fn = torch.nn.BCEWithLogitsLoss()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=opt.lr)
        self.accumulation_steps = opt.accumulation_steps
        self.current_step = 0

    def set_input(self, batch):
        self.input, self.label = batch

    def forward(self):
        self.output = self.model(self.input)

    def optimize_parameters(self):
        self.current_step += 1
        self.forward()
        self.loss = self.loss_fn(self.output.squeeze(1), self.label) / self.accumulation_steps
        self.loss.backward()
        if self.current_step % self.accumulation_steps == 0:
            self.optimizer.step()
            self.optimizer.zero_grad()
"""

OBJECT_MAIN = """
from torch.nn.parallel import DistributedDataParallel as DDP

from networks.trainer import Trainer


def main(opt, net, loader, local_rank):
    model = Trainer(opt, net)
    model.model = DDP(model.model, device_ids=[local_rank])
    for epoch in range(opt.epochs):
        for data in loader:
            model.set_input(data)
            model.optimize_parameters()
"""


def test_ddp_set_on_a_trainer_objects_attribute_by_the_script(workdir, gradlint):
    """main.py replaces the trainer object's model with a DDP wrapper; the trainer's method
    accumulates over a window with no no_sync(): GL401 at the script's call. Without the
    wrapper, silent."""
    project(workdir, {"networks/__init__.py": "", "networks/trainer.py": OBJECT_TRAINER, "main.py": OBJECT_MAIN})
    assert codes(check(gradlint, ".")) == [("main.py", "GL401")]
    (workdir / "main.py").write_text(textwrap.dedent(OBJECT_MAIN).replace(
        "    model.model = DDP(model.model, device_ids=[local_rank])\n", ""
    ))
    assert codes(check(gradlint, ".")) == []


SETTINGS_CONFIG = """
import torch

MAX_LEN = 256
BATCH_SIZE = 8
ACCUMULATION_STEPS = 1
DEVICE = torch.device("cuda")
"""

SETTINGS_ENGINE = """
import config


def train_fn(data_loader, model, optimizer, scheduler):
    model.train()
    for bi, batch in enumerate(data_loader):
        loss = model(batch["ids"].to(config.DEVICE), batch["target"].to(config.DEVICE))
        loss = loss / config.ACCUMULATION_STEPS
        loss.backward()
        if (bi + 1) % config.ACCUMULATION_STEPS == 0:
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
"""


def test_a_window_a_settings_module_fixes_at_one_accumulates_nothing(workdir, gradlint):
    """engine.py steps every `config.ACCUMULATION_STEPS` batches with no flush; config.py fixes
    it at 1, so no batch is dropped: silent. Set to 4 there, GL205."""
    project(workdir, {"config.py": SETTINGS_CONFIG, "engine.py": SETTINGS_ENGINE})
    run = lambda: gradlint("check", "--select", "GL202,GL205", "--format", "concise", ".")
    assert codes(run()) == []
    (workdir / "config.py").write_text(textwrap.dedent(SETTINGS_CONFIG).replace("ACCUMULATION_STEPS = 1", "ACCUMULATION_STEPS = 4"))
    assert codes(run()) == [("engine.py", "GL205")]


SETTINGS_LOADER = """
import yaml

import config


def load_config(path):
    with open(path) as handle:
        for key, value in yaml.safe_load(handle).items():
            if hasattr(config, key.upper()):
                setattr(config, key.upper(), value)
"""


def test_a_settings_module_a_loader_rebinds_is_no_fixed_window(workdir, gradlint):
    """config.py's `ACCUMULATION_STEPS = 1` is only a default when another module copies a YAML
    file's keys onto the module with `setattr` (or assigns `config.ACCUMULATION_STEPS = ...`):
    the window is an option, and the undivided tail is reported."""
    project(workdir, {"config.py": SETTINGS_CONFIG, "engine.py": SETTINGS_ENGINE, "loader.py": SETTINGS_LOADER})
    run = lambda: gradlint("check", "--select", "GL202,GL205", "--format", "concise", ".")
    assert codes(run()) == [("engine.py", "GL205")]
    (workdir / "loader.py").write_text("import config\n\n\ndef configure(args):\n    config.ACCUMULATION_STEPS = args.accumulation_steps\n")
    assert codes(run()) == [("engine.py", "GL205")]
    (workdir / "loader.py").write_text("import config\n\n\ndef describe():\n    return config.ACCUMULATION_STEPS == 1\n")
    assert codes(run()) == []


SETTINGS_CLASS = """
class CFG:
    seed = 42
    lr = 3e-4
    epochs = 10
    accum_iter = 1
    max_grad_norm = 1.0
    model_name = "convnext_tiny"
"""

SETTINGS_CLASS_ENGINE = """
import torch
from config import CFG


def train_one_epoch(model, loader, optimizer, scheduler, scaler, device):
    model.train()
    for step, (images, labels) in enumerate(loader):
        images, labels = images.to(device), labels.to(device)
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(images), labels) / CFG.accum_iter
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), CFG.max_grad_norm)
        if (step + 1) % CFG.accum_iter == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
        scheduler.step()
"""


def test_a_window_a_settings_class_fixes_at_one_accumulates_nothing(workdir, gradlint):
    """engine.py clips every batch and steps every `CFG.accum_iter` batches, CFG a namespace
    class of config.py whose body fixes the window at 1: nothing accumulates, silent. At 4 there
    the clip sees partial windows (GL203), the scheduler steps per batch (GL204) and the tail
    is dropped (GL205); so too when the engine itself sets the field to 4."""
    project(workdir, {"config.py": SETTINGS_CLASS, "engine.py": SETTINGS_CLASS_ENGINE})
    run = lambda: gradlint("check", "--select", "GL203,GL204,GL205", "--format", "concise", ".")
    assert codes(run()) == []
    (workdir / "config.py").write_text(textwrap.dedent(SETTINGS_CLASS).replace("accum_iter = 1", "accum_iter = 4"))
    assert codes(run()) == [("engine.py", "GL203"), ("engine.py", "GL205"), ("engine.py", "GL204")]
    (workdir / "config.py").write_text(textwrap.dedent(SETTINGS_CLASS))
    (workdir / "engine.py").write_text(textwrap.dedent(SETTINGS_CLASS_ENGINE).replace(
        "def train_one_epoch(", "CFG.accum_iter = 4\n\n\ndef train_one_epoch("
    ))
    assert codes(run()) == [("engine.py", "GL203"), ("engine.py", "GL205"), ("engine.py", "GL204")]


PACKAGE_TRAINER = """
from trainer.trainer_utils import *


class FBPTrainer:
    def __init__(self, cfg):
        self.cfg = cfg

    def train_fn(self, loader_train, model, criterion, optimizer):
        losses = AverageMeter()
        model.train()
        for step, (inputs, labels) in enumerate(loader_train):
            optimizer.zero_grad()
            loss = criterion(model(inputs), labels)
            losses.update(loss, labels.size(0))
            loss.backward()
            optimizer.step()
        return losses.avg
"""

PACKAGE_UTILS = """
class AverageMeter(object):
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count
"""


def test_a_star_import_of_a_package_named_as_a_module_inside_it(workdir, gradlint):
    """trainer/trainer.py star-imports `trainer.trainer_utils`, run from the root: the package
    `trainer`, not the file beside it, holds `trainer_utils`; its AverageMeter sums the loss
    tensor with its graph (GL601)."""
    project(workdir, {"trainer/trainer.py": PACKAGE_TRAINER, "trainer/trainer_utils.py": PACKAGE_UTILS, "train.py": "from trainer.trainer import FBPTrainer\n"})
    run = gradlint("check", "--select", "GL601", "--format", "concise", ".")
    assert codes(run) == [("trainer.py", "GL601")], run


MIXIN_AMP = """
from torch.amp import GradScaler, autocast


class MixedPrecision:
    def __init__(self, *, scaler: GradScaler, accumulate_iter: int = 1):
        self.scaler = scaler
        self._accumulate_iter = accumulate_iter

    def scale_loss(self, loss):
        return self.scaler.scale(loss / self._accumulate_iter)

    def optimizer_step(self, optimizer, *, cur_iter: int):
        if cur_iter % self._accumulate_iter == self._accumulate_iter - 1:
            self.scaler.step(optimizer)
            self.scaler.update()

    def optimizer_zero(self, optimizer, *, cur_iter: int):
        if cur_iter % self._accumulate_iter == 0:
            optimizer.zero_grad()

    @property
    def autocast(self):
        return autocast("cuda", enabled=self.scaler.is_enabled())
"""

MIXIN_PACKAGE_INIT = """
from .amp import MixedPrecision
"""

MIXIN_BASE = """
from abc import ABC

from ..amp import MixedPrecision


class EpochBase(MixedPrecision, ABC):
    def __init__(self, *, model, optimizer, loader, scaler, accumulate_iter=1):
        super().__init__(scaler=scaler, accumulate_iter=accumulate_iter)
        self._model = model
        self._optimizer = optimizer
        self._loader = loader
"""

MIXIN_EPOCH = """
import torch

from segkit.epochs.base import EpochBase


class SupervisedEpoch(EpochBase):
    def run(self):
        self._model.train()
        for cur_iter, (image, target) in enumerate(self._loader):
            self.optimizer_zero(self._optimizer, cur_iter=cur_iter)
            with self.autocast:
                loss = torch.nn.functional.cross_entropy(self._model(image), target)
            self.scale_loss(loss).backward()
            self.optimizer_step(self._optimizer, cur_iter=cur_iter)
"""


def test_a_window_kept_by_a_mixin_two_bases_up_in_another_module_is_read_there(workdir, gradlint):
    """The epoch loop clears, scales and steps through methods of a mixed-precision mixin that
    its base class (another module) inherits from a third module: the clear at the window's
    start and the loss divided in `scale_loss` are seen there, silent. Without the clear,
    GL104."""
    files = {
        "segkit/__init__.py": "",
        "segkit/amp/__init__.py": MIXIN_PACKAGE_INIT,
        "segkit/amp/amp.py": MIXIN_AMP,
        "segkit/epochs/__init__.py": "",
        "segkit/epochs/base.py": MIXIN_BASE,
        "train/epoch.py": MIXIN_EPOCH,
    }
    project(workdir, files)
    run = lambda: gradlint("check", "--select", "GL104,GL201", "--format", "concise", ".")
    assert codes(run()) == []
    (workdir / "train/epoch.py").write_text(textwrap.dedent(MIXIN_EPOCH).replace(
        "            self.optimizer_zero(self._optimizer, cur_iter=cur_iter)\n", ""
    ))
    assert codes(run()) == [("epoch.py", "GL104")]


def test_scaler_object_and_optimizer_reach_the_engine_under_local_aliases(workdir, gradlint):
    """The engine renames what main.py passes (`opt_ae = optimizer`, `scaler_ae = loss_scaler`)
    before the loop, clears every iteration and hands the scaler object an update flag: the
    accumulation is read through the aliases (the loss undivided: GL201; the DDP model main.py
    wraps: GL401)."""
    engine = textwrap.dedent(ENGINE_SCALER).replace(
        "    accum_iter = args.accum_iter\n",
        "    accum_iter = args.accum_iter\n    opt_ae = optimizer\n    scaler_ae = loss_scaler\n",
    ).replace("        loss /= accum_iter\n", "").replace(
        "        loss_scaler(loss, optimizer, parameters=model.parameters(),",
        "        scaler_ae(loss, opt_ae, parameters=model.parameters(),",
    )
    assert "scaler_ae(loss, opt_ae" in engine
    project(workdir, {"util/__init__.py": "", "util/misc.py": SCALER_UTIL, "engine.py": engine, "main.py": MAIN_SCALER})
    assert codes(check(gradlint, ".")) == [("engine.py", "GL201"), ("engine.py", "GL401")]


DETECTOR_ENGINE = '''
import torch

from train_utils import misc


def train_one_epoch(model, optimizer, loader, epoch, accumulate, warmup=False, scaler=None):
    model.train()
    if epoch == 0 and warmup:
        accumulate = 1  # the warm-up epoch updates on every batch
    batches = len(loader)
    for i, (images, targets) in enumerate(loader):
        step = i + batches * epoch
        with torch.autocast("cuda", enabled=scaler is not None):
            losses = misc.detection_loss(model(images), targets)
        losses = losses / accumulate
        if scaler is not None:
            scaler.scale(losses).backward()
        else:
            losses.backward()
        if step % accumulate == 0:
            if scaler is not None:
                scaler.step(optimizer)
                scaler.update()
            else:
                optimizer.step()
            optimizer.zero_grad()
'''

DETECTOR_MULTI_GPU = '''
import torch

from train_utils import engine as train_util


def main(args):
    torch.distributed.init_process_group("nccl")
    accumulate = max(round(64 / (args.world_size * args.batch_size)), 1)
    model = build_detector(args).cuda()
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    for epoch in range(args.epochs):
        train_util.train_one_epoch(model, optimizer, loader, epoch, accumulate=accumulate, warmup=True)
'''

DETECTOR_SINGLE_GPU = '''
import torch

from train_utils import engine as train_util


def main(args):
    accumulate = max(round(64 / args.batch_size), 1)
    model = build_detector(args).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    for epoch in range(args.epochs):
        train_util.train_one_epoch(model, optimizer, loader, epoch, accumulate=accumulate, warmup=True)
'''


def test_a_window_parameter_set_to_one_in_a_warm_up_branch_still_accumulates(workdir, gradlint):
    """`if epoch == 0 and warmup: accumulate = 1` is one value of the window: the parameter
    takes what the callers pass otherwise. The multi-GPU script hands the engine, imported under
    a module alias, a DDP model (the single-GPU script a plain one): GL401."""
    project(workdir, {
        "detection/train_multi_GPU.py": DETECTOR_MULTI_GPU,
        "detection/train.py": DETECTOR_SINGLE_GPU,
        "detection/train_utils/__init__.py": "",
        "detection/train_utils/misc.py": "def detection_loss(pred, targets):\n    return pred.sum()\n",
        "detection/train_utils/engine.py": DETECTOR_ENGINE,
    })
    run = check(gradlint, "detection/train_utils/engine.py")
    assert codes(run) == [("engine.py", "GL401")], run


ACCELERATE_TRAINER = '''
import torch
from torch.nn.utils import clip_grad_norm_


class Trainer:
    def __init__(self, model, optimizer, lr_scheduler, accelerator, max_norm=1.0):
        self.model = model
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.accelerator = accelerator
        self.max_norm = max_norm

    def train_epoch(self, loader):
        self.model.train()
        for step, batch in enumerate(loader):
            with self.accelerator.accumulate(self.model):
                loss = self.model(**batch).loss
                self.accelerator.backward(loss)
                clip_grad_norm_(self.model.parameters(), self.max_norm)
                self.optimizer.step()
                self.lr_scheduler.step()
                self.optimizer.zero_grad()
'''

ACCELERATE_SCRIPT = '''
import torch
from accelerate import Accelerator
from transformers import get_linear_schedule_with_warmup

from trainer import Trainer


def run(args):
    accelerator = Accelerator(gradient_accumulation_steps=args.gradient_accumulation_steps, mixed_precision="bf16")
    model = build_model(args)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scheduler = get_linear_schedule_with_warmup(optimizer, args.warmup, args.total)
    model, optimizer, loader, {prepared_scheduler} = accelerator.prepare(model, optimizer, loader, {prepared_scheduler})
    Trainer(model, optimizer, scheduler, accelerator).train_epoch(loader)
'''


def test_a_trainer_given_a_prepared_optimizer_and_an_accumulating_accelerator_by_its_script(workdir, gradlint):
    """The script builds the Accelerator with a window and prepares the optimizer before handing
    both to the trainer: inside `self.accelerator.accumulate(...)` the plain torch clip acts on
    every micro-batch (GL203) and a scheduler the script never prepared steps on each (GL204);
    prepared, the scheduler steps with the optimizer."""
    project(workdir, {
        "trainer.py": ACCELERATE_TRAINER,
        "run.py": ACCELERATE_SCRIPT.replace("{prepared_scheduler}", "dataset_loader").replace(", loader, dataset_loader", ", loader"),
    })
    run = gradlint("check", "--select", "GL203,GL204", "--format", "concise", ".")
    assert codes(run) == [("trainer.py", "GL203"), ("trainer.py", "GL204")], run
    assert "clip under `if self.accelerator.sync_gradients:`" in run.stdout  # the accelerator as written
    (workdir / "run.py").write_text(textwrap.dedent(ACCELERATE_SCRIPT.replace("{prepared_scheduler}", "scheduler")))
    run = gradlint("check", "--no-cache", "--select", "GL203,GL204", "--format", "concise", ".")
    assert codes(run) == [("trainer.py", "GL203")], run
    (workdir / "run.py").write_text(textwrap.dedent(
        ACCELERATE_SCRIPT.replace("{prepared_scheduler}", "scheduler").replace("gradient_accumulation_steps=args.gradient_accumulation_steps, ", "")
    ))
    run = gradlint("check", "--no-cache", "--select", "GL203,GL204", "--format", "concise", ".")
    assert codes(run) == [], run


YAML_DRIVEN_TRAIN = '''
import argparse

import torch
import yaml


def train(args, model, loader, optimizer):
    accumulation_steps = args.gradient_accumulation_steps
    for step, (x, y) in enumerate(loader):
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        if (step + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()


def launch():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config/ddpm.yaml")
    args, rest = parser.parse_known_args()
    with open(args.config) as handle:
        parser.set_defaults(**yaml.safe_load(handle))
    return parser.parse_args(rest)
'''


def test_a_window_read_from_yaml_configs_is_an_option_even_when_every_config_sets_one(workdir, gradlint):
    """The window is a key of the YAML configs (argparse defaults filled from them): a key that
    exists to be raised, so the undivided loss is reported even while every shipped config sets
    it to 1 (the yardstick's judges read Point-MAE's `step_per_update : 1` so). A namespace
    class in the code fixing it at 1 is another matter (see the settings-class tests)."""
    project(workdir, {
        "train.py": YAML_DRIVEN_TRAIN,
        "config/ddpm.yaml": "model: ddpm\nlr: 0.0002\ngradient_accumulation_steps: 1\n",
        "config/vqgan.yaml": "model:\n  name: vqgan\ntrain:\n  gradient_accumulation_steps: 1\n",
    })
    run = check(gradlint, ".")
    assert codes(run) == [("train.py", "GL201")], run


SETTINGS_CLASS_MODULE = '''
class ClassifierConfig:
    lr = 3e-4
    epochs = 10
    accumulation_step = {window}
'''

STAR_ENGINE = '''
import torch


def train_lf(train_loader, model, optimizer, accumulation_step, device):
    model.train()
    for idx, (images, labels) in enumerate(train_loader, 1):
        optimizer.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(model(images.to(device)), labels.to(device))
        loss.backward()
        if idx % accumulation_step == 0:
            optimizer.step()
'''

STAR_TRAINER = '''
import torch

from config import *
from engineer import *


class TrainProcess(object):
    def __init__(self, config=ClassifierConfig):
        self.config = config

    def fit(self, loader, model):
        optimizer = torch.optim.AdamW(model.parameters(), lr=self.config.lr)
        for epoch in range(self.config.epochs):
            train_lf(loader, model, optimizer, self.config.accumulation_step, "cuda")


def main(loader, model):
    TrainProcess(ClassifierConfig).fit(loader, model)
'''


def test_a_window_parameter_given_a_settings_class_field_through_star_imports(workdir, gradlint):
    """The engine's window is a parameter; the trainer (star-importing the settings module and
    the engine) passes `self.config.accumulation_step` of `ClassifierConfig`: fixed at 1 the
    loop steps on every batch (silent), at 4 its undivided loss is GL201."""
    project(workdir, {
        "src/config.py": SETTINGS_CLASS_MODULE.format(window=1),
        "src/engineer.py": STAR_ENGINE,
        "src/train.py": STAR_TRAINER,
    })
    run = check(gradlint, "src/engineer.py")
    assert codes(run) == [], run
    (workdir / "src/config.py").write_text(textwrap.dedent(SETTINGS_CLASS_MODULE.format(window=4)))
    run = check(gradlint, "src/engineer.py")
    assert codes(run) == [("engineer.py", "GL201")], run


STEP_FACTORIES = '''
import contextlib

import torch
import torch.nn.functional as F


def optimization_manager(config):
    def optimize_fn(optimizer, scaler, params, step):
        for group in optimizer.param_groups:
            group["lr"] = config.lr * min(step / max(config.warmup, 1), 1.0)
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(params, max_norm=config.grad_clip)
        scaler.step(optimizer)
        scaler.update()

    return optimize_fn


def get_step_fn(optimize_fn, accum):
    accum_iter = 0

    def step_fn(state, batch):
        nonlocal accum_iter
        model = state["model"]
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.mse_loss(model(batch["noisy"]), batch["target"]) / accum
        state["scaler"].scale(loss).backward()
        accum_iter += 1
        if accum_iter == accum:
            accum_iter = 0
            state["step"] += 1
            optimize_fn(state["optimizer"], state["scaler"], model.parameters(), step=state["step"])
            state["optimizer"].zero_grad()
        return loss

    return step_fn
'''

STEP_FACTORY_SCRIPT = '''
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

import losses
from models import ScoreNet


def run(rank, config, loader):
    score_model = DDP(ScoreNet(config).to(rank), device_ids=[rank])
    optimizer = torch.optim.AdamW(score_model.parameters(), lr=config.lr)
    state = dict(optimizer=optimizer, scaler=torch.amp.GradScaler("cuda"), model=score_model, step=0)
    state = restore_checkpoint(config.checkpoint, state)
    optimize_fn = losses.optimization_manager(config)
    train_step_fn = losses.get_step_fn(optimize_fn, config.accum)
    batches = iter(loader)
    while state["step"] < config.n_iters:
        loss = train_step_fn(state, next(batches))
        if state["step"] % config.log_freq == 0:
            print(state["step"], loss.item())


def restore_checkpoint(path, state):
    loaded = torch.load(path, map_location="cpu")
    state["model"].load_state_dict(loaded["model"])
    state["step"] = loaded["step"]
    return state
'''


def test_a_step_closure_built_by_another_modules_factory_runs_the_ddp_model_of_the_state_dict(workdir, gradlint):
    """Score-SDE style: the script keeps its DDP model, optimizer and scaler in a `state` dict and
    calls the step closure `losses.get_step_fn(...)` builds; the closure reads the model out of
    the dict, accumulates over `accum` calls and steps through the closure another factory made.
    Without `no_sync()` both the closure and the script's loop are GL401; with it, or on one
    process, nothing is reported."""
    project(workdir, {"losses.py": STEP_FACTORIES, "run_train.py": STEP_FACTORY_SCRIPT, "models.py": "class ScoreNet:\n    pass\n"})
    run = check(gradlint, ".")
    assert sorted(codes(run)) == [("losses.py", "GL401"), ("run_train.py", "GL401")], run
    assert "`model` is DistributedDataParallel and gradients accumulate over `accum` micro-batches" in run.stdout
    synced = STEP_FACTORIES.replace(
        '        with torch.autocast("cuda", dtype=torch.bfloat16):\n'
        '            loss = F.mse_loss(model(batch["noisy"]), batch["target"]) / accum\n'
        '        state["scaler"].scale(loss).backward()\n',
        '        with contextlib.nullcontext() if accum_iter + 1 == accum else model.no_sync():\n'
        '            with torch.autocast("cuda", dtype=torch.bfloat16):\n'
        '                loss = F.mse_loss(model(batch["noisy"]), batch["target"]) / accum\n'
        '            state["scaler"].scale(loss).backward()\n',
    )
    assert synced != STEP_FACTORIES
    (workdir / "losses.py").write_text(textwrap.dedent(synced))
    assert codes(check(gradlint, ".")) == []
    single = STEP_FACTORY_SCRIPT.replace("DDP(ScoreNet(config).to(rank), device_ids=[rank])", "ScoreNet(config).to(rank)")
    assert single != STEP_FACTORY_SCRIPT
    (workdir / "losses.py").write_text(textwrap.dedent(STEP_FACTORIES))
    (workdir / "run_train.py").write_text(textwrap.dedent(single))
    assert codes(check(gradlint, ".")) == []


POLY_SCHEDULE_HELPERS = '''
import torch


class LRScheduler(object):
    def __init__(self, optimizer, data_size, num_epochs, start_epoch=0, power=0.9):
        self.optimizer = optimizer
        self.cur_iter = start_epoch * data_size
        self.max_iter = num_epochs * data_size
        self.power = power
        self.base_lr = [group["lr"] for group in optimizer.param_groups]
        self.cur_lr = list(self.base_lr)

    def step(self):
        self.cur_lr = [lr * (1 - self.cur_iter / self.max_iter) ** self.power for lr in self.base_lr]
        for group, lr in zip(self.optimizer.param_groups, self.cur_lr):
            group["lr"] = lr
        self.cur_iter += 1

    def get_lr(self):
        return self.cur_lr


def get_scheduler(cfg, len_data, optimizer, start_epoch=0):
    lr_scheduler = LRScheduler(optimizer, len_data, cfg["epochs"], start_epoch, cfg.get("power", 0.9))
    return lr_scheduler
'''

POLY_SCHEDULE_TRAIN = '''
import torch
import torch.nn.functional as F

from seg.utils.lr_helper import get_scheduler


def train(model, optimizer, lr_scheduler, loader, epoch, logger):
    model.train()
    for step, (image, label) in enumerate(loader):
        lr = lr_scheduler.get_lr()
        lr_scheduler.step()
        loss = F.cross_entropy(model(image.cuda()), label.cuda(), ignore_index=255)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 20 == 0:
            logger.info(f"epoch {epoch} step {step} loss {loss.item():.4f} lr {lr[0]:.6f}")


def main(cfg, model, loader, logger):
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    lr_scheduler = get_scheduler(cfg, len(loader), optimizer)
    for epoch in range(cfg["epochs"]):
        train(model, optimizer, lr_scheduler, loader, epoch, logger)
'''


def test_a_schedule_of_its_own_that_a_helper_module_builds_into_a_name_is_stepped_first_by_design(workdir, gradlint):
    """Segmentation-repository style: `get_scheduler` of another module builds the project's poly
    schedule into a local name and returns it; its `step()` sets the current iteration's rate
    and then counts, so stepping it before the optimizer is its convention (silent). Built on
    torch's LRScheduler instead, the same order is GL106."""
    project(workdir, {"seg/__init__.py": "", "seg/utils/__init__.py": "", "seg/utils/lr_helper.py": POLY_SCHEDULE_HELPERS, "train.py": POLY_SCHEDULE_TRAIN})
    run = gradlint("check", "--select", "GL106", "--format", "concise", "train.py")
    assert codes(run) == [], run
    torch_based = POLY_SCHEDULE_HELPERS.replace("class LRScheduler(object):", "class LRScheduler(torch.optim.lr_scheduler.LRScheduler):")
    assert torch_based != POLY_SCHEDULE_HELPERS
    (workdir / "seg/utils/lr_helper.py").write_text(textwrap.dedent(torch_based))
    run = gradlint("check", "--select", "GL106", "--format", "concise", "train.py")
    assert codes(run) == [("train.py", "GL106")], run


PARTIAL_TRAIN_LOOP = '''
import torch


def train_loop(args, loader, model, optimizer, scaler):
    model.train()
    optimizer.zero_grad()
    for i, images in enumerate(loader):
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
            loss = model(images.cuda()).mean() / args.n_accumulate
        scaler.scale(loss).backward()
        if (i + 1) % args.n_accumulate == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
'''

PARTIAL_TRAIN_SCRIPT = '''
from functools import partial

import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from src.train_utils.train_loop import train_loop


def get_model_and_trainer(args, rank, build_model, loader):
    ddp_model = DDP(build_model(args).to(rank), device_ids=[rank])
    optimizer = torch.optim.AdamW(ddp_model.parameters(), lr=args.lr)
    train_fn = partial(train_loop, args, loader=loader, model=ddp_model, optimizer=optimizer,
                       scaler=torch.amp.GradScaler("cuda"))
    return ddp_model, train_fn


def train_model(rank, args, build_model, loader):
    model, train_fn = get_model_and_trainer(args, rank, build_model, loader)
    for epoch in range(args.epochs):
        train_fn()
'''


def test_a_train_loop_another_module_hands_over_in_a_partial_gets_its_ddp_model(workdir, gradlint):
    """The script binds the DDP model into `functools.partial(train_loop, args, model=...)` and
    calls the partial per epoch: the loop of the other module accumulates on a DDP model (GL401);
    bound to the bare model, it is silent."""
    files = {"src/__init__.py": "", "src/train_utils/__init__.py": "", "src/train_utils/train_loop.py": PARTIAL_TRAIN_LOOP, "src/train.py": PARTIAL_TRAIN_SCRIPT}
    project(workdir, files)
    run = check(gradlint, "src/train_utils/train_loop.py")
    assert codes(run) == [("train_loop.py", "GL401")], run
    bare = PARTIAL_TRAIN_SCRIPT.replace("DDP(build_model(args).to(rank), device_ids=[rank])", "build_model(args).to(rank)")
    assert bare != PARTIAL_TRAIN_SCRIPT
    (workdir / "src/train.py").write_text(textwrap.dedent(bare))
    assert codes(check(gradlint, "src/train_utils/train_loop.py")) == []


REEXPORTED_TRAINER = '''
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, optimizer, diffusion, trainloader, num_accum=1, grad_norm=1.0, device="cuda"):
        self.model = model
        self.optimizer = optimizer
        self.diffusion = diffusion
        self.trainloader = trainloader
        self.num_accum = num_accum
        self.grad_norm = grad_norm
        self.device = device

    def loss(self, x):
        t = torch.randint(0, self.diffusion.timesteps, (x.shape[0],), device=self.device)
        return self.diffusion.train_losses(self.model, x_0=x, t=t)

    def step(self, x, global_steps=1):
        loss = self.loss(x).mean()
        loss.div(self.num_accum).backward()
        if global_steps % self.num_accum == 0:
            nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=self.grad_norm)
            self.optimizer.step()
            self.optimizer.zero_grad(set_to_none=True)

    def train(self, epochs):
        global_steps = 0
        for epoch in range(epochs):
            for x, _ in self.trainloader:
                global_steps += 1
                self.step(x.to(self.device), global_steps=global_steps)
'''

REEXPORTED_DIFFUSION = '''
import torch.nn.functional as F


class GaussianDiffusion:
    def __init__(self, betas, timesteps):
        self.betas = betas
        self.timesteps = timesteps

    def train_losses(self, denoise_fn, x_0, t):
        noise = x_0.new_empty(x_0.shape).normal_()
        x_t = x_0 + self.betas[t].view(-1, 1, 1, 1) * noise
        return F.mse_loss(denoise_fn(x_t, t), noise, reduction="none").flatten(1).mean(1)
'''

REEXPORTED_SCRIPT = '''
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from ddpm import *


def main(args, net, trainloader):
    local_rank = args.local_rank
    if args.distributed:
        model = DDP(net.cuda(local_rank), device_ids=[local_rank])
    else:
        model = net.cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    diffusion = GaussianDiffusion(torch.linspace(1e-4, 0.02, 1000), 1000)
    trainer = Trainer(model=model, optimizer=optimizer, diffusion=diffusion, trainloader=trainloader, num_accum=args.num_accum)
    trainer.train(args.epochs)
'''


def test_a_trainer_a_package_reexports_two_levels_up_gets_the_ddp_model_a_star_import_passes(workdir, gradlint):
    """DDPM-repository style: `ddpm/__init__.py` re-exports `Trainer` from `.utils.trainer`, the
    script star-imports the package and hands the trainer a model wrapped in DDP when
    distributed; the trainer's step hands `self.model` to the diffusion object's loss (which runs
    it) and accumulates over `num_accum` without no_sync: GL401. Single-process, silent."""
    files = {
        "ddpm/__init__.py": "from .diffusion import GaussianDiffusion\nfrom .utils.trainer import Trainer\n\n__all__ = ['GaussianDiffusion', 'Trainer']\n",
        "ddpm/diffusion.py": REEXPORTED_DIFFUSION,
        "ddpm/utils/__init__.py": "",
        "ddpm/utils/trainer.py": REEXPORTED_TRAINER,
        "train.py": REEXPORTED_SCRIPT,
    }
    project(workdir, files)
    run = check(gradlint, "ddpm/utils/trainer.py")
    assert codes(run) == [("trainer.py", "GL401")], run
    assert "`self.model` is DistributedDataParallel" in run.stdout
    single = REEXPORTED_SCRIPT.replace("DDP(net.cuda(local_rank), device_ids=[local_rank])", "net.cuda(local_rank)")
    assert single != REEXPORTED_SCRIPT
    (workdir / "train.py").write_text(textwrap.dedent(single))
    assert codes(check(gradlint, "ddpm/utils/trainer.py")) == []


DDP_SUBCLASS_MODULE = '''
import torch.nn as nn


class TorchDDP(nn.parallel.DistributedDataParallel):
    """Forwards attribute lookups to the wrapped module."""

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.module, name)
'''

DDP_SUBCLASS_BASE_TRAINER = '''
import torch
import torch.nn as nn

from ..utils import TorchDDP


class TorchTrainer:
    def __init__(self, model, optimizer, loss, grad_acc_steps=1, ddp=False, device=None):
        self.model = model
        self.optimizer = optimizer
        self.loss = loss
        self.grad_acc_steps = grad_acc_steps
        self.device = device
        if ddp:
            self.model = nn.SyncBatchNorm.convert_sync_batchnorm(self.model)
            self.model = TorchDDP(self.model, device_ids=[device], output_device=device)

    def update_model(self):
        nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
'''

DDP_SUBCLASS_TRAINER = '''
from .torch_trainer import TorchTrainer


class XVectorTrainer(TorchTrainer):
    def train_epoch(self, data_loader):
        self.model.train()
        for batch, (data, target) in enumerate(data_loader):
            if batch % self.grad_acc_steps == 0:
                self.optimizer.zero_grad()
            data, target = data.to(self.device), target.to(self.device)
            output = self.model(data)
            loss = self.loss(output, target).mean() / self.grad_acc_steps
            loss.backward()
            if (batch + 1) % self.grad_acc_steps == 0:
                self.update_model()
'''


def test_a_project_subclass_of_ddp_a_base_trainer_of_another_module_wraps_the_model_in(workdir, gradlint):
    """Speech-toolkit style: the base trainer (another module) wraps `self.model` in the
    project's `TorchDDP`, a subclass of DistributedDataParallel that a package re-exports; the
    subclass trainer accumulates over `grad_acc_steps` without no_sync: GL401. A wrapper that is
    no DDP subclass is silent."""
    files = {
        "pkg/__init__.py": "",
        "pkg/utils/__init__.py": "from .ddp import TorchDDP\n",
        "pkg/utils/ddp.py": DDP_SUBCLASS_MODULE,
        "pkg/trainers/__init__.py": "",
        "pkg/trainers/torch_trainer.py": DDP_SUBCLASS_BASE_TRAINER,
        "pkg/trainers/xvector_trainer.py": DDP_SUBCLASS_TRAINER,
    }
    project(workdir, files)
    run = check(gradlint, "pkg/trainers/xvector_trainer.py")
    assert codes(run) == [("xvector_trainer.py", "GL401")], run
    assert "`self.model` is DistributedDataParallel" in run.stdout
    plain = DDP_SUBCLASS_MODULE.replace("class TorchDDP(nn.parallel.DistributedDataParallel):", "class TorchDDP(nn.Module):")
    assert plain != DDP_SUBCLASS_MODULE
    (workdir / "pkg/utils/ddp.py").write_text(textwrap.dedent(plain))
    assert codes(check(gradlint, "pkg/trainers/xvector_trainer.py")) == []


WRAPPING_BASE_TRAINER = '''
import torch
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.nn.parallel import DistributedDataParallel as DDP

from utils.checkpoint import save_checkpoint


class BaseTrainer:
    def __init__(self, args, model):
        self.args = args
        self.distributed = args.world_size > 1
        self.local_rank = args.local_rank
        self.model = model
        self.raw_model = model

    def wrap_distributed(self, model, compile_model=False):
        if compile_model:
            model = torch.compile(model)
        if self.distributed:
            if getattr(self.args, "fsdp", False):
                model = FSDP(model)
            else:
                model = DDP(model, device_ids=[self.local_rank])
            self.raw_model = model.module
        self.model = model
        return model

    def save(self, step):
        save_checkpoint(self.model, self.optimizer, step, self.args.out_dir)
'''

CHECKPOINT_HELPERS = '''
import torch


def _state_dict(model_or_state):
    if isinstance(model_or_state, dict):
        return model_or_state
    return model_or_state.state_dict()


def save_checkpoint(model, optimizer, step, out_dir):
    state = {"model": _state_dict(model), "optimizer": optimizer.state_dict(), "step": step}
    torch.save(state, f"{out_dir}/ckpt_{step}.pt")
'''

PRETRAIN_TRAINER = '''
import torch

from training.trainer_base import BaseTrainer
from utils.checkpoint import _state_dict


class PretrainTrainer(BaseTrainer):
    def __init__(self, args, model, loader, ema):
        super().__init__(args, model)
        self.loader = loader
        self.ema = ema
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
        self.wrap_distributed(self.model, compile_model=args.compile)

    def _forward(self, batch):
        input_ids, targets = batch
        logits, loss = self.model(input_ids, targets)
        return loss

    def train(self):
        accum = self.args.gradient_accumulation_steps
        micro_step = 0
        for batch in self.loader:
            loss = self._forward(batch) / accum
            loss.backward()
            self.ema.update(_state_dict(self.model))
            micro_step += 1
            if micro_step % accum == 0:
                self.optimizer.step()
                self.optimizer.zero_grad(set_to_none=True)
'''

GRPO_TRAINER = '''
import torch

from training.trainer_base import BaseTrainer


class GRPOTrainer(BaseTrainer):
    def __init__(self, args, model, prompts):
        super().__init__(args, model)
        self.prompts = prompts
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
        self.wrap_distributed(self.model)

    def _logprobs_impl(self, model, sequences):
        logits = model(sequences)
        return torch.log_softmax(logits, dim=-1)

    def _batch_logprobs(self, model, sequences):
        return self._logprobs_impl(model, sequences)

    def grpo_loss(self, rollout):
        new_logprobs = self._batch_logprobs(
            self.model, rollout["sequences"]
        )
        ratio = torch.exp(new_logprobs - rollout["old_logprobs"])
        return -(ratio * rollout["advantages"]).mean()

    def train(self):
        accum = self.args.gradient_accumulation_steps
        for step, rollout in enumerate(self.prompts):
            loss = self.grpo_loss(rollout) / accum
            loss.backward()
            if (step + 1) % accum == 0 or step + 1 == len(self.prompts):
                self.optimizer.step()
                self.optimizer.zero_grad(set_to_none=True)
'''


def test_a_model_a_base_trainer_of_another_module_wraps_in_ddp_on_one_branch_and_keeps_on_self(workdir, gradlint):
    """nanoGPT-style: the base trainer (another module) wraps the model it is handed in DDP on
    one branch (FSDP on another) and keeps the local on `self.model`. One subclass runs the
    forward through its own `self._forward(batch)`, another hands `self.model` (on a line of its
    own) to a helper that runs it; both accumulate without no_sync: GL401 naming `self.model`.
    With the forward and backward under no_sync, silent: the EMA update reading the model's
    state dict on every micro-batch through a checkpoint helper is no forward."""
    files = {
        "training/__init__.py": "",
        "training/trainer_base.py": WRAPPING_BASE_TRAINER,
        "training/train_pretrain.py": PRETRAIN_TRAINER,
        "training/train_grpo.py": GRPO_TRAINER,
        "utils/__init__.py": "",
        "utils/checkpoint.py": CHECKPOINT_HELPERS,
    }
    project(workdir, files)
    run = check(gradlint, "training")
    assert sorted(codes(run)) == [("train_grpo.py", "GL401"), ("train_pretrain.py", "GL401")], run
    assert run.stdout.count("`self.model` is DistributedDataParallel") == 2, run.stdout
    synced = PRETRAIN_TRAINER.replace(
        "            loss = self._forward(batch) / accum\n"
        "            loss.backward()\n",
        "            last = (micro_step + 1) % accum == 0\n"
        "            with contextlib.nullcontext() if last else self.model.no_sync():\n"
        "                loss = self._forward(batch) / accum\n"
        "                loss.backward()\n",
    ).replace("import torch\n", "import contextlib\n\nimport torch\n", 1)
    assert synced != PRETRAIN_TRAINER
    (workdir / "training/train_pretrain.py").write_text(textwrap.dedent(synced))
    assert codes(check(gradlint, "training/train_pretrain.py")) == []


BASE_TRAINER_WITH_WINDOW = '''
import torch


class BaseTrainer:
    def __init__(self, model, loss_fn, optimizer, scheduler, accum_iter: int = 1, mixed_precision: bool = False):
        self.model = model
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.accum_iter = accum_iter
        self.mixed_precision = mixed_precision
'''

CELL_SEGMENTATION_TRAINER = '''
import torch

from base_ml.base_trainer import BaseTrainer


class SegmentationTrainer(BaseTrainer):
    def __init__(self, model, loss_fn, optimizer, scheduler, num_classes):
        super().__init__(model=model, loss_fn=loss_fn, optimizer=optimizer, scheduler=scheduler, accum_iter=1)
        self.num_classes = num_classes

    def train_epoch(self, epoch, train_dataloader):
        self.model.train()
        for batch_idx, (images, masks) in enumerate(train_dataloader):
            predictions = self.model(images.cuda())
            loss = self.loss_fn(predictions, masks.cuda())
            loss.backward()
            if ((batch_idx + 1) % self.accum_iter == 0) or ((batch_idx + 1) == len(train_dataloader)) or (self.accum_iter == 1):
                self.optimizer.step()
                self.optimizer.zero_grad()
        self.scheduler.step()
'''


def test_a_window_a_subclass_passes_as_one_to_its_base_trainers_init_is_no_window(workdir, gradlint):
    """CellViT style: the base trainer (another module) keeps the `accum_iter` its `__init__`
    is given; the segmentation trainer passes the literal 1 to `super().__init__`, so the loss
    needs no division. Passing 4 makes it a window: GL201."""
    files = {
        "base_ml/__init__.py": "",
        "base_ml/base_trainer.py": BASE_TRAINER_WITH_WINDOW,
        "cell_segmentation/__init__.py": "",
        "cell_segmentation/trainer.py": CELL_SEGMENTATION_TRAINER,
    }
    project(workdir, files)
    assert codes(check(gradlint, "cell_segmentation/trainer.py")) == []
    windowed = CELL_SEGMENTATION_TRAINER.replace("accum_iter=1)", "accum_iter=4)")
    assert windowed != CELL_SEGMENTATION_TRAINER
    (workdir / "cell_segmentation/trainer.py").write_text(textwrap.dedent(windowed))
    assert codes(check(gradlint, "cell_segmentation/trainer.py")) == [("trainer.py", "GL201")]


SRC_TRAINER = '''\
    import torch


    def train_one_epoch(model, loader, optimizer, criterion, scaler=None, accum_steps=1):
        model.train()
        use_amp = scaler is not None
        optimizer.zero_grad(set_to_none=True)
        for it, (images, labels) in enumerate(loader):
            with torch.amp.autocast("cuda", enabled=use_amp):
                loss = criterion(model(images.cuda()), labels.cuda()) / accum_steps
            if use_amp:
                scaler.scale(loss).backward()
            else:
                loss.backward()
            if (it + 1) % accum_steps == 0 or it + 1 == len(loader):
                if use_amp:
                    scaler.step(optimizer)
                    scaler.update()
                else:
                    optimizer.step()
                optimizer.zero_grad(set_to_none=True)
'''

SCHEDULED_SCRIPT = '''\
    import sys

    import torch

    sys.path.append("src")
    from classification.trainer import train_one_epoch


    def make_scheduler(optimizer, cfg):
        if cfg.scheduler is None:
            return None
        if cfg.scheduler == "cosine":
            return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)
        return torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)


    def main(cfg, model, loader, criterion):
        optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        scheduler = make_scheduler(optimizer, cfg)
        scaler = torch.amp.GradScaler("cuda")
        for epoch in range(1, cfg.epochs + 1):
            if scheduler and not isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
                scheduler.step()
            current_lr = optimizer.param_groups[0]["lr"]
            train_loss = train_one_epoch(model, loader, optimizer, criterion, scaler=scaler, accum_steps=cfg.accum)
            print(epoch, current_lr, train_loss)
'''


def test_a_scheduler_stepped_before_the_epoch_of_a_training_function_in_another_module_is_gl106(workdir, gradlint):
    """Competition-script style: the epoch loop steps the scheduler, then calls the trainer
    module (under `src/`, found through sys.path) whose loop steps the optimizer: the first
    epoch trains at the schedule's second value. Reported in the script, where the fix moves
    the scheduler after the call; silent once it is there."""
    project(workdir, {"src/classification/__init__.py": "", "src/classification/trainer.py": SRC_TRAINER, "run.py": SCHEDULED_SCRIPT})
    run = gradlint("check", "--select", "GL106", "--format", "concise", ".")
    assert codes(run) == [("run.py", "GL106")], run.stdout
    assert "before the epoch's `scaler.step(optimizer)` calls (in `train_one_epoch(...)` of trainer.py)" in run.stdout
    fixed = gradlint("fix", "--select", "GL106", ".")
    assert fixed.exit_code == 0, fixed.stdout
    text = (workdir / "run.py").read_text()
    assert text.index("train_loss = train_one_epoch(") < text.index("scheduler.step()") < text.index("print(epoch")
    assert codes(gradlint("check", "--select", "GL106", "--format", "concise", ".")) == []


TWO_STAGE_ENGINE = '''\
    import torch


    def train_stage1(model, criterion, data_loader, optimizer, device, epoch, accumulate_steps):
        model.train()
        optimizer.zero_grad()
        for i, (samples, targets) in enumerate(data_loader):
            outputs = model(samples.to(device))
            losses = criterion(outputs, targets) / accumulate_steps
            losses.backward()
            if (i + 1) % accumulate_steps == 0 or i + 1 == len(data_loader):
                optimizer.step()
                optimizer.zero_grad()


    def train_stage2(model, criterion, data_loader, optimizer, device, epoch, accumulate_steps):
        model.train()
        for samples, targets in data_loader:
            optimizer.zero_grad()
            criterion(model(samples.to(device)), targets).backward()
            optimizer.step()
'''

TWO_STAGE_MAIN = '''\
    import torch
    from torch.nn.parallel import DistributedDataParallel


    def main(args, build_model, criterion, loader):
        model = build_model(args).cuda()
        model = DistributedDataParallel(model, device_ids=[args.gpu])
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
        if args.stage == 1:
            from engine import train_stage1 as train_one_epoch
        else:
            from engine import train_stage2 as train_one_epoch
        for epoch in range(args.epochs):
            train_one_epoch(model, criterion, loader, optimizer, args.device, epoch, args.accumulate_steps)
'''


def test_a_name_two_branches_import_from_the_engine_calls_each_with_the_ddp_model(workdir, gradlint):
    """VRDFormer style: `from engine import train_stage1 as train_one_epoch` on one branch and
    `train_stage2` under the same name on the other; the one call runs either, so the first
    stage's accumulating loop gets the DDP model too (the second steps on every batch)."""
    project(workdir, {"engine.py": TWO_STAGE_ENGINE, "main.py": TWO_STAGE_MAIN})
    run = check(gradlint, ".")
    assert codes(run) == [("engine.py", "GL401")], run.stdout
    assert "engine.py:10:" in run.stdout


PRETRAINER_SCRIPT = '''\
    import torch
    from util.misc import NativeScalerWithGradNormCount as NativeScaler


    class Pretrainer:
        def __init__(self, config):
            self.config = config

        def train_one_epoch(self, model, data_loader, optimizer, epoch, loss_scaler):
            model.train()
            optimizer.zero_grad()
            for data_iter_step, (x1, x2) in enumerate(data_loader):
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = model(x1.cuda(non_blocking=True), x2.cuda(non_blocking=True))
                loss = loss / self.config.accumulation_steps
                loss_scaler(loss, optimizer, parameters=model.parameters(),
                            update_grad=(data_iter_step + 1) % self.config.accumulation_steps == 0)
                if (data_iter_step + 1) % self.config.accumulation_steps == 0:
                    optimizer.zero_grad()


    def main(config, build_model, data_loader):
        model = build_model(config).cuda()
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[config.local_rank])
        optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
        pretrainer = Pretrainer(config=config)
        loss_scaler = NativeScaler()
        for epoch in range(config.epochs):
            pretrainer.train_one_epoch(model, data_loader, optimizer, epoch, loss_scaler)
'''


def test_a_scaler_object_handed_to_a_method_of_an_object_made_in_the_same_script(workdir, gradlint):
    """SimMIM-fork style: `main` makes `pretrainer = Pretrainer(...)` and calls its epoch method
    with the DDP model and a NativeScaler-style object of another module, which does the
    backward and the step; the script spells no backward of its own."""
    project(workdir, {"util/__init__.py": "", "util/misc.py": SCALER_UTIL, "main_pretrain.py": PRETRAINER_SCRIPT})
    run = check(gradlint, ".")
    assert codes(run) == [("main_pretrain.py", "GL401")], run.stdout


SETTINGS_OBJECT = '''\
    class Config:
        def __init__(self):
            self.batch_size = 64
            self.learning_rate = 2e-4
            self.accumulation_steps = 1
            self.epochs = 30
'''

TOKENIZER_TRAINING = '''\
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP

    from config import Config


    def train_model(model, loader, config, rank):
        optimizer = torch.optim.AdamW(model.parameters(), lr=config['learning_rate'])
        for epoch in range(config['epochs']):
            for batch in loader:
                optimizer.zero_grad()
                for j in range(config['accumulation_steps']):
                    size = batch.shape[0] // config['accumulation_steps']
                    loss = model(batch[j * size:(j + 1) * size].to(rank)) / config['accumulation_steps']
                    loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 2.0)
                optimizer.step()


    def main(config, build, loader, rank):
        model = DDP(build().to(rank), device_ids=[rank])
        train_model(model, loader, config, rank)


    if __name__ == "__main__":
        config_instance = Config()
        main(config_instance.__dict__, None, None, 0)
'''


def test_a_window_read_from_a_settings_objects_dict_that_fixes_it_at_one(workdir, gradlint):
    """Kronos style: `main(Config().__dict__)` hands the settings object's fields down as a
    dict; `Config.__init__` (another module) fixes `accumulation_steps` at 1, so the slicing loop
    is one micro-batch per step and DDP syncs only what it must. Set to 4, it is GL401."""
    project(workdir, {"config.py": SETTINGS_OBJECT, "train_tokenizer.py": TOKENIZER_TRAINING})
    assert codes(check(gradlint, ".")) == []
    (workdir / "config.py").write_text(textwrap.dedent(SETTINGS_OBJECT).replace("accumulation_steps = 1", "accumulation_steps = 4"))
    assert codes(check(gradlint, ".")) == [("train_tokenizer.py", "GL401")]


RESTORATION_BASE = '''\
    import torch
    from torch.nn.parallel import DataParallel, DistributedDataParallel


    class BaseModel:
        def __init__(self, opt):
            self.opt = opt
            self.device = torch.device("cuda" if opt["num_gpu"] != 0 else "cpu")

        def model_to_device(self, net):
            net = net.to(self.device)
            if self.opt["dist"]:
                net = DistributedDataParallel(net, device_ids=[torch.cuda.current_device()])
            elif self.opt["num_gpu"] > 1:
                net = DataParallel(net)
            return net
'''

RESTORATION_MODEL = '''\
    import torch

    from archs import build_network
    from models.base_model import BaseModel


    class ImageRestorationModel(BaseModel):
        def __init__(self, opt):
            super().__init__(opt)
            self.net_g = self.model_to_device(build_network(opt["network_g"]))
            self.accum_iters = opt["train"].get("accumulate", 1)
            self.n_accumulated = 0
            self.optimizer_g = torch.optim.AdamW(self.net_g.parameters(), lr=opt["train"]["lr"])
            self.cri_pix = torch.nn.L1Loss()

        def feed_data(self, data):
            self.lq, self.gt = data["lq"].to(self.device), data["gt"].to(self.device)

        def optimize_parameters(self, current_iter):
            self.n_accumulated += 1
            output = self.net_g(self.lq)
            l_pix = self.cri_pix(output, self.gt) / self.accum_iters
            l_pix.backward()
            if self.n_accumulated % self.accum_iters == 0:
                self.optimizer_g.step()
                self.optimizer_g.zero_grad(set_to_none=True)
'''


def test_a_model_a_base_class_method_of_another_module_wraps_in_ddp_accumulates_without_no_sync(workdir, gradlint):
    """BasicSR family (neosr style): `self.net_g = self.model_to_device(net)`, the base class of
    another module wrapping the network in DDP when `opt['dist']`; the step method accumulates
    with a counter on self. When the base class only moves the network, there is no DDP."""
    project(workdir, {
        "models/__init__.py": "", "models/base_model.py": RESTORATION_BASE,
        "models/restoration_model.py": RESTORATION_MODEL, "archs.py": "def build_network(opt):\n    pass\n",
    })
    run = check(gradlint, ".")
    assert codes(run) == [("restoration_model.py", "GL401")], run.stdout
    moving_only = textwrap.dedent(RESTORATION_BASE).replace(
        "net = DistributedDataParallel(net, device_ids=[torch.cuda.current_device()])", "pass"
    )
    (workdir / "models/base_model.py").write_text(moving_only)
    assert codes(check(gradlint, ".")) == []


REGISTRY_INIT = '''\
    from models.sr_model import SRModel
    from models.video_model import VideoModel


    def build_model(opt):
        model = VideoModel(opt) if opt["video"] else SRModel(opt)
        print(f"Model {model.__class__.__name__} is created.")
        return model
'''

REGISTRY_SR_MODEL = '''\
    import torch
    from torch.nn.parallel import DistributedDataParallel


    class SRModel:
        def __init__(self, opt):
            net = torch.nn.Conv2d(3, 3, 3).cuda()
            self.net_g = DistributedDataParallel(net) if opt["dist"] else net
            self.accum_iters = opt["accum_iters"]
            self.scaler_g = torch.amp.GradScaler("cuda")
            self.optimizer_g = torch.optim.AdamW(self.net_g.parameters(), lr=2e-4)

        def feed_data(self, data):
            self.lq, self.gt = data["lq"].cuda(), data["gt"].cuda()

        def optimize_parameters(self, current_iter, apply_gradient):
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.l1_loss(self.net_g(self.lq), self.gt) / self.accum_iters
            self.scaler_g.scale(loss).backward()
            if apply_gradient:
                self.scaler_g.step(self.optimizer_g)
                self.scaler_g.update()
                self.optimizer_g.zero_grad()
'''

REGISTRY_VIDEO_MODEL = '''\
    import torch


    class VideoModel:
        def __init__(self, opt):
            self.net_g = torch.nn.Conv3d(3, 3, 3).cuda()
            self.optimizer_g = torch.optim.AdamW(self.net_g.parameters(), lr=2e-4)

        def optimize_parameters(self, current_iter, apply_gradient):
            loss = self.net_g(self.lq).abs().mean()
            loss.backward()
            self.optimizer_g.step()
            self.optimizer_g.zero_grad()
'''

REGISTRY_TRAIN = '''\
    from models import build_model


    def train_pipeline(opt, loader, total_iters):
        model = build_model(opt)
        apply_gradient = False
        current_accum_iter = current_iter = 0
        for epoch in range(opt["epochs"]):
            for data in loader:
                current_accum_iter += 1
                if current_accum_iter >= model.accum_iters:
                    current_accum_iter = 0
                    current_iter += 1
                    apply_gradient = True
                else:
                    apply_gradient = False
                model.feed_data(data)
                try:
                    model.optimize_parameters(current_iter, apply_gradient)
                except RuntimeError as error:
                    if "out of memory" not in str(error):
                        raise
'''

REGISTRY_UNIT_TEST = '''\
    from models import build_model


    def test_one_step_runs():
        model = build_model({"video": False, "dist": False, "accum_iters": 1})
        model.feed_data({"lq": None, "gt": None})
        model.optimize_parameters(1, True)
'''


def test_a_step_method_of_a_class_a_registry_builds_gets_the_window_flag_its_caller_computes(workdir, gradlint):
    """traiNNer-redux style: train.py gets its model from `build_model(opt)` (which class, the
    options decide) and passes `apply_gradient`, set True on the micro-batch that ends the window,
    to `optimize_parameters`; the DDP model's backward syncs on every micro-batch. A unit test
    calling the method once with True says nothing of training; the video model, which ignores
    the flag and steps every call, is no accumulation."""
    files = {
        "models/__init__.py": REGISTRY_INIT, "models/sr_model.py": REGISTRY_SR_MODEL,
        "models/video_model.py": REGISTRY_VIDEO_MODEL, "train.py": REGISTRY_TRAIN,
        "tests/test_models.py": REGISTRY_UNIT_TEST,
    }
    project(workdir, files)
    run = check(gradlint, ".")
    assert codes(run) == [("sr_model.py", "GL401")], run.stdout
    every_batch = textwrap.dedent(REGISTRY_TRAIN).replace("apply_gradient = False\n", "apply_gradient = True\n")
    (workdir / "train.py").write_text(every_batch)
    assert codes(check(gradlint, ".")) == []


PREFERENCE_TRAINER = '''\
    import torch
    import torch.nn.functional as F


    class PreferenceTrainer:
        def __init__(self, policy_model, optimizer, grad_accum, beta=0.1):
            self.policy_model = policy_model
            self.optimizer = optimizer
            self.grad_accum = grad_accum
            self.beta = beta
            self.scaler = torch.amp.GradScaler("cuda")

        def train_step(self, chosen, rejected, is_last_accum_step):
            with torch.autocast("cuda", dtype=torch.float16):
                margin = self.policy_model(chosen).mean() - self.policy_model(rejected).mean()
                loss = -F.logsigmoid(self.beta * margin) / self.grad_accum
            self.scaler.scale(loss).backward()
            if is_last_accum_step:
                self.scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.policy_model.parameters(), 1.0)
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.optimizer.zero_grad(set_to_none=True)
            return loss.item()
'''

PREFERENCE_MAIN = '''\
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP

    from trainer import PreferenceTrainer


    def main(build_policy, loader, rank, grad_accum, steps):
        policy_model = DDP(build_policy().to(rank), device_ids=[rank])
        optimizer = torch.optim.AdamW(policy_model.parameters(), lr=5e-7)
        trainer = PreferenceTrainer(policy_model, optimizer, grad_accum)
        batches = iter(loader)
        for step in range(steps):
            for micro in range(grad_accum):
                chosen, rejected = next(batches)
                is_last_micro = micro == grad_accum - 1
                if not is_last_micro:
                    with policy_model.no_sync():
                        trainer.train_step(chosen.to(rank), rejected.to(rank), is_last_accum_step=is_last_micro)
                else:
                    trainer.train_step(chosen.to(rank), rejected.to(rank), is_last_accum_step=is_last_micro)
'''


def test_a_step_method_whose_callers_run_the_non_final_micro_batches_under_no_sync(workdir, gradlint):
    """Axiom style: the trainer's step method backpropagates and steps on the flag its caller
    computes; the caller runs the non-final micro-batches under the DDP model's `no_sync()`.
    Neither the script nor the trainer, checked alone, is GL401; without the `no_sync()` both are."""
    project(workdir, {"trainer.py": PREFERENCE_TRAINER, "main.py": PREFERENCE_MAIN})
    assert codes(check(gradlint, ".")) == []
    assert codes(check(gradlint, "trainer.py")) == []
    syncing = textwrap.dedent(PREFERENCE_MAIN).replace("with policy_model.no_sync():", "if True:")
    (workdir / "main.py").write_text(syncing)
    assert codes(check(gradlint, ".")) == [("main.py", "GL401"), ("trainer.py", "GL401")]


BASE_TRAINER_WITH_SCALER = '''\
    import torch


    class Trainer:
        def __init__(self, model, optimizer, args):
            self.model = model
            self.optimizer = optimizer
            self.args = args
            if args.use_amp:
                self.scaler = torch.amp.GradScaler("cuda")

        def after_iter(self, step):
            if (step + 1) % self.args.gradient_accumulation_steps == 0:
                if self.args.use_amp:
                    self.scaler.step(self.optimizer)
                    self.scaler.update()
                else:
                    self.optimizer.step()
                self.optimizer.zero_grad()

        def train(self, loader):
            for step, batch in enumerate(loader):
                with torch.autocast("cuda", enabled=self.args.use_amp):
                    loss = self.model(**batch).loss / self.args.gradient_accumulation_steps
                if self.args.use_amp:
                    self.scaler.scale(loss).backward()
                else:
                    loss.backward()
                self.after_iter(step)
'''

DISTILLING_TRAINER = '''\
    import torch.nn.functional as F

    from trainer import Trainer


    class DistillingTrainer(Trainer):
        def __init__(self, model, teacher, optimizer, args):
            super().__init__(model, optimizer, args)
            self.teacher = teacher

        def train(self, loader):
            for step, batch in enumerate(loader):
                student_logits = self.model(**batch).logits
                teacher_logits = self.teacher(**batch).logits.detach()
                loss = F.kl_div(F.log_softmax(student_logits, -1), F.softmax(teacher_logits, -1), reduction="batchmean")
                (loss / self.args.gradient_accumulation_steps).backward()
                self.after_iter(step)
'''


def test_a_subclass_loop_backpropagating_unscaled_into_a_base_step_through_the_scaler(workdir, gradlint):
    """EasyNLP style: the base trainer (another module) builds its GradScaler under `use_amp` and
    steps through it there; a subclass's own loop backpropagates the plain loss before calling
    that step: with AMP on, `scaler.step()` meets gradients no `scale()` made (GL305). The base
    trainer's own loop scales and is right."""
    project(workdir, {"trainer.py": BASE_TRAINER_WITH_SCALER, "distill.py": DISTILLING_TRAINER})
    run = gradlint("check", "--select", "GL305", "--format", "concise", ".")
    assert codes(run) == [("distill.py", "GL305")], run.stdout


REGISTERED_TRAINER = '''\
    import torch


    class Trainer:
        def __init__(self, name="base", lr=2e-5, epochs=5, gradient_accumulation_steps=1, max_grad_norm=1.0):
            self.name = name
            self.lr = lr
            self.epochs = epochs
            self.gradient_accumulation_steps = gradient_accumulation_steps
            self.max_grad_norm = max_grad_norm

        def train_one_epoch(self, model, optimizer, epoch_iterator):
            model.train()
            for step, batch in enumerate(epoch_iterator):
                loss = model(**batch).loss / self.gradient_accumulation_steps
                loss.backward()
                if (step + 1) % self.gradient_accumulation_steps == 0:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), self.max_grad_norm)
                    optimizer.step()
                    optimizer.zero_grad()
'''

TRAINER_REGISTRY = '''\
    from .trainer import Trainer

    TRAINERS = {"base": Trainer}


    def load_trainer(config):
        return TRAINERS[config["name"].lower()](**config)
'''

DEFENDER = '''\
    from trainers.trainer import Trainer


    class Defender:
        def __init__(self, epochs=3):
            self.trainer = Trainer(epochs=epochs)
'''


def test_a_window_default_of_one_is_no_fixed_window_when_a_registry_builds_the_trainer_from_configs(workdir, gradlint):
    """OpenBackdoor style: the only construction the model sees leaves `gradient_accumulation_steps`
    at its default of 1, but the package keeps the class in a registry built from JSON configs
    (`TRAINERS[name](**config)`): the window is an option, and the tail it drops is GL205. Without
    the registry, every construction fixes the window at one."""
    files = {
        "trainers/__init__.py": TRAINER_REGISTRY, "trainers/trainer.py": REGISTERED_TRAINER,
        "defenders/__init__.py": "", "defenders/defender.py": DEFENDER,
    }
    project(workdir, files)
    run = gradlint("check", "--select", "GL205", "--format", "concise", ".")
    assert codes(run) == [("trainer.py", "GL205")], run.stdout
    (workdir / "trainers/__init__.py").write_text("from .trainer import Trainer\n")
    assert codes(gradlint("check", "--select", "GL205", "--format", "concise", ".")) == []


OPTIMIZATION_MODULE = '''\
    import torch
    from torch.nn.parallel import DistributedDataParallel


    class WrappedDDP(DistributedDataParallel):
        def __getattr__(self, name):
            try:
                return super().__getattr__(name)
            except AttributeError:
                return getattr(self.module, name)


    def optimize_model(model, device, local_rank, optimizer, distributed=False):
        model = model.to(device)
        if distributed:
            model = WrappedDDP(model, device_ids=[local_rank], output_device=local_rank)
        return model, optimizer


    def initialize_optimizer(model, learning_rate, device, local_rank=-1, distributed=False):
        optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
        model, optimizer = optimize_model(model, device, local_rank, optimizer, distributed)
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0)
        return model, optimizer, scheduler
'''

LIBRARY_TRAINER = '''\
    from models import AdaptiveModel


    class Trainer:
        def __init__(self, model, optimizer, data_silo, epochs, lr_schedule=None, grad_acc_steps=1, save_dir=None):
            self.model = model
            self.optimizer = optimizer
            self.data_silo = data_silo
            self.epochs = epochs
            self.lr_schedule = lr_schedule
            self.grad_acc_steps = grad_acc_steps
            self.save_dir = save_dir

        def train(self):
            self.model.train()
            for epoch in range(self.epochs):
                for step, batch in enumerate(self.data_silo.get_data_loader("train")):
                    logits = self.model.forward(**batch)
                    per_sample_loss = self.model.logits_to_loss(logits=logits, **batch)
                    self.backward_propagate(per_sample_loss, step)
            if self.save_dir:
                self.model = AdaptiveModel.load(self.save_dir)  # the best model, for evaluation
            return self.model

        def backward_propagate(self, loss, step):
            loss = loss.mean() / self.grad_acc_steps
            loss.backward()
            if (step + 1) % self.grad_acc_steps == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()
                if self.lr_schedule:
                    self.lr_schedule.step()
'''

LIBRARY_EXAMPLE = '''\
    from models import AdaptiveModel
    from optimization import initialize_optimizer
    from trainer import Trainer


    def doc_classification(args, data_silo, device):
        model = AdaptiveModel.build(args.lang_model)
        model, optimizer, lr_schedule = initialize_optimizer(
            model=model, learning_rate=3e-5, device=device, local_rank=args.local_rank, distributed=args.local_rank != -1,
        )
        trainer = Trainer(model=model, optimizer=optimizer, data_silo=data_silo, epochs=2,
                          lr_schedule=lr_schedule, grad_acc_steps=args.grad_acc_steps)
        return trainer.train()
'''


def test_a_trainer_given_the_model_an_optimizer_helper_returns_in_a_tuple_wrapped_in_a_ddp_subclass(workdir, gradlint):
    """FARM style: `model, optimizer, scheduler = initialize_optimizer(...)` returns the model a
    DDP subclass wraps when distributed; the trainer keeps it on `self`, runs `self.model.forward`
    and accumulates in a method it hands the index to; after training it reloads the best model
    into the same attribute. Without the wrap, there is no DDP."""
    files = {
        "optimization.py": OPTIMIZATION_MODULE, "trainer.py": LIBRARY_TRAINER, "examples/doc_classification.py": LIBRARY_EXAMPLE,
        "models.py": "class AdaptiveModel:\n    pass\n",
    }
    project(workdir, files)
    run = check(gradlint, ".")
    assert codes(run) == [("trainer.py", "GL401")], run.stdout
    bare = textwrap.dedent(OPTIMIZATION_MODULE).replace(
        "model = WrappedDDP(model, device_ids=[local_rank], output_device=local_rank)", "model = model.half()"
    )
    (workdir / "optimization.py").write_text(bare)
    assert codes(check(gradlint, ".")) == []


OPTIMIZER_AND_SCALER_FACTORY = """
import torch

import util.misc as misc


def create_optimizer_and_loss_scaler(args, model):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    loss_scaler = misc.NativeScalerWithGradNormCount()
    return optimizer, loss_scaler
"""

MAIN_SCALER_FROM_FACTORY = """
import torch

from engine import train_one_epoch
from utils_training import create_optimizer_and_loss_scaler


def main(args, loader):
    model = torch.nn.Linear(8, 2).to(args.device)
    if args.distributed:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])
    optimizer, loss_scaler = create_optimizer_and_loss_scaler(args, model)
    for epoch in range(args.epochs):
        train_one_epoch(model, loader, optimizer, args.device, epoch, loss_scaler, args=args)
"""


def test_a_scaler_object_a_project_factory_returns_beside_the_optimizer_runs_the_engines_backward(workdir, gradlint):
    """ssvp_slt style: `optimizer, loss_scaler = create_optimizer_and_loss_scaler(cfg, model)`,
    a function of a third module building the NativeScaler-style object; the engine hands each
    micro-batch's loss to it, and the model is DDP: the engine's loop is GL401."""
    files = {
        "util/__init__.py": "", "util/misc.py": SCALER_UTIL, "engine.py": ENGINE_SCALER,
        "utils_training.py": OPTIMIZER_AND_SCALER_FACTORY, "main.py": MAIN_SCALER_FROM_FACTORY,
    }
    project(workdir, files)
    run = check(gradlint, ".")
    assert codes(run) == [("engine.py", "GL401")], run.stdout


DETECTOR_MODULE = '''\
    import torch.nn as nn


    class BiGRU(nn.Module):
        def __init__(self, input_size, hidden_size, n_layers):
            super().__init__()
            self.rnn = nn.GRU(input_size, hidden_size, num_layers=n_layers, bidirectional=True, batch_first=True)
            self.linear = nn.Linear(hidden_size * 2, 1)
            self.sigmoid = nn.Sigmoid()

        def forward(self, x):
            out, _ = self.rnn(x)
            prob = self.sigmoid(self.linear(out))
            return prob
'''

CORRECTOR_MODULE = '''\
    import torch.nn as nn

    from .detector import BiGRU


    class SoftMaskedBert(nn.Module):
        def __init__(self, bert, hidden, layer_n):
            super().__init__()
            self.embedding = bert.embeddings
            self.detector = BiGRU(768, hidden, layer_n)
            self.corrector = bert.encoder
            self.head = nn.Linear(768, bert.config.vocab_size)

        def forward(self, input_ids, input_mask):
            e = self.embedding(input_ids=input_ids)
            p = self.detector(e)
            corrected = self.corrector(p * e + (1 - p) * e, attention_mask=input_mask[:, None, None, :])[0]
            return self.head(corrected + e), p
'''

CORRECTOR_TRAINER = '''\
    import torch
    import torch.nn as nn

    from model import SoftMaskedBert


    class Trainer:
        def __init__(self, bert, hidden, layer_n, device, gama=0.8):
            self.model = SoftMaskedBert(bert, hidden, layer_n).to(device)
            self.optimizer = torch.optim.Adam(self.model.parameters(), lr=2e-5)
            self.criterion_c = nn.NLLLoss()
            self.criterion_d = nn.BCELoss()
            self.gama = gama

        def iteration(self, data_loader):
            for data in data_loader:
                out, prob = self.model(data["input_ids"], data["input_mask"])
                prob = prob.reshape(-1, prob.shape[1])
                loss_d = self.criterion_d(prob, data["label"].float())
                loss_c = self.criterion_c(out.log_softmax(-1).transpose(1, 2), data["output_ids"])
                loss = self.gama * loss_c + (1 - self.gama) * loss_d
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
'''


def test_a_sigmoid_two_imports_away_from_the_trainer_reaches_its_bce_loss(workdir, gradlint):
    """SoftMaskedBert style: the trainer imports the model from a package whose `__init__`
    re-exports it; the model's file imports the detector, whose forward ends in `nn.Sigmoid`;
    the trainer's `nn.BCELoss` takes that probability (GL503), though no file it imports
    directly spells a sigmoid."""
    files = {
        "model/__init__.py": "from .soft_masked_bert import SoftMaskedBert\n",
        "model/soft_masked_bert.py": CORRECTOR_MODULE, "model/detector.py": DETECTOR_MODULE, "train.py": CORRECTOR_TRAINER,
    }
    project(workdir, files)
    run = gradlint("check", "--select", "GL503", "--format", "concise", "train.py")
    assert codes(run) == [("train.py", "GL503")], run.stdout


SEQUENCE_DISCRIMINATOR = """
import torch
import torch.nn as nn


class Discriminator(nn.Module):
    def __init__(self, vocab_size, hidden_dim):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, hidden_dim)
        self.gru = nn.GRU(hidden_dim, hidden_dim, batch_first=True)
        self.hidden2out = nn.Linear(hidden_dim, 1)

    def forward(self, inp):
        _, hidden = self.gru(self.embeddings(inp))
        out = self.hidden2out(hidden[-1])
        return OUTPUT

    def classify(self, inp):
        out = self.forward(inp)
        return out.view(-1)
"""

SEQUENCE_GAN_TRAIN = """
import torch
import torch.nn as nn
import torch.optim as optim

import discriminator


def train_discriminator(discriminator, dis_opt, batches):
    for inp, target in batches:
        dis_opt.zero_grad()
        out = discriminator.classify(inp)
        loss_fn = nn.BCELoss()
        loss = loss_fn(out, target)
        loss.backward()
        dis_opt.step()


if __name__ == "__main__":
    dis = discriminator.Discriminator(5000, 64)
    dis_optimizer = optim.Adagrad(dis.parameters())
    train_discriminator(dis, dis_optimizer, [])
"""


def test_a_parameter_named_like_an_imported_module_is_the_object_its_callers_pass(workdir, gradlint):
    """SeqGAN style: `train_discriminator(discriminator, ...)` in a script that also imports the
    module `discriminator`; the parameter is the `Discriminator()` the caller passes, whose
    `classify` returns its sigmoid-ending forward: BCELoss on it is GL503 (not a module's function,
    unknown); silent where the forward returns the logits."""
    files = {"discriminator.py": SEQUENCE_DISCRIMINATOR.replace("OUTPUT", "torch.sigmoid(out)"), "train.py": SEQUENCE_GAN_TRAIN}
    project(workdir, files)
    run = gradlint("check", "--no-cache", "--select", "GL503", "--format", "concise", "train.py")
    assert codes(run) == [("train.py", "GL503")], run.stdout
    (workdir / "discriminator.py").write_text(textwrap.dedent(SEQUENCE_DISCRIMINATOR.replace("OUTPUT", "out")))
    assert codes(gradlint("check", "--no-cache", "--select", "GL503", "--format", "concise", "train.py")) == []


KAGGLE_CFG = """
import torch


class CFG:
    model = "microsoft/deberta-v3-large"
    train_batch = 8
    max_grad_norm = 10
    accumulation_steps = 1
    seed = 42


cfg = CFG()
"""

KAGGLE_TRAIN_FUNC = """
from util import *
from cfg import *


def train_fn(fold, model, train_dataloader, optimizer, scheduler):
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(5):
        for step, batch in enumerate(train_dataloader):
            with torch.autocast("cuda"):
                loss = model(batch["input_ids"], batch["target"]).mean() / cfg.accumulation_steps
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
            if (step + 1) % cfg.accumulation_steps == 0:
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
                scheduler.step()
"""

KAGGLE_TRAIN = """
import argparse

from cfg import *
from train_func import train_fn

parser = argparse.ArgumentParser()
parser.add_argument("--fold", type=int, default=0)
args = parser.parse_args()
OVERRIDE
train_fn(args.fold, None, None, None, None)
"""


def test_a_window_a_star_imported_settings_instance_fixes_at_one_accumulates_nothing(workdir, gradlint):
    """Kaggle style: `from cfg import *` brings `cfg = CFG()`, whose class fixes
    `accumulation_steps = 1`: no window, so clipping every batch (GL203) and the epoch's end
    (GL205) are fine; once the script sets `cfg.accumulation_steps` from its options, they are not."""
    files = {"util.py": "import os\nimport torch\n", "cfg.py": KAGGLE_CFG, "train_func.py": KAGGLE_TRAIN_FUNC,
             "train.py": KAGGLE_TRAIN.replace("OVERRIDE", "")}
    project(workdir, files)
    run = gradlint("check", "--no-cache", "--select", "GL203,GL205", "--format", "concise", "train_func.py")
    assert codes(run) == [], run.stdout
    (workdir / "train.py").write_text(textwrap.dedent(KAGGLE_TRAIN.replace("OVERRIDE", "cfg.accumulation_steps = 4\n")))
    run = gradlint("check", "--no-cache", "--select", "GL203,GL205", "--format", "concise", "train_func.py")
    assert codes(run) == [("train_func.py", "GL203"), ("train_func.py", "GL205")], run.stdout


PRECISION = """
import logging

import torch


class PrecisionManager:
    def __init__(self, dtype="fp16"):
        self.dtype = dtype
        self.scaler = None

    def setup_scaler(self, enabled=True):
        if not enabled or not torch.cuda.is_available():
            return None
        self.scaler = torch.amp.GradScaler("cuda")
        logging.info("loss scale %s", self.scaler.get_scale())
        return self.scaler

    def step_optimizer(self, optimizer):
        if self.scaler is not None:
            self.scaler.step(optimizer)
            self.scaler.update()
        else:
            optimizer.step()


class GradientGuard:
    def __init__(self, max_norm=1.0):
        self.max_norm = max_norm

    def clip(self, model):
        return torch.nn.utils.clip_grad_norm_(model.parameters(), self.max_norm).item()
"""

STABILITY = """
from precision import GradientGuard, PrecisionManager


class StableStep:
    def __init__(self, mixed_precision=True, max_norm=1.0):
        self.guard = GradientGuard(max_norm)
        self.precision = PrecisionManager()
        if mixed_precision:
            self.scaler = self.precision.setup_scaler(enabled=True)
        else:
            self.scaler = None

    def run(self, model, optimizer, loss):
        if self.scaler is not None:
            scaled = self.scaler.scale(loss)
            scaled.backward()
        else:
            loss.backward()
        UNSCALE
        norm = self.guard.clip(model)
        self.precision.step_optimizer(optimizer)
        optimizer.zero_grad()
        return norm
"""


def test_a_scaler_a_held_helper_object_builds_and_returns_is_one_for_the_clip(workdir, gradlint):
    """The step object keeps the scaler that its precision helper's `setup_scaler()` returns (a
    `GradScaler`, or `None` when mixed precision is off), and clips through another helper
    object: the clip reads scaled gradients (GL301) until the scaler unscales them first."""
    files = {"precision.py": PRECISION, "stability.py": STABILITY.replace("UNSCALE", "")}
    project(workdir, files)
    run = gradlint("check", "--no-cache", "--select", "GL301", "--format", "concise", "stability.py")
    assert codes(run) == [("stability.py", "GL301")], run.stdout
    assert "self.scaler.unscale_(optimizer)" in run.stdout
    (workdir / "stability.py").write_text(textwrap.dedent(STABILITY.replace("UNSCALE", "if self.scaler is not None:\n            self.scaler.unscale_(optimizer)")))
    run = gradlint("check", "--no-cache", "--select", "GL301", "--format", "concise", "stability.py")
    assert codes(run) == [], run.stdout


BASE_TRAINER = """
import torch


class OptimizedTrainer:
    def __init__(self, model, optimizer, grad_accum_steps):
        self.model = model
        self.optimizer = optimizer
        self.grad_accum_steps = grad_accum_steps

    def train_epoch(self, loader):
        self.model.train()
        for batch_idx, (x, y) in enumerate(loader):
            loss = torch.nn.functional.cross_entropy(self.model(x.cuda()), y.cuda())
            (loss / self.grad_accum_steps).backward()
            if (batch_idx + 1) % self.grad_accum_steps == 0 or batch_idx + 1 == len(loader):
                self.optimizer.step()
                self.optimizer.zero_grad()
"""

MULTI_GPU_TRAINER = """
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from trainer import OptimizedTrainer


class MultiGPUTrainer(OptimizedTrainer):
    def __init__(self, model, optimizer, grad_accum_steps, local_rank):
        super().__init__(model, optimizer, grad_accum_steps)
        WRAP

    def train_epoch(self, loader):
        loader.sampler.set_epoch(dist.get_rank())
        return super().train_epoch(loader)
"""


def test_a_subclass_in_another_module_that_wraps_the_model_in_ddp_makes_the_base_loop_ddp(workdir, gradlint):
    """A multi-GPU subclass (its own module) replaces `self.model` with a DDP wrapper and runs
    the base class's accumulating `train_epoch`: every micro-batch all-reduces (GL401); without
    the wrapper, the base loop is silent."""
    files = {"trainer.py": BASE_TRAINER, "multi_gpu.py": MULTI_GPU_TRAINER.replace("WRAP", "self.model = DDP(self.model, device_ids=[local_rank])")}
    project(workdir, files)
    run = gradlint("check", "--no-cache", "--select", "GL401", "--format", "concise", ".")
    assert codes(run) == [("trainer.py", "GL401")], run.stdout
    (workdir / "multi_gpu.py").write_text(textwrap.dedent(MULTI_GPU_TRAINER.replace("WRAP", "self.local_rank = local_rank")))
    run = gradlint("check", "--no-cache", "--select", "GL401", "--format", "concise", ".")
    assert codes(run) == [], run.stdout


DICT_TRAINER = """
import torch


class Trainer:
    def __init__(self, models, optimizer, accum_steps):
        self.models = models
        self.optimizer = optimizer
        self.accum_steps = accum_steps

    def train_epoch(self, loader):
        it = iter(loader)
        for _ in range(len(loader) // self.accum_steps):
            for _ in range(self.accum_steps):
                self.step(next(it))
            self.optimizer.step()
            self.optimizer.zero_grad()

    def step(self, batch):
        model = self.models["model"]
        x, y = batch
        loss = torch.nn.functional.cross_entropy(model(x), y) / self.accum_steps
        loss.backward()
"""

DICT_MAIN = """
import torch
from torch.nn.parallel import DistributedDataParallel

from trainer import Trainer


def main(args, model, loader):
    if args.world_size > 1:
        model = WRAP
    models = {"model": model, "teacher": None}
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    trainer = Trainer(models=models, optimizer=optimizer, accum_steps=args.accum_steps)
    trainer.train_epoch(loader)
"""


def test_a_ddp_model_handed_to_a_trainer_in_a_dict_of_models(workdir, gradlint):
    """`main.py` wraps the model in DDP and hands the trainer `{"model": model}`; the trainer's
    step reads `self.models["model"]` and accumulates without `no_sync` (GL401); a model the
    script does not wrap leaves it silent."""
    project(workdir, {"trainer.py": DICT_TRAINER, "main.py": DICT_MAIN.replace("WRAP", "DistributedDataParallel(model, device_ids=[args.local_rank])")})
    run = gradlint("check", "--no-cache", "--select", "GL401", "--format", "concise", "trainer.py")
    assert codes(run) == [("trainer.py", "GL401")], run.stdout
    (workdir / "main.py").write_text(textwrap.dedent(DICT_MAIN.replace("WRAP", "model.cuda()")))
    run = gradlint("check", "--no-cache", "--select", "GL401", "--format", "concise", "trainer.py")
    assert codes(run) == [], run.stdout


def test_a_settings_class_two_star_imports_down_fixes_the_window(workdir, gradlint):
    """`train_func.py` has `CFG` through `from data_setup import *`, whose own `from cfg import
    *` brings the class fixing `accumulation_steps = 1`: no window, so the clip on every batch
    (GL203) and the epoch's end (GL205) are fine; a class leaving the window at 4 makes both
    bugs again."""
    data_setup = "import torch\nfrom cfg import *\n\n\ndef collate(batch):\n    return batch\n"
    files = {"util.py": "import os\nimport torch\n", "cfg.py": KAGGLE_CFG, "data_setup.py": data_setup,
             "train_func.py": KAGGLE_TRAIN_FUNC.replace("from cfg import *", "from data_setup import *").replace("cfg.", "CFG.")}
    project(workdir, files)
    run = gradlint("check", "--no-cache", "--select", "GL203,GL205", "--format", "concise", "train_func.py")
    assert codes(run) == [], run.stdout
    (workdir / "cfg.py").write_text(textwrap.dedent(KAGGLE_CFG.replace("accumulation_steps = 1", "accumulation_steps = 4")))
    run = gradlint("check", "--no-cache", "--select", "GL203,GL205", "--format", "concise", "train_func.py")
    assert codes(run) == [("train_func.py", "GL203"), ("train_func.py", "GL205")], run.stdout


FLUSH_RUNTIME = """
import torch


def flush_partial_window(model, opt, grad_clip, batch_idx, accum_steps):
    if batch_idx >= 0 and (batch_idx + 1) % accum_steps != 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        opt.step()
        opt.zero_grad(set_to_none=True)


def log_learning_rate(writer, opt, epoch):
    writer.add_scalar("lr", opt.param_groups[0]["lr"], epoch)
"""

FLUSH_TRAIN = """
import torch

from runtime import flush_partial_window, log_learning_rate


def train_step(model, batch, optimizer, grad_clip, accum_steps, batch_idx):
    inputs, targets = batch
    loss = torch.nn.functional.l1_loss(model(inputs), targets)
    (loss / accum_steps).backward()
    if (batch_idx + 1) % accum_steps == 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    return loss.item()


def train(model, loader, writer, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    accum_steps = cfg["grad_accum_steps"]
    for epoch in range(cfg["epochs"]):
        optimizer.zero_grad(set_to_none=True)
        batch_idx = -1
        for batch_idx, batch in enumerate(loader):
            train_step(model, batch, optimizer, cfg["grad_clip"], accum_steps, batch_idx)
        AFTER
"""


def test_a_tail_flushed_by_another_modules_helper_handed_the_optimizer(workdir, gradlint):
    """After the epoch's batches `train.py` hands the optimizer to `runtime.flush_partial_window`,
    which steps on the partial window left over: no tail is dropped. Handing it to a helper that
    only reads its learning rate flushes nothing (GL205)."""
    flush = "flush_partial_window(model, optimizer, cfg['grad_clip'], batch_idx, accum_steps)"
    project(workdir, {"runtime.py": FLUSH_RUNTIME, "train.py": FLUSH_TRAIN.replace("AFTER", flush)})
    run = gradlint("check", "--no-cache", "--select", "GL205", "--format", "concise", "train.py")
    assert codes(run) == [], run.stdout
    (workdir / "train.py").write_text(textwrap.dedent(FLUSH_TRAIN.replace("AFTER", "log_learning_rate(writer, optimizer, epoch)")))
    run = gradlint("check", "--no-cache", "--select", "GL205", "--format", "concise", "train.py")
    assert codes(run) == [("train.py", "GL205")], run.stdout


SCALER_MISC = """
import torch


class NativeScalerWithGradNormCount:
    def __init__(self):
        self._scaler = torch.amp.GradScaler("cuda")

    def __call__(self, loss, optimizer, parameters=None, update_grad=True):
        self._scaler.scale(loss).backward()
        if update_grad:
            self._scaler.unscale_(optimizer)
            norm = torch.nn.utils.clip_grad_norm_(parameters, 1.0)
            self._scaler.step(optimizer)
            self._scaler.update()
            return norm
        return None
"""

INLINE_MAIN = """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from util.misc import NativeScalerWithGradNormCount as NativeScaler


def main(args, model, data_loader):
    model = DDP(model.cuda(), device_ids=[args.gpu])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95))
    loss_scaler = NativeScaler()
    optimizer.zero_grad()
    for epoch in range(args.epochs):
        data_loader.sampler.set_epoch(epoch)
        for it, (samples, _) in enumerate(data_loader):
            with torch.autocast("cuda"):
                loss, _, _ = model(samples.cuda(non_blocking=True), mask_ratio=args.mask_ratio)
            loss = loss / args.accum_iter
            last = (it + 1) % args.accum_iter == 0 or it + 1 == len(data_loader)
            loss_scaler(loss, optimizer, parameters=model.parameters(), update_grad=last)
            if last:
                optimizer.zero_grad()
"""


def test_a_loop_written_in_main_that_calls_an_imported_scaler_object(workdir, gradlint):
    """MAE style with the loop inline in `main`: the scaler object built from `util.misc`'s
    class backpropagates every micro-batch and steps when told; the loop, not only `main`, is a
    training loop, so the DDP model accumulating without `no_sync` is reported (GL401)."""
    project(workdir, {"util/__init__.py": "", "util/misc.py": SCALER_MISC, "train.py": INLINE_MAIN})
    run = gradlint("check", "--no-cache", "--select", "GL401", "--format", "concise", "train.py")
    assert codes(run) == [("train.py", "GL401")], run.stdout


PICKED_TRAINERS = """
import torch


def pretrain(loader, model, optimizer, args):
    for step, batch in enumerate(loader):
        loss = model(batch).mean() / args.grad_steps
        loss.backward()
        if (step + 1) % args.grad_steps == 0 or step + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
"""

PICKED_MAIN = """
import torch

from trainers import pretrain, finetune


def main_worker(args, model, loaders):
    model = torch.nn.parallel.DistributedDataParallel(model.cuda(args.gpu), device_ids=[args.gpu])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    train = pretrain if args.trainer == "pretrain" else finetune
    for epoch in range(args.epochs):
        train(loaders["train"], model, optimizer, args)
"""


def test_trainer_picked_into_a_name_by_an_option_gets_the_ddp_model(workdir, gradlint):
    """STELLA style: `main_worker` wraps the model in DDP and picks the epoch function imported
    from another module into a local name (`train = pretrain if ... else finetune`), then calls
    that name: the picked function's accumulation loop all-reduces every micro-batch."""
    trainers = PICKED_TRAINERS + "\n\ndef finetune(loader, model, optimizer, args):\n    pass\n"
    project(workdir, {"trainers.py": trainers, "main.py": PICKED_MAIN})
    assert codes(check(gradlint, "trainers.py")) == [("trainers.py", "GL401")]
    (workdir / "main.py").write_text(textwrap.dedent(PICKED_MAIN).replace(
        "    model = torch.nn.parallel.DistributedDataParallel(model.cuda(args.gpu), device_ids=[args.gpu])\n", ""
    ))
    assert codes(check(gradlint, "trainers.py")) == []


MIXED_PRECISION_TRAINER = """
import torch


class MixedPrecisionTrainer:
    def __init__(self, model, use_fp16=False, initial_lg_loss_scale=20.0):
        self.model = model
        self.use_fp16 = use_fp16
        self.master_params = list(model.parameters())
        self.lg_loss_scale = initial_lg_loss_scale

    def zero_grad(self):
        for param in self.master_params:
            param.grad = None

    def backward(self, loss):
        if self.use_fp16:
            (loss * 2 ** self.lg_loss_scale).backward()
        else:
            loss.backward()

    def optimize(self, opt):
        if self.use_fp16:
            for param in self.master_params:
                param.grad.mul_(1.0 / 2 ** self.lg_loss_scale)
        opt.step()
        return True
"""

DIFFUSION_BASE_LOOP = """
from torch.nn.parallel.distributed import DistributedDataParallel as DDP
from torch.optim import AdamW

from utils.fp16_util import MixedPrecisionTrainer


class TrainLoop:
    def __init__(self, model, data, batch_size, microbatch, lr=1e-4, use_fp16=False):
        self.model = model
        self.data = data
        self.batch_size = batch_size
        self.microbatch = microbatch if microbatch > 0 else batch_size
        self.mp_trainer = MixedPrecisionTrainer(model, use_fp16=use_fp16)
        self.opt = AdamW(self.mp_trainer.master_params, lr=lr)
        self.ddp_model = DDP(self.model)
        self.step = 0

    def run_loop(self):
        while True:
            self.run_step(next(self.data))
            self.step += 1

    def run_step(self, batch):
        self.forward_backward(batch)
        took_step = self.mp_trainer.optimize(self.opt)
        if took_step:
            self.step += 0

    def forward_backward(self, batch):
        pass
"""

UNET_SUBCLASS_LOOP = """
import torch as th

from utils.train_utils.base_train_util import TrainLoop


class UNetTrainLoop(TrainLoop):
    def forward_backward(self, batch):
        images, labels = batch
        self.mp_trainer.zero_grad()
        for i in range(0, images.shape[0], self.microbatch):
            micro_input = images[i : i + self.microbatch]
            micro_label = labels[i : i + self.microbatch]
            last_batch = (i + self.microbatch) >= images.shape[0]
            if last_batch:
                output = self.ddp_model(micro_input)
            else:
                with self.ddp_model.no_sync():
                    output = self.ddp_model(micro_input)
            loss = th.nn.functional.mse_loss(output, micro_label){divided}
            self.mp_trainer.backward(loss)
"""


@pytest.mark.parametrize("divided, expected", [
    ("", [("unet_train_util.py", "GL201")]),
    (" * micro_input.shape[0] / images.shape[0]", []),  # each slice weighed by its share: silent
])
def test_an_override_that_backpropagates_slices_before_its_base_class_steps(workdir, gradlint, divided, expected):
    """guided-diffusion's `forward_backward`, a do-nothing hook in a base `TrainLoop` of another
    module and written per subclass: each slice's mean loss is backpropagated through a helper
    object the base class built, and the base's `run_step` steps once the override returns."""
    project(workdir, {
        "utils/__init__.py": "",
        "utils/fp16_util.py": MIXED_PRECISION_TRAINER,
        "utils/train_utils/__init__.py": "",
        "utils/train_utils/base_train_util.py": DIFFUSION_BASE_LOOP,
        "utils/train_utils/unet_train_util.py": UNET_SUBCLASS_LOOP.format(divided=divided),
    })
    run = gradlint("check", "--no-cache", "--format", "concise", ".")
    assert codes(run) == expected, run
    assert not expected or "unet_train_util.py:21:" in run.stdout and "`TrainLoop.run_step`, once `forward_backward` returns" in run.stdout, run


LM_BASE_TRAINER = """
import torch


class BaseTrainer:
    def __init__(self, model, optimizer, train_loader, device="cuda", grad_accum_steps=1):
        self.model = model.to(device)
        self.optimizer = optimizer
        self.batches = iter(train_loader)
        self.grad_accum_steps = grad_accum_steps
        self.scaler = torch.amp.GradScaler("cuda")

    def backward(self, loss):
        self.scaler.scale(loss / self.grad_accum_steps).backward()

    def optimizer_step(self):
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad(set_to_none=True)
"""

LM_CAUSAL_TRAINER = """
import contextlib

from lm.core import BaseTrainer


class CausalTrainer(BaseTrainer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)

    def train_step(self):
        for micro_step in range(self.grad_accum_steps):
            batch = next(self.batches)
            last = micro_step == self.grad_accum_steps - 1
            with {sync}:
                loss = self.model(batch["input_ids"], labels=batch["labels"])
                self.backward(loss)
        self.optimizer_step()
"""

LM_TRAIN_SCRIPT = """
import torch
from torch.nn.parallel import DistributedDataParallel

from lm.trainers.causal import CausalTrainer


def main(cfg, model, loader, rank):
    model = DistributedDataParallel(model.cuda(rank), device_ids=[rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    trainer = CausalTrainer(model, optimizer, loader, grad_accum_steps=cfg.grad_accum_steps)
    for _ in range(cfg.max_iterations):
        trainer.train_step()
"""


@pytest.mark.parametrize("sync, expected", [
    ("contextlib.nullcontext()", [("causal.py", "GL401"), ("train.py", "GL401")]),
    ("contextlib.nullcontext() if last else self.model.no_sync()", []),
])
def test_a_ddp_model_given_to_a_subclass_reaches_the_base_class_constructor(workdir, gradlint, sync, expected):
    """The script builds the causal-LM trainer with its DDP model; the subclass hands every
    argument on to the base class's constructor in another module, which moves the model to the
    device and keeps it on `self.model`: the subclass's micro-batch loop runs a DDP model."""
    project(workdir, {
        "lm/__init__.py": "",
        "lm/core.py": LM_BASE_TRAINER,
        "lm/trainers/__init__.py": "",
        "lm/trainers/causal.py": LM_CAUSAL_TRAINER.format(sync=sync),
        "train.py": LM_TRAIN_SCRIPT,
    })
    run = gradlint("check", "--no-cache", "--format", "concise", ".")
    assert codes(run) == expected, run


TEMPLATE_BASE_TRAINER = """
import torch


class BaseTrainer:
    def __init__(self, model, criterion, optimizer, lr_scheduler, config, train_dataloader, epoch_len=None):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.train_dataloader = train_dataloader
        self.grad_accum = config.trainer.get("grad_accum", 1)
        self.epoch_len = len(train_dataloader) if epoch_len is None else epoch_len
        self.epochs = config.trainer.n_epochs

    def train(self):
        for epoch in range(1, self.epochs + 1):
            self._train_epoch(epoch)

    def _train_epoch(self, epoch):
        self.is_train = True
        self.model.train()
        for batch_idx, batch in enumerate(self.train_dataloader):
            batch = self.process_batch(batch, batch_idx=batch_idx)
            if batch_idx + 1 >= self.epoch_len:
                break

    def _evaluation_epoch(self, dataloader):
        self.is_train = False
        self.model.eval()
        with torch.no_grad():
            for batch_idx, batch in enumerate(dataloader):
                self.process_batch(batch, batch_idx=batch_idx)
"""

TEMPLATE_TRAINER = """
import torch

from src.trainer.base_trainer import BaseTrainer


class Trainer(BaseTrainer):
    def process_batch(self, batch, batch_idx):
        if self.is_train and batch_idx % self.grad_accum == 0:
            self.optimizer.zero_grad()
        outputs = self.model(**batch)
        batch.update(outputs)
        batch.update(self.criterion(**batch))
        if self.is_train:
            (batch["loss"] / self.grad_accum).backward()
            if {window}:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 10.0)
                self.optimizer.step()
                self.lr_scheduler.step()
        return batch
"""


@pytest.mark.parametrize("window, expected", [
    ("(batch_idx + 1) % self.grad_accum == 0", [("trainer.py", "GL205")]),
    ("(batch_idx + 1) % self.grad_accum == 0 or batch_idx + 1 == self.epoch_len", []),
])
def test_a_subclass_step_that_the_base_class_epoch_hands_its_index(workdir, gradlint, window, expected):
    """A course template: the base class's `_train_epoch` (and its evaluation epoch, under
    `no_grad`) hands each batch and its index to `process_batch`, which only the subclass in
    another module defines; the subclass steps on `(batch_idx + 1) % grad_accum`, so the epoch's
    last partial window never steps unless the test also takes the epoch's last batch."""
    project(workdir, {
        "src/__init__.py": "",
        "src/trainer/__init__.py": "",
        "src/trainer/base_trainer.py": TEMPLATE_BASE_TRAINER,
        "src/trainer/trainer.py": TEMPLATE_TRAINER.format(window=window),
    })
    run = gradlint("check", "--no-cache", "--format", "concise", ".")
    assert codes(run) == expected, run
    assert not expected or "(the epoch `BaseTrainer._train_epoch` runs)" in run.stdout, run


LM_DDP_WRAPPER = """
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel


class DistributedWrapper(nn.Module):
    def __init__(self, model):
        super().__init__()
        object.__setattr__(self, "model", model)

    def forward(self, *args, **kwargs):
        return self.model(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(object.__getattribute__(self, "model"), name)


class DDPWrapper(DistributedWrapper):
    def __init__(self, model, device_id):
        super().__init__(DistributedDataParallel(model.to(device_id), device_ids=[device_id]))
"""


@pytest.mark.parametrize("wrapper, expected", [
    ("DDPWrapper", [("causal.py", "GL401"), ("train.py", "GL401")]),
    ("DistributedWrapper", []),  # holds the model as it is: no DDP
])
def test_a_project_module_class_that_wraps_its_model_in_ddp_is_a_ddp_model(workdir, gradlint, wrapper, expected):
    """The script wraps the model in the package's `DDPWrapper`, an nn.Module whose constructor
    hands `DistributedDataParallel(model)` to its base class to run as its forward (re-exported
    by the package): the trainer it is given accumulates over a DDP model."""
    script = LM_TRAIN_SCRIPT.replace(
        "from lm.trainers.causal import CausalTrainer",
        f"from lm import {wrapper}\nfrom lm.trainers.causal import CausalTrainer",
    ).replace(
        "model = DistributedDataParallel(model.cuda(rank), device_ids=[rank])", f"model = {wrapper}(model, rank)"
        if wrapper == "DDPWrapper" else f"model = {wrapper}(model.cuda(rank))",
    )
    project(workdir, {
        "lm/__init__.py": "from .wrappers import DDPWrapper, DistributedWrapper\n",
        "lm/wrappers.py": LM_DDP_WRAPPER,
        "lm/core.py": LM_BASE_TRAINER,
        "lm/trainers/__init__.py": "",
        "lm/trainers/causal.py": LM_CAUSAL_TRAINER.format(sync="contextlib.nullcontext()"),
        "train.py": script,
    })
    run = gradlint("check", "--no-cache", "--format", "concise", ".")
    assert codes(run) == expected, run


LAVIS_RUNNER = """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

from {pkg}.common.registry import registry


class RunnerBase:
    def __init__(self, cfg, task, model):
        self.config = cfg
        self.task = task
        self._model = model
        self._wrapped_model = None
        self._optimizer = None
        self._scaler = None

    @property
    def model(self):
        if self._wrapped_model is None:
            if self.config.run_cfg.distributed:
                self._wrapped_model = DDP(self._model, device_ids=[self.config.run_cfg.gpu])
            else:
                self._wrapped_model = self._model
        return self._wrapped_model

    @property
    def scaler(self):
        if self._scaler is None:
            self._scaler = torch.amp.GradScaler("cuda")
        return self._scaler

    def train_epoch(self, epoch, optimizer, lr_scheduler, loader):
        self.model.train()
        return self.task.train_epoch(
            epoch=epoch, model=self.model, data_loader=loader, optimizer=optimizer,
            scaler=self.scaler, lr_scheduler=lr_scheduler,
            accum_grad_iters=self.config.run_cfg.get("accum_grad_iters", 1),
        )
"""

LAVIS_TASK = """
import torch


class BaseTask:
    def train_step(self, model, samples):
        return model(samples)["loss"]

    def train_epoch(self, epoch, model, data_loader, optimizer, lr_scheduler, scaler=None, accum_grad_iters=1):
        return self._train_inner_loop(epoch, len(data_loader), model, iter(data_loader), optimizer, scaler, lr_scheduler, accum_grad_iters)

    def _train_inner_loop(self, epoch, iters_per_epoch, model, data_loader, optimizer, scaler, lr_scheduler, accum_grad_iters=1):
        for i in range(iters_per_epoch):
            samples = next(data_loader)
            lr_scheduler.step(cur_epoch=epoch, cur_step=i)
            with torch.autocast("cuda", dtype=torch.float16):
                loss = self.train_step(model, samples) / accum_grad_iters
            scaler.scale(loss).backward()
            if (i + 1) % accum_grad_iters == 0:
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
"""


def lavis_package(root: str, package: str = "lavis", task: str = LAVIS_TASK) -> dict[str, str]:
    """The files of a LAVIS-style package under `root`: a registry, a runner handing its lazily
    DDP-wrapped model to `self.task.train_epoch(...)`, and the task."""
    return {
        f"{root}__init__.py": "",
        f"{root}common/__init__.py": "",
        f"{root}common/registry.py": "registry = {}\n",
        f"{root}runners/__init__.py": "",
        f"{root}runners/runner_base.py": LAVIS_RUNNER.format(pkg=package),
        f"{root}tasks/__init__.py": "",
        f"{root}tasks/base_task.py": task,
    }


@pytest.mark.parametrize("copied", [False, True])
def test_a_vendored_copy_of_the_task_package_leaves_the_ddp_runner_known(workdir, gradlint, copied):
    """A LAVIS-style runner hands its lazily DDP-wrapped model to `self.task.train_epoch(...)`, a
    task from a registry; a repository that vendors a second copy of the same package (the same
    task code under another folder) still runs that code with the runner's DDP model."""
    files = lavis_package("lavis/")
    if copied:
        files.update(lavis_package("second_step/lavis/"))
    project(workdir, files)
    run = gradlint("check", "--no-cache", "--format", "concise", ".")
    assert set(codes(run)) == {("base_task.py", "GL401"), ("base_task.py", "GL205")}, run  # no flush of the tail either
    assert [code for _, code in codes(run)].count("GL401") == (2 if copied else 1), run


LAVIS_DEEPSPEED_RUNNER = """
import deepspeed


class DeepSpeedRunner:
    def __init__(self, cfg, task, model):
        self.config = cfg
        self.task = task
        self._model = model
        self._engine = None

    @property
    def model(self):
        if self._engine is None:
            self._engine, self._optimizer, _, _ = deepspeed.initialize(model=self._model, config=self.config.ds_config)
        return self._engine

    def train_epoch(self, epoch, lr_scheduler, loader):
        return self.task.train_epoch(
            epoch=epoch, model=self.model, data_loader=loader, optimizer=self._optimizer,
            lr_scheduler=lr_scheduler, accum_grad_iters=self.config.accum_grad_iters,
        )
"""

LAVIS_DEEPSPEED_TASK = """
from lavis.tasks.base_task import BaseTask


class DeepSpeedTask(BaseTask):
    def train_epoch(self, epoch, model, data_loader, optimizer, lr_scheduler, accum_grad_iters=1):
        for i, samples in enumerate(data_loader):
            lr_scheduler.step(cur_epoch=epoch, cur_step=i)
            loss = model(samples)["loss"]
            model.backward(loss)
            model.step()
"""

LAVIS_LITE_TASK = """
import torch


class BaseTask:
    def train_step(self, model, samples):
        output = model(samples)
        return output["loss"], {k: v.detach() for k, v in output.items() if "loss" in k}

    def train_epoch(self, epoch, model, data_loader, optimizer, lr_scheduler, scaler=None, accum_grad_iters=1, grad_norm_clip=None):
        model.train()
        for i, samples in enumerate(data_loader):
            lr_scheduler.step(cur_epoch=epoch, cur_step=i)
            with torch.autocast("cuda", dtype=torch.float16):
                loss, logged = self.train_step(model, samples)
            scaler.scale(loss / accum_grad_iters).backward()
            if (i + 1) % accum_grad_iters == 0:
                if grad_norm_clip is not None:
                    scaler.unscale_(optimizer)
                    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_norm_clip)
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
"""


def test_each_task_package_takes_the_calls_of_its_own_runners(workdir, gradlint):
    """A repository holding the LAVIS package and a rewritten copy of it (`lavis_lite/`), whose
    runners call `self.task.train_epoch(...)` on tasks from their registries: the name is
    defined six times across the two packages (runners, tasks, a DeepSpeed task), but each
    runner's call fits one task of its own package, which gets the runner's DDP model; the
    DeepSpeed runner's call fits two tasks, and runs none of them for certain."""
    files = {
        **lavis_package("lavis/"),
        "lavis/runners/deepspeed_runner.py": LAVIS_DEEPSPEED_RUNNER,
        "lavis/tasks/deepspeed_task.py": LAVIS_DEEPSPEED_TASK,
        **lavis_package("lavis_lite/", package="lavis_lite", task=LAVIS_LITE_TASK),
    }
    project(workdir, files)
    run = gradlint("check", "--no-cache", "--format", "concise", ".")
    found = [(line.split(":")[0], line.split()[1]) for line in run.stdout.splitlines() if ": GL" in line]
    assert sorted(code for path, code in found if code == "GL401") == ["GL401", "GL401"], run
    assert {path for path, code in found if code == "GL401"} == {"lavis/tasks/base_task.py", "lavis_lite/tasks/base_task.py"}, run
    assert not [path for path, _ in found if "deepspeed" in path], run
