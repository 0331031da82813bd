"""What a fix does, as data: statement moves, inserts, expression rewrites and wraps.

Rules describe fixes with these operations, located by the exact start positions of ast nodes;
`gradlint.transform` carries them out on a libcst tree, only when a fix is wanted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Union

Where = Literal["before", "after"]
# DESIGN §2.2: "safe" keeps every hyperparameter's meaning; "unsafe" changes the size of the
# updates the run was tuned with (or a loss term) and is applied only with --unsafe-fixes.
Applicability = Literal["safe", "unsafe"]


@dataclass(frozen=True)
class Position:
    """Start of an ast node: 1-based line, 0-based character column."""

    line: int
    column: int


@dataclass(frozen=True)
class MoveStatement:
    statement: Position
    anchor: Position
    where: Where


@dataclass(frozen=True)
class RemoveStatement:
    statement: Position


@dataclass(frozen=True)
class InsertStatement:
    code: str
    anchor: Position
    where: Where


@dataclass(frozen=True)
class ReplaceExpression:
    """Replace the expression starting at `expression` whose source is `original`."""

    expression: Position
    original: str
    code: str


@dataclass(frozen=True)
class WrapStatements:
    """Put the statements first..last (one block) under `header` (e.g. `with ctx:`), with
    `prelude` statements inserted just before the new compound statement."""

    first: Position
    last: Position
    header: str
    prelude: tuple[str, ...] = ()


@dataclass(frozen=True)
class EnsureImport:
    module: str


@dataclass(frozen=True)
class ReplaceText:
    """Replace the text from `start` to `end` (exclusive): for comments, which no tree holds."""

    start: Position
    end: Position
    text: str


Operation = Union[
    MoveStatement, RemoveStatement, InsertStatement, ReplaceExpression, WrapStatements, EnsureImport, ReplaceText
]


@dataclass(frozen=True)
class FixPlan:
    title: str
    operations: tuple[Operation, ...]
    applicability: Applicability = "safe"


@dataclass(frozen=True)
class FixPolicy:
    """Which fixes a run applies: safe ones (unsafe ones too with --unsafe-fixes), of the rules
    that the configuration's `fixable` / `unfixable` leave fixable."""

    unsafe: bool = False
    codes: frozenset[str] | None = None  # None: every rule's fixes

    def allows(self, code: str) -> bool:
        """The rule's fixes are offered at all (reported with their edits)."""
        return self.codes is None or code in self.codes

    def applies(self, code: str, applicability: str) -> bool:
        """`gradlint fix` applies such a fix in this run."""
        return self.allows(code) and (self.unsafe or applicability == "safe")
