#!/usr/bin/env python3
"""Benchmark `gradlint check` against `ruff check --select ALL` on the same files (DESIGN §6).

    python bench/bench_check.py PATH              # an existing checkout (folder)
    python bench/bench_check.py --generate 3000   # a generated ML-repository-like corpus

Both linters run as subprocesses on the whole folder (wall time, best of --runs), output to a
pipe that is drained and discarded. It also times `gradlint check` on one small training script,
process start to end, and reports which heavy modules (torch, rich, libcst, pygls) that run
imported. Goals (DESIGN §6): gradlint/ruff <= 0.5 on a repository, a warm (cached) run under a
third of a cold one, one small file well under 0.5 s.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import math
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

SKIP_DIRS = {
    ".git", ".hg", ".svn", ".venv", "venv", ".env", "__pycache__", "build", "dist", "node_modules",
    ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "site-packages", ".eggs",
    ".ipynb_checkpoints", "_build", ".direnv", "__pypackages__",
}
HEAVY_MODULES = ("torch", "rich", "libcst", "pygls", "numpy")


# --------------------------------------------------------------------------------------------
# The generated corpus: ordinary modules of ML repositories, a few autograd Functions, and ~7%
# training scripts (some with gradient bugs). Sizes follow a log-normal law, mean ~12 KB.
# --------------------------------------------------------------------------------------------

WORDS = (
    "encoder", "decoder", "backbone", "head", "neck", "embed", "token", "patch", "vision", "text",
    "audio", "speech", "graph", "node", "edge", "feature", "pixel", "frame", "clip", "score",
    "reward", "policy", "value", "critic", "actor", "memory", "cache", "prompt", "vocab", "sample",
    "batch", "shard", "chunk", "window", "stride", "kernel", "channel", "layer", "block", "stage",
)
VERBS = ("build", "load", "make", "compute", "apply", "prepare", "merge", "split", "resolve", "convert")


def ident(rng: random.Random, parts: int = 2) -> str:
    return "_".join(rng.choice(WORDS) for _ in range(parts))


def camel(rng: random.Random, parts: int = 2) -> str:
    return "".join(rng.choice(WORDS).capitalize() for _ in range(parts))


def block_dataclass(rng: random.Random) -> str:
    name = camel(rng) + "Config"
    fields = "".join(
        f"    {ident(rng)}_{i}: {rng.choice(['int', 'float', 'str', 'bool'])} = "
        f"{rng.choice(['0', '1e-4', repr(ident(rng)), 'False', '128', '0.1'])}\n"
        for i in range(rng.randint(4, 14))
    )
    return textwrap.dedent(f'''\
        @dataclass
        class {name}:
            """Options of the {ident(rng, 1)} {ident(rng, 1)} stage."""

        FIELDS
            def to_dict(self) -> dict:
                return {{k: getattr(self, k) for k in self.__dataclass_fields__}}

            @classmethod
            def from_dict(cls, data: dict) -> "{name}":
                known = {{k: v for k, v in data.items() if k in cls.__dataclass_fields__}}
                return cls(**known)


        ''').replace("FIELDS\n", fields + "\n")


def block_util(rng: random.Random) -> str:
    fn = f"{rng.choice(VERBS)}_{ident(rng)}"
    return textwrap.dedent(f'''\
        def {fn}(items, *, limit=None, key=None):
            """{rng.choice(VERBS).capitalize()} the {ident(rng, 1)} entries, keeping their order."""
            seen, out = set(), []
            for index, item in enumerate(items):
                if limit is not None and index >= limit:
                    break
                marker = key(item) if key else item
                if marker in seen:
                    continue
                seen.add(marker)
                out.append(item)
            logger.debug("%s: kept %d of %d", "{fn}", len(out), index + 1 if items else 0)
            return out


        def {fn}_from_file(path: str, encoding: str = "utf-8") -> list:
            with open(os.path.expanduser(path), encoding=encoding) as handle:
                rows = [line.rstrip("\\n").split("\\t") for line in handle if line.strip()]
            return {fn}(rows, key=lambda row: row[0])


        ''')


def block_dataset(rng: random.Random) -> str:
    name = camel(rng) + "Dataset"
    max_len = rng.choice([128, 256, 512, 1024])
    return textwrap.dedent(f'''\
        class {name}(Dataset):
            """Pairs of ({ident(rng, 1)}, {ident(rng, 1)}) read from a manifest."""

            def __init__(self, root, split="train", transform=None, max_len={max_len}):
                self.root = root
                self.split = split
                self.transform = transform
                self.max_len = max_len
                self.items = [line.split(",") for line in open(os.path.join(root, split + ".csv"))][1:]

            def __len__(self):
                return len(self.items)

            def __getitem__(self, index):
                path, label = self.items[index]
                sample = torch.load(os.path.join(self.root, path))[: self.max_len]
                if self.transform is not None:
                    sample = self.transform(sample)
                return {{"inputs": sample, "labels": torch.tensor(int(label))}}


        def collate_{ident(rng)}(batch, pad_id=0):
            width = max(item["inputs"].shape[0] for item in batch)
            inputs = torch.full((len(batch), width), pad_id, dtype=torch.long)
            for row, item in enumerate(batch):
                inputs[row, : item["inputs"].shape[0]] = item["inputs"]
            labels = torch.stack([item["labels"] for item in batch])
            return {{"inputs": inputs, "labels": labels, "mask": inputs.ne(pad_id)}}


        ''')


def block_module(rng: random.Random) -> str:
    name = camel(rng) + rng.choice(["Block", "Layer", "Head", "Encoder", "Attention"])
    dim = rng.choice([64, 128, 256, 512, 768])
    heads, dropout = rng.choice([4, 8, 12]), rng.choice([0.0, 0.1, 0.2])
    return textwrap.dedent(f'''\
        class {name}(nn.Module):
            def __init__(self, dim={dim}, heads={heads}, dropout={dropout}):
                super().__init__()
                self.norm = nn.LayerNorm(dim)
                self.qkv = nn.Linear(dim, 3 * dim)
                self.proj = nn.Linear(dim, dim)
                self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
                self.drop = nn.Dropout(dropout)
                self.heads = heads

            def forward(self, x, mask=None):
                b, t, c = x.shape
                q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
                q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
                attn = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.heads)
                if mask is not None:
                    attn = attn.masked_fill(~mask[:, None, None, :], float("-inf"))
                y = (attn.softmax(dim=-1) @ v).transpose(1, 2).reshape(b, t, c)
                x = x + self.drop(self.proj(y))
                return x + self.drop(self.mlp(self.norm(x)))


        ''')


def block_autograd(rng: random.Random) -> str:
    name = camel(rng) + "Function"
    return textwrap.dedent(f'''\
        class {name}(torch.autograd.Function):
            """A custom op with a hand-written gradient."""

            @staticmethod
            def forward(ctx, x, scale={rng.choice([0.5, 1.0, 2.0])}):
                ctx.save_for_backward(x)
                ctx.scale = scale
                return x.clamp(min=0) * scale

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                grad_input = grad.clone() * ctx.scale
                grad_input[x < 0] = 0
                return grad_input, None


        ''')


def block_metrics(rng: random.Random) -> str:
    return textwrap.dedent(f'''\
        @torch.no_grad()
        def evaluate_{ident(rng)}(model, loader, device="cpu"):
            model.eval()
            total, correct, loss_sum = 0, 0, 0.0
            for batch in loader:
                inputs, labels = batch["inputs"].to(device), batch["labels"].to(device)
                logits = model(inputs)
                loss_sum += F.cross_entropy(logits, labels, reduction="sum").item()
                correct += (logits.argmax(-1) == labels).sum().item()
                total += labels.numel()
            model.train()
            return {{"loss": loss_sum / max(total, 1), "accuracy": correct / max(total, 1)}}


        ''')


HEADER = '''\
"""{doc}"""
from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Dataset

logger = logging.getLogger(__name__)


'''

ORDINARY = {
    "config": [block_dataclass, block_dataclass, block_util],
    "utils": [block_util, block_util, block_dataclass, block_metrics],
    "data": [block_dataset, block_util, block_dataset],
    "models": [block_module, block_module, block_util, block_dataclass],
    "ops": [block_autograd, block_module, block_util],
}

# Training loops: (name, planted code or None, body). Each is a function `train(...)`.
LOOPS = [
    ("plain", None, '''\
def train(model, loader, optimizer, scheduler, epochs, max_grad_norm=1.0):
    model.train()
    for epoch in range(epochs):
        for step, batch in enumerate(loader):
            optimizer.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(batch["inputs"]), batch["labels"])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
            optimizer.step()
            scheduler.step()
            if step % 100 == 0:
                logger.info("epoch %d step %d loss %.4f", epoch, step, loss.item())
'''),
    ("accum-divided", None, '''\
def train(model, loader, optimizer, epochs, accum_steps=4):
    for epoch in range(epochs):
        for i, batch in enumerate(loader):
            loss = F.cross_entropy(model(batch["inputs"]), batch["labels"])
            loss = loss / accum_steps
            loss.backward()
            if (i + 1) % accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
'''),
    ("amp-unscale", None, '''\
def train(model, loader, optimizer, epochs, max_norm=1.0):
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = F.cross_entropy(model(batch["inputs"]), batch["labels"])
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            scaler.step(optimizer)
            scaler.update()
'''),
    ("gl101", "GL101", '''\
def train(model, loader, optimizer, epochs, max_norm=1.0):
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            loss = F.mse_loss(model(batch["inputs"]), batch["labels"].float())
            loss.backward()
            optimizer.step()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
'''),
    ("gl201", "GL201", '''\
def train(model, loader, optimizer, epochs, gradient_accumulation_steps=8):
    model.train()
    for epoch in range(epochs):
        for step, batch in enumerate(loader):
            outputs = model(batch["inputs"])
            loss = F.cross_entropy(outputs, batch["labels"])
            loss.backward()
            if (step + 1) % gradient_accumulation_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
'''),
    ("gl202", "GL202", '''\
def train(model, loader, optimizer, epochs, accum=4):
    for epoch in range(epochs):
        for i, batch in enumerate(loader):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(batch["inputs"]), batch["labels"]) / accum
            loss.backward()
            if (i + 1) % accum == 0:
                optimizer.step()
'''),
    ("gl301", "GL301", '''\
def train(model, loader, optimizer, epochs, clip=1.0):
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = F.cross_entropy(model(batch["inputs"]), batch["labels"])
            scaler.scale(loss).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            scaler.step(optimizer)
            scaler.update()
'''),
    ("gl401", "GL401", '''\
def train(model, loader, optimizer, epochs, accum_steps=4, local_rank=0):
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])
    for epoch in range(epochs):
        for i, batch in enumerate(loader):
            loss = F.cross_entropy(model(batch["inputs"]), batch["labels"]) / accum_steps
            loss.backward()
            if (i + 1) % accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
'''),
    ("ddp-no-sync", None, '''\
def train(model, loader, optimizer, epochs, accum_steps=4, local_rank=0):
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])
    for epoch in range(epochs):
        for i, batch in enumerate(loader):
            boundary = (i + 1) % accum_steps == 0
            ctx = model.no_sync() if not boundary else contextlib.nullcontext()
            with ctx:
                loss = F.cross_entropy(model(batch["inputs"]), batch["labels"]) / accum_steps
                loss.backward()
            if boundary:
                optimizer.step()
                optimizer.zero_grad()
'''),
    ("accelerate", None, '''\
def train(model, loader, optimizer, epochs):
    accelerator = Accelerator(gradient_accumulation_steps=4)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for epoch in range(epochs):
        for batch in loader:
            with accelerator.accumulate(model):
                loss = F.cross_entropy(model(batch["inputs"]), batch["labels"])
                accelerator.backward(loss)
                accelerator.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                optimizer.zero_grad()
'''),
]
LOOP_WEIGHTS = {"plain": 30, "accum-divided": 12, "amp-unscale": 10, "gl101": 8, "gl201": 8, "gl202": 6,
                "gl301": 6, "gl401": 5, "ddp-no-sync": 5, "accelerate": 10}

MAIN = '''\
def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", default="data/")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=3e-4)
    args = parser.parse_args()
    model = {model}()
    loader = DataLoader({dataset}(args.data), batch_size=32, shuffle=True, collate_fn=collate_{collate})
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    train(model, loader, optimizer, {extra}args.epochs)


if __name__ == "__main__":
    main()
'''


@dataclass
class Corpus:
    root: Path
    files: int = 0
    bytes: int = 0
    planted: dict[str, int] = field(default_factory=dict)


def target_size(rng: random.Random) -> int:
    # log-normal, median ~8 KB, mean ~12 KB; a few tiny and a few very large files
    return int(min(max(rng.lognormvariate(math.log(8000), 0.9), 400), 160_000))


def ordinary_module(rng: random.Random, kind: str) -> str:
    size = target_size(rng)
    parts = [HEADER.format(doc=f"{kind.capitalize()}: {ident(rng, 3).replace('_', ' ')}.")]
    total = len(parts[0])
    while total < size:
        chunk = rng.choice(ORDINARY[kind])(rng)
        parts.append(chunk)
        total += len(chunk)
    return "".join(parts)


def training_script(rng: random.Random) -> tuple[str, str | None]:
    names = [name for name, _, _ in LOOPS]
    name = rng.choices(names, weights=[LOOP_WEIGHTS[n] for n in names])[0]
    _, code, loop = next(item for item in LOOPS if item[0] == name)
    size = max(target_size(rng), 3000)
    head = HEADER.format(doc=f"Train the {ident(rng, 2).replace('_', ' ')} model.").replace(
        "import logging\n", "import argparse\nimport contextlib\nimport logging\n"
    )
    if name == "accelerate":
        accelerate = "from accelerate import Accelerator\n"
        head = head.replace("from torch import nn\n", accelerate + "from torch import nn\n")
    parts, total = [head], len(head)
    model_block, dataset_block = block_module(rng), block_dataset(rng)
    parts += [model_block, dataset_block, block_metrics(rng)]
    total += sum(len(p) for p in parts[1:])
    while total < size - 1500:
        chunk = rng.choice([block_util, block_dataclass, block_module])(rng)
        parts.append(chunk)
        total += len(chunk)
    parts.append(loop + "\n\n")
    model = model_block.split("class ", 1)[1].split("(", 1)[0]
    dataset = dataset_block.split("class ", 1)[1].split("(", 1)[0]
    collate = dataset_block.split("def collate_", 1)[1].split("(", 1)[0]
    extra = "scheduler, " if name == "plain" else ""
    parts.append(MAIN.format(model=model, dataset=dataset, collate=collate, extra=extra))
    return "".join(parts), code


def generate(root: Path, count: int, seed: int = 0) -> Corpus:
    rng = random.Random(seed)
    corpus = Corpus(root)
    packages = [f"{ident(rng, 1)}{i}" for i in range(max(1, count // 60))]
    for index in range(count):
        package = root / "src" / rng.choice(packages)
        roll = rng.random()
        if roll < 0.07:
            folder = root / rng.choice(["scripts", "examples", "experiments", "tools"])
            text, code = training_script(rng)
            path = folder / f"train_{ident(rng)}_{index}.py"
            if code:
                corpus.planted[code] = corpus.planted.get(code, 0) + 1
        elif roll < 0.15:
            path = package / "__init__.py"
            text = f'"""The {package.name} package."""\n' if rng.random() < 0.5 else ""
            if path.exists():
                path = package / f"_version_{index}.py"
                text = f'__version__ = "0.{index}.0"\n'
        else:
            kind = rng.choices(list(ORDINARY), weights=[10, 25, 20, 30, 8])[0]
            text = ordinary_module(rng, kind)
            path = package / f"{kind}_{ident(rng)}_{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        corpus.files += 1
        corpus.bytes += len(text.encode())
    return corpus


# --------------------------------------------------------------------------------------------
# Measuring
# --------------------------------------------------------------------------------------------


def python_files(root: Path) -> tuple[int, int]:
    files = size = 0
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = [d for d in subdirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        for name in names:
            if name.endswith((".py", ".pyi")):
                files += 1
                size += os.path.getsize(os.path.join(directory, name))
    return files, size


Timed = tuple[float, subprocess.CompletedProcess]


def best_of(command: list[str], runs: int, cwd: Path | None = None) -> Timed:
    best, last = math.inf, None
    for _ in range(runs):
        start = time.perf_counter()
        last = subprocess.run(command, cwd=cwd, capture_output=True, check=False)
        best = min(best, time.perf_counter() - start)
    return best, last


def timed(command: list[str]) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall seconds, CPU seconds of the process and its children, the result): CPU time is
    what to compare on a machine shared with other work, wall time on an idle one."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except (AttributeError, OSError):
        return "n/a"


def find_ruff() -> str | None:
    beside = Path(sys.executable).parent / ("ruff.exe" if os.name == "nt" else "ruff")
    return shutil.which("ruff") or (str(beside) if beside.exists() else None)


IMPORT_PROBE = """\
import atexit, sys
atexit.register(lambda: sys.stderr.write("HEAVY=" + ",".join(
    m for m in {modules!r} if m in sys.modules) + "\\n"))
