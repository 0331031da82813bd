"""`check --show-files` and `--show-settings`: which files a run checks, and with which settings,
to debug a configuration (which pyproject.toml applies, what is excluded)."""

from __future__ import annotations

from typing import Sequence

from gradlint.discovery import Missing


def files_listing(tasks: Sequence) -> str:
    return "".join(f"{task.path}\n" for task in tasks if not isinstance(task, Missing))


def settings(tasks: Sequence) -> str:
    """The resolved settings of the first file, as ruff's --show-settings does."""
    task = next((t for t in tasks if not isinstance(t, Missing)), None)
    if task is None:
        return "No file to check.\n"
    config = task.config
    rules = config.rules_for(task.path)
    lines = [
        f"Resolved settings for: {task.path}",
        f"Settings path: {config.source if config.source else '(none: defaults)'}",
        f"root = {config.root}",
        f"select = {_list(config.select) if config.select is not None else '(default: every rule on by default)'}",
        f"extend-select = {_list(config.extend_select)}",
        f"ignore = {_list(config.ignore)}",
        "per-file-ignores = {" + ", ".join(f"{g!r}: {_list(c)}" for g, c in config.per_file_ignores.items()) + "}",
        f"exclude = {_list(config.exclude)}",
        f"extend-exclude = {_list(config.extend_exclude)}",
        f"respect-gitignore = {'true' if config.respect_gitignore else 'false'}",
        "enabled rules for this file:",
        *(f"  {rule.code} {rule.name}" for rule in rules),
    ]
    return "\n".join(lines) + "\n"


def _list(values) -> str:
    return "[" + ", ".join(f'"{v}"' for v in values) + "]"
