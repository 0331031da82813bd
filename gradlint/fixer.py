"""Apply fixes one at a time, re-linting between them, never producing code that does not parse.

A finding is known across passes by its code and its place in the current text, never by the
text of its line (two loops can hold the same line). A fix that cannot be made is remembered
only for the text it failed on: once another fix lands it is tried again, so one run fixes
everything that can be fixed.
"""

from __future__ import annotations

import ast
import warnings
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Sequence

from gradlint.diagnostics import Diagnostic, Span
from gradlint.fixplan import FixPolicy
from gradlint.fixcheck import feasible
from gradlint.linter import find, parse, to_diagnostic
from gradlint.model.project import ProjectContext
from gradlint.rules import Finding, Rule, select_rules
from gradlint.sources import Document, SourceError, load_document
from gradlint.sources.python import PythonDocument

# Fixes one finding may lead to (a fix can reveal a finding of another rule); past this the
# fixes are going round in circles and the summary says a second run is needed.
FIXES_PER_FINDING = 4


@dataclass
class FixOutcome:
    text: str  # the fixed virtual module (doc.render(text) gives the file's bytes)
    fixed: list[Diagnostic] = field(default_factory=list)
    remaining: list[Diagnostic] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    before: list[Diagnostic] = field(default_factory=list)  # the findings of the text as read
    incomplete: bool = False  # stopped at the bound: another run would fix more

    @property
    def changed(self) -> bool:
        return bool(self.fixed)


def fixed_text(doc: Document, finding: Finding) -> str:
    """The module with one finding's fix applied; raises FixError or SourceError if it cannot be
    done safely (the result must parse, and the file kind must be able to take it back)."""
    from gradlint.transform import FixError, apply_plan  # libcst only when fixing

    if doc.partial:
        raise FixError(doc.partial_reason)
    new_text = apply_plan(doc.text, finding.fix)
    if new_text == doc.text:
        raise FixError("the fix changes nothing")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(new_text)
    except SyntaxError as error:
        raise FixError(f"the fix would produce invalid code ({error.msg})") from None
    doc.render(new_text)  # a notebook refuses fixes that touch magics or cross cells
    return new_text


def diagnose(
    doc: Document, rules: Sequence[Rule], policy: FixPolicy = FixPolicy(), edits: bool = False,
    project: ProjectContext | None = None,
) -> list[Diagnostic]:
    """The document's diagnostics. A fix that cannot be made, or that the configuration leaves
    out, is not offered. With `edits` each fix carries its edits (libcst: for the formats that
    report them); without, whether it can be made is answered from the ast (`fixcheck`)."""
    pairs = find(doc, rules, project)
    if edits:
        return [_with_edits(doc, rule, finding, policy) for rule, finding in pairs]
    tree = None
    diagnostics = []
    for rule, finding in pairs:
        diagnostic = to_diagnostic(doc, rule, finding)
        if finding.fix is not None:
            if tree is None:
                tree = parse(doc)
            if not policy.allows(finding.code) or doc.partial or not feasible(tree, doc.text, finding.fix):
                diagnostic = replace(diagnostic, fix=None)
        diagnostics.append(diagnostic)
    return diagnostics


def _with_edits(doc: Document, rule: Rule, finding: Finding, policy: FixPolicy) -> Diagnostic:
    from_rule = to_diagnostic(doc, rule, finding)
    if finding.fix is None:
        return from_rule
    if not policy.allows(finding.code):
        return replace(from_rule, fix=None)
    from gradlint.transform import FixError

    try:
        edits = doc.edits(fixed_text(doc, finding))
    except (FixError, SourceError):
        return replace(from_rule, fix=None)
    return replace(from_rule, edits=tuple(edits))


