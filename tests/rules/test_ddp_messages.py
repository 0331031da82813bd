"""GL401 says what to do where the code can do it: a loop wraps its micro-batches in
`no_sync()`; an mmcv optimizer hook, whose runner ran the forward already, switches the sync."""

from __future__ import annotations

from pathlib import Path

from gradlint.linter import check_source

CASES = Path(__file__).parent / "cases" / "GL401"


def gl401_message(case: str) -> str:
    (finding,) = check_source((CASES / case).read_text(encoding="utf-8"), "train.py", select=["GL401"])
    return finding.message


def test_a_loop_is_told_to_run_its_non_final_micro_batches_under_no_sync():
    message = gl401_message("bad_ddp_train_loop_handed_over_by_partial.py")
    assert message.endswith("run the forward and backward of non-final micro-batches under `model.no_sync()`")


def test_an_optimizer_hook_is_told_to_switch_the_sync_off_before_the_runners_forward():
    message = gl401_message("bad_mmcv_optimizer_hook_accumulates_under_ddp.py")
    assert "no_sync()" not in message
    assert message.endswith(
        "the runner runs the forward, so turn the sync off for non-final iterations in `before_train_iter` "
        "(`runner.model.require_backward_grad_sync = self.every_n_iters(runner, self.update_interval)`)"
    )
