"""JUnit XML: one testsuite; a failing testcase per diagnostic, a passing one per clean file,
an erroring one per file that could not be checked. CI systems show these as test results."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from gradlint.report import all_diagnostics, location


def _clean(text: str) -> str:
    """Text XML 1.0 can hold: characters it forbids (control characters...) become U+FFFD."""
    return "".join(
        c if c in "\t\n\r" or ("\x20" <= c <= "\ud7ff") or ("\ue000" <= c <= "\ufffd") or c > "\uffff" else "\ufffd"
        for c in text
    )


def _attr(text) -> str:
    return quoteattr(_clean(str(text)), {"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def _text(text: str) -> str:
    return escape(_clean(text))


def render(results, color: bool = False) -> str:
    diagnostics = all_diagnostics(results)
    by_path: dict[str, list] = {}
    for d in diagnostics:
        by_path.setdefault(d.path, []).append(d)
    cases = []
    for result in sorted(results, key=lambda r: r.path):
        if result.error:
            cases.append(
                f"    <testcase classname={_attr(result.path)} name={_attr(result.path)} time=\"0\">\n"
                f"      <error message={_attr(result.error)} type=\"gradlint.error\">{_text(result.error)}</error>\n"
                "    </testcase>\n"
            )
        elif result.path not in by_path:
            cases.append(f"    <testcase classname={_attr(result.path)} name={_attr(result.path)} time=\"0\"/>\n")
        for d in by_path.pop(result.path, []):
            cases.append(_case(d))
    for rest in by_path.values():  # diagnostics without a result of their own (not expected)
        cases.extend(_case(d) for d in rest)
    failures = len(diagnostics)
    errors = sum(1 for r in results if r.error)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites name="gradlint" tests="{len(cases)}" failures="{failures}" errors="{errors}">\n'
        f'  <testsuite name="gradlint" tests="{len(cases)}" failures="{failures}" errors="{errors}" '
        f'skipped="0" time="0">\n'
        + "".join(cases)
        + "  </testsuite>\n</testsuites>\n"
    )


def _case(d) -> str:
    where = location(d)
    fix = f"\nFix: {d.fix} (`gradlint fix`)" if d.fix else ""
    excerpt = f"\n\n    {d.source_line.strip()}" if d.source_line.strip() else ""
    body = f"{where}: {d.code} {d.name}: {d.message}{excerpt}{fix}\n{d.url}"
    return (
        f"    <testcase classname={_attr(d.path)} name={_attr(f'{d.code} {where}')} "
        f'file={_attr(d.path)} line="{d.span.line}" time="0">\n'
        f"      <failure message={_attr(d.message)} type={_attr(d.code)}>{_text(body)}</failure>\n"
        "    </testcase>\n"
    )
