"""The one-rule-many-files contract (DESIGN §1), for every rule of the catalogue.

A rule is its logic plus: its doc `rules/CODE.md` (with the sections users rely on, and an
example that really triggers the rule), its README table row, and, when it offers a fix, the
fixtures `fixtures/CODE/{bad,fixed}.py` and a prediction that `gradlint verify` checks — unless
the rule declares `no_prediction` (DESIGN's prediction "—"). Nothing here lists codes by hand:
adding a rule to ALL_RULES is enough to be held to all of it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradlint.cli import main
from gradlint.fixer import fix_source
from gradlint.linter import check_source
from gradlint.rules import ALL_RULES, BY_CODE, Rule
from gradlint.verify.harness import catalogue_codes
from gradlint.verify.predictions import PREDICTIONS

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = ("What it finds", "Why it is wrong", "Example", "Fix")
FIX_SECTIONS = ("Fix safety", "What the fix changes in the gradients")
README_ROW = re.compile(r"^\| \[(GL\d{3})\]\(rules/(GL\d{3})\.md\) \| ([a-z0-9-]+) \|", re.MULTILINE)
RULES = [pytest.param(rule, id=rule.code) for rule in ALL_RULES]


def doc_of(rule: Rule) -> str:
    path = ROOT / "rules" / f"{rule.code}.md"
    assert path.is_file(), f"{rule.code} has no doc at rules/{rule.code}.md"
    return path.read_text(encoding="utf-8")


def sections(doc: str) -> dict[str, str]:
    parts = re.split(r"^## (.+)$", doc, flags=re.MULTILINE)
    return {title.strip(): body for title, body in zip(parts[1::2], parts[2::2])}


def first_python_block(text: str) -> str | None:
    match = re.search(r"```python\n(.*?)```", text, re.DOTALL)
    return match.group(1) if match else None


def test_codes_and_names_are_unique_and_well_formed():
    codes = [r.code for r in ALL_RULES]
    names = [r.name for r in ALL_RULES]
    assert len(set(codes)) == len(codes) and len(set(names)) == len(names)
    assert all(re.fullmatch(r"GL\d{3}", c) for c in codes)
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", n) for n in names)
    assert BY_CODE == {r.code: r for r in ALL_RULES}


@pytest.mark.parametrize("rule", RULES)
def test_rule_declares_its_fix_and_prediction(rule: Rule):
    assert rule.fix_applicability in (None, "safe", "unsafe")
    if rule.fix_applicability is None:
        assert rule.no_prediction, f"{rule.code} offers no fix: say why there is nothing to measure (no_prediction)"


@pytest.mark.parametrize("rule", RULES)
def test_doc_has_its_sections(rule: Rule):
    doc = doc_of(rule)
    assert doc.startswith(f"# {rule.code}: {rule.name}\n")
    found = sections(doc)
    wanted = SECTIONS + (FIX_SECTIONS if rule.fix_applicability else ())
    missing = [s for s in wanted if not found.get(s, "").strip()]
    assert not missing, f"rules/{rule.code}.md lacks the section(s) {missing}"
    if rule.fix_applicability:
        assert rule.fix_applicability in found["Fix safety"].lower(), "the doc says whether the fix is safe or unsafe"


@pytest.mark.parametrize("rule", RULES)
def test_doc_example_triggers_the_rule(rule: Rule):
    example = first_python_block(sections(doc_of(rule))["Example"])
    assert example, f"rules/{rule.code}.md: the Example section has no ```python block"
    assert rule.code in {d.code for d in check_source(example, path="example.py", select=[rule.code])}


@pytest.mark.parametrize("rule", RULES)
def test_every_rule_has_fixtures_and_each_rule_with_a_fix_a_prediction(rule: Rule):
    folder = ROOT / "fixtures" / rule.code
    assert (folder / "bad.py").is_file() and (folder / "fixed.py").is_file(), f"{rule.code}: no fixtures"
    if rule.no_prediction:
        assert rule.code not in PREDICTIONS
        return
    prediction = PREDICTIONS.get(rule.code)
    assert prediction is not None, f"{rule.code}: no prediction in gradlint/verify/"
    assert prediction.name == rule.name


@pytest.mark.parametrize("rule", [r for r in RULES if r.values[0].no_prediction is None])
def test_fixture_fix_has_the_declared_applicability(rule: Rule):
    folder = ROOT / "fixtures" / rule.code
    outcome = fix_source((folder / "bad.py").read_text(encoding="utf-8"), path="bad.py", select=[rule.code], unsafe=True)
    assert outcome.fixed and {d.applicability for d in outcome.fixed} == {rule.fix_applicability}


def test_every_prediction_and_fixture_belongs_to_a_rule():
    assert set(PREDICTIONS) <= set(BY_CODE)
    folders = {p.name for p in (ROOT / "fixtures").iterdir() if p.is_dir() and re.fullmatch(r"GL\d{3}", p.name)}
    assert folders <= set(BY_CODE)


def test_verify_takes_its_codes_from_the_catalogue():
    assert catalogue_codes() == [r.code for r in ALL_RULES if r.no_prediction is None]


def test_readme_table_has_one_row_per_rule():
    rows = README_ROW.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert all(code == link for code, link, _ in rows), "README row links another rule's doc"
    assert [(code, name) for code, _, name in rows] == [(r.code, r.name) for r in ALL_RULES]


def test_rule_command_lists_every_rule_and_prints_each_doc():
    listing = CliRunner().invoke(main, ["rule"])
    assert listing.exit_code == 0
    listed = [line.split()[:2] for line in listing.output.splitlines()]
    assert listed == [[r.code, r.name] for r in ALL_RULES]
    for rule in ALL_RULES:
        shown = CliRunner().invoke(main, ["rule", rule.code.lower()])
        assert shown.exit_code == 0 and shown.output == doc_of(rule)
