"""Golden tests for every fix: bad -> fixed, exact text; idempotent; never broken code.

The expected outputs of the case corpus live in tests/rules/golden/ (reviewed by hand); after an
intended change of a fix, regenerate them with GRADLINT_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from gradlint.fixer import fix_source
from gradlint.linter import check_source
from gradlint.rules import ALL_RULES

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted(p.parent for p in (ROOT / "fixtures").glob("GL*/bad.py"))
CASES = Path(__file__).parent / "cases"
GOLDEN = Path(__file__).parent / "golden"
BAD_CASES = sorted(CASES.glob("GL*/bad_*.py"))
BY_CODE = {rule.code: rule for rule in ALL_RULES}


AUTOFIXED = [f for f in FIXTURES if BY_CODE[f.name].fix_applicability is not None]
HAND_FIXED = [f for f in FIXTURES if BY_CODE[f.name].fix_applicability is None]


@pytest.mark.parametrize("folder", AUTOFIXED, ids=lambda p: p.name)
def test_fixture_fix_is_byte_exact(folder: Path):
    bad = (folder / "bad.py").read_text()
    expected = (folder / "fixed.py").read_text()
    outcome = fix_source(bad, path="bad.py", select=[folder.name], unsafe=True)  # as verify does
    assert outcome.text == expected
    # every finding counts as fixed, also one mended by another's fix (GL306: one import
    # rewrite mends both deprecated names)
    assert [d.code for d in outcome.before] == [d.code for d in outcome.fixed] and {d.code for d in outcome.fixed} == {folder.name}
    assert not outcome.failures and not outcome.remaining


@pytest.mark.parametrize("folder", HAND_FIXED, ids=lambda p: p.name)
def test_a_rule_without_a_fix_leaves_its_fixture_as_it_is(folder: Path):
    """fixed.py is the doc's hand-written fix: autofix must not touch bad.py."""
    bad = (folder / "bad.py").read_text()
    outcome = fix_source(bad, path="bad.py", select=[folder.name], unsafe=True)
    assert outcome.text == bad and not outcome.fixed
    assert [d.code for d in outcome.remaining] == [folder.name]


@pytest.mark.parametrize("folder", FIXTURES, ids=lambda p: p.name)
def test_fixture_bad_is_found_and_fixed_is_clean(folder: Path):
    # selected by name: a rule off by default (GL001) is judged too
    assert folder.name in {d.code for d in check_source((folder / "bad.py").read_text(), "bad.py", select=[folder.name])}
    assert check_source((folder / "fixed.py").read_text(), "fixed.py") == []


@pytest.mark.parametrize("case", BAD_CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case_fix_matches_golden(case: Path):
    text = case.read_text()
    outcome = fix_source(text, path=case.name, unsafe=True)
    golden = GOLDEN / case.parent.name / case.name  # absent: the case offers no fix
    if os.environ.get("GRADLINT_UPDATE_GOLDEN"):
        golden.unlink(missing_ok=True)
        if outcome.text != text:
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_text(outcome.text)
    assert outcome.text == (golden.read_text() if golden.exists() else text)
    ast.parse(outcome.text)
    assert not outcome.failures


@pytest.mark.parametrize("case", BAD_CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixing_twice_equals_fixing_once(case: Path):
    once = fix_source(case.read_text(), path=case.name, unsafe=True).text
    twice = fix_source(once, path=case.name, unsafe=True)
    assert twice.text == once
    assert not twice.fixed


def test_every_fixable_finding_of_the_corpus_gets_fixed():
    """Diagnostics left after fixing are among those that offered no fix (another fix may settle
    one of them: GL302's step through the scaler lets GL301 insert its `unscale_`), and in the
    corpus as a whole nearly all of those stay."""
    settled = 0
    for case in BAD_CASES:
        text = case.read_text()
        unfixable = {(d.code, d.source_line.strip()) for d in check_source(text, case.name) if not d.fixable}
        remaining = {(d.code, d.source_line.strip()) for d in fix_source(text, path=case.name, unsafe=True).remaining}
        assert remaining <= unfixable, case
        settled += len(unfixable - remaining)
    assert settled <= 3


def test_fix_that_would_break_code_is_dropped(monkeypatch):
    import gradlint.transform as transform

    source = (ROOT / "fixtures" / "GL101" / "bad.py").read_text()
    monkeypatch.setattr(transform, "apply_plan", lambda text, plan: text + "\ndef broken(:\n")
    outcome = fix_source(source, path="bad.py")
    assert outcome.text == source
    assert outcome.failures and "invalid code" in outcome.failures[0]
    assert [d.code for d in outcome.remaining] == ["GL101"]
