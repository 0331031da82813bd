"""What a rule is: a code, a name, the words without which it cannot fire, and a check."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Iterator

from gradlint.diagnostics import Span
from gradlint.fixplan import Applicability, FixPlan, Operation
from gradlint.model import BACKWARD_CALL
from gradlint.model.spelling import Words

if TYPE_CHECKING:
    from gradlint.model import ModuleModel, TrainingLoop


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
    trigger_pattern: ClassVar[re.Pattern | Words | None] = BACKWARD_CALL
    # True: the words may be spelled by a project module this file imports instead (the
    # softmax ending a model's forward in models.py, the loss taken on its output here).
    triggers_through_imports: ClassVar[bool] = False
    severity: ClassVar[str] = "error"
    default_enabled: ClassVar[bool] = True  # False: only when selected by name (GL001)
    needs_model: ClassVar[bool] = True  # False: the rule reads the suppression comments instead
    # The catalogue's contract (DESIGN §1), checked by tests/test_registry.py: a rule that offers
    # a fix says how safe it is, and then ships fixtures/CODE/{bad,fixed}.py and a prediction in
    # gradlint/verify/; a rule whose fix cannot be measured on torch (DESIGN's prediction "—")
    # says why in `no_prediction` instead.
    fix_applicability: ClassVar[Applicability | None] = None
    no_prediction: ClassVar[str | None] = None

    def check(self, model: "ModuleModel") -> Iterator[Finding]:
        raise NotImplementedError

    def plan(self, title: str, *operations: "Operation | None") -> FixPlan | None:
        """This rule's fix, with its declared applicability; None when an operation cannot be
        made (a statement that cannot move alone)."""
        if not operations or any(op is None for op in operations):
            return None
        return FixPlan(title, operations, self.fix_applicability or "safe")

    @property
    def url(self) -> str:
        return f"https://github.com/gradlint/gradlint/blob/main/rules/{self.code}.md"


class LoopRule(Rule):
    """A rule about training loops whose gradients the code manages by itself: loops where a
    framework does the work (Accelerate, DeepSpeed, closures) or that step several optimizers
    are skipped, precision first (DESIGN §2.1)."""

    # True: the rule judges only the order of the loop's own events, which a loop leaving its
    # backward to Accelerate still decides (TrainingLoop.ordered_by_hand)
    reads_order_only: ClassVar[bool] = False
    # True: loops stepping several optimizers by hand (a GAN's turns, a second net's optimizer)
    # are read too, as they are, when no framework steps
    reads_several_optimizers: ClassVar[bool] = False
    # True: a loop whose optimizers take turns (a GAN's generator accumulating over a window while
    # the discriminator steps every batch) is read turn by turn, each as its optimizer sees it
    reads_turns: ClassVar[bool] = False

    def check(self, model: "ModuleModel") -> Iterator[Finding]:
        for loop in model.loops:
            view = loop.ordered_by_hand if self.reads_order_only else loop.by_hand
            if view is None and self.reads_several_optimizers and loop.steps_by_hand:
                view = loop
            if view is not None:
                yield from self.check_loop(model, view)
            elif self.reads_turns:
                for turn in loop.turns_ordered_by_hand if self.reads_order_only else loop.optimizer_phases:
                    yield from self.check_loop(model, turn)

    def check_loop(self, model: "ModuleModel", loop: "TrainingLoop") -> Iterator[Finding]:
        raise NotImplementedError
