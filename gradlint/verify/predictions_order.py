"""Predictions of the order and accumulation rules GL102–GL106 and GL203–GL205 (DESIGN §3).

GL102 measures what GL101 does (step gradient norms against max_norm).

What is measured (see runner.py for the trace): per optimizer step, the gradients it consumed,
the learning rates in force, the update it made, and the gradient each backward of its window
added; clip_grad_norm_'s max_norm.
"""

from __future__ import annotations

import math

from gradlint.verify.predictions import Outcome, Prediction, PredictionError, check_gl101
from gradlint.verify.predictions import _steps as steps, _window_size as window_size
from gradlint.verify.trace import Run, add_all, norm, rel_error, scaled

GRAD_RTOL = 1e-5  # float32 gradients through float64 arithmetic (~100 ulp)
LR_RTOL = 1e-9  # learning rates are python floats computed the same way in both runs
DIFFERS_RTOL = 1e-2  # "bad differs": more than 1 % off (relative, infinity norm)
CLIP_EPS = 1e-6  # clip_grad_norm_ scales by max_norm / (total_norm + 1e-6)


def _lrs(run: Run, label: str) -> list[float]:
    out = []
    for s in steps(run, label):
        if not s.lrs or s.lrs[0] is None:
            raise PredictionError(f"{label} run: a step has no learning rate")
        out.append(s.lrs[0])
    return out


def _one_max_norm(run: Run) -> float:
    values = {e["max_norm"] for e in run.main.clip_events() if e.get("type") == "norm"}
    if len(values) != 1:
        raise PredictionError(f"expected one clip_grad_norm_ max_norm, saw {sorted(values)}")
    return values.pop()


# --------------------------------------------------------------------------- GL103
def check_gl103(bad: Run, fixed: Run) -> Outcome:
    bsteps, fsteps = steps(bad, "bad"), steps(fixed, "fixed")
    bad_norms = [s.grad_norm for s in bsteps]
    bad_moves = [s.update_norm for s in bsteps]
    fixed_err = max(rel_error(s.grads, s.window_sum) for s in fsteps)
    fixed_min = min(s.grad_norm for s in fsteps)
    passed = max(bad_norms) == 0.0 and max(bad_moves) == 0.0 and fixed_err <= GRAD_RTOL and fixed_min > 0
    measured = (
        f"bad: max step |grad| {max(bad_norms):.3g}, max |update| {max(bad_moves):.3g} over {len(bsteps)} steps; "
        f"fixed: step grads vs the batch's backward err {fixed_err:.1e}, min |grad| {fixed_min:.3g}"
    )
    return Outcome(passed, measured, {
        "bad_step_grad_norms": bad_norms, "bad_update_norms": bad_moves,
        "fixed_vs_batch_rel_error": fixed_err, "fixed_min_grad_norm": fixed_min,
    })


# --------------------------------------------------------------------------- GL104
def check_gl104(bad: Run, fixed: Run) -> Outcome:
    bsteps, fsteps = steps(bad, "bad"), steps(fixed, "fixed")
    size = len(bsteps[0].grads)
    running, bad_err, growth = [], 0.0, []
    for s in bsteps:
        running.extend(s.backwards)
        bad_err = max(bad_err, rel_error(s.grads, add_all(running, size)))
        growth.append(s.grad_norm)
    batch_gap = max(rel_error(s.grads, s.window_sum) for s in bsteps[1:]) if len(bsteps) > 1 else 0.0
    fixed_err = max(rel_error(s.grads, s.window_sum) for s in fsteps)
    passed = bad_err <= GRAD_RTOL and batch_gap > DIFFERS_RTOL and fixed_err <= GRAD_RTOL
    measured = (
        f"bad step k vs sum of batches 1..k: err {bad_err:.1e} (vs batch k alone: off by up to {batch_gap:.3g}); "
        f"|grad| step 1 {growth[0]:.3g} → step {len(growth)} {growth[-1]:.3g}; "
        f"fixed step k vs batch k: err {fixed_err:.1e}"
    )
    return Outcome(passed, measured, {
        "bad_vs_cumulative_rel_error": bad_err, "bad_vs_batch_max_rel_gap": batch_gap,
        "bad_step_grad_norms": growth, "fixed_vs_batch_rel_error": fixed_err,
    })


# --------------------------------------------------------------------------- GL106
def check_gl106(bad: Run, fixed: Run) -> Outcome:
    blr, flr = _lrs(bad, "bad"), _lrs(fixed, "fixed")
    if len(blr) != len(flr) or len(blr) < 2:
        raise PredictionError(f"bad made {len(blr)} steps, fixed {len(flr)}")
    shifted = max(abs(b - f) / abs(f) for b, f in zip(blr, flr[1:]))
    first_gap = abs(blr[0] - flr[0]) / abs(flr[0])
    decays = flr[1] != flr[0]
    passed = shifted <= LR_RTOL and first_gap > LR_RTOL and decays
    measured = (
        f"lr of steps 1–3: bad {', '.join(f'{x:.4g}' for x in blr[:3])}; fixed "
        f"{', '.join(f'{x:.4g}' for x in flr[:3])}; bad step k vs fixed step k+1: max rel. diff {shifted:.1e}"
    )
    return Outcome(passed, measured, {
        "bad_lrs": blr, "fixed_lrs": flr, "bad_k_vs_fixed_k_plus_1_rel_diff": shifted,
        "first_lr_rel_gap": first_gap,
    })


