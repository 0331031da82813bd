"""What a rule is: a code, a name, the words without which it cannot fire, and a check."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Iterator

from gradlint.diagnostics import Span
from gradlint.fixplan import FixPlan
from gradlint.model import BACKWARD_CALL

if TYPE_CHECKING:
    from gradlint.model import ModuleModel


@dataclass(frozen=True)
class Finding:
    """A rule's verdict on the virtual module, before it is mapped to the user's file."""

    code: str
    span: Span
    message: str
    fix: FixPlan | None = None


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    # A file containing none of these words cannot trigger the rule and is not parsed for it;
    # where the words are there, `trigger_pattern` (if any) must match too.
    triggers: ClassVar[tuple[str, ...]] = ("backward",)
    trigger_pattern: ClassVar[re.Pattern | None] = BACKWARD_CALL
    severity: ClassVar[str] = "error"
    default_enabled: ClassVar[bool] = True  # False: only when selected by name (GL001)
    needs_model: ClassVar[bool] = True  # False: the rule reads the suppression comments instead

    def check(self, model: "ModuleModel") -> Iterator[Finding]:
        raise NotImplementedError

    @property
    def url(self) -> str:
        return f"https://github.com/gradlint/gradlint/blob/main/rules/{self.code}.md"
