"""The real harness: every rule with fixtures passes, and the harness can fail."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from gradlint.verify.harness import DRIFT, RuleResult, catalogue_codes, run_verify, select
from gradlint.verify.predictions import PREDICTIONS, Outcome, Prediction

from conftest import FIXTURES

RULES = sorted(p.name for p in FIXTURES.iterdir() if (p / "bad.py").is_file())
MEASURED = [code for code in RULES if code in catalogue_codes()]  # GL001, GL105: nothing to measure


def test_selection_by_code_and_family():
    available = ["GL101", "GL201", "GL202", "GL301"]
    assert select(None, available) == available
    assert select(["gl2"], available) == ["GL201", "GL202"]
    assert select(["GL301", "GL1"], available) == ["GL101", "GL301"]


def test_drift_between_autofix_and_fixed_py_fails(tmp_path):
    """No torch needed: the run stops at the drift."""
    case = tmp_path / "GL201"
    shutil.copytree(FIXTURES / "GL201", case)
    fixed = case / "fixed.py"
    fixed.write_text(fixed.read_text().replace("(loss / accum_steps)", "(loss / 4)"))
    (result,) = run_verify(["GL201"], fixtures_root=tmp_path)
    assert not result.passed
    assert DRIFT in result.error
    assert "-    (loss / 4).backward()" in result.error
    assert "+    (loss / accum_steps).backward()" in result.error


def test_fixture_without_prediction_fails(tmp_path):
    shutil.copytree(FIXTURES / "GL101", tmp_path / "GL777")
    (result,) = run_verify(["GL777"], fixtures_root=tmp_path, fixer=None)
    assert not result.passed and "no prediction" in result.error


# ---------------------------------------------------------------- on torch
@pytest.fixture(scope="module")
def real_results() -> dict[str, RuleResult]:
    pytest.importorskip("torch")
    return {r.code: r for r in run_verify()}


@pytest.mark.verify
@pytest.mark.parametrize("code", MEASURED)
def test_real_fixture_prediction_holds(real_results, code):
    result = real_results[code]
    assert result.passed, f"{code}: {result.measured}\n{result.error}"
    assert result.error is None


@pytest.mark.verify
def test_measured_numbers(real_results):
    d = {code: r.details for code, r in real_results.items()}
    assert all(n <= d["GL101"]["max_norm"] * (1 + 1e-4) for n in d["GL101"]["fixed_step_grad_norms"])
    assert min(d["GL101"]["bad_step_grad_norms"]) > d["GL101"]["max_norm"]
    assert d["GL201"]["max_rel_error"] <= 1e-5 and d["GL201"]["first_update_ratio_bad_over_fixed"] == pytest.approx(4, rel=1e-3)
    assert d["GL202"]["bad_vs_last_microbatch_rel_error"] <= 1e-5
    gl301 = d["GL301"]
    assert gl301["scale"] == 1024.0  # the fixtures start at 2**10, a scale fp16 holds
    for n in gl301["bad_step_grad_norms"]:
        assert n == pytest.approx(gl301["max_norm"] / gl301["scale"], rel=1e-3)
    assert d["GL401"]["bad_allreduce_rounds_per_update"] == [4, 4, 4]
    assert d["GL401"]["fixed_allreduce_rounds_per_update"] == [1, 1, 1]


@pytest.mark.verify
def test_measured_numbers_of_the_amp_numerics_and_memory_rules(real_results):
    d = {code: r.details for code, r in real_results.items()}
    assert d["GL302"]["scale"] == 1024.0 and d["GL302"]["grad_rel_error"] == 0.0
    assert d["GL302"]["update_ratio_bad_over_fixed"] == pytest.approx(1024, rel=1e-3)
    assert d["GL303"]["bad_scaler_steps"] == 1 and "since the last update()" in d["GL303"]["bad_error"]
    assert d["GL304"]["bad_steps"] == 0 and d["GL304"]["fixed_steps"] == 8
    assert d["GL305"]["update_ratio_bad_over_fixed"] == pytest.approx(1 / 1024, rel=1e-3)
    assert d["GL306"]["max_grad_diff"] == 0.0 and d["GL306"]["bad_deprecation_warnings"]
    assert d["GL402"]["bad_allreduce_rounds_per_update"] == [4, 4, 4]
    assert d["GL402"]["fixed_allreduce_rounds_per_update"] == [1, 1, 1]
    assert d["GL501"]["bad_nonfinite_steps"][0] == 1 and not d["GL501"]["fixed_nonfinite_steps"]
    assert d["GL502"]["ratio_bad_over_fixed"] < 0.5 and d["GL503"]["ratio_bad_over_fixed"] < 0.5
    assert d["GL601"]["bad_loss_graphs"] == d["GL601"]["backward_passes"] == 12
    assert d["GL601"]["fixed_type"] == "float"


@pytest.mark.verify
def test_a_predicted_crash_is_checked_not_taken_for_a_launch_failure(tmp_path):
    """bad.py raising is a result when the prediction expects it: it passes when the error is
    the predicted one, and fails (as a prediction, with what was measured) when bad.py runs."""
    pytest.importorskip("torch")
    shutil.copytree(FIXTURES / "GL303", tmp_path / "GL303")
    fixed303 = (FIXTURES / "GL303" / "fixed.py").read_text()
    _case(tmp_path, "GL304", fixed303, fixed303)  # "bad" does not raise
    table = {"GL303": PREDICTIONS["GL303"], "GL304": PREDICTIONS["GL304"]}
    results = {
        r.code: r
        for r in run_verify(fixtures_root=tmp_path, predictions=table, fixer=lambda text, code: (tmp_path / code / "fixed.py").read_text())
    }
    assert results["GL303"].passed and results["GL303"].error is None
    assert "raised RuntimeError" in results["GL303"].measured
    assert not results["GL304"].passed and results["GL304"].error is None
    assert "bad ended with status ok" in results["GL304"].measured


def _case(root: Path, code: str, bad: str, fixed: str) -> None:
    (root / code).mkdir(parents=True)
    (root / code / "bad.py").write_text(bad)
    (root / code / "fixed.py").write_text(fixed)


@pytest.mark.verify
def test_harness_reports_failures(tmp_path):
    """A wrong prediction, a "fix" that changes nothing, a crash and a hang all fail, by rule."""
    pytest.importorskip("torch")
    # 1. GL201's real fixtures against a wrong prediction: "the fix divides by 2N".
    shutil.copytree(FIXTURES / "GL201", tmp_path / "GL201")

    def wrong(bad, fixed):
        b, f = bad.steps[0].grad_norm, fixed.steps[0].grad_norm
        return Outcome(abs(f - b / 8) <= 1e-6 * b, f"ratio {f / b:.3f}, predicted 0.125")

    # 2. GL101 whose "fix" only adds a comment: the gradients do not change.
    bad101 = (FIXTURES / "GL101" / "bad.py").read_text()
    _case(tmp_path, "GL101", bad101, "# clipped, honest\n" + bad101)
    # 3. a crash in fixed.py, 4. a hang in fixed.py
    ok = "import torch\nopt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)\n"
    _case(tmp_path, "GL801", ok, ok + "raise ValueError('boom in the fix')\n")
    _case(tmp_path, "GL802", ok, ok + "import time\ntime.sleep(120)\n")

    def never_called(bad, fixed):
        raise AssertionError("should not get here")

    table = {
        "GL201": Prediction("GL201", "accumulation-without-loss-scaling", "fixed = bad / 2N", wrong),
        "GL101": PREDICTIONS["GL101"],
        "GL801": Prediction("GL801", "crash", "-", never_called),
        "GL802": Prediction("GL802", "hang", "-", never_called),
    }
    def fixer(text, code):
        return (tmp_path / code / "fixed.py").read_text()

    # Real fixtures get a generous limit (a loaded machine runs them slowly); only the hang is
    # run under a short one, so that it is the only script the limit can stop.
    hang = table.pop("GL802")
    results = {r.code: r for r in run_verify(list(table), fixtures_root=tmp_path, predictions=table, fixer=fixer, timeout=300)}
    results |= {
        r.code: r
        for r in run_verify(["GL802"], fixtures_root=tmp_path, predictions={"GL802": hang}, fixer=fixer, timeout=15)
    }
    assert set(results) == {"GL101", "GL201", "GL801", "GL802"}
    assert not any(r.passed for r in results.values())
    assert "ratio 0.250" in results["GL201"].measured and results["GL201"].error is None
    assert "fixed 0/8 steps ≤ it" in results["GL101"].measured
    assert "fixed.py crashed" in results["GL801"].error and "boom in the fix" in results["GL801"].error
    assert "fixed.py timed out after 15 s" in results["GL802"].error


@pytest.mark.parametrize("code", RULES)
def test_fixture_bad_fires_only_its_rule_and_fixed_is_clean(code):
    from gradlint.linter import check_source

    bad = (FIXTURES / code / "bad.py").read_text()
    fixed = (FIXTURES / code / "fixed.py").read_text()
    found = {d.code for d in check_source(bad, path="bad.py")} | {d.code for d in check_source(bad, path="bad.py", select=[code])}
    assert found == {code}  # a rule off by default (GL001) judged by name
    assert [d.code for d in check_source(fixed, path="fixed.py")] == []


@pytest.mark.verify
def test_device_choice_is_where_the_fixtures_run():
    torch = pytest.importorskip("torch")
    (cpu,) = run_verify(["GL103"], device="cpu")
    assert cpu.passed and cpu.details["device"] == "cpu"
    (cuda,) = run_verify(["GL103"], device="cuda")
    if torch.cuda.is_available():
        assert cuda.passed and cuda.details["device"] == "cuda"
    else:
        assert not cuda.passed and "torch sees no CUDA device" in cuda.error


@pytest.mark.verify
def test_graph_census_counts_every_loss_a_running_total_keeps():
    """The census behind GL601's prediction: one loss node per accumulated loss, shared parameter
    nodes once, however long the chain (each node is held while walking, so no id is reused)."""
    import torch
    import torch.nn.functional as F

    from gradlint.verify.runner import _census

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    total = 0.0
    for _ in range(40):
        total += F.cross_entropy(model(torch.randn(4, 6)), torch.randint(0, 3, (4,)))
    census = _census(total.grad_fn)
    assert census["NllLossBackward0"] == census["AddBackward0"] == 40
    assert census["AccumulateGrad"] == 4  # two weights, two biases
