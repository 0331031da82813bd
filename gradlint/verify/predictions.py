"""What each rule's fix is predicted to change in the gradients, as a check on (bad run, fixed run).

A prediction is a small pure function of the two runs' traces; it returns whether the
prediction held and a one-line account of what was measured. Tolerances are explicit constants.
Tests inject their own table (``run_verify(..., predictions=...)``) to prove the harness fails.

What is measured, per rule (the trace records, per optimizer step, the gradients it consumed, and
per backward the gradient it added; see runner.py):

- GL101: the total norm of the gradients each ``optimizer.step()`` consumes, against the
  ``max_norm`` the script passed to ``clip_grad_norm_`` (recorded by wrapping it).
- GL201: the first step's gradients in both runs. Only steps taken from identical parameters are
  comparable (checked, not assumed): after the first update the bad run has moved N times
  further (SGD) and the runs' gradients diverge for that reason alone.
- GL202: within each run, a step's gradients against the last backward's contribution and against
  the sum of the window's contributions (the gradient that accumulation should have produced).
- GL301: the step's gradients after ``scaler.step()`` unscaled them (the step pre-hook runs
  inside ``scaler.step``, after its unscale), i.e. in true units, against ``max_norm / scale``
  (bad) and ``min(true window norm, max_norm)`` (fixed); the scale is the scaler's at that step.
- GL401: per update, the backward passes in which the DDP comm hook all-reduced a bucket; and
  the final parameters of both runs (and of both ranks in each run).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from gradlint.verify.trace import Run, Step, max_abs_diff, norm, rel_error, scaled

# float32 gradients compared through float64 arithmetic: 1e-5 relative is ~100 ulp.
GRAD_RTOL = 1e-5
# clip_grad_norm_ scales by max_norm / (total_norm + 1e-6): the result sits a hair under max_norm.
CLIP_RTOL = 1e-4
# bad GL301: norm of the step's gradients vs max_norm / scale (the 1e-6 in the clip coefficient
# is tiny next to a scaled norm in the thousands).
CRUSH_RTOL = 1e-3
# GL202: bad's step gradients must differ from the window sum by more than this (relative).
DIFFERS_RTOL = 1e-2
# GL401: params of the run with and without no_sync (float32, summation order changes).
PARAM_RTOL, PARAM_ATOL = 1e-5, 1e-6


class PredictionError(Exception):
    """The traces lack what the prediction needs (e.g. no step was recorded)."""


@dataclass
class Outcome:
    passed: bool
    measured: str
    details: dict[str, Any] = field(default_factory=dict)


Check = Callable[[Run, Run], Outcome]


@dataclass(frozen=True)
class Prediction:
    code: str
    name: str
    text: str  # what is predicted, in words (shown in the report)
    check: Check
    world_size: int = 1  # >1: the fixture is a DDP script launched on that many ranks
    bad_raises: bool = False  # bad.py is predicted to raise: its run is checked, not a failure


def _steps(run: Run, label: str) -> list[Step]:
    if not run.steps:
        raise PredictionError(f"{label} run made no optimizer step")
    return run.steps


def _max_norm(run: Run) -> float:
    clips = [e for e in run.main.clip_events() if e.get("type") == "norm"]
    values = {e["max_norm"] for e in clips}
    if len(values) != 1:
        raise PredictionError(f"expected one clip_grad_norm_ max_norm in the fixed run, saw {sorted(values)}")
    return values.pop()


def _g(x: float) -> str:
    return f"{x:.3g}"


# --------------------------------------------------------------------------- GL101
def check_gl101(bad: Run, fixed: Run) -> Outcome:
    max_norm = _max_norm(fixed)
    limit = max_norm * (1 + CLIP_RTOL)
    fixed_norms = [s.grad_norm for s in _steps(fixed, "fixed")]
    bad_norms = [s.grad_norm for s in _steps(bad, "bad")]
    fixed_ok = sum(n <= limit for n in fixed_norms)
    bad_over = sum(n > limit for n in bad_norms)
    passed = fixed_ok == len(fixed_norms) and bad_over > 0
    measured = (
        f"max_norm {_g(max_norm)}: fixed {fixed_ok}/{len(fixed_norms)} steps ≤ it "
        f"(max {max(fixed_norms):.8g}); bad {bad_over}/{len(bad_norms)} steps above "
        f"({_g(min(bad_norms))}–{_g(max(bad_norms))})"
    )
    return Outcome(passed, measured, {
        "max_norm": max_norm, "fixed_step_grad_norms": fixed_norms, "bad_step_grad_norms": bad_norms,
    })


# --------------------------------------------------------------------------- GL201
def _window_size(steps: list[Step], label: str) -> int:
    sizes = {len(s.backwards) for s in steps}
    if len(sizes) != 1 or 0 in sizes:
        raise PredictionError(f"{label} run: backward passes per step vary or are zero: {sorted(sizes)}")
    return sizes.pop()


def check_gl201(bad: Run, fixed: Run) -> Outcome:
    bsteps, fsteps = _steps(bad, "bad"), _steps(fixed, "fixed")
    n = _window_size(fsteps, "fixed")
    n_bad = _window_size(bsteps, "bad")
    if n_bad != n:
        raise PredictionError(f"bad accumulates {n_bad} micro-batches per step, fixed {n}")
    # Gradients can be compared only where both runs computed them at the same parameters: the
    # first update always; after it, bad has moved N times further (plain SGD) and they diverge.
    comparable = [
        (b, f) for b, f in zip(bsteps, fsteps)
        if max_abs_diff(b.params_before, f.params_before) == 0.0
    ]
    if not comparable:
        raise PredictionError("bad and fixed start their first step from different parameters")
    errors = [rel_error(f.grads, scaled(b.grads, 1.0 / n)) for b, f in comparable]
    worst = max(errors)
    passed = worst <= GRAD_RTOL and n > 1
    b0, f0 = bsteps[0], fsteps[0]
    ratio = b0.update_norm / f0.update_norm if f0.update_norm else float("nan")
    measured = (
        f"N={n}, {len(comparable)} step(s) from equal params: fixed vs bad/N max rel. err "
        f"{worst:.1e}; |grad| bad {_g(b0.grad_norm)}, fixed {_g(f0.grad_norm)}; bad's update {ratio:.2f}× fixed's"
    )
    return Outcome(passed, measured, {
        "N": n, "comparable_steps": len(comparable), "max_rel_error": worst,
        "bad_first_grad_norm": b0.grad_norm, "fixed_first_grad_norm": f0.grad_norm,
        "first_update_ratio_bad_over_fixed": ratio,
    })


# --------------------------------------------------------------------------- GL202
def check_gl202(bad: Run, fixed: Run) -> Outcome:
    bsteps, fsteps = _steps(bad, "bad"), _steps(fixed, "fixed")
    n = _window_size(fsteps, "fixed")
    bad_last_err = max(rel_error(s.grads, s.backwards[-1]) for s in bsteps)
    bad_window_gap = min(rel_error(s.grads, s.window_sum) for s in bsteps)
    bad_ratio = [s.grad_norm / norm(s.window_sum) for s in bsteps]
    fixed_window_err = max(rel_error(s.grads, s.window_sum) for s in fsteps)
    # Same parameters at the first step: fixed consumes exactly the window bad threw away.
    cross_err = rel_error(fsteps[0].grads, bsteps[0].window_sum)
    passed = (
        n > 1 and bad_last_err <= GRAD_RTOL and bad_window_gap > DIFFERS_RTOL
        and fixed_window_err <= GRAD_RTOL and cross_err <= GRAD_RTOL
    )
    measured = (
        f"N={n}: bad vs last micro-batch err {bad_last_err:.1e}, "
        f"{min(bad_ratio):.2f}–{max(bad_ratio):.2f} of the window's norm; "
        f"fixed vs window sum err {fixed_window_err:.1e}; fixed step 1 vs bad's window err {cross_err:.1e}"
    )
    return Outcome(passed, measured, {
        "N": n, "bad_vs_last_microbatch_rel_error": bad_last_err,
        "bad_vs_window_min_rel_gap": bad_window_gap, "bad_norm_ratio_to_window": bad_ratio,
        "fixed_vs_window_rel_error": fixed_window_err, "fixed_step1_vs_bad_window_rel_error": cross_err,
    })


# --------------------------------------------------------------------------- GL301
def check_gl301(bad: Run, fixed: Run) -> Outcome:
    max_norm = _max_norm(fixed)
    bsteps, fsteps = _steps(bad, "bad"), _steps(fixed, "fixed")
    for label, steps in (("bad", bsteps), ("fixed", fsteps)):
        if any(s.scale is None for s in steps):
            raise PredictionError(f"{label} run: a step did not go through GradScaler.step")
    # bad: clip_grad_norm_ saw scaled gradients, clipped them to max_norm in scaled units, and
    # scaler.step() then divided by the scale: the step consumes max_norm / scale in true units.
    bad_err = max(abs(s.grad_norm / (max_norm / s.scale) - 1) for s in bsteps)  # type: ignore[operator]
    # fixed: the clip saw true gradients (raw = the window's backward deltas / scale).
    fixed_err = 0.0
    fixed_expected = []
    for s in fsteps:
        raw = norm(s.window_sum) / s.scale  # type: ignore[operator]
        expected = min(raw, max_norm)
        fixed_expected.append(expected)
        fixed_err = max(fixed_err, abs(s.grad_norm / expected - 1))
    fixed_over = sum(s.grad_norm > max_norm * (1 + CLIP_RTOL) for s in fsteps)
    passed = bad_err <= CRUSH_RTOL and fixed_err <= CLIP_RTOL and fixed_over == 0
    scale = bsteps[0].scale
    bad_upd = [s.update_norm for s in bsteps]
    fixed_upd = [s.update_norm for s in fsteps]
    measured = (
        f"scale {scale:g}, max_norm {_g(max_norm)}: bad |grad| {_g(bsteps[0].grad_norm)} vs "
        f"max_norm/scale {_g(max_norm / scale)} (err {bad_err:.1e}); fixed |grad| {fsteps[0].grad_norm:.7g} "
        f"vs min(raw, max_norm) (err {fixed_err:.1e}); |update| bad {_g(max(bad_upd))}, fixed {_g(min(fixed_upd))}"
    )
    return Outcome(passed, measured, {
        "max_norm": max_norm, "scale": scale,
        "bad_step_grad_norms": [s.grad_norm for s in bsteps],
        "fixed_step_grad_norms": [s.grad_norm for s in fsteps],
        "fixed_expected_norms": fixed_expected,
        "bad_rel_error_vs_max_norm_over_scale": bad_err, "fixed_rel_error_vs_min_raw_max_norm": fixed_err,
        "bad_update_norms": bad_upd, "fixed_update_norms": fixed_upd,
        "bad_clip_saw_norms": [c["total_norm"] for s in bsteps for c in s.clips if "total_norm" in c],
        "fixed_clip_saw_norms": [c["total_norm"] for s in fsteps for c in s.clips if "total_norm" in c],
    })


# --------------------------------------------------------------------------- GL401
def check_gl401(bad: Run, fixed: Run) -> Outcome:
    for label, run in (("bad", bad), ("fixed", fixed)):
        if len(run.traces) < 2:
            raise PredictionError(f"{label} run has {len(run.traces)} rank(s); DDP needs 2")
        if any(t.ddp_models == 0 for t in run.traces):
            raise PredictionError(f"{label} run built no DistributedDataParallel model")
        _steps(run, label)
    n = _window_size(fixed.steps, "fixed")
    bad_rounds = [s.allreduce_rounds for s in bad.steps]
    fixed_rounds = [s.allreduce_rounds for s in fixed.steps]
    rank_gap = max(
        max_abs_diff(t.final_params, run.main.final_params) for run in (bad, fixed) for t in run.traces
    )
    diffs = [abs(x - y) for x, y in zip(bad.main.final_params, fixed.main.final_params, strict=True)]
    allclose = all(
        d <= PARAM_ATOL + PARAM_RTOL * abs(y) for d, y in zip(diffs, fixed.main.final_params)
    )
    passed = (
        n > 1 and allclose and rank_gap == 0.0
        and all(r == n for r in bad_rounds) and all(r == 1 for r in fixed_rounds)
    )
    measured = (
        f"N={n}: all-reduce rounds per update bad {_rounds(bad_rounds)} → fixed {_rounds(fixed_rounds)}; "
        f"final params {'allclose' if allclose else 'DIFFER'} (max |Δ| {max(diffs):.1e}); "
        f"ranks {'agree' if rank_gap == 0.0 else f'differ by {rank_gap:.1e}'}"
    )
    return Outcome(passed, measured, {
        "N": n, "bad_allreduce_rounds_per_update": bad_rounds,
        "fixed_allreduce_rounds_per_update": fixed_rounds,
        "bad_allreduce_calls": sum(sum(s.backward_allreduces) for s in bad.steps),
        "fixed_allreduce_calls": sum(sum(s.backward_allreduces) for s in fixed.steps),
        "final_params_max_abs_diff": max(diffs), "rank_param_gap": rank_gap,
    })


def _rounds(rounds: list[int]) -> str:
    return str(rounds[0]) if len(set(rounds)) == 1 else ",".join(map(str, rounds))


PREDICTIONS: dict[str, Prediction] = {
    p.code: p
    for p in (
        Prediction(
            "GL101", "clip-after-step",
            "fixed: every step's grads have total norm ≤ max_norm; bad: steps exceed it",
            check_gl101,
        ),
        Prediction(
            "GL201", "accumulation-without-loss-scaling",
            "fixed step grads = bad / N (the gradient of the window's mean loss)",
            check_gl201,
        ),
        Prediction(
            "GL202", "zero-grad-inside-accumulation",
            "bad step grads = last micro-batch only; fixed = sum over the whole window",
            check_gl202,
        ),
        Prediction(
            "GL301", "clip-without-unscale",
            "bad step grads norm = max_norm / scale (crushed); fixed = min(raw, max_norm) ≤ max_norm",
            check_gl301,
        ),
        Prediction(
            "GL401", "ddp-accumulation-without-no-sync",
            "final params allclose; all-reduce rounds per update N → 1",
            check_gl401, world_size=2,
        ),
    )
}

# Later families keep their predictions in their own modules (they import the helpers above).
from gradlint.verify.predictions_amp import AMP_PREDICTIONS  # noqa: E402
from gradlint.verify.predictions_numerics import NUMERICS_PREDICTIONS  # noqa: E402

PREDICTIONS.update((p.code, p) for p in (*AMP_PREDICTIONS, *NUMERICS_PREDICTIONS))
from gradlint.verify.predictions_order import ORDER_PREDICTIONS  # noqa: E402

PREDICTIONS.update(ORDER_PREDICTIONS)
