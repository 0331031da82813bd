"""GL601 says how long the graphs live: for the run, or until the total's periodic reset."""

from __future__ import annotations

import textwrap

from gradlint.linter import check_source

LOGGED_EVERY_N_STEPS = textwrap.dedent(
    """\
    running = 0.0
    for step, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        running += loss
        if step % 100 == 99:
            print(running / 100)
            running = 0.0
    """
)

SUMMED_OVER_THE_EPOCH = textwrap.dedent(
    """\
    def train_epoch(model, loader, optimizer, criterion):
        epoch_loss = 0.0
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            epoch_loss += loss
            epoch_loss = epoch_loss + 0.0 * loss
        return epoch_loss / len(loader)
    """
)


def _message(source: str) -> str:
    findings = check_source(source, "train.py", select=["GL601"])
    assert findings, "GL601 must report the running sum"
    return findings[0].message


def test_a_total_reset_inside_the_loop_holds_graphs_until_the_reset():
    message = _message(LOGGED_EVERY_N_STEPS)
    assert "until it is reset at line 10" in message
    assert "grows with each step of that window" in message


def test_a_total_never_reset_in_the_loop_grows_for_the_whole_run():
    message = _message(SUMMED_OVER_THE_EPOCH)  # adding to itself again is no reset
    assert "reset" not in message
    assert "memory grows with each step" in message
