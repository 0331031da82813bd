"""Suppression comments: `# gradlint: ignore[GL201]`, bare `# gradlint: ignore`, `# noqa: GL201`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradlint.linter import check_source
from gradlint.suppression import SuppressionComments, with_noqa

sys.path.insert(0, str(Path(__file__).resolve().parent / "cli"))
from training_scripts import ACCUM_NOT_DIVIDED, CLIP_AFTER_STEP, TWO_BUGS  # noqa: E402

BACKWARD = "        loss.backward()\n"
CLIP = "        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
assert BACKWARD in ACCUM_NOT_DIVIDED and CLIP in CLIP_AFTER_STEP


def with_comment(source: str, statement: str, comment: str) -> str:
    """`source` with `comment` at the end of the line of `statement`."""
    assert source.count(statement) == 1
    return source.replace(statement, statement.rstrip("\n") + "  " + comment + "\n")


def codes(source: str) -> list[str]:
    return [d.code for d in check_source(source, path="train.py")]


def test_unsuppressed_sources_report():
    assert codes(ACCUM_NOT_DIVIDED) == ["GL201"]
    assert codes(CLIP_AFTER_STEP) == ["GL101"]


@pytest.mark.parametrize(
    "comment",
    [
        "# gradlint: ignore[GL201]",
        "# gradlint: ignore",
        "# gradlint:ignore[GL201]",
        "# gradlint: ignore[GL202, GL201]",
        "# noqa: GL201",
        "# noqa:GL201",
        "# noqa: GL201, GL202",
        "# noqa: GL202,GL201",
        "# NOQA: GL201",
        "# noqa",
        "# type: ignore  # noqa: GL201",
        "# noqa: GL201 -- the criterion already averages over the window",
    ],
)
def test_comment_on_the_line_suppresses(comment):
    assert codes(with_comment(ACCUM_NOT_DIVIDED, BACKWARD, comment)) == []


@pytest.mark.parametrize(
    "comment",
    [
        "# gradlint: ignore[GL101]",
        "# gradlint: ignore[GL202, GL401]",
        "# noqa: GL202",
        "# noqa: E501",
        "# noqa: GL101, GL202",
        "# gradlint: ignore[]",
        "# gradlint is happy here",
        "# see https://example.com/noqa-policy",
    ],
)
def test_a_different_code_does_not_suppress(comment):
    assert codes(with_comment(ACCUM_NOT_DIVIDED, BACKWARD, comment)) == ["GL201"]


@pytest.mark.parametrize(
    "statement",
    [
        "        loss = F.cross_entropy(logits, y)\n",  # the line above
        "        if (i + 1) % accum == 0 or i + 1 == len(batches):\n",  # the line below
        "            optimizer.step()\n",  # the step the finding talks about
        "    for i, (x, y) in enumerate(batches):\n",  # the loop header
    ],
)
@pytest.mark.parametrize("comment", ["# gradlint: ignore[GL201]", "# noqa: GL201", "# gradlint: ignore"])
def test_a_comment_on_another_line_does_not_suppress(statement, comment):
    assert codes(with_comment(ACCUM_NOT_DIVIDED, statement, comment)) == ["GL201"]


def test_a_comment_on_its_own_line_above_does_not_suppress():
    source = ACCUM_NOT_DIVIDED.replace(BACKWARD, "        # gradlint: ignore[GL201]\n" + BACKWARD)
    assert codes(source) == ["GL201"]


def test_only_the_named_code_is_suppressed():
    source = with_comment(TWO_BUGS, "    loss.backward()\n", "# noqa: GL201")
    assert codes(source) == ["GL101"]
    source = with_comment(TWO_BUGS, "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n",
                          "# gradlint: ignore[GL101]")
    assert codes(source) == ["GL201"]


def test_suppression_of_a_clip_after_step():
    assert codes(with_comment(CLIP_AFTER_STEP, CLIP, "# gradlint: ignore[GL101]")) == []
    on_the_step = with_comment(CLIP_AFTER_STEP, "        optimizer.step()\n", "# gradlint: ignore[GL101]")
    assert codes(on_the_step) == ["GL101"]


def test_suppression_on_the_first_line_of_a_multiline_call():
    call = "        loss.backward(  # noqa: GL201\n            retain_graph=False,\n        )\n"
    source = ACCUM_NOT_DIVIDED.replace(BACKWARD, call)
    assert codes(source) == []


def test_a_directive_inside_a_string_on_another_line_changes_nothing():
    source = ACCUM_NOT_DIVIDED.replace(
        "    model.train()\n", '    model.train()\n    print("use # noqa: GL201 to silence")\n'
    )
    assert codes(source) == ["GL201"]


def test_suppressed_findings_are_neither_reported_nor_fixed(tmp_path, monkeypatch):
    from gradlint.cli import main

    monkeypatch.chdir(tmp_path)
    comment = "# gradlint: ignore[GL201]  (loss is a mean already)"
    source = with_comment(TWO_BUGS, "    loss.backward()\n", comment)
    (tmp_path / "train.py").write_text(source, encoding="utf-8")
    check = CliRunner().invoke(main, ["check", "--format", "concise", "train.py"])
    assert check.exit_code == 1
    assert [line.split()[1] for line in check.stdout.splitlines()[:-1]] == ["GL101"]
    fix = CliRunner().invoke(main, ["fix", "train.py"])
    assert fix.exit_code == 0, fix.stderr
    fixed = (tmp_path / "train.py").read_text(encoding="utf-8")
    assert "    loss.backward()  # gradlint: ignore[GL201]  (loss is a mean already)\n" in fixed
    assert fixed.index("clip_grad_norm_") < fixed.index("optimizer.step()")


@pytest.mark.parametrize("separator", ["\x0c", "\u2028"], ids=["form-feed", "line-separator"])
def test_suppression_after_a_form_feed_line(separator):
    # Emacs-style page breaks (^L) are common in older code; \u2028 turns up in pasted docs.
    source = ACCUM_NOT_DIVIDED.replace("import torch\n", f"import torch\n# section{separator}break\n", 1)
    assert codes(source) == ["GL201"]
    assert codes(with_comment(source, BACKWARD, "# noqa: GL201")) == []
    diagnostic = check_source(source, path="train.py")[0]
    assert diagnostic.source_line == BACKWARD.rstrip("\n")


# --- where a line's comment goes: multi-line strings and backslash continuations ---------------

LOGGED = (
    "for step, (x, y) in enumerate(loader):\n"
    "    loss = loss_fn(model(x), y)\n"
    '    loss.backward(); log.info(f"""step {step}\n'
    'loss {loss.item():.3f}""")\n'
    "    total = total + \\\n"
    "        loss.item()\n"
)


def test_a_comment_for_a_line_goes_where_the_string_or_continuation_ends():
    comments = SuppressionComments(LOGGED)
    assert [comments.noqa_line(line) for line in range(1, 7)] == [1, 2, 4, 4, 6, 6]


def test_with_noqa_never_lands_inside_a_string_or_after_a_backslash():
    text, changed = with_noqa(LOGGED, [(3, "GL201"), (5, "GL601"), (3, "GL101")])
    assert changed == 2
    assert text.splitlines()[3] == 'loss {loss.item():.3f}""")  # noqa: GL101, GL201'
    assert text.splitlines()[4] == "    total = total + \\"
    assert text.splitlines()[5] == "        loss.item()  # noqa: GL601"
    compile(text, "t.py", "exec")
    comments = SuppressionComments(text)
    assert comments.suppress("GL201", 3) and comments.suppress("GL601", 5)
    assert not comments.suppress("GL301", 3)


def test_with_noqa_keeps_crlf_line_endings():
    text, _ = with_noqa("x = 1\r\nloss.backward()\r\n", [(2, "GL201")])
    assert text == "x = 1\r\nloss.backward()  # noqa: GL201\r\n"
