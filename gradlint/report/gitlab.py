"""GitLab Code Quality: the JSON array a `codequality` report artifact holds."""

from __future__ import annotations

import json
from pathlib import Path

from gradlint.report import all_diagnostics
from gradlint.report.sarif import file_line, fingerprints

# GitLab's severities: info, minor, major, critical, blocker
SEVERITIES = {"error": "major", "warning": "minor", "info": "info"}


def render(results, color: bool = False) -> str:
    diagnostics = all_diagnostics(results)
    prints = fingerprints(diagnostics)
    issues = []
    for d in diagnostics:
        line = file_line(d)
        where = f"cell {d.cell}, line {d.span.line}: " if d.cell is not None else ""
        issue = {
            "type": "issue",
            "check_name": d.code,
            "description": f"{where}{d.code} {d.name}: {d.message}",
            "content": {"body": f"{d.message}\n\n{'Fix: ' + d.fix + ' (`gradlint fix`)' if d.fix else 'No automatic fix.'}\n\n{d.url}"},
            "categories": ["Bug Risk"],
            "fingerprint": prints[d],
            "severity": SEVERITIES.get(d.severity, "major"),
            "location": {"path": Path(d.path).as_posix().removeprefix("./"), "lines": {"begin": line}},
        }
        if d.cell is None:
            issue["location"]["lines"]["end"] = max(d.span.end_line, d.span.line)
        issues.append(issue)
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
