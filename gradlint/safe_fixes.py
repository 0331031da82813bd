"""Fix-all without unsafe fixes (DESIGN §2.2), for the editor and the IPython extension.

`SafeFixesOnly` wraps a rule and withholds its unsafe fixes, so the fixer applies only the
safe ones; the findings themselves are unchanged.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator, Sequence

from gradlint.rules import Finding, Rule


class SafeFixesOnly(Rule):
    def __init__(self, rule: Rule):
        self.rule = rule
        self.code, self.name, self.summary = rule.code, rule.name, rule.summary
        self.triggers, self.trigger_pattern, self.severity = rule.triggers, rule.trigger_pattern, rule.severity

    def check(self, model) -> Iterator[Finding]:
        for finding in self.rule.check(model):
            yield finding if finding.fix is None or finding.fix.applicability == "safe" else replace(finding, fix=None)


def fixing_rules(rules: Sequence[Rule], unsafe: bool) -> list[Rule]:
    """The rules to give the fixer: as they are with `unsafe`, else with unsafe fixes withheld."""
    return list(rules) if unsafe else [SafeFixesOnly(rule) for rule in rules]
