"""Predictions of the DDP-context, numerics and memory rules (GL402, GL501–GL503, GL601).

- GL402: as GL401 (the fix has the same effect): all-reduce rounds per update, final parameters.
- GL501: whether the gradients each step consumed are finite, in both runs.
- GL502, GL503: the first step of both runs (same parameters, checked): the norm of the
  gradients it consumed; the activation applied twice shrinks them.
- GL601: the scalars each script leaves in its global namespace: the running total's grad_fn and
  how many loss graphs (autograd loss nodes) it keeps reachable, against the backward passes run.
"""

from __future__ import annotations

import math

from gradlint.verify.predictions import Outcome, Prediction, PredictionError, _steps, check_gl401
from gradlint.verify.predictions_amp import first_comparable
from gradlint.verify.trace import Run, max_abs_diff


def _finite(values: list[float]) -> bool:
    return all(math.isfinite(v) for v in values)


def check_gl501(bad: Run, fixed: Run) -> Outcome:
    bsteps, fsteps = _steps(bad, "bad"), _steps(fixed, "fixed")
    bad_nonfinite = [s.index + 1 for s in bsteps if not _finite(s.grads)]
    fixed_nonfinite = [s.index + 1 for s in fsteps if not _finite(s.grads)]
    first = bsteps[0]
    nan_entries = sum(1 for v in first.grads if math.isnan(v))
    passed = bool(bad_nonfinite) and bad_nonfinite[0] == 1 and not fixed_nonfinite
    measured = (
        f"bad: non-finite step grads at {len(bad_nonfinite)}/{len(bsteps)} steps (step 1: {nan_entries}/"
        f"{len(first.grads)} NaN); fixed: finite at {len(fsteps) - len(fixed_nonfinite)}/{len(fsteps)} steps"
    )
    return Outcome(passed, measured, {
        "bad_nonfinite_steps": bad_nonfinite, "fixed_nonfinite_steps": fixed_nonfinite,
        "bad_first_step_nan_entries": nan_entries,
    })


def check_shrunk(bad: Run, fixed: Run) -> Outcome:
    """The first step's gradients are smaller in the bad run (an activation applied twice)."""
    b, f = first_comparable(bad, fixed)
    if not (_finite(b.grads) and _finite(f.grads)):
        raise PredictionError("non-finite gradients at the first step")
    ratio = b.grad_norm / f.grad_norm
    passed = ratio < 1.0
    measured = (
        f"first step, same params: |grad| bad {b.grad_norm:.3g} vs fixed {f.grad_norm:.3g} "
        f"(bad = {ratio:.3g}× fixed, 1/{1 / ratio:.3g})"
    )
    return Outcome(passed, measured, {
        "bad_first_grad_norm": b.grad_norm, "fixed_first_grad_norm": f.grad_norm, "ratio_bad_over_fixed": ratio,
    })


def _loss_graphs(entry: dict) -> int:
    return sum(n for name, n in entry.get("graph", {}).items() if "Loss" in name)


def check_gl601(bad: Run, fixed: Run) -> Outcome:
    holders = {name: e for name, e in bad.main.scalars.items() if e.get("grad_fn")}
    if not holders:
        raise PredictionError("bad run left no scalar holding an autograd graph")
    name, entry = max(holders.items(), key=lambda item: _loss_graphs(item[1]))
    kept = _loss_graphs(entry)
    backwards = sum(len(s.backwards) for s in _steps(bad, "bad"))
    after = fixed.main.scalars.get(name)
    if after is None:
        raise PredictionError(f"fixed run left no global `{name}`")
    params = max_abs_diff(bad.main.final_params, fixed.main.final_params)
    passed = kept == backwards and after.get("grad_fn") is None and _loss_graphs(after) == 0 and params == 0.0
    measured = (
        f"`{name}`: bad is a tensor with grad_fn {entry['grad_fn']} keeping {kept} loss graphs alive "
        f"({sum(entry['graph'].values())} autograd nodes) after {backwards} backward passes; fixed is a "
        f"{after['type']} with no graph; training unchanged (max param |Δ| {params:.1e})"
    )
    return Outcome(passed, measured, {
        "accumulator": name, "bad_grad_fn": entry["grad_fn"], "bad_loss_graphs": kept,
        "bad_graph_nodes": sum(entry["graph"].values()), "backward_passes": backwards,
        "fixed_type": after["type"], "fixed_grad_fn": after.get("grad_fn"), "max_param_diff": params,
    })


NUMERICS_PREDICTIONS = (
    Prediction(
        "GL402", "no-sync-without-forward",
        "final params allclose; all-reduce rounds per update N → 1", check_gl401, world_size=2,
    ),
    Prediction("GL501", "log-of-softmax", "bad step grads non-finite (NaN) from step 1; fixed finite", check_gl501),
    Prediction(
        "GL502", "softmax-before-cross-entropy", "bad step grads smaller than fixed's (same params)", check_shrunk,
    ),
    Prediction(
        "GL503", "sigmoid-with-logits-loss", "bad step grads smaller than fixed's (same params)", check_shrunk,
    ),
    Prediction(
        "GL601", "loss-kept-with-graph",
        "bad accumulator has a grad_fn and keeps one loss graph per backward; fixed has none; "
        "training unchanged",
        check_gl601,
    ),
)
