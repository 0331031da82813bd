"""Predictions of the GradScaler and autocast rules (GL302–GL306), as checks on (bad, fixed) runs.

- GL302, GL305: the first optimizer step of both runs (taken from identical parameters, checked):
  the gradients it consumed and the update it made, against the scaler's scale in the fixed run
  (GL302) or the bad run (GL305). The step pre-hook runs inside ``scaler.step()`` after it
  unscaled, so a step through the scaler records true units.
- GL303, GL304: the bad script raises; what it raised and after how many scaler and optimizer steps, and
  that the fixed script ran to the end.
- GL306: every step's gradients in both runs (they must be identical), and the deprecation
  warnings each run triggered.
"""

from __future__ import annotations

from gradlint.verify.predictions import GRAD_RTOL, Outcome, Prediction, PredictionError, _steps
from gradlint.verify.trace import Run, Step, max_abs_diff, rel_error, scaled

# SGD's update is lr * grad, measured as float32 parameters after minus before: an update 1/scale
# of the gradient's size keeps only a few significant bits of it (measured: 1/65505 for 1/65536).
RATIO_RTOL = 1e-3
STEP_TWICE = "step() has already been called since the last update()"
UNSCALE_TWICE = "unscale_() has already been called on this optimizer since the last update()"


def first_comparable(bad: Run, fixed: Run) -> tuple[Step, Step]:
    for label, run in (("bad", bad), ("fixed", fixed)):
        skipped = run.main.skipped_before_first_step()
        if skipped:
            scales = ", ".join(f"{e['scale']:g}" for e in skipped)
            raise PredictionError(
                f"{label} run: GradScaler skipped {len(skipped)} step(s) for inf/NaN gradients (scale {scales}) "
                "before its first optimizer step, so the runs' first steps saw different batches"
            )
    b, f = _steps(bad, "bad")[0], _steps(fixed, "fixed")[0]
    if max_abs_diff(b.params_before, f.params_before) != 0.0:
        raise PredictionError("bad and fixed start their first step from different parameters")
    return b, f


def _scale_of(step: Step, label: str) -> float:
    if step.scale is None:
        raise PredictionError(f"{label} run: the first step did not go through GradScaler.step")
    return step.scale


def check_gl302(bad: Run, fixed: Run) -> Outcome:
    b, f = first_comparable(bad, fixed)
    scale = _scale_of(f, "fixed")
    err = rel_error(b.grads, scaled(f.grads, scale))
    ratio = b.update_norm / f.update_norm
    passed = err <= GRAD_RTOL and abs(ratio / scale - 1) <= RATIO_RTOL and not b.via_scaler and f.via_scaler
    measured = (
        f"scale {scale:g}: bad's step grads = scale × fixed's (rel. err {err:.1e}); "
        f"first update {ratio:.6g}× fixed's; bad never steps through the scaler"
    )
    return Outcome(passed, measured, {
        "scale": scale, "grad_rel_error": err, "update_ratio_bad_over_fixed": ratio,
        "bad_first_grad_norm": b.grad_norm, "fixed_first_grad_norm": f.grad_norm,
    })


def check_gl305(bad: Run, fixed: Run) -> Outcome:
    b, f = first_comparable(bad, fixed)
    scale = _scale_of(b, "bad")
    err = rel_error(b.grads, scaled(f.grads, 1.0 / scale))
    ratio = b.update_norm / f.update_norm
    passed = err <= GRAD_RTOL and abs(ratio * scale - 1) <= RATIO_RTOL
    measured = (
        f"scale {scale:g}: bad's step grads = fixed's / scale (rel. err {err:.1e}); "
        f"first update {ratio:.3g}× fixed's (1/{1 / ratio:.6g})"
    )
    return Outcome(passed, measured, {
        "scale": scale, "grad_rel_error": err, "update_ratio_bad_over_fixed": ratio,
        "bad_first_grad_norm": b.grad_norm, "fixed_first_grad_norm": f.grad_norm,
    })


