"""The trace model and the predictions on synthetic traces: no torch, no subprocess."""

from __future__ import annotations

import math

import pytest

from gradlint.verify.predictions import PREDICTIONS, PredictionError
from gradlint.verify.trace import Run, Trace, rel_error

SHAPES = [[2], [1]]  # two parameters, 3 numbers


def backward(delta, allreduces=0):
    return {"kind": "backward", "loss": 1.0, "deltas": [delta[:2], delta[2:]], "allreduces": allreduces}


def step(grads, params=(0.0, 0.0, 0.0), update=(0.0, 0.0, 0.0), lr=0.1):
    return {
        "kind": "step", "optimizer": 0, "params": [0, 1], "lrs": [lr],
        "grads": [list(grads[:2]), list(grads[2:])],
        "params_before": [list(params[:2]), list(params[2:])],
        "update": [list(update[:2]), list(update[2:])], "via_scaler": False,
    }


def run(*events, final=(0.0, 0.0, 0.0), ranks=1, ddp=0):
    traces = [
        Trace.from_dict({
            "version": 1, "torch": "x", "status": "ok", "error": None, "rank": r,
            "world_size": ranks, "ddp_models": ddp, "param_shapes": SHAPES,
            "events": list(events), "final_params": [list(final[:2]), list(final[2:])],
        })
        for r in range(ranks)
    ]
    return Run("script.py", traces)


def test_steps_collect_their_window():
    r = run(
        backward([1, 2, 3]), {"kind": "clip", "type": "norm", "max_norm": 1.0, "total_norm": 3.7},
        backward([1, 1, 1]), step([2, 3, 4]), {"kind": "scaler_step", "scale": 8.0, "skipped": False},
        backward([0, 0, 1]), step([0, 0, 1]),
    )
    first, second = r.steps
    assert first.window_sum == [2, 3, 4] and len(first.clips) == 1 and first.scale == 8.0
    assert second.backwards == [[0, 0, 1]] and second.scale is None
    assert math.isclose(first.grad_norm, math.sqrt(29))


def test_missing_grads_count_as_zero():
    ev = backward([1, 2, 3])
    ev["deltas"][1] = None
    s = run(ev, step([1, 2, 0])).steps[0]
    assert s.backwards == [[1, 2, 0.0]]


def test_rel_error():
    assert rel_error([1.0, 2.0], [1.0, 2.0]) == 0.0
    assert rel_error([1.0, 2.2], [1.0, 2.0]) == pytest.approx(0.1)


def clip(max_norm=1.0):
    return {"kind": "clip", "type": "norm", "max_norm": max_norm, "total_norm": 5.0}


def test_gl101_holds_and_fails():
    check = PREDICTIONS["GL101"].check
    bad = run(backward([3, 4, 0]), step([3, 4, 0]), clip())
    fixed = run(backward([3, 4, 0]), clip(), step([0.6, 0.8, 0]))
    assert check(bad, fixed).passed
    # a "fix" that leaves the steps unclipped
    assert not check(bad, run(backward([3, 4, 0]), clip(), step([3, 4, 0]))).passed
    # a bad run that never exceeds max_norm shows nothing
    assert not check(run(backward([0.3, 0.4, 0]), step([0.3, 0.4, 0]), clip()), fixed).passed


def test_gl201_compares_steps_from_equal_params():
    check = PREDICTIONS["GL201"].check
    window = [backward([1, 1, 1])] * 4
    bad = run(*window, step([4, 4, 4]), *window, step([4, 4, 4], params=(1, 1, 1)))
    fixed = run(*window, step([1, 1, 1]), *window, step([9, 9, 9], params=(2, 2, 2)))
    out = check(bad, fixed)
    assert out.passed and out.details["comparable_steps"] == 1 and out.details["N"] == 4
    wrong = run(*window, step([2, 2, 2]))
    assert not check(bad, wrong).passed


def test_gl202_holds_and_fails():
    check = PREDICTIONS["GL202"].check
    micro = [backward([1, 0, 0]), backward([0, 1, 0]), backward([0, 0, 1])]
    bad = run(*micro, step([0, 0, 1]))
    fixed = run(*micro, step([1, 1, 1]))
    assert check(bad, fixed).passed
    assert not check(bad, bad).passed  # a fix that changes nothing
    assert not check(fixed, fixed).passed


