"""`[tool.gradlint]` in the nearest pyproject.toml: select, ignore, per-file-ignores, exclude,
fixable, unfixable."""

from __future__ import annotations

import fnmatch
import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

from gradlint.fixplan import FixPolicy
from gradlint.rules import Rule, select_rules, unknown_selectors

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class ConfigError(Exception):
    """Invalid configuration: a usage error (exit 2)."""


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    exclude: tuple[str, ...] = ()
    root: Path = field(default_factory=Path.cwd)
    source: Path | None = None  # the pyproject.toml it came from
    fixable: tuple[str, ...] | None = None  # rules whose fixes are offered (None: all)
    unfixable: tuple[str, ...] = ()
    error: str | None = None  # a broken [tool.gradlint]: an error for the files under it only

    def with_overrides(self, select: Sequence[str] | None, ignore: Sequence[str]) -> "Config":
        for selectors in (select or (), ignore):
            unknown = unknown_selectors(selectors)
            if unknown:
                raise ConfigError(f"unknown rule selector(s): {', '.join(unknown)} (see `gradlint rule`)")
        return replace(
            self,
            select=tuple(select) if select else self.select,
            ignore=(*self.ignore, *ignore),
        )

    def rules_for(self, path: str) -> list[Rule]:
        ignored = list(self.ignore)
        relative = self.relative(path)
        for pattern, codes in self.per_file_ignores.items():
            if _glob_match(relative, pattern):
                ignored.extend(codes)
        return select_rules(self.select, ignored)

    def fix_policy(self, unsafe: bool = False) -> FixPolicy:
        if self.fixable is None and not self.unfixable:
            return FixPolicy(unsafe=unsafe)
        return FixPolicy(unsafe, frozenset(r.code for r in select_rules(self.fixable, self.unfixable)))

    def excluded(self, path: str) -> bool:
        relative = self.relative(path)
        return any(_glob_match(relative, pattern) for pattern in self.exclude)

    def relative(self, path: str) -> str:
        """`path` relative to the config's folder, by name only (no file system calls: this
        runs for every file and folder of a walk)."""
        relative = os.path.relpath(os.path.abspath(path), os.path.abspath(self.root))
        return Path(path).as_posix() if relative.startswith("..") else Path(relative).as_posix()


def _glob_match(relative: str, pattern: str) -> bool:
    """A pattern matches the path, its file name, or any leading directory of it."""
    pattern = pattern.rstrip("/")
    parts = relative.split("/")
    candidates = [relative, parts[-1], *("/".join(parts[: i + 1]) for i in range(len(parts) - 1))]
    patterns = [pattern, pattern[3:]] if pattern.startswith("**/") else [pattern]  # `**/` may be no folder
    return any(fnmatch.fnmatch(candidate, p) for candidate in candidates for p in patterns)


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start` that has a [tool.gradlint] table."""
    directory = start.resolve()
    if not directory.is_dir():
        directory = directory.parent
    for candidate in (directory, *directory.parents):
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file() and "[tool.gradlint" in pyproject.read_text(errors="replace"):
            return pyproject
    return None


def load_config(start: Path) -> Config:
    pyproject = find_pyproject(start)
    if pyproject is None:
        return Config()
    try:
        table = tomllib.loads(pyproject.read_text()).get("tool", {}).get("gradlint", {})
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{pyproject}: cannot read [tool.gradlint]: {error}") from None
    known = {"select", "ignore", "per-file-ignores", "exclude", "fixable", "unfixable"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"{pyproject}: unknown [tool.gradlint] option(s): {', '.join(unknown)}")
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{pyproject}: per-file-ignores must be a table of glob = [codes]")
    config = Config(
        select=_codes(pyproject, "select", table["select"]) if "select" in table else None,
        ignore=_codes(pyproject, "ignore", table.get("ignore", [])),
        per_file_ignores={glob: _codes(pyproject, f"per-file-ignores.{glob}", codes) for glob, codes in per_file.items()},
        exclude=_strings(pyproject, "exclude", table.get("exclude", [])),
        fixable=_codes(pyproject, "fixable", table["fixable"]) if "fixable" in table else None,
        unfixable=_codes(pyproject, "unfixable", table.get("unfixable", [])),
        root=pyproject.parent,
        source=pyproject,
    )
    return config


class ConfigResolver:
    """The configuration of each path: the nearest [tool.gradlint] above it, with the command
    line's --select/--ignore on top. Loaded once per pyproject.toml."""

    def __init__(self, select: Sequence[str] | None = None, ignore: Sequence[str] = ()):
        self.select, self.ignore = select, ignore
        self._by_source: dict[Path | None, Config] = {}
        self._by_directory: dict[Path, Config] = {}
        Config().with_overrides(select, ignore)  # report unknown selectors up front

    def for_path(self, path: str | Path) -> Config:
        start = Path(os.path.abspath(path))
        directory = start if start.is_dir() else start.parent
        if directory not in self._by_directory:
            source = find_pyproject(directory)
            if source not in self._by_source:
                self._by_source[source] = self._load(directory, source)
            self._by_directory[directory] = self._by_source[source]
        return self._by_directory[directory]

    def _load(self, directory: Path, source: Path | None) -> Config:
        """A broken [tool.gradlint] is an error for the files under it, not for the run."""
        try:
            return load_config(directory).with_overrides(self.select, self.ignore)
        except ConfigError as error:
            root = source.parent if source is not None else directory
            return Config(root=root, source=source, error=str(error))


def _strings(pyproject: Path, option: str, value) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{pyproject}: {option} must be a list of strings")
    return tuple(value)


def _codes(pyproject: Path, option: str, value) -> tuple[str, ...]:
    codes = _strings(pyproject, option, value)
    unknown = unknown_selectors(codes)
    if unknown:
        raise ConfigError(f"{pyproject}: {option}: unknown rule selector(s): {', '.join(unknown)}")
    return codes
