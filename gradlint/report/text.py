"""The default output: each diagnostic with a short source excerpt, coloured on a terminal."""

from __future__ import annotations

from gradlint.report import all_diagnostics, location

STYLES = {"location": "bold", "code": "bold red", "fix": "cyan", "gutter": "blue", "caret": "red"}


def render(results, color: bool = False) -> str:
    chunks: list[tuple[str, str | None]] = []
    for diagnostic in all_diagnostics(results):
        chunks += _diagnostic(diagnostic)
    return _to_string(chunks, color)


def _diagnostic(d) -> list[tuple[str, str | None]]:
    out = [(location(d), "location"), (": ", None), (d.code, "code")]
    if d.safe_fix:  # only what `gradlint fix` applies
        out.append((" [*]", "fix"))
    out.append((f" {d.message}\n", None))
    if d.source_line:
        number = str(d.span.line)
        pad = " " * len(number)
        start = d.span.column
        end = d.span.end_column if d.span.end_line == d.span.line else len(d.source_line)
        width = max(1, min(end, len(d.source_line)) - start)
        out += [
            (f"{pad} |\n", "gutter"),
            (f"{number} | ", "gutter"), (d.source_line.rstrip() + "\n", None),
            (f"{pad} | ", "gutter"), (_indent_like(d.source_line[:start]) + "^" * width, "caret"), ("\n", None),
        ]
    out.append(("\n", None))
    return out


def _indent_like(prefix: str) -> str:
    """Blank out `prefix` keeping its tabs, so carets line up under tab-indented code."""
    return "".join(c if c == "\t" else " " for c in prefix)


def _to_string(chunks, color: bool) -> str:
    if not color:
        return "".join(text for text, _ in chunks)
    from io import StringIO

    from rich.console import Console
    from rich.text import Text

    buffer = StringIO()
    console = Console(file=buffer, force_terminal=True, highlight=False, soft_wrap=True)
    text = Text()
    for chunk, style in chunks:
        text.append(chunk, style=STYLES.get(style) if style else None)
    console.print(text, end="")
    return buffer.getvalue()
