"""JSON Lines: one JSON object per diagnostic per line (the fields of the `json` format), for
tools that stream or `grep` results."""

from __future__ import annotations

import json

from gradlint.report import all_diagnostics
from gradlint.report.json_format import as_dict


def render(results, color: bool = False) -> str:
    return "".join(json.dumps(as_dict(d), ensure_ascii=False) + "\n" for d in all_diagnostics(results))
