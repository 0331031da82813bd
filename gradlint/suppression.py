"""Suppression comments: `# gradlint: ignore[GL201]` or bare `# gradlint: ignore` and
`# noqa: GL201` for a line, `# gradlint: noqa[GL201]` (or bare) for the whole file.

Directives are read from comment tokens, so text inside a string never counts. A finding on a
line that cannot hold a comment (inside a multi-line string, before a backslash continuation) is
suppressed by the comment at the end of the line where that string or continuation ends, which
is also where `--add-noqa` puts it."""

from __future__ import annotations

import bisect
import io
import re
import tokenize
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable, Sequence

from gradlint.diagnostics import Span
from gradlint.rules import code_of, selects
from gradlint.sources.document import split_lines

DIRECTIVE = re.compile(
    r"#\s*(?:gradlint:\s*(?P<kind>ignore|noqa)(?:\[(?P<gl>[^\]]*)\])?"
    r"|noqa(?:\s*:\s*(?P<noqa>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?)",
    re.IGNORECASE,
)
CODE_LIST = re.compile(r"[^,\s]+")
WORDS = ("noqa", "gradlint", "NOQA")  # without one of these a module has no directive


@dataclass(frozen=True)
class Directive:
    """One suppression comment. `codes` as written (names allowed in gradlint's own forms),
    empty when bare; `codes_span` the columns of the list, for editing it."""

    line: int
    start: int
    end: int
    codes: tuple[str, ...]
    codes_span: tuple[int, int] | None
    file_level: bool
    ours: bool  # gradlint's own form (a bare noqa comment belongs to every tool)
    comment_start: int  # column of the comment token's `#`
    own_line: bool  # nothing but the comment on its line

    @property
    def span(self) -> Span:
        return Span(self.line, self.start, self.line, self.end)

    @property
    def bare(self) -> bool:
        """No code list at all (`ignore[]` lists nothing, so it silences nothing)."""
        return self.codes_span is None

    def covers(self, code: str) -> bool:
        return self.bare or any(selects(c, code) for c in self.codes)

    def claims(self, code_as_written: str) -> bool:
        """Whether a listed code is gradlint's to judge (`# noqa: E501` is another tool's)."""
        return self.ours or code_as_written.upper().startswith("GL")


class SuppressionComments:
    """The suppression directives of one module and where each line's comment can go."""

    def __init__(self, text: str):
        self.text = text
        self.used: set[tuple[Directive, str | None]] = set()  # (directive, code as written or None)

    @cached_property
    def lines(self) -> list[str]:
        return split_lines(self.text)

    @cached_property
    def _scan(self) -> tuple[list[Directive], list[int]]:
        """(directives, lines of the tokens that end a physical line outside strings)."""
        lines = self.lines
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(self.text).readline))
        except (tokenize.TokenError, SyntaxError):  # cannot happen to code that parsed; be lenient
            return _line_directives(lines), list(range(1, len(lines) + 1))
        ends = [t.start[0] for t in tokens if t.type in (tokenize.NL, tokenize.NEWLINE)]
        directives: list[Directive] = []
        if any(word in self.text for word in WORDS):
            for token in tokens:
                if token.type == tokenize.COMMENT:
                    row, column = token.start
                    own = not lines[row - 1][:column].strip()
                    directives.extend(_parse(token.string, row, column, own))
        return directives, ends

    @property
    def directives(self) -> list[Directive]:
        return self._scan[0]

    def noqa_line(self, line: int) -> int:
        """The line whose end can hold a comment about `line` (itself, unless inside a
        multi-line string or followed by a backslash continuation)."""
        ends = self._scan[1]
        index = bisect.bisect_left(ends, line)
        return ends[index] if index < len(ends) else line

    def suppress(self, code: str, line: int, explicit: bool = False) -> bool:
        """Whether a finding of `code` at `line` is suppressed; remembers which directives were
        used. `explicit`: only directives that list the code count (a bare `# gradlint: ignore`
        must not hide GL001's report that it is itself unused)."""
        if not any(word in self.text for word in WORDS):
            return False
        target = self.noqa_line(line)
        hit = False
        for directive in self.directives:
            applies = directive.file_level or directive.line == target
            if applies and directive.covers(code) and not (explicit and directive.bare):
                hit = True
                self.used.add((directive, None))
                self.used.update((directive, c) for c in directive.codes if selects(c, code))
        return hit

    def names(self, code: str) -> bool:
        """Whether a directive names `code` (a bare gradlint directive names every code)."""
        if not any(word in self.text for word in WORDS):
            return False
        return any(d.covers(code) and (d.ours or not d.bare) for d in self.directives)

    def unused(self, enabled: Sequence[str]) -> Iterable[tuple[Directive, list[str]]]:
        """Directives (with their stale codes; [] when bare) that suppressed nothing although the
        `enabled` rules they name ran. Unknown codes and other tools' codes are left be."""
        for directive in self.directives:
            if directive.bare:
                if directive.ours and (directive, None) not in self.used and enabled:
                    yield directive, []
                continue
            stale = [
                c for c in directive.codes
                if directive.claims(c) and (directive, c) not in self.used and any(selects(c, e) for e in enabled)
            ]
            if stale:
                yield directive, stale

    def text_of(self, directive: Directive) -> str:
        return self.lines[directive.line - 1][directive.start : directive.end]

    def removal(self, directive: Directive, stale: Sequence[str]) -> tuple[Span, str]:
        """The edit that drops `stale` codes from `directive` (all of it when none would remain)."""
        line = self.lines[directive.line - 1]
        remaining = [c for c in directive.codes if c not in stale]
        if remaining and directive.codes_span:
            start, end = directive.codes_span
            return Span(directive.line, start, directive.line, end), ", ".join(remaining)
        if directive.start == directive.comment_start:
            if line[directive.end :].strip():  # `# noqa: GL201 why` -> `# why`
                return Span(directive.line, directive.start, directive.line, directive.end), "#"
            if directive.own_line:  # the whole line goes
                return Span(directive.line, 0, directive.line + 1, 0), ""
        cut = len(line[: directive.start].rstrip())
        return Span(directive.line, cut, directive.line, directive.end), ""