def test_gl301_holds_and_fails():
    check = PREDICTIONS["GL301"].check
    scale = 1024.0
    sc = {"kind": "scaler_step", "scale": scale, "skipped": False}
    raw = [3 * scale, 4 * scale, 0]  # true norm 5
    bad = run(backward(raw), clip(), step([0.6 / scale, 0.8 / scale, 0]), sc)
    fixed = run(backward(raw), clip(), step([0.6, 0.8, 0]), sc)
    assert check(bad, fixed).passed
    assert not check(fixed, fixed).passed
    with pytest.raises(PredictionError):
        check(run(backward(raw), clip(), step([0.6, 0.8, 0])), fixed)  # no scaler


def test_gl401_holds_and_fails():
    check = PREDICTIONS["GL401"].check
    bad = run(*[backward([1, 1, 1], allreduces=1)] * 4, step([4, 4, 4]), final=(1, 2, 3), ranks=2, ddp=1)
    fixed = run(
        *[backward([1, 1, 1])] * 3, backward([1, 1, 1], allreduces=1), step([4, 4, 4]),
        final=(1, 2, 3), ranks=2, ddp=1,
    )
    assert check(bad, fixed).passed
    assert not check(bad, bad).passed  # still N all-reduces
    drifted = run(*[backward([1, 1, 1])] * 3, backward([1, 1, 1], allreduces=1), step([4, 4, 4]),
                  final=(1, 2, 3.1), ranks=2, ddp=1)
    assert not check(bad, drifted).passed
    with pytest.raises(PredictionError):
        check(run(backward([1, 1, 1]), step([1, 1, 1])), fixed)  # one rank, no DDP


def with_outcome(r: Run, status="ok", error=None, scalars=None) -> Run:
    for t in r.traces:
        t.status, t.error, t.scalars = status, error, scalars or {}
    return r


def test_gl303_needs_the_predicted_error_and_a_fixed_run_that_goes_further():
    check = PREDICTIONS["GL303"].check
    message = "RuntimeError: step() has already been called since the last update()."
    stepped = {"kind": "scaler_step", "scale": 4.0, "skipped": False}
    bad = with_outcome(run(backward([1, 1, 1]), step([1, 1, 1]), stepped), "error", message)
    fixed = run(backward([1, 1, 1]), step([1, 1, 1]), backward([1, 1, 1]), step([1, 1, 1]))
    assert check(bad, fixed).passed
    other = with_outcome(run(backward([1, 1, 1]), step([1, 1, 1])), "error", "RuntimeError: CUDA out of memory")
    assert not check(other, fixed).passed
    # fp16 overflow at the first scale: scaler.step() skipped the optimizer, then the second raised
    skipped = {"kind": "scaler_step", "scale": 65536.0, "skipped": True}
    assert check(with_outcome(run(backward([1, 1, 1]), skipped), "error", message), fixed).passed
    # raising at the third scaler.step() is not the predicted second
    late = with_outcome(run(backward([1, 1, 1]), step([1, 1, 1]), stepped, step([1, 1, 1]), stepped), "error", message)
    assert not check(late, fixed).passed
    assert not check(bad, with_outcome(fixed, "error", message)).passed


def test_gl302_and_gl305_compare_the_first_step_with_the_scale():
    scaler_step = {"kind": "scaler_step", "scale": 4.0, "skipped": False}
    through_scaler = dict(step([1, 2, 0], update=(-0.1, -0.2, 0.0)), via_scaler=True)
    fixed = run(backward([4, 8, 0]), through_scaler, scaler_step)
    big = run(backward([4, 8, 0]), step([4, 8, 0], update=(-0.4, -0.8, 0.0)))
    assert PREDICTIONS["GL302"].check(big, fixed).passed
    assert not PREDICTIONS["GL302"].check(fixed, fixed).passed
    small = run(backward([1, 2, 0]), step([0.25, 0.5, 0], update=(-0.025, -0.05, 0.0)), scaler_step)
    plain = run(backward([1, 2, 0]), step([1, 2, 0], update=(-0.1, -0.2, 0.0)))
    assert PREDICTIONS["GL305"].check(small, plain).passed
    assert not PREDICTIONS["GL305"].check(small, small).passed
    with pytest.raises(PredictionError):  # the bad run's scale is what the prediction divides by
        PREDICTIONS["GL305"].check(plain, plain)


