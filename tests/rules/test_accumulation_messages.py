"""GL201 names the window as the loop counts it: micro-batches, or samples seen."""

from __future__ import annotations

import textwrap

from gradlint.linter import check_source

WINDOW = textwrap.dedent(
    """\
    seen = 0
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        seen {advance}
        if seen == args.{factor}:
            optimizer.step()
            optimizer.zero_grad()
            seen = 0
    """
)


def gl201_message(advance: str, factor: str) -> str:
    (finding,) = check_source(WINDOW.format(advance=advance, factor=factor), "train.py", select=["GL201"])
    return finding.message


def test_a_counter_of_micro_batches_is_the_divisor():
    message = gl201_message("+= 1", "accum_steps")
    assert "over `args.accum_steps` micro-batches" in message


def test_a_counter_of_samples_is_no_divisor():
    message = gl201_message("+= x.size(0)", "virtual_batch_size")
    assert "until `args.virtual_batch_size` samples are seen" in message
    assert "micro-batches:" in message and "not divided by `" not in message


def test_a_loss_divided_by_the_running_count_names_it_and_offers_no_fix():
    source = textwrap.dedent(
        """\
        micro = 0
        for x, y in loader:
            micro += 1
            loss = criterion(model(x), y) / micro
            loss.backward()
            if micro == args.accum_steps:
                optimizer.step()
                optimizer.zero_grad()
                micro = 0
        """
    )
    (finding,) = check_source(source, "train.py", select=["GL201"])
    assert "divided by the running count `micro`" in finding.message and "not by `args.accum_steps`" in finding.message
    assert finding.fix is None
