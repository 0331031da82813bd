"""`%load_ext gradlint` in a real IPython InteractiveShell: cells checked before they run,
against the session's earlier cells; warnings once; strict mode; `%gradlint fix`."""

from __future__ import annotations

import pytest

pytest.importorskip("IPython")
pytest.importorskip("torch")

from IPython.core.interactiveshell import InteractiveShell  # noqa: E402
from traitlets.config import Config  # noqa: E402

SETUP = """\
import torch
import torch.nn.functional as F

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(8)]
"""

ACCUMULATE = """\
accum_steps = 4
for i, (x, y) in enumerate(batches):
    loss = F.mse_loss(model(x), y)
    loss.backward()
    if (i + 1) % accum_steps == 0 or i + 1 == len(batches):
        optimizer.step()
        optimizer.zero_grad()
steps_done = i + 1
"""

CLIP_AFTER_STEP = """\
for x, y in batches:
    optimizer.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
clipped = True
"""

CLEAN = """\
accum_steps = 4
for i, (x, y) in enumerate(batches):
    loss = F.mse_loss(model(x), y) / accum_steps
    loss.backward()
    if (i + 1) % accum_steps == 0 or i + 1 == len(batches):
        optimizer.step()
        optimizer.zero_grad()
clean_done = True
"""


@pytest.fixture
def shell(tmp_path, monkeypatch):
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.chdir(tmp_path)
    config = Config()
    config.HistoryManager.hist_file = ":memory:"  # nothing left behind to write at exit
    InteractiveShell.clear_instance()
    ip = InteractiveShell.instance(config=config, colors="nocolor")
    yield ip
    InteractiveShell.clear_instance()


def run(shell, cell: str, capsys) -> tuple[bool, str]:
    """Run a cell; (whether it succeeded, what it printed to stdout and stderr)."""
    result = shell.run_cell(cell, store_history=True)
    out = capsys.readouterr()
    return result.success, out.out + out.err


def start(shell, capsys) -> None:
    """Load the extension and run the set-up cell (model, optimizer, data)."""
    run(shell, "%load_ext gradlint", capsys)
    ok, printed = run(shell, SETUP, capsys)
    assert ok and printed == ""  # a clean cell: not a word


def test_buggy_cell_warns_once_and_still_runs(shell, capsys):
    start(shell, capsys)
    ok, printed = run(shell, ACCUMULATE, capsys)
    assert ok and shell.user_ns["steps_done"] == 8  # the cell ran
    (first, *rest) = printed.splitlines()
    assert first.startswith("gradlint: cell line 4: GL201 accumulation-without-loss-scaling: ")
    assert "`accum_steps`" in first
    assert "  fix (unsafe): Divide the loss by `accum_steps`" in rest
    assert "%gradlint fix" in printed
    assert printed.count("GL201") == 1
    ok, printed = run(shell, ACCUMULATE, capsys)  # the same cell again: said already
    assert ok and printed == ""


def test_clean_cell_is_silent(shell, capsys):
    start(shell, capsys)
    ok, printed = run(shell, CLEAN, capsys)
    assert ok and printed == "" and shell.user_ns["clean_done"]


def test_earlier_cells_give_the_context(shell, capsys, tmp_path):
    """The loop alone cannot tell that `model` is DDP (silent); after the cell that wraps it, it can."""
    loop = CLEAN
    start(shell, capsys)
    ok, printed = run(shell, loop, capsys)
    assert ok and printed == ""
    ddp = f"""\
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", init_method="file://{tmp_path / 'rendezvous'}", rank=0, world_size=1)
model = DDP(torch.nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
"""
    try:
        ok, printed = run(shell, ddp, capsys)
        assert ok and printed == ""
        ok, printed = run(shell, loop, capsys)
        assert ok and "GL401" in printed and "cell line 4" in printed
    finally:
        shell.run_cell("dist.destroy_process_group()")


def test_loaded_mid_session_sees_earlier_cells(shell, capsys):
    run(shell, SETUP, capsys)
    run(shell, "%matplotlib inline\n!echo hello\nprint('ready')", capsys)
    run(shell, "%load_ext gradlint", capsys)
    _, printed = run(shell, ACCUMULATE, capsys)
    assert "GL201" in printed


def test_off_and_on(shell, capsys):
    start(shell, capsys)
    _, printed = run(shell, "%gradlint off", capsys)
    assert "off" in printed
    _, printed = run(shell, CLIP_AFTER_STEP, capsys)
    assert "GL101" not in printed
    run(shell, "%gradlint on", capsys)
    _, printed = run(shell, CLIP_AFTER_STEP.replace("1.0", "2.0"), capsys)
    assert "GL101" in printed