def test_gl302_and_gl305_refuse_runs_whose_scaler_skipped_steps_first():
    """fp16 overflowing at the initial scale makes scaler.step() skip the first batches: the first
    optimizer steps of bad and fixed then consumed different batches and are not compared."""
    skipped = {"kind": "scaler_step", "scale": 65536.0, "skipped": True}
    scaler_step = {"kind": "scaler_step", "scale": 16384.0, "skipped": False}
    through_scaler = dict(step([1, 2, 0], update=(-0.1, -0.2, 0.0)), via_scaler=True)
    fixed = run(backward([9, 9, 9]), skipped, backward([4, 8, 0]), through_scaler, scaler_step)
    big = run(backward([4, 8, 0]), step([4, 8, 0], update=(-0.4, -0.8, 0.0)))
    with pytest.raises(PredictionError, match=r"fixed run: GradScaler skipped 1 step\(s\).*scale 65536"):
        PREDICTIONS["GL302"].check(big, fixed)
    with pytest.raises(PredictionError, match="bad run: GradScaler skipped"):
        PREDICTIONS["GL305"].check(fixed, big)


def test_gl601_counts_the_loss_graphs_the_total_keeps():
    check = PREDICTIONS["GL601"].check
    two_steps = (backward([1, 1, 1]), step([1, 1, 1]), backward([1, 1, 1]), step([1, 1, 1]))
    kept = {"total": {"type": "tensor", "grad_fn": "AddBackward0", "graph": {"MseLossBackward0": 2, "AddBackward0": 2}}}
    freed = {"total": {"type": "float", "grad_fn": None, "graph": {}}}
    assert check(with_outcome(run(*two_steps), scalars=kept), with_outcome(run(*two_steps), scalars=freed)).passed
    assert not check(with_outcome(run(*two_steps), scalars=kept), with_outcome(run(*two_steps), scalars=kept)).passed
    with pytest.raises(PredictionError):
        check(with_outcome(run(*two_steps), scalars=freed), with_outcome(run(*two_steps), scalars=freed))


def test_gl501_wants_non_finite_bad_and_finite_fixed_gradients():
    check = PREDICTIONS["GL501"].check
    nan = run(backward([1, 1, 1]), step([math.nan, math.nan, 0.0]))
    finite = run(backward([1, 1, 1]), step([1.0, -1.0, 0.0]))
    assert check(nan, finite).passed
    assert not check(finite, finite).passed


def test_a_distributed_launch_a_signal_ended_is_tried_once_more(monkeypatch, tmp_path):
    """gloo may abort a rank when a peer drops under load (`terminate called without an active
    exception`): a multi-rank launch ended by a signal runs once more; a script's own error,
    or a second abort, is reported."""
    from gradlint.verify import harness

    outcomes = [harness.LaunchError("fixed.py crashed on rank 0 (killed)", transient=True), "run"]
    calls = []

    def once(*args, **kwargs):
        calls.append(args)
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    monkeypatch.setattr(harness, "_launch_once", once)
    assert harness.launch(tmp_path / "fixed.py", tmp_path, world_size=2) == "run"
    assert len(calls) == 2

    outcomes[:] = [harness.LaunchError("fixed.py crashed on rank 0 (exit 1)"), "run"]
    with pytest.raises(harness.LaunchError, match="exit 1"):
        harness.launch(tmp_path / "fixed.py", tmp_path, world_size=2)

    outcomes[:] = [harness.LaunchError("killed", transient=True), harness.LaunchError("killed again", transient=True)]
    with pytest.raises(harness.LaunchError, match="killed again"):
        harness.launch(tmp_path / "fixed.py", tmp_path, world_size=2)
