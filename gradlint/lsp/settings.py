"""Settings the editor sends, layered over each file's `[tool.gradlint]`.

The client gives them in `initializationOptions` and again in `workspace/didChangeConfiguration`
(either bare or under a `gradlint` key, as VS Code sends a section):

    {"select": ["GL2"], "extendSelect": ["GL001"], "ignore": ["GL201"], "unsafeFixes": true}

`select` replaces the pyproject's selection, `extendSelect` adds to it and `ignore` to its
ignores, as `--select`, `--extend-select` and `--ignore` do on the command line; `unsafeFixes` lets "Fix all" and `gradlint.applyAutofix` apply
unsafe fixes too (quick fixes are offered either way, marked unsafe).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradlint.config import Config, ConfigError, load_config
from gradlint.rules import unknown_selectors


@dataclass(frozen=True)
class ClientSettings:
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    unsafe_fixes: bool = False
    extend_select: tuple[str, ...] = ()

    @classmethod
    def parse(cls, options: Any) -> tuple["ClientSettings", list[str]]:
        """Settings from the client's JSON, and one message per value that was left out."""
        if not isinstance(options, dict):
            return cls(), []
        if isinstance(options.get("gradlint"), dict):
            options = options["gradlint"]
        problems: list[str] = []

        def selectors(name: str) -> tuple[str, ...] | None:
            value = options.get(name)
            if value is None:
                return None
            if isinstance(value, str):
                value = [part.strip() for part in value.split(",") if part.strip()]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                problems.append(f"setting {name} must be a list of rule codes")
                return None
            unknown = unknown_selectors(value)
            if unknown:
                problems.append(f"setting {name}: unknown rule selector(s): {', '.join(unknown)}")
            return tuple(v for v in value if v not in unknown)

        unsafe = options.get("unsafeFixes", False)
        if not isinstance(unsafe, bool):
            problems.append("setting unsafeFixes must be true or false")
            unsafe = False
        extend = selectors("extendSelect") or ()
        return cls(selectors("select"), selectors("ignore") or (), unsafe, extend), problems

    def config_for(self, path: str) -> Config:
        """The configuration of `path`: its pyproject's, with these settings on top. Raises
        ConfigError for a broken pyproject."""
        return load_config(Path(path).parent).with_overrides(self.select, self.ignore, self.extend_select)


__all__ = ["ClientSettings", "ConfigError"]
