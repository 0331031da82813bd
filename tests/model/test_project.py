"""The project model (DESIGN §2.3): root, import resolution, summaries and the caller index,
on small projects laid out the way training repositories are."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

from gradlint.model.project import Project, ProjectContext, find_root
from gradlint.model.summaries import ModuleSummary, star_imports

ENGINE = """
import math

import torch


def train_one_epoch(model, loader, optimizer, accum_steps=4, clip=None):
    model.train()
    for step, (images, targets) in enumerate(loader):
        outputs = model(images)
        loss = torch.nn.functional.cross_entropy(outputs, targets)
        loss.backward()
        if (step + 1) % accum_steps == 0:
            if clip:
                torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            optimizer.step()
            optimizer.zero_grad()


def train_step(model, batch, optimizer, scaler):
    with torch.autocast("cuda"):
        loss = model(**batch).loss
    scaler.scale(loss).backward()
    return loss.detach()


def build_optimizer(model, lr, weight_decay=0.05):
    decay = [p for p in model.parameters() if p.ndim > 1]
    rest = [p for p in model.parameters() if p.ndim <= 1]
    return torch.optim.AdamW([{"params": decay, "weight_decay": weight_decay}, {"params": rest}], lr=lr)


def evaluate(model, loader):
    return math.fsum(float(model(x).argmax(-1).eq(y).float().mean()) for x, y in loader)
"""

UTILS = """
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def backward_step(loss, optimizer, max_norm=1.0):
    loss.backward()


def backward_averaged(loss, accum_steps):
    loss = loss / accum_steps
    loss.backward()


def wrap_model(model, rank):
    return DistributedDataParallel(model.to(rank), device_ids=[rank])
"""

MAIN = """
import argparse

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import engine
from engine import build_optimizer


def main(args):
    dist.init_process_group("nccl")
    model = torch.nn.Linear(8, 2).cuda()
    model = DDP(model, device_ids=[args.local_rank])
    optimizer = build_optimizer(model, args.lr)
    for epoch in range(args.epochs):
        engine.train_one_epoch(model, loader, optimizer, accum_steps=args.accum)
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def resolve(project: Project, importer: Path, name: str):
    summarized = project.summary(importer)
    assert summarized is not None
    return project.resolve(importer, summarized[1].imports, name)


def test_root_is_the_nearest_folder_with_a_marker(tmp_path):
    for index, marker in enumerate(("pyproject.toml", "setup.py", "setup.cfg", ".git")):
        folder = tmp_path / f"repo{index}"
        (folder / "pkg" / "sub").mkdir(parents=True)
        (folder / marker).mkdir() if marker == ".git" else (folder / marker).write_text("")
        (folder / "pkg" / "sub" / "train.py").write_text("")
        assert find_root(folder / "pkg" / "sub" / "train.py") == folder
    (tmp_path / "plain" / "setup.py").mkdir(parents=True)  # a folder named like a marker is none
    (tmp_path / "plain" / "train.py").write_text("")
    assert find_root(tmp_path / "plain" / "train.py") != tmp_path / "plain"


def test_script_style_imports_of_sibling_modules(tmp_path):
    root = write(tmp_path, {"pyproject.toml": "", "engine.py": ENGINE, "main.py": MAIN})
    project = Project(root)
    symbol = resolve(project, root / "main.py", "engine.train_one_epoch")
    assert symbol.path == (root / "engine.py").resolve() and symbol.names == ("train_one_epoch",)
    assert resolve(project, root / "main.py", "build_optimizer").summary.returns == ("optimizer",)
    # torch, argparse and names nobody imported stay unknown
    assert resolve(project, root / "main.py", "torch.optim.AdamW") is None
    assert resolve(project, root / "main.py", "argparse.ArgumentParser") is None
    assert resolve(project, root / "main.py", "main") is None


def test_src_layout_package_with_relative_imports_and_reexports(tmp_path):
    root = write(tmp_path, {
        "setup.cfg": "",
        "src/trainer/__init__.py": "from .engine import train_one_epoch\n",
        "src/trainer/engine.py": ENGINE + "\nfrom . import utils\n",
        "src/trainer/utils.py": UTILS,
        "src/trainer/cli/run.py": """
            from trainer.engine import train_one_epoch as t
            from trainer import train_one_epoch
            from ..utils import wrap_model
            import trainer.engine
            from trainer import engine as eng
        """,
    })
    project = Project(root)
    run = root / "src/trainer/cli/run.py"
    engine = (root / "src/trainer/engine.py").resolve()
    assert resolve(project, run, "t").path == engine
    assert resolve(project, run, "train_one_epoch").path == engine  # through the package's __init__
    assert resolve(project, run, "trainer.engine.train_step").names == ("train_step",)
    assert resolve(project, run, "eng.evaluate").names == ("evaluate",)
    assert resolve(project, run, "wrap_model").summary.returns == ("ddp model",)
    helper = resolve(project, root / "src/trainer/engine.py", "utils.backward_step")
    assert helper.path == (root / "src/trainer/utils.py").resolve()


