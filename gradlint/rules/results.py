"""GL105: the value of `backward()`, which is always None, used as if it were gradients."""

from __future__ import annotations

from typing import Iterator

from gradlint.model import ModuleModel
from gradlint.model.results import backward_result_uses
from gradlint.rules.base import Finding, Rule
from gradlint.rules.shared import call_text


class BackwardResultUsed(Rule):
    code = "GL105"
    name = "backward-result-used"
    summary = "the result of backward() (always None) is assigned or passed on"
    no_prediction = "backward() returns None whatever the fix: there is no fix and nothing to measure"

    def check(self, model: ModuleModel) -> Iterator[Finding]:
        for use in backward_result_uses(model):
            call = f"`{model.source(use.call)}`"
            if use.consumer is not None:
                message = (
                    f"{call} returns None: {call_text(model, use.consumer)} receives None, not gradients "
                    "(backward() only adds into each parameter's `.grad`)"
                )
            else:
                consumers = ", ".join(call_text(model, c) for c in use.uses)
                then = f"; {consumers} receives None" if consumers else ""
                message = (
                    f"{call} returns None, so `{use.name or 'the target'}` is None, not gradients or a loss"
                    f"{then} (backward() only adds into each parameter's `.grad`)"
                )
            yield Finding(self.code, model.span(use.call), message)
