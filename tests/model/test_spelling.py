"""The text pre-filters find a call of a name exactly where a `\\b`-led pattern would."""

import re

from gradlint.model.spelling import spelled, spelled_bytes

SOURCE = """\
loss.backward()
scaler.step(optimizer)
self.train_step (batch)
pretrain_step(batch)
x = step
def step(self):
    optimizer.zero_grad()
"""


def test_finds_calls_of_whole_names_only():
    found = [(m.group(1), SOURCE.count("\n", 0, m.start()) + 1) for m in spelled(["step", "train_step", "zero_grad"]).finditer(SOURCE)]
    assert found == [("step", 2), ("train_step", 3), ("step", 6), ("zero_grad", 7)]


def test_agrees_with_a_word_boundary_pattern():
    names = ["step", "train_step", "zero_grad", "backward"]
    slow = re.compile(r"\b(%s)\s*\(" % "|".join(names))
    assert [m.span() for m in spelled(names).finditer(SOURCE)] == [m.span() for m in slow.finditer(SOURCE)]


def test_bytes_and_a_custom_tail():
    pattern = spelled_bytes(["train_one_epoch"], r"\b(?:\s*\(|\s+as\b)")
    assert pattern.search(b"from engine import train_one_epoch as run\n")
    assert pattern.search(b"engine.train_one_epoch(model)\n")
    assert not pattern.search(b"from engine import train_one_epochs\n")
    assert not pattern.search(b"# see my_train_one_epoch(model)\n")


def test_called_names_and_heads_are_whole_words_before_a_call():
    from gradlint.model.spelling import called_heads, called_names

    assert called_names(SOURCE) == {"backward", "step", "train_step", "pretrain_step", "zero_grad"}
    heads = [(head, SOURCE.count("\n", 0, offset) + 1) for head, offset in called_heads(SOURCE)]
    assert heads == [("loss", 1), ("scaler", 2), ("self", 3), ("pretrain_step", 4), ("step", 6), ("optimizer", 7)]


def test_a_long_word_costs_its_length():
    """A base64 blob in a string is one long word: the scan must not retry inside it."""
    from gradlint.model.spelling import called_names

    blob = "A" * 200_000
    assert called_names(f'data = "{blob}"\nrun(data)\n') == {"run"}
