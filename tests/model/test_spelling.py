"""The text pre-filters find a call of a name exactly where a `\\b`-led pattern would, and cut a
module into the definitions a rule's words must share."""

import re

from gradlint import linter
from gradlint.model.spelling import call_starts, occurrences, spelled, top_level_texts
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


MODELING = '''"""A model file: attention and a classification head."""
import torch
from torch import nn
from torch.nn import CrossEntropyLoss

ATTENTION_DOC = """
class Example:
    pass
"""


@torch.no_grad()
@register(
    name="attention")
class Attention(nn.Module):
    def forward(self, q, k):
        return torch.softmax(q @ k.T, dim=-1)


class Head(nn.Module):
    def forward(self, x, labels):
        return CrossEntropyLoss()(x, labels)
'''


def test_top_level_texts_cut_definitions_and_leave_imports_out():
    module, definitions = top_level_texts(MODELING)
    assert "CrossEntropyLoss" not in module and "import torch" not in module  # imports name, code uses
    assert 'ATTENTION_DOC = """' in module
    # a column-0 line inside a string reads as a definition: the text is cut, none is lost
    assert [d.splitlines()[0] for d in definitions] == ["class Example:", "@torch.no_grad()", "class Head(nn.Module):"]
    assert "softmax" in definitions[1] and "CrossEntropyLoss" in definitions[2]


def test_rules_judging_one_definition_skip_a_file_whose_definitions_split_the_words(monkeypatch):
    parsed = []
    monkeypatch.setattr(linter, "_model_findings", lambda doc, rules, project: parsed.extend(r.code for r in rules) or [])
    linter.find(PythonDocument("modeling.py", MODELING), select_rules(["GL502"]))
    assert parsed == []  # never parsed for GL502: no definition spells both
    criterion_at_module_level = MODELING + "\ncriterion = nn.CrossEntropyLoss()\n"
    linter.find(PythonDocument("modeling.py", criterion_at_module_level), select_rules(["GL502"]))
    assert parsed == ["GL502"]  # Attention's softmax may reach the module-level criterion