def fix_document(
    doc: Document, rules: Sequence[Rule], policy: FixPolicy = FixPolicy(), project: ProjectContext | None = None
) -> FixOutcome:
    """Apply every fix `policy` allows, one at a time, until none is left to apply."""
    from gradlint.transform import FixError

    scratch, fixed = doc, []
    failed: dict[tuple[str, Span], str] = {}  # findings whose fix failed on the current text
    seen = {doc.text}
    pairs = find(doc, rules, project)
    outcome = FixOutcome(doc.text, before=[to_diagnostic(doc, rule, finding) for rule, finding in pairs])
    budget = FIXES_PER_FINDING * len(pairs) + 10
    while True:
        pending = [
            (rule, finding) for rule, finding in pairs
            if finding.fix and policy.applies(finding.code, finding.fix.applicability)
            and (finding.code, finding.span) not in failed
        ]
        if not pending:
            break
        if len(fixed) >= budget:
            outcome.incomplete = True
            break
        rule, finding = pending[0]
        key = (finding.code, finding.span)
        try:
            text = fixed_text(scratch, finding)
        except (FixError, SourceError) as error:
            failed[key] = str(error)
            continue
        if text in seen:
            failed[key] = "the fix would undo an earlier fix"
            continue
        seen.add(text)
        fixed.append(to_diagnostic(scratch, rule, finding))
        previous, before_fix = pairs, scratch
        scratch = load_document(doc.path, doc.render(text))
        failed.clear()  # the text changed: what failed before is tried again
        pairs = find(scratch, rules, project)
        fixed += [to_diagnostic(before_fix, r, f) for r, f in _mended_too(previous, pairs, finding)]
    outcome.text, outcome.fixed = scratch.text, fixed
    tree = parse(scratch) if any(finding.fix for _, finding in pairs) else None
    outcome.remaining = [_remaining(scratch, tree, rule, finding, policy, failed) for rule, finding in pairs]
    outcome.failures = [
        f"{_where(scratch, rule, finding)}: {finding.code} not fixed: {failed[(finding.code, finding.span)]}"
        for rule, finding in pairs
        if (finding.code, finding.span) in failed
    ]
    if outcome.incomplete:
        outcome.failures.append(f"{doc.path}: stopped after {len(fixed)} fixes; run `gradlint fix` again")
    return outcome


def _mended_too(before: list[tuple[Rule, Finding]], after: list[tuple[Rule, Finding]], applied: Finding) -> list[tuple[Rule, Finding]]:
    """Findings one fix resolved besides its own (one import rewrite mends every use of the
    deprecated names): of each code whose count fell by more than the fix's own finding, those
    whose message no longer appears (a message that merely changed keeps its count)."""
    left = Counter((f.code, f.message) for _, f in after)
    fell = Counter(f.code for _, f in before)
    fell.subtract(f.code for _, f in after)
    fell[applied.code] -= 1
    mended = []
    for rule, finding in before:
        key = (finding.code, finding.message)
        if finding is applied or fell[finding.code] <= 0:
            continue
        if left[key] > 0:
            left[key] -= 1
            continue
        fell[finding.code] -= 1
        mended.append((rule, finding))
    return mended


def _remaining(doc: Document, tree, rule: Rule, finding: Finding, policy: FixPolicy, failed) -> Diagnostic:
    """A finding left after fixing; it offers no fix when its fix failed, is not allowed, or
    (an unsafe fix this run did not try) cannot be made."""
    diagnostic = to_diagnostic(doc, rule, finding)
    if finding.fix is None:
        return diagnostic
    if (finding.code, finding.span) in failed or not policy.allows(finding.code):
        return replace(diagnostic, fix=None)
    if not feasible(tree, doc.text, finding.fix):
        return replace(diagnostic, fix=None)
    return diagnostic


def fix_source(
    text: str, path: str = "<stdin>.py", select: Sequence[str] | None = None, unsafe: bool = False
) -> FixOutcome:
    return fix_document(PythonDocument(path, text), select_rules(select), FixPolicy(unsafe=unsafe))


def _where(doc: Document, rule: Rule, finding: Finding) -> str:
    diagnostic = to_diagnostic(doc, rule, finding)
    cell = f"cell {diagnostic.cell}:" if diagnostic.cell else ""
    return f"{diagnostic.path}:{cell}{diagnostic.span.line}"