def test_star_imports_resolve_to_the_module_defining_the_name(tmp_path):
    """`from engine import *` brings engine's names; a package's `from .engine import *`
    re-exports them; a name no star-imported module defines stays unknown."""
    root = write(tmp_path, {
        "pyproject.toml": "",
        "engine.py": ENGINE,
        "utils.py": UTILS,
        "trainer/__init__.py": "from .loops import *\n",
        "trainer/loops.py": ENGINE,
        "main.py": """
            from engine import *
            from utils import *
            import trainer
            from trainer import train_step
        """,
    })
    project = Project(root)
    main = root / "main.py"
    assert resolve(project, main, "train_one_epoch").path == (root / "engine.py").resolve()
    assert resolve(project, main, "backward_step").path == (root / "utils.py").resolve()
    assert resolve(project, main, "train_step").path == (root / "trainer/loops.py").resolve()
    assert resolve(project, main, "trainer.evaluate").names == ("evaluate",)
    assert resolve(project, main, "no_such_function") is None
    summary = project.summary(main)[1]
    assert [(i.module, i.name) for i in star_imports(summary.imports)] == [("engine", "*"), ("utils", "*")]
    # what a star-imported module imports from outside the project is that library's
    live = project.model(main)
    torch_mean = ast.parse("torch.mean(x)", mode="eval").body.func
    assert live.imports.qualname(torch_mean) == "torch.mean"
    assert live.imports.qualname(ast.parse("train_one_epoch", mode="eval").body) == "engine.train_one_epoch"
    assert ModuleSummary.from_json(json.loads(json.dumps(summary.to_json()))) == summary


def test_a_root_folder_that_is_itself_the_package(tmp_path):
    """A repository cloned as `vidmae/` whose modules import each other as `vidmae.engine`."""
    root = write(tmp_path / "vidmae", {
        ".git/HEAD": "",
        "engine.py": ENGINE,
        "util/misc.py": UTILS,
        "main.py": """
            import vidmae.util.misc as misc
            from vidmae.engine import train_one_epoch
            from other.engine import evaluate
        """,
    })
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "engine.py").write_text(ENGINE)  # beside the root: not the project's
    project = Project(root)
    main = root / "main.py"
    assert resolve(project, main, "train_one_epoch").path == (root / "engine.py").resolve()
    assert resolve(project, main, "misc.wrap_model").summary.returns == ("ddp model",)
    assert resolve(project, main, "evaluate") is None


def test_summaries_index_functions_classes_returns_and_calls(tmp_path):
    root = write(tmp_path, {
        "pyproject.toml": "", "engine.py": ENGINE, "utils.py": UTILS, "main.py": MAIN,
        "trainer.py": """
            import torch
            from utils import wrap_model


            class Trainer(BaseTrainer):
                def build(self, model, rank):
                    return wrap_model(model, rank), torch.optim.SGD(model.parameters(), lr=0.1)

                def maybe_scaler(self, enabled):
                    if enabled:
                        return torch.amp.GradScaler("cuda")
                    return torch.optim.SGD([], lr=1.0)
        """,
    })
    project = Project(root)
    utils = project.summary(root / "utils.py")[1]
    assert utils.functions["backward_step"].params == ("loss", "optimizer", "max_norm")
    assert utils.functions["wrap_model"].returns == ("ddp model",)
    assert project.summary(root / "engine.py")[1].functions["build_optimizer"].returns == ("optimizer",)
    trainer = project.summary(root / "trainer.py")[1].classes["Trainer"]
    assert trainer.bases == ("BaseTrainer",)
    assert trainer.methods["build"].returns == ("ddp model", "optimizer")  # what utils' wrap_model returns
    assert trainer.methods["maybe_scaler"].returns == (None,)  # a scaler here, an optimizer there
    main = project.summary(root / "main.py")[1]
    [site] = [c for c in main.calls if c.callee == "engine.train_one_epoch"]
    assert site.caller == "main" and site.line == 18
    assert site.arguments == ((0, "ddp model", None), (1, None, None), (2, None, "build_optimizer"), ("accum_steps", None, None))


