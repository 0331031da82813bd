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


TAIL = textwrap.dedent(
    """\
    for epoch in range(epochs):
        for step, batch in enumerate(loader):
            loss = model(**batch).loss / accum
            loss.backward()
            if {test}:
                optimizer.step()
                optimizer.zero_grad()
    """
)


def test_gl205_names_when_the_tail_is_dropped_by_where_the_window_steps():
    """`(step + 1) % n == 0` steps on a window's last micro-batch: a tail is left when len() is
    no multiple of n; `step % n == 0` steps on its first, so one is left unless len() - 1 is."""
    (last,) = check_source(TAIL.format(test="(step + 1) % accum == 0"), "train.py", select=["GL205"])
    assert "when `len(loader)` is not a multiple of `accum`" in last.message
    (first,) = check_source(TAIL.format(test="step % accum == 0"), "train.py", select=["GL205"])
    assert "first micro-batch of each window" in first.message
    # `step % n == n - 1` is `(step + 1) % n == 0`: the window's last micro-batch steps
    (also_last,) = check_source(TAIL.format(test="step % accum == accum - 1"), "train.py", select=["GL205"])
    assert "when `len(loader)` is not a multiple of `accum`" in also_last.message
    assert "first micro-batch" not in also_last.message
    assert "when `len(loader) - 1` is not a multiple of `accum`" in first.message


def test_gl205_names_the_tail_dropped_when_a_zero_grad_runs_on_every_micro_batch():
    """Nothing clears the gradients between epochs: the tail leaks into the next epoch's first
    window. With a `zero_grad()` on every micro-batch (GL202), the next epoch's first one clears
    it: dropped."""
    (leaks,) = check_source(TAIL.format(test="(step + 1) % accum == 0"), "train.py", select=["GL205"])
    assert "leak into the first step of the next epoch" in leaks.message
    every = TAIL.format(test="(step + 1) % accum == 0").replace(
        "        loss = model(**batch).loss / accum\n",
        "        optimizer.zero_grad()\n        loss = model(**batch).loss / accum\n",
    )
    (dropped,) = check_source(every, "train.py", select=["GL205"])
    assert "the gradients are cleared before the next epoch, so those batches are dropped" in dropped.message


PROGRESS_TAIL = textwrap.dedent(
    """\
    def train_fn(model, data_loader, optimizer, accum_step):
        model.train()
        optimizer.zero_grad()
        with tqdm(total=len(data_loader)) as progress:
            for k, batch in enumerate(data_loader):
                loss = model(**batch).loss / accum_step
                loss.backward()
                if (k + 1) % accum_step == 0:
                    optimizer.step()
                    optimizer.zero_grad()
                progress.update(1)
    """
)


def test_gl205_sees_the_clear_before_the_with_block_the_loop_runs_in():
    """The function clears at its start, before the progress bar's `with` around the loop: the
    next epoch's call throws the tail away (dropped, not leaked into the next epoch's window)."""
    (dropped,) = check_source(PROGRESS_TAIL, "train.py", select=["GL205"])
    assert "the gradients are cleared before the next epoch, so those batches are dropped" in dropped.message
    assert "leak into" not in dropped.message


def test_a_clear_before_the_windows_last_backward_is_told_by_its_own_test():
    """GL202 quotes the test the clear sits under and names the step it spoils."""
    source = textwrap.dedent(
        """\
        for i, (x, y) in enumerate(loader):
            if i % accum == 0:
                optimizer.zero_grad()
            loss = criterion(model(x), y) / accum
            loss.backward()
            if i % accum == 0 or i + 1 == len(loader):
                optimizer.step()
        """
    )
    (finding,) = check_source(source, "train.py", select=["GL202"])
    assert finding.message.startswith("`optimizer.zero_grad()` runs under `i % accum == 0`, the window test of the step")
    assert "so `optimizer.step()` sees only the last one's" in finding.message


def test_gl205_names_the_length_of_zipped_loaders_and_offers_no_fix():
    """`enumerate(zip(clean, poisoned))` runs as long as the shorter loader; a zip has no len()."""
    source = TAIL.replace("enumerate(loader)", "enumerate(zip(loader, poisoned_loader))").replace("**batch", "**batch[0]")
    (finding,) = check_source(source.format(test="(step + 1) % accum == 0"), "train.py", select=["GL205"])
    assert "when `min(len(loader), len(poisoned_loader))` is not a multiple of `accum`" in finding.message
    assert finding.fix is None