def test_strict_blocks_a_cell_with_findings(shell, capsys):
    start(shell, capsys)
    _, printed = run(shell, "%gradlint strict", capsys)
    assert "strict" in printed
    ok, printed = run(shell, CLIP_AFTER_STEP, capsys)
    assert not ok and "clipped" not in shell.user_ns  # not run
    assert "gradlint (strict): cell not run: GL101" in printed
    assert "Traceback" not in printed
    ok, _ = run(shell, CLEAN, capsys)
    assert ok and shell.user_ns["clean_done"]  # clean cells run
    run(shell, "%gradlint on", capsys)
    ok, _ = run(shell, CLIP_AFTER_STEP, capsys)
    assert ok and shell.user_ns["clipped"]


def test_fix_prints_the_fixed_cell(shell, capsys):
    run(shell, "%load_ext gradlint", capsys)
    _, printed = run(shell, "%gradlint fix", capsys)
    assert "no cell has had a finding" in printed
    run(shell, SETUP, capsys)
    run(shell, CLIP_AFTER_STEP, capsys)
    _, printed = run(shell, "%gradlint fix", capsys)
    assert printed.index("clip_grad_norm_") < printed.index("optimizer.step()")
    assert printed.rstrip().endswith("clipped = True")
    assert "import torch" not in printed  # the cell, not the session


def test_fix_with_unsafe_fixes(shell, capsys):
    start(shell, capsys)
    run(shell, ACCUMULATE, capsys)
    _, printed = run(shell, "%gradlint fix", capsys)  # GL201's fix is unsafe: not by default
    assert "no fix applies" in printed and "unsafe fixes of GL201 left out" in printed
    _, printed = run(shell, "%gradlint fix --unsafe-fixes", capsys)
    assert "    (loss / accum_steps).backward()\n" in printed
    assert printed.rstrip().endswith("steps_done = i + 1")


def test_syntax_errors_are_left_to_python(shell, capsys):
    start(shell, capsys)
    ok, printed = run(shell, "for x in batches\n    pass\n", capsys)
    assert not ok and "gradlint" not in printed and "SyntaxError" in printed
    _, printed = run(shell, CLIP_AFTER_STEP, capsys)  # the broken cell does not blind later checks
    assert "GL101" in printed


def test_config_from_the_working_folder(shell, capsys, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.gradlint]\nignore = ["GL101"]\n')
    start(shell, capsys)
    _, printed = run(shell, CLIP_AFTER_STEP, capsys)
    assert printed == ""
    _, printed = run(shell, ACCUMULATE, capsys)
    assert "GL201" in printed


def test_a_long_session_keeps_its_first_and_latest_cells_in_view():
    """Past the context window the setup cells and the latest ones are read, the middle not."""
    from gradlint.ipython import CONTEXT_LINES, context

    fillers = ["".join(f"def helper_{k}_{n}(x):\n    return x * {n}\n\n" for n in range(40)) for k in range(20)]
    cells = [SETUP, *fillers, ACCUMULATE]
    assert sum(c.count("\n") + 1 for c in cells) > CONTEXT_LINES
    kept = context(cells)
    assert kept[0] == SETUP and kept[-1] == ACCUMULATE and kept[-2] == fillers[-1]
    assert fillers[len(fillers) // 2] not in kept
    assert sum(c.count("\n") + 1 for c in kept) <= CONTEXT_LINES
    assert context(cells[:3]) == cells[:3]


def test_skip_cell_and_suppressions(shell, capsys):
    start(shell, capsys)
    _, printed = run(shell, "# gradlint: skip-cell\n" + CLIP_AFTER_STEP, capsys)
    assert printed == ""
    suppressed = CLIP_AFTER_STEP.replace("1.0)\n", "1.0)  # noqa: GL101\n")
    _, printed = run(shell, suppressed, capsys)
    assert printed == ""


def test_a_crashing_rule_costs_one_line_and_the_cell_runs(shell, capsys, monkeypatch):
    from gradlint.rules.ordering import ClipAfterStep

    def crash(self, model):
        raise RuntimeError("boom")

    monkeypatch.setattr(ClipAfterStep, "check", crash)
    start(shell, capsys)
    ok, printed = run(shell, CLIP_AFTER_STEP, capsys)
    assert ok and shell.user_ns["clipped"]
    assert printed.strip() == "gradlint: internal error in GL101: RuntimeError: boom"


def test_unload_stops_checking(shell, capsys):
    start(shell, capsys)
    run(shell, "%unload_ext gradlint", capsys)
    ok, printed = run(shell, CLIP_AFTER_STEP, capsys)
    assert ok and printed == ""
    ok, printed = run(shell, "%gradlint", capsys)
    assert not ok and "gradlint` not found" in printed
    run(shell, "%load_ext gradlint", capsys)
    _, printed = run(shell, CLIP_AFTER_STEP.replace("1.0", "0.5"), capsys)
    assert "GL101" in printed
