"""Rule documentation: rules/GLxxx.md, shipped inside the wheel as gradlint/_docs."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str, shipped: str) -> Path:
    """A folder of project data: inside the installed wheel, else the source checkout's."""
    inside = PACKAGE / shipped
    return inside if inside.is_dir() else PACKAGE.parent / name


def rule_doc(code: str) -> str | None:
    path = data_dir("rules", "_docs") / f"{code.upper()}.md"
    return path.read_text(encoding="utf-8") if path.is_file() else None