def _raises(bad: Run, fixed: Run, expected: str) -> Outcome:
    """bad raised RuntimeError with `expected` in its message; fixed ran to the end."""
    bt, ft = bad.main, fixed.main
    raised = bt.status == "error" and (bt.error or "").startswith("RuntimeError") and expected in (bt.error or "")
    fixed_ok = ft.status == "ok" and len(ft.steps) > len(bt.steps)
    passed = raised and fixed_ok
    what = f"raised {bt.error}" if bt.status == "error" else f"ended with status {bt.status}"
    after = f"fixed ran {len(ft.steps)} steps" if ft.status == "ok" else f"fixed FAILED ({ft.error})"
    measured = f"bad {what} after {len(bt.scaler_steps())} scaler step(s), {len(bt.steps)} optimizer step(s); {after}"
    return Outcome(passed, measured, {
        "bad_status": bt.status, "bad_error": bt.error, "bad_steps": len(bt.steps),
        "bad_scaler_steps": len(bt.scaler_steps()),
        "fixed_status": ft.status, "fixed_error": ft.error, "fixed_steps": len(ft.steps),
    })


def check_gl303(bad: Run, fixed: Run) -> Outcome:
    outcome = _raises(bad, fixed, STEP_TWICE)
    # The first scaler.step() returns (stepping, or skipping on inf); the second raises.
    outcome.passed = outcome.passed and outcome.details["bad_scaler_steps"] == 1
    return outcome


def check_gl304(bad: Run, fixed: Run) -> Outcome:
    outcome = _raises(bad, fixed, UNSCALE_TWICE)
    outcome.passed = outcome.passed and outcome.details["bad_steps"] == 0  # raises in iteration 1
    return outcome


def _deprecations(run: Run) -> list[str]:
    return [w["message"] for w in run.main.warnings if "torch.cuda.amp" in w["message"] and "deprecated" in w["message"]]


def check_gl306(bad: Run, fixed: Run) -> Outcome:
    bsteps, fsteps = _steps(bad, "bad"), _steps(fixed, "fixed")
    if len(bsteps) != len(fsteps):
        raise PredictionError(f"bad made {len(bsteps)} steps, fixed {len(fsteps)}")
    worst = max(max_abs_diff(b.grads, f.grads) for b, f in zip(bsteps, fsteps))
    params = max_abs_diff(bad.main.final_params, fixed.main.final_params)
    warned, still = _deprecations(bad), _deprecations(fixed)
    passed = worst == 0.0 and params == 0.0 and bool(warned) and not still
    measured = (
        f"{len(fsteps)} steps: step grads identical (max |Δ| {worst:.1e}), final params identical "
        f"(max |Δ| {params:.1e}); deprecation warnings bad {len(warned)} → fixed {len(still)}"
    )
    return Outcome(passed, measured, {
        "steps": len(fsteps), "max_grad_diff": worst, "max_param_diff": params,
        "bad_deprecation_warnings": warned, "fixed_deprecation_warnings": still,
    })


AMP_PREDICTIONS = (
    Prediction(
        "GL302", "step-bypasses-scaler",
        "bad update = scale × fixed (SGD), steps never pass through the scaler", check_gl302,
    ),
    Prediction(
        "GL303", "missing-scaler-update",
        f"bad raises RuntimeError at the second scaler.step() (\"{STEP_TWICE}\"); fixed runs",
        check_gl303, bad_raises=True,
    ),
    Prediction(
        "GL304", "double-unscale",
        f"bad raises RuntimeError (\"{UNSCALE_TWICE}\"); fixed runs", check_gl304, bad_raises=True,
    ),
    Prediction(
        "GL305", "unscaled-backward-with-scaler", "bad update = fixed / scale (SGD)", check_gl305,
    ),
    Prediction(
        "GL306", "deprecated-cuda-amp",
        "gradients and parameters unchanged; the torch.cuda.amp deprecation warnings are gone", check_gl306,
    ),
)