def _parse(comment: str, row: int, column: int, own_line: bool) -> list[Directive]:
    found = []
    for match in DIRECTIVE.finditer(comment):
        group = "gl" if match.group("kind") else "noqa"
        listed = match.group(group)
        codes = tuple(CODE_LIST.findall(listed.replace(",", " "))) if listed else ()
        span = (column + match.start(group), column + match.end(group)) if listed is not None else None
        found.append(
            Directive(
                line=row,
                start=column + match.start(),
                end=column + match.end(),
                codes=codes,
                codes_span=span,
                file_level=(match.group("kind") or "").lower() == "noqa",
                ours=bool(match.group("kind")),
                comment_start=column,
                own_line=own_line,
            )
        )
    return found


def _line_directives(lines: list[str]) -> list[Directive]:
    """Directives read line by line, for text the tokenizer refuses."""
    found = []
    for row, line in enumerate(lines, start=1):
        column = line.find("#")
        if column >= 0:
            found.extend(_parse(line[column:], row, column, not line[:column].strip()))
    return found


def with_noqa(text: str, findings: Iterable[tuple[int, str]]) -> tuple[str, int]:
    """`text` with `# noqa: CODE` for every (line, code), on the line that can hold it: added to
    a `noqa` or `gradlint: ignore[...]` list already there, else appended to the line. Returns
    the new text and how many lines changed."""
    comments = SuppressionComments(text)
    wanted: dict[int, list[str]] = {}
    for line, code in findings:
        codes = wanted.setdefault(comments.noqa_line(line), [])
        if code not in codes:
            codes.append(code)
    lines = split_lines(text, keepends=True)
    for number, codes in wanted.items():
        body = lines[number - 1].rstrip("\r\n")
        ending = lines[number - 1][len(body) :]
        lines[number - 1] = _add_codes(body, sorted(codes), _listing(comments, number)) + ending
    return "".join(lines), len(wanted)


def _listing(comments: SuppressionComments, line: int) -> Directive | None:
    """The line's directive that lists codes, to extend rather than add a second comment."""
    return next((d for d in comments.directives if d.line == line and d.codes and not d.file_level), None)


def _add_codes(body: str, codes: list[str], directive: Directive | None) -> str:
    if directive is not None and directive.codes_span:
        _, end = directive.codes_span
        new = [c for c in codes if c not in {code_of(x) for x in directive.codes}]
        return body[:end] + "".join(f", {c}" for c in new) + body[end:]
    content = body.rstrip()
    return f"{content}  # noqa: {', '.join(codes)}" if content else body


def ignore_list(line: str) -> tuple[list[str], int, int] | None:
    """So a code can be added to it: the codes and columns of the line's `# gradlint: ignore[...]` list."""
    # The first such directive; (codes, start, end) with start:end inside the brackets, else None.
    if "#" not in line:
        return None
    for match in DIRECTIVE.finditer(line):
        if match.group("kind") and match.group("kind").lower() == "ignore" and match.group("gl") is not None:
            start, end = match.start("gl"), match.end("gl")
            return [c.strip() for c in line[start:end].split(",") if c.strip()], start, end
    return None
