"""The realistic corpus of every rule of the catalogue that reads the loop model, in
tests/rules/cases/.

Every file is a small training script. `bad_*.py` files mark each line where a diagnostic must be
reported with a trailing `# expect: GL201` (several codes comma-separated); `ok_*.py` files never
get their own folder's rule, and report exactly the other rules' findings they mark (a look-alike
of one rule may hold another rule's bug). GL306, an API-style rule, is judged only in its own folder.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from gradlint.rules import ALL_RULES

CASES = Path(__file__).parent / "cases"
# GL001 reads suppression comments, not the loop model: its tests live elsewhere
RULE_DIRS = tuple(rule.code for rule in ALL_RULES if rule.needs_model)
CODES = RULE_DIRS
# Judged only in their own folder: an API-style rule that the other corpora use on purpose.
OWN_FOLDER_ONLY = {"GL306"}
FILES = sorted(CASES.rglob("*.py"))
EXPECT = re.compile(r"#\s*expect:\s*(GL\d{3}(?:\s*,\s*GL\d{3})*)\s*$")


def expected(text: str) -> set[tuple[str, int]]:
    out = set()
    for lineno, line in enumerate(text.splitlines(), start=1):
        m = EXPECT.search(line)
        if m:
            out |= {(code.strip(), lineno) for code in m.group(1).split(",")}
    return out


def describe(label: str, pairs: set[tuple[str, int]], lines: list[str]) -> str:
    rows = [f"  {code} line {n}: {lines[n - 1].strip() if 0 < n <= len(lines) else '?'}"
            for code, n in sorted(pairs, key=lambda p: (p[1], p[0]))]
    return f"{label}:\n" + ("\n".join(rows) if rows else "  (none)")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(CASES).as_posix())
def test_case_is_well_formed(path: Path):
    """Runs without the engine: the case parses and its markers fit its name and folder."""
    text = path.read_text(encoding="utf-8")
    ast.parse(text, filename=str(path))
    marks = expected(text)
    for line in text.splitlines():
        assert "expect:" not in line or EXPECT.search(line), f"malformed marker: {line.strip()}"
    assert {code for code, _ in marks} <= set(CODES)
    if path.name.startswith("ok_"):
        assert path.parent.name not in {code for code, _ in marks}, "ok_ cases carry no markers of their own rule"
    else:
        assert path.name.startswith("bad_"), "case files are named bad_*.py or ok_*.py"
        assert path.parent.name in RULE_DIRS
        assert path.parent.name in {code for code, _ in marks}, "a bad_ case marks its own rule"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(CASES).as_posix())
def test_case(path: Path):
    from gradlint.linter import check_source

    text = path.read_text(encoding="utf-8")
    want = expected(text)
    judged = {c for c in CODES if c not in OWN_FOLDER_ONLY or c == path.parent.name}
    want = {(code, line) for code, line in want if code in judged}
    got = {(d.code, d.span.line) for d in check_source(text, path=path.name) if d.code in judged}
    if got != want:
        lines = text.splitlines()
        pytest.fail(
            f"{path.relative_to(CASES).as_posix()}\n"
            + describe("missing (expected, not reported)", want - got, lines) + "\n"
            + describe("unexpected (reported, not expected)", got - want, lines),
            pytrace=False,
        )


@pytest.mark.parametrize("rule", RULE_DIRS)
def test_each_rule_has_enough_cases(rule: str):
    folder = CASES / rule
    assert len(list(folder.glob("bad_*.py"))) >= 8, f"{rule}: fewer than 8 bad_ cases"
    assert len(list(folder.glob("ok_*.py"))) >= 8, f"{rule}: fewer than 8 ok_ cases"
