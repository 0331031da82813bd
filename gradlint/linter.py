"""Check one document: parse once, build the training-loop model, run the rules."""

from __future__ import annotations

import ast
import functools
import re
import warnings
from typing import Sequence

from gradlint.diagnostics import Diagnostic, Span
from gradlint.model import HF_TRAINING_STEP, ModuleModel
from gradlint.model.project import ProjectContext
from gradlint.rules import ALL_RULES, Finding, Rule, select_rules
from gradlint.sources import Document, SourceError
from gradlint.sources.python import PythonDocument
from gradlint.suppression import SuppressionComments


STEP_CALL = re.compile(r"\.step\s*\(")


def _steps_somehow(text: str) -> bool:
    """Whether a loop here may step, hand its optimizer to a helper (`loss_scaler(loss,
    optimizer)`), or wrap a model in DDP for a project object's method that steps
    (`trainer.model = DDP(trainer.model)`, then `trainer.optimize_parameters()`): substring
    searches first (one pattern alternating them scans 7x slower)."""
    return any(word in text for word in ("zero_grad", "optimizer", "optimiser", "scaler", "DistributedDataParallel", "DDP(")) or (
        ".step" in text and STEP_CALL.search(text) is not None
    )


class InternalError(Exception):
    """A rule crashed: reported for the file, never as a traceback."""


def parse(doc: Document) -> ast.Module:
    """The document's tree; a notebook's cells that do not parse are left out (emptied), a
    module that does not parse is a one-line SourceError."""
    text, first_error = doc.parsable_text, None
    while True:
        try:
            return _parsed(text, doc.path)
        except SyntaxError as error:
            first_error = first_error or error
            text = doc.without_cell_at(error.lineno or 1)
            if text is None:
                break
        except (RecursionError, MemoryError, ValueError) as error:
            raise SourceError(f"cannot parse: {type(error).__name__}") from None
    line, column = first_error.lineno or 1, (first_error.offset or 1) - 1
    cell, span = doc.locate(Span(line, column, line, column))
    where = f"cell {cell}, line {span.line}" if cell else f"line {span.line}"
    raise SourceError(f"syntax error at {where}, column {span.column + 1}: {first_error.msg}") from None


@functools.lru_cache(maxsize=2)
def _parsed(text: str, path: str) -> ast.Module:
    """The last trees parsed (read-only to every caller): a file whose findings have fixes is
    asked again, from the same text, whether they can be made (fixcheck)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text, filename=path)


def find(doc: Document, rules: Sequence[Rule], project: ProjectContext | None = None) -> list[tuple[Rule, Finding]]:
    """Unsuppressed findings of `rules` on the document's virtual module, in source order;
    `project` lets the model look into the other modules of the file's project."""
    matched: dict[object, bool] = {}  # rules share words and patterns: search each once

    def spelled(word: str) -> bool:
        if word not in matched:
            matched[word] = word in doc.text
        return matched[word]

    def may_fire(rule: Rule) -> bool:
        # most rules share their trigger (backward and its pattern): asked once per trigger
        key = (rule.triggers, rule.trigger_pattern, rule.triggers_through_imports)
        if key not in matched:
            matched[key] = triggered(rule)
        return matched[key]

    def triggered(rule: Rule) -> bool:
        # words first: a substring search is cheaper than any pattern, and most files spell none
        spells_trigger = any(spelled(word) for word in rule.triggers)
        if not spells_trigger and (not rule.triggers_through_imports or project is None):
            return False
        pattern = rule.trigger_pattern
        if pattern not in matched:
            matched[pattern] = pattern is None or bool(pattern.search(doc.text))
        if not matched[pattern]:
            return False
        if spells_trigger:
            return True
        if rule.triggers not in matched:  # the words spelled by a project module imported here
            matched[rule.triggers] = project.imports_spelling(doc.text, rule.triggers)
        return matched[rule.triggers]

    active = [r for r in rules if may_fire(r)]
    loop_rules = [r for r in rules if r.trigger_pattern is Rule.trigger_pattern and r not in active]
    if loop_rules and _steps_somehow(doc.text) and (
        ("transformers" in doc.text and HF_TRAINING_STEP.search(doc.text))  # a transformers Trainer's loop, copied
        or (project is not None and project.imports_backward(doc.text))  # backward() in a project helper
        or (project is not None and project.calls_configured_backward(doc.text))  # or in a configured object's method
    ):
        active += loop_rules
    readers = [r for r in active if not r.needs_model]  # GL001: judges the suppression comments
    comments = SuppressionComments(doc.text)
    # GL001 judges a directive by running the rules it names, selected or not: a suppression is
    # stale when its rule reports nothing there, whatever this run happens to select
    judges = [r for r in ALL_RULES if readers and r not in rules and r.needs_model and comments.names(r.code)]
    found = _model_findings(doc, [r for r in active if r.needs_model] + [r for r in judges if may_fire(r)], project)
    if not found and not readers:
        return []
    found = [
        (rule, finding) for rule, finding in found
        if not comments.suppress(finding.code, finding.span.line) and rule not in judges
    ]
    judged = [r.code for r in ALL_RULES if r.needs_model]
    for reader in readers:
        found.extend(
            (reader, finding) for finding in reader.check_comments(comments, judged)
            if not comments.suppress(finding.code, finding.span.line, explicit=True)
        )
    found.sort(key=lambda pair: (pair[1].span, pair[1].code))
    return found


def _model_findings(doc: Document, rules: Sequence[Rule], project: ProjectContext | None) -> list[tuple[Rule, Finding]]:
    if not rules:
        return []
    tree = project.parsed(doc.text) if project is not None else None
    model = ModuleModel(tree or parse(doc), doc.text, project)
    seen, found = set(), []
    for rule in rules:
        try:
            findings = list(rule.check(model))
        except RecursionError:
            raise SourceError("code nested too deeply to analyse") from None
        except Exception as error:  # a bug in a rule must not take the run down
            raise InternalError(f"internal error in {rule.code}: {type(error).__name__}: {error}") from error
        for finding in findings:
            key = (finding.code, finding.span)
            if key not in seen:
                seen.add(key)
                found.append((rule, finding))
    return found


def to_diagnostic(doc: Document, rule: Rule, finding: Finding) -> Diagnostic:
    cell, span = doc.locate(finding.span)
    return Diagnostic(
        code=finding.code,
        name=rule.name,
        message=finding.message,
        path=doc.path,
        span=span,
        cell=cell,
        severity=rule.severity,
        fix=finding.fix.title if finding.fix else None,
        applicability=finding.fix.applicability if finding.fix else "safe",
        source_line=doc.source_line(finding.span.line),
        url=rule.url,
        file_line=doc.file_line(cell, span.line),
    )


def check_document(doc: Document, rules: Sequence[Rule]) -> list[Diagnostic]:
    """Diagnostics of `rules` on `doc`, mapped to the file's own positions, suppressions applied.

    Raises SourceError for a module that does not parse, InternalError when a rule crashes."""
    return [to_diagnostic(doc, rule, finding) for rule, finding in find(doc, rules)]


def check_source(text: str, path: str = "<stdin>.py", select: Sequence[str] | None = None) -> list[Diagnostic]:
    """Convenience for tests and tools: check Python source text with the selected rule codes."""
    return check_document(PythonDocument(path, text), select_rules(select))

