"""GL001 unused-suppression: a suppression comment that silences nothing (off by default)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Iterator, Sequence

from gradlint.fixplan import FixPlan, Position, ReplaceText
from gradlint.rules.base import Finding, Rule

if TYPE_CHECKING:
    from gradlint.suppression import SuppressionComments


class UnusedSuppression(Rule):
    code = "GL001"
    name = "unused-suppression"
    summary = "a `noqa` / `gradlint: ignore` comment that suppresses nothing"
    triggers: ClassVar[tuple[str, ...]] = ("noqa", "NOQA", "gradlint")
    trigger_pattern = None
    severity = "warning"
    default_enabled = False
    needs_model = False
    fix_applicability = "safe"
    no_prediction = "the fix edits a comment: no gradient changes"

    def check_comments(self, comments: "SuppressionComments", enabled: Sequence[str]) -> Iterator[Finding]:
        """Findings for the directives that suppressed none of the `enabled` rules' findings;
        call it after the findings of every rule the directives name went through
        `comments.suppress`."""
        for directive, stale in comments.unused(enabled):
            written = comments.text_of(directive)
            if stale:
                what = f"{', '.join(stale)} reported nothing {'in this file' if directive.file_level else 'here'}"
                title = f"remove {', '.join(stale)} from `{written}`"
            else:
                what = f"no finding {'in this file' if directive.file_level else 'on this line'} to silence"
                title = f"remove `{written}`"
            span, text = comments.removal(directive, stale)
            edit = ReplaceText(Position(span.line, span.column), Position(span.end_line, span.end_column), text)
            yield Finding(self.code, directive.span, f"Unused suppression `{written}`: {what}", FixPlan(title, (edit,)))
