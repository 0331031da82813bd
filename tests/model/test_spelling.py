"""The text pre-filters find a call of a name exactly where a `\\b`-led pattern would, and the
activation rules trigger on words an imported project module spells."""

import re

from gradlint import linter
from gradlint.model.spelling import call_starts, occurrences, spelled
from gradlint.rules import select_rules
from gradlint.sources.python import PythonDocument

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
    tail = re.compile(rb"\b(?:\s*\(|\s+as\b)")
    assert call_starts(b"from engine import train_one_epoch as run\n", ["train_one_epoch"], tail)
    assert call_starts(b"engine.train_one_epoch(model)\n", ["train_one_epoch"], tail)
    assert not call_starts(b"from engine import train_one_epochs\n", ["train_one_epoch"], tail)
    assert not call_starts(b"# see my_train_one_epoch(model)\n", ["train_one_epoch"], tail)


def test_substring_search_finds_what_the_pattern_finds():
    """call_starts compiles nothing per name; it must agree with the pattern it replaces."""
    for names in (["step"], ["train_step"], ["step", "train_step", "zero_grad"], ["backward", "ward"]):
        assert call_starts(SOURCE, names) == [m.start() for m in spelled(names).finditer(SOURCE)]
    text = b"from engine import train_one_epoch as run\nmy_train_one_epoch(x)\ntrain_one_epochs(x)\n"
    assert call_starts(text, ["train_one_epoch"], re.compile(rb"\b(?:\s*\(|\s+as\b)")) == [19]
    assert sorted(occurrences("a grad, a step, gradient", ["grad", "step"])) == [2, 10, 16]


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


TRAIN = """
import torch
from torch import nn

from models import TextClassifier


def train(loader, vocab_size):
    model = TextClassifier(vocab_size)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters())
    for tokens, labels in loader:
        probs, classes = model(tokens)
        loss = criterion(probs, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""

MODELS = """
import torch.nn.functional as F
from torch import nn


class TextClassifier(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab_size, 64)
        self.fc = nn.Linear(64, 4)

    def forward(self, tokens):
        probs = F.softmax(self.fc(self.embed(tokens)), dim=1)
        return probs, probs.argmax(1)
"""


def test_the_activation_rules_trigger_on_words_spelled_by_an_imported_project_module(tmp_path, monkeypatch):
    """GL502's words (softmax) are in models.py, the loss in train.py: train.py is parsed for it
    because it imports models.py, and the finding follows the model's forward there."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "models.py").write_text(MODELS)
    train = tmp_path / "train.py"
    train.write_text(TRAIN)
    from gradlint.model.project import forget_projects, project_context

    forget_projects()
    found = linter.find(PythonDocument(str(train), TRAIN), select_rules(["GL502"]), project_context(str(train)))
    assert [(f.code, f.span.line) for _, f in found] == [("GL502", 14)]
    parsed = []
    monkeypatch.setattr(linter, "_model_findings", lambda doc, rules, project: parsed.extend(r.code for r in rules) or [])
    (tmp_path / "models.py").write_text(MODELS.replace("F.softmax(", "F.relu("))
    forget_projects()
    linter.find(PythonDocument(str(train), TRAIN), select_rules(["GL502"]), project_context(str(train)))
    assert parsed == []  # no module it imports spells softmax: not parsed for GL502
