"""Hover: the rule's documentation, over a finding or over a rule code in a suppression comment
(`# noqa: GL201`, `# gradlint: ignore[GL201]`, `# gradlint: noqa[clip-after-step]`)."""

from __future__ import annotations

import io
import re
import tokenize

from gradlint.rules import ALL_RULES, BY_CODE, Rule

SUPPRESSION = re.compile(r"\bnoqa\b|\bgradlint\s*:", re.IGNORECASE)
WORD = re.compile(r"[A-Za-z][\w-]*")


def rule_markdown(code: str) -> str:
    from gradlint.docs import rule_doc

    try:
        doc = rule_doc(code)
    except OSError:
        doc = None
    if doc:
        return doc
    rule = BY_CODE.get(code)
    if rule is None:
        return f"**{code}**"
    return f"**{rule.code}** `{rule.name}`\n\n{rule.summary}\n\n[Documentation]({rule.url})"


def suppressed_rules_at(line: str, column: int) -> tuple[list[Rule], int, int] | None:
    """The rules named by the word at `column` of a suppression comment on `line` (a code, a
    name, or a family prefix such as GL2), with the word's columns; None elsewhere."""
    start = comment_start(line)
    if start is None or column < start or not SUPPRESSION.search(line, start):
        return None
    for word in WORD.finditer(line, start):
        if word.start() <= column <= word.end():
            rules = rules_named(word.group())
            return (rules, word.start(), word.end()) if rules else None
    return None


def comment_start(line: str) -> int | None:
    """The column where the line's comment starts (a `#` inside a string is not one)."""
    if "#" not in line:
        return None
    try:
        for token in tokenize.generate_tokens(io.StringIO(line.lstrip()).readline):
            if token.type == tokenize.COMMENT:
                return token.start[1] + len(line) - len(line.lstrip())
    except (tokenize.TokenError, SyntaxError):  # an open bracket or string: its start is seen
        pass
    return None


def rules_named(word: str) -> list[Rule]:
    by_name = [rule for rule in ALL_RULES if rule.name == word.lower()]
    if by_name:
        return by_name
    upper = word.upper()
    if not re.fullmatch(r"GL\d+", upper):
        return []
    return [rule for rule in ALL_RULES if rule.code.startswith(upper)]


def rules_markdown(rules: list[Rule]) -> str:
    """One rule's doc; for a family, its table."""
    if len(rules) == 1:
        return rule_markdown(rules[0].code)
    return "\n".join(["| code | name | finds |", "|---|---|---|"] + [f"| {r.code} | {r.name} | {r.summary} |" for r in rules])