def test_summaries_survive_json(tmp_path):
    root = write(tmp_path, {"pyproject.toml": "", "engine.py": ENGINE, "main.py": MAIN, "utils.py": UTILS})
    project = Project(root)
    for name in ("engine.py", "main.py", "utils.py"):
        summary = project.summary(root / name)[1]
        assert ModuleSummary.from_json(json.loads(json.dumps(summary.to_json()))) == summary


def model_in(project: Project, path: Path):
    """The project's live model of a module, as the linter would check it."""
    model = project.model(path)
    assert model is not None
    return model


def test_caller_index_records_the_roles_callers_pass(tmp_path):
    root = write(tmp_path, {
        "pyproject.toml": "", "engine.py": ENGINE, "main.py": MAIN,
        "tools/eval_only.py": "from engine import evaluate\nevaluate(net, val_loader)\n",
    })
    project = Project(root)
    [(path, site)] = project.callers(root / "engine.py", "train_one_epoch")
    assert path == (root / "main.py").resolve() and site.callee == "engine.train_one_epoch"
    # `optimizer = build_optimizer(...)`: what the project function returns gives the role
    assert [role for _, role, _ in site.arguments] == ["ddp model", None, "optimizer", None]
    assert [p.name for p, _ in project.callers(root / "engine.py", "evaluate")] == ["eval_only.py"]


def test_callers_in_other_modules_through_the_seam(tmp_path):
    root = write(tmp_path, {"pyproject.toml": "", "engine.py": ENGINE, "main.py": MAIN})
    project = Project(root)
    engine = model_in(project, root / "engine.py")
    [(call, context)] = engine.project.callers(engine, engine.functions["train_one_epoch"])
    assert context.module is model_in(project, root / "main.py") and call.lineno == 18
    assert context.scope.name == "main"
    assert str((root / "main.py").resolve()) in engine.project.used  # a cached result depends on main.py
    assert engine.project.callers(engine, engine.functions["evaluate"]) == []


SCALER_UTILS = """
import torch


class MixedPrecisionStep:
    def __init__(self):
        self._scaler = torch.amp.GradScaler("cuda")

    def __call__(self, loss, optimizer, update_grad=True):
        self._scaler.scale(loss).backward()
        if update_grad:
            self._scaler.step(optimizer)
            self._scaler.update()


class Throughput:
    def __call__(self, batch_size, seconds):
        return batch_size / seconds
"""

SCALER_ENGINE = """
def train_one_epoch(model, loader, optimizer, step_scaler, meter, accum_iter=4):
    for it, (x, y) in enumerate(loader):
        loss = model(x, y) / accum_iter
        step_scaler(loss, optimizer, update_grad=(it + 1) % accum_iter == 0)
        meter(x.shape[0], 0.1)
        if (it + 1) % accum_iter == 0:
            optimizer.zero_grad()
"""

SCALER_MAIN = """
import torch

from engine import train_one_epoch
from utils import MixedPrecisionStep, Throughput


def main(model, loader):
    optimizer = torch.optim.AdamW(model.parameters())
    step_scaler = MixedPrecisionStep()
    meter = Throughput()
    train_one_epoch(model, loader, optimizer, step_scaler, meter)
"""


def test_a_parameter_callers_pass_a_gradient_object_for_is_read(tmp_path):
    root = write(tmp_path, {"pyproject.toml": "", "utils.py": SCALER_UTILS, "engine.py": SCALER_ENGINE, "main.py": SCALER_MAIN})
    project = Project(root)
    engine = model_in(project, root / "engine.py")
    assert project.gradient_callables() == {"MixedPrecisionStep"}  # Throughput's __call__ runs no gradient code
    names = engine.project.gradient_names(engine)
    assert "step_scaler" in names and "meter" not in names  # `step_scaler(loss, ...)` runs backward and step


SCHEDULES = '''
def warmup(optimizer, warmup_steps, last_epoch=-1):
    """Linear warm-up.

    optimizer (`torch.optim.Optimizer`): whose learning rate to change.
    warmup_steps (`int`): how many optimizer.step() calls warm up.
    """
    for group in optimizer.param_groups:
        group["lr"] = group["lr"] / warmup_steps
    return optimizer
'''