sys.argv = ["gradlint", "check", {path!r}]
from gradlint.cli import main
main()
"""

SMALL_FILE = '''\
import torch
from torch import nn

model = nn.Linear(10, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
accum = 4
for i, (x, y) in enumerate(loader):
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    if (i + 1) % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
'''


def ast_parse_all(root: Path) -> float:
    start = time.perf_counter()
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = [d for d in subdirs if d not in SKIP_DIRS]
        for name in names:
            if name.endswith(".py"):
                with contextlib.suppress(SyntaxError, ValueError):
                    ast.parse(Path(directory, name).read_bytes())
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", help="folder to check (an existing repository)")
    parser.add_argument("--generate", type=int, metavar="N", help="generate a corpus of N files instead")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=3, help="best of this many runs (default 3)")
    parser.add_argument("--keep", action="store_true", help="keep the generated corpus and print its path")
    parser.add_argument("--no-ruff", action="store_true", help="skip the ruff comparison")
    args = parser.parse_args(argv)
    if bool(args.path) == bool(args.generate):
        parser.error("give a PATH or --generate N")

    temporary = None
    if args.generate:
        temporary = Path(tempfile.mkdtemp(prefix="gradlint-bench-"))
        started = time.perf_counter()
        corpus = generate(temporary / "repo", args.generate, args.seed)
        root = corpus.root
        print(f"generated {corpus.files} files, {corpus.bytes / 1e6:.1f} MB "
              f"(avg {corpus.bytes / corpus.files / 1e3:.1f} KB) in {time.perf_counter() - started:.1f}s; "
              f"planted: {dict(sorted(corpus.planted.items()))}")
    else:
        root = Path(args.path).resolve()
        corpus = None
    try:
        return _measure(root, args, corpus)
    finally:
        if temporary and not args.keep:
            shutil.rmtree(temporary, ignore_errors=True)
        elif temporary:
            print(f"corpus kept in {root}")


def _measure(root: Path, args, corpus: Corpus | None) -> int:
    files, size = python_files(root)
    with_backward = sum(
        1 for p in root.rglob("*.py")
        if not SKIP_DIRS.intersection(p.relative_to(root).parts) and b"backward" in p.read_bytes()
    )
    print(f"corpus: {root} - {files} Python files, {size / 1e6:.1f} MB, "
          f"{with_backward} ({100 * with_backward / max(files, 1):.0f}%) contain `backward`; "
          f"{os.cpu_count()} CPUs, load average {_load()}")
    rows = []

    gradlint = [sys.executable, "-m", "gradlint", "check", "--exit-zero", "--format", "concise", str(root)]
    ruff = None if args.no_ruff else find_ruff()
    ruff_command = [ruff, "check", "--select", "ALL", "--no-cache", "--exit-zero", "--isolated",
                    "--output-format", "concise", str(root)] if ruff else None
    # Interleaved rounds (gradlint cold, gradlint warm, ruff, ...): a change in the machine's
    # load then hits all, and the ratios stay meaningful on a shared machine. Cold: an empty
    # cache folder (the run writes it); warm: the same command again on that folder.
    g_time = w_time = r_time = g_cpu = w_cpu = r_cpu = math.inf
    g_run = w_run = r_run = None
    for _ in range(args.runs):
        cache = Path(tempfile.mkdtemp(prefix="gradlint-bench-cache-"))
        cached = [*gradlint[:4], "--cache-dir", str(cache), *gradlint[4:]]
        try:
            seconds, cpu, g_run = timed(cached)
            g_time, g_cpu = min(g_time, seconds), min(g_cpu, cpu)
            seconds, cpu, w_run = timed(cached)
            w_time, w_cpu = min(w_time, seconds), min(w_cpu, cpu)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        if ruff_command:
            seconds, cpu, r_run = timed(ruff_command)
            r_time, r_cpu = min(r_time, seconds), min(r_cpu, cpu)
    if w_run.stdout != g_run.stdout:
        print("WARNING: the warm run reported differently from the cold one", file=sys.stderr)
    if g_run.returncode not in (0, 2):
        print(g_run.stderr.decode(errors="replace"), file=sys.stderr)
        raise SystemExit(f"gradlint check failed with exit code {g_run.returncode}")
    found = {}
    for line in g_run.stdout.decode(errors="replace").splitlines():
        parts = line.split(": ", 2)
        if len(parts) > 1 and parts[1][:2] == "GL":
            code = parts[1].split()[0]
            found[code] = found.get(code, 0) + 1
    errors = g_run.stderr.decode(errors="replace").count("gradlint: error:")
    rows.append(("gradlint check, cold (empty cache)", g_time, files, size, g_cpu))
    rows.append(("gradlint check, warm (cached)", w_time, files, size, w_cpu))
    if ruff_command:
        if r_run.returncode != 0:
            print(r_run.stderr.decode(errors="replace")[-2000:], file=sys.stderr)
        rows.append(("ruff check --select ALL", r_time, files, size, r_cpu))
    else:
        r_time = None
    parse_time = ast_parse_all(root)
    rows.append(("ast.parse, every file, 1 process", parse_time, files, size, parse_time))

    small_dir = Path(tempfile.mkdtemp(prefix="gradlint-small-"))
    try:
        small = small_dir / "train.py"
        small.write_text(SMALL_FILE)
        s_time, s_run = best_of([sys.executable, "-m", "gradlint", "check", "--no-cache", "--exit-zero", str(small)],
                                max(args.runs, 5), cwd=small_dir)
        c_time, _ = best_of([sys.executable, "-c", "pass"], max(args.runs, 5), cwd=small_dir)
        probe = subprocess.run(
            [sys.executable, "-c", IMPORT_PROBE.format(modules=HEAVY_MODULES, path=str(small))],
            capture_output=True, text=True, cwd=small_dir, check=False,
        )
        heavy = next((line[6:] for line in probe.stderr.splitlines() if line.startswith("HEAVY=")), "?")
        importtime = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "gradlint", "check", str(small)],
            capture_output=True, text=True, cwd=small_dir, check=False,
        )
        torch_lines = [line for line in importtime.stderr.splitlines() if line.rstrip().endswith("| torch")]
        small_found = "GL201" in s_run.stdout.decode()
    finally:
        shutil.rmtree(small_dir, ignore_errors=True)

    print()
    print(f"{'run':<36}{'wall s':>9}{'cpu s':>9}{'files/s':>11}{'MB/s':>9}")
    print("-" * 74)
    for name, seconds, n, b, cpu in rows:
        print(f"{name:<36}{seconds:>9.2f}{cpu:>9.2f}{n / seconds:>11.0f}{b / 1e6 / seconds:>9.2f}")
    print("-" * 74)
    print(f"{'ratios':<36}{'wall':>9}{'cpu':>9}")
    if r_time:
        ratio = g_time / r_time
        verdict = "meets the goal" if ratio <= 0.5 else "above the goal (<= 0.5)"
        print(f"{'gradlint cold / ruff':<36}{ratio:>9.2f}{g_cpu / r_cpu:>9.2f}   {verdict}")
        print(f"{'gradlint warm / ruff':<36}{w_time / r_time:>9.2f}{w_cpu / r_cpu:>9.2f}")
    else:
        print("ruff not found on PATH nor next to the interpreter: no comparison")
    warm = w_time / g_time
    verdict = "meets the goal" if warm < 1 / 3 else "above the goal (< 0.33)"
    print(f"{'gradlint warm / cold':<36}{warm:>9.2f}{w_cpu / g_cpu:>9.2f}   {verdict}")
    print(f"{'one small file, process start->end':<36}{s_time:>9.3f}   "
          f"{'ok' if s_time < 0.5 else 'SLOW'} (goal well under 0.5 s; bare `python -c pass` {c_time:.3f} s)")
    print(f"{'  heavy modules imported by check':<36}   {heavy or 'none'}"
          f"   (torch imported: {'yes' if 'torch' in heavy or torch_lines else 'no'})")
    print(f"{'  the small file GL201 found':<36}   {'yes' if small_found else 'NO'}")
    print(f"\ngradlint diagnostics: {dict(sorted(found.items()))}, file errors: {errors}")
    if corpus is not None:
        missing = {c: n - found.get(c, 0) for c, n in corpus.planted.items() if found.get(c, 0) < n}
        print(f"planted bugs: {dict(sorted(corpus.planted.items()))}"
              + (f"; NOT found: {missing}" if missing else "; all found"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