# --------------------------------------------------------------------------- GL203
def check_gl203(bad: Run, fixed: Run) -> Outcome:
    max_norm = _one_max_norm(fixed)
    bsteps, fsteps = steps(bad, "bad"), steps(fixed, "fixed")

    def clipped(window: list[float]) -> list[float]:
        total = norm(window)
        return scaled(window, min(1.0, max_norm / (total + CLIP_EPS)))

    fixed_err = max(rel_error(s.grads, clipped(s.window_sum)) for s in fsteps)
    bad_gap = min(rel_error(s.grads, clipped(s.window_sum)) for s in bsteps)
    bad_norms = [s.grad_norm for s in bsteps]
    passed = fixed_err <= GRAD_RTOL and bad_gap > DIFFERS_RTOL
    measured = (
        f"max_norm {max_norm:g}: fixed step grads vs clip(window sum) err {fixed_err:.1e}; "
        f"bad vs clip(window sum) off by {bad_gap:.3g} or more; bad |grad| {min(bad_norms):.3g}–{max(bad_norms):.3g}"
    )
    return Outcome(passed, measured, {
        "max_norm": max_norm, "fixed_vs_clipped_window_rel_error": fixed_err,
        "bad_vs_clipped_window_min_rel_gap": bad_gap, "bad_step_grad_norms": bad_norms,
        "fixed_step_grad_norms": [s.grad_norm for s in fsteps],
    })


# --------------------------------------------------------------------------- GL204
def check_gl204(bad: Run, fixed: Run) -> Outcome:
    n = window_size(steps(fixed, "fixed")[:-1] or steps(fixed, "fixed"), "fixed")
    blr, flr = _lrs(bad, "bad"), _lrs(fixed, "fixed")
    if len(flr) < 3 or len(blr) < 3 or flr[1] == flr[0]:
        raise PredictionError("need three steps and a schedule that moves")
    per_step = math.log(flr[1] / flr[0])
    fixed_advance = [math.log(b / a) / per_step for a, b in zip(flr, flr[1:])]
    bad_advance = [math.log(b / a) / per_step for a, b in zip(blr, blr[1:])]
    full = bad_advance[: len(bad_advance) - 1]  # the last window may be a shorter tail
    passed = all(abs(a - 1) < 1e-6 for a in fixed_advance) and all(abs(a - n) < 1e-6 for a in full)
    measured = (
        f"N={n}: schedule steps per update: fixed {_spread(fixed_advance)}, bad {_spread(full)}; "
        f"lr at update {len(flr)}: fixed {flr[-1]:.4g}, bad {blr[-1]:.4g}"
    )
    return Outcome(passed, measured, {
        "N": n, "fixed_lrs": flr, "bad_lrs": blr,
        "fixed_schedule_steps_per_update": fixed_advance, "bad_schedule_steps_per_update": bad_advance,
    })


def _spread(values: list[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:.3g}" if high - low < 1e-6 else f"{low:.3g}–{high:.3g}"


# --------------------------------------------------------------------------- GL205
def check_gl205(bad: Run, fixed: Run) -> Outcome:
    bsteps, fsteps = steps(bad, "bad"), steps(fixed, "fixed")
    fixed_sizes = [len(s.backwards) for s in fsteps]
    n = max(fixed_sizes)
    tails = sum(1 for k in fixed_sizes if k < n)  # one per epoch when B % N != 0
    backwards = sum(fixed_sizes)
    if tails == 0:
        raise PredictionError("the fixed run has no partial window: the fixture's B is a multiple of N")
    per_epoch = backwards / tails
    bad_sizes = [len(s.backwards) for s in bsteps]
    leaked = [k for k in bad_sizes if k > n]
    fixed_err = max(rel_error(s.grads, s.window_sum) for s in fsteps)
    passed = (
        per_epoch.is_integer() and len(fsteps) == tails * math.ceil(per_epoch / n)
        and len(bsteps) == tails * math.floor(per_epoch / n) and fixed_err <= GRAD_RTOL
    )
    measured = (
        f"N={n}, {tails} epochs of {per_epoch:g} micro-batches: steps fixed {len(fsteps)}, bad {len(bsteps)}; "
        f"micro-batches per step fixed {fixed_sizes}, bad {bad_sizes}"
        + (f" ({len(leaked)} window(s) carried the previous epoch's tail)" if leaked else "")
    )
    return Outcome(passed, measured, {
        "N": n, "epochs": tails, "micro_batches_per_epoch": per_epoch,
        "fixed_steps": len(fsteps), "bad_steps": len(bsteps),
        "fixed_window_sizes": fixed_sizes, "bad_window_sizes": bad_sizes,
        "fixed_vs_window_rel_error": fixed_err,
    })


ORDER_PREDICTIONS: dict[str, Prediction] = {
    p.code: p
    for p in (
        Prediction(
            "GL102", "clip-before-backward",
            "fixed: every step's grads have total norm ≤ max_norm; bad: steps exceed it", check_gl101,
        ),
        Prediction(
            "GL103", "zero-grad-before-step",
            "bad: steps see zero grads and params do not move; fixed: step grads = the batch's", check_gl103,
        ),
        Prediction(
            "GL104", "missing-zero-grad",
            "bad: step k grads = sum of batches 1..k; fixed: = batch k", check_gl104,
        ),
        Prediction(
            "GL106", "scheduler-before-step",
            "bad step k uses the lr fixed uses at step k+1 (the first value is skipped)", check_gl106,
        ),
        Prediction(
            "GL203", "clip-per-micro-batch",
            "fixed: step grads = clip(window sum); bad differs", check_gl203,
        ),
        Prediction(
            "GL204", "scheduler-per-micro-batch",
            "fixed: the schedule advances once per update; bad: N times", check_gl204,
        ),
        Prediction(
            "GL205", "dropped-tail-micro-batches",
            "fixed: ceil(B/N) steps per epoch; bad: floor(B/N), the tail leaks or is dropped", check_gl205,
        ),
    )
}