def test_only_parameters_called_themselves_send_for_callers(tmp_path, monkeypatch):
    """A docstring's `optimizer (...)` or a method call `optimizer.step()` is no call of a
    gradient object: the callers of such a function are not searched for one."""
    root = write(tmp_path, {"pyproject.toml": "", "utils.py": SCALER_UTILS, "engine.py": SCALER_ENGINE,
                            "main.py": SCALER_MAIN, "schedules.py": SCHEDULES})
    project = Project(root)
    asked = []
    searched = project.callers
    monkeypatch.setattr(project, "callers", lambda path, name: asked.append(name) or searched(path, name))
    schedules = model_in(project, root / "schedules.py")
    assert project.gradient_callables() and schedules.project.gradient_names(schedules) == set()
    assert asked == []
    engine = model_in(project, root / "engine.py")
    assert "step_scaler" in engine.project.gradient_names(engine) and asked == ["train_one_epoch"]


def test_callees_and_classes_through_the_seam(tmp_path):
    root = write(tmp_path, {
        "pyproject.toml": "",
        "src/trainer/__init__.py": "from .engine import train_step\n",
        "src/trainer/engine.py": ENGINE + "\n\nclass Trainer:\n    def fit(self):\n        self.loss.backward()\n",
        "src/trainer/utils.py": UTILS,
        "src/trainer/run.py": """
            import trainer
            from . import utils
            from .engine import Trainer
            from trainer.engine import Trainer as T2
            import torch
        """,
    })
    project = Project(root)
    run = model_in(project, root / "src/trainer/run.py")
    callee = run.project.function(run, run.imports.qualname(ast_name("utils.backward_step")))
    assert callee.function.name == "backward_step" and callee.cls is None
    assert callee.module is model_in(project, root / "src/trainer/utils.py")
    reexported = run.project.function(run, run.imports.qualname(ast_name("trainer.train_step")))
    assert reexported.module is model_in(project, root / "src/trainer/engine.py")
    method = run.project.function(run, run.imports.qualname(ast_name("Trainer.fit")))
    assert method.function.name == "fit" and method.cls.name == "Trainer"
    assert run.project.class_def(run, run.imports.qualname(ast_name("T2")))[1].name == "Trainer"
    assert run.project.function(run, run.imports.qualname(ast_name("Trainer"))) is None  # a class
    assert run.project.function(run, "torch.optim.AdamW") is None
    assert {"utils", "backward_step", "backward_averaged"} <= run.project.gradient_names(run)


def test_imports_backward_reads_the_import_lines(tmp_path):
    root = write(tmp_path, {
        "pyproject.toml": "", "utils.py": UTILS, "engine.py": ENGINE,
        "plain.py": "def helper(x):\n    return x\n",
    })
    context = ProjectContext(root / "main.py", project=Project(root))
    assert context.imports_backward("from utils import (\n    backward_step,\n)\n")
    assert context.imports_backward("import engine as e\n")
    assert not context.imports_backward("from plain import helper\nimport torch\n")
    # a name of a module that calls backward elsewhere cannot run it: `wrap_model` only wraps
    assert not context.imports_backward("from utils import wrap_model\n")
    assert context.imports_backward("from utils import wrap_model, backward_averaged as step_loss\n")
    assert context.imports_backward("from utils import *\n")  # a star import: the module's names


def ast_name(text: str):
    import ast

    return ast.parse(text, mode="eval").body


def test_caller_index_parses_only_modules_that_name_the_module(tmp_path):
    root = write(tmp_path, {
        "pyproject.toml": "", "engine.py": ENGINE, "main.py": MAIN,
        "data/augment.py": "import random\n\ndef flip(x):\n    return x[::-1]\n",
        "models/vit.py": "import torch\n\nclass ViT(torch.nn.Module):\n    pass\n",
        "broken.py": "def (:\n",
    })
    project = Project(root)
    assert [p.name for p, _ in project.callers(root / "engine.py", "train_one_epoch")] == ["main.py"]
    parsed = {path.relative_to(root.resolve()).as_posix() for path in project._summaries}
    assert parsed == {"main.py", "engine.py"}


def test_flat_project_is_its_folder_only(tmp_path):
    write(tmp_path, {"scripts/engine.py": ENGINE, "scripts/main.py": MAIN, "scripts/old/main.py": MAIN})
    project = Project(tmp_path / "scripts", flat=True)
    assert [p.name for p in project.files()] == ["engine.py", "main.py"]
    assert [p.name for p, _ in project.callers(tmp_path / "scripts" / "engine.py", "train_one_epoch")] == ["main.py"]


def test_a_checked_module_its_project_parsed_already_is_not_parsed_again(tmp_path, monkeypatch):
    """main.py is checked first and reads engine.py as a project module; checking engine.py
    next reuses that tree (same text), and finds the same DDP accumulation bug as alone."""
    import ast

    from gradlint.config import Config
    from gradlint.runner import Task, run

    root = write(tmp_path, {"pyproject.toml": "", "engine.py": ENGINE, "main.py": MAIN})
    alone = run([Task(str(root / "engine.py"), Config())])[0].diagnostics
    parsed: list[str] = []
    real_parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda text, *args, **kwargs: parsed.append(text) or real_parse(text, *args, **kwargs))
    results = run([Task(str(root / "main.py"), Config()), Task(str(root / "engine.py"), Config())], jobs=1)
    engine_text = (root / "engine.py").read_text()
    assert parsed.count(engine_text) == 1
    assert [d.code for d in results[1].diagnostics] == [d.code for d in alone]
    assert "GL401" in [d.code for d in alone]


def test_a_run_over_many_projects_keeps_only_the_latest_ones_alive(tmp_path):
    """Each worker meets one project's files at a time: the projects it is done with are let go
    (a folder of a thousand checkouts would otherwise hold every one's models), and the one in
    use is the same object each time it is asked for."""
    from gradlint.model import project as projects

    projects.forget_projects()
    files = []
    for index in range(projects.MAX_LIVE_PROJECTS + 4):
        root = tmp_path / f"repo{index}"
        root.mkdir()
        (root / "pyproject.toml").write_text("[project]\n")
        (root / "train.py").write_text("import torch\n")
        files.append(str(root / "train.py"))
    seen = [projects.project_for(f) for f in files]
    assert len(projects._PROJECTS) == projects.MAX_LIVE_PROJECTS
    assert projects.project_for(files[-1]) is seen[-1]
    assert projects.project_for(files[0]) is not seen[0]  # let go, built again when asked
    projects.forget_projects()


def test_import_lines_are_read_at_the_lines_that_spell_import_only():
    """The index reads imports off every project file's text: tried only at lines spelling
    `import`, they are the same matches a scan of every line gives."""
    from gradlint.model.project import IMPORT_LINE, _import_lines

    text = textwrap.dedent(
        '''\
        """Trains the model; see `import_weights` below."""
        import os, sys
        import torch.nn as nn; import math
        from . import (
            engine,
            utils as u,
        )
        from ..data.loader import build_loader  # reimport later
        x = "import this"
            import json
        def import_weights(path):
            from safetensors.torch import load_file
            return load_file(path)
        '''
    )
    expected = [m.groups() for m in IMPORT_LINE.finditer(text)]
    assert [m.groups() for m in _import_lines(text)] == expected
    assert [m.group(0).split()[0] for m in _import_lines(text)] == ["import", "import", "from", "from", "import", "from"]


def test_a_project_function_that_only_reads_the_ddp_model_it_is_handed_runs_no_forward(tmp_path):
    """`ema.update(_state_dict(model))` hands the DDP model to a function of another module that
    only inspects it and reads its state dict, `unwrap_model(model)` to one that returns it or
    its module, `get_model_state_dict(model=model)` to torch's checkpointing: no forward. A
    function there that calls what it is handed runs the forward."""
    from gradlint.model import Kind, ModuleModel

    train = """
        import torch
        from torch.distributed.checkpoint.state_dict import get_model_state_dict
        from torch.nn.parallel import DistributedDataParallel as DDP

        from checkpoint import _state_dict, run_model, unwrap_model


        def train(model, loader, opt, ema):
            model = DDP(model)
            for x in loader:
                ema.update(_state_dict(model))
                state = get_model_state_dict(model=model)
                ema.update(state)
                params = unwrap_model(model).parameters()
                loss = run_model(model, x)
                loss.backward()
                opt.step()
                opt.zero_grad()
        """
    checkpoint = """
        def _state_dict(model_or_state):
            if isinstance(model_or_state, dict):
                return model_or_state
            return model_or_state.state_dict()


        def run_model(model, x):
            return model(x).mean()


        def unwrap_model(model):
            return model.module if isinstance(model, torch.nn.parallel.DistributedDataParallel) else model
        """
    root = write(tmp_path, {"pyproject.toml": "", "train.py": train, "checkpoint.py": checkpoint})
    source = (root / "train.py").read_text()
    model = ModuleModel(ast.parse(source), source, ProjectContext(root / "train.py", project=Project(root)))
    (loop,) = model.loops
    forwards = [ast.unparse(e.anchor) for e in loop.of(Kind.FORWARD)]
    assert forwards == ["run_model(model, x)"], forwards
