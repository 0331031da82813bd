"""`[tool.gradlint]` in the nearest pyproject.toml: select / extend-select / ignore,
per-file-ignores / extend-per-file-ignores, exclude / extend-exclude, respect-gitignore,
fixable / unfixable."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Sequence

from gradlint.fixplan import FixPolicy
from gradlint.patterns import PathPatterns, invalid, within
from gradlint.rules import Rule, select_rules, unknown_selectors

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class ConfigError(Exception):
    """Invalid configuration: a usage error (exit 2)."""


# Never walked unless `exclude` is set (which replaces this list; `extend-exclude` adds to it).
DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".venv", "venv", ".env", "__pycache__", "build", "dist", "node_modules",
    ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "site-packages", ".eggs", "*.egg-info",
    ".ipynb_checkpoints", "_build", ".direnv", "__pypackages__",
)


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] | None = None  # None: every rule that is on by default
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)  # extend-per-file-ignores merged in
    exclude: tuple[str, ...] = DEFAULT_EXCLUDES
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    root: Path = field(default_factory=Path.cwd)
    source: Path | None = None  # the pyproject.toml it came from
    fixable: tuple[str, ...] | None = None  # rules whose fixes are offered (None: all)
    unfixable: tuple[str, ...] = ()
    error: str | None = None  # a broken [tool.gradlint]: an error for the files under it only

    def with_overrides(
        self, select: Sequence[str] | None, ignore: Sequence[str], extend_select: Sequence[str] = ()
    ) -> "Config":
        """The command line on top: --select replaces select and extend-select (as in ruff),
        --extend-select and --ignore add."""
        for selectors in (select or (), ignore, extend_select):
            unknown = unknown_selectors(selectors)
            if unknown:
                raise ConfigError(f"unknown rule selector(s): {', '.join(unknown)} (see `gradlint rule`)")
        return replace(
            self,
            select=tuple(select) if select else self.select,
            extend_select=(*(() if select else self.extend_select), *extend_select),
            ignore=(*self.ignore, *ignore),
        )

    def rules_for(self, path: str) -> list[Rule]:
        ignored = list(self.ignore)
        relative = self.relative(path)
        for patterns, codes in self._per_file_patterns:
            if patterns.matches(relative):
                ignored.extend(codes)
        return select_rules(self.select, ignored, self.extend_select)

    def fix_policy(self, unsafe: bool = False) -> FixPolicy:
        if self.fixable is None and not self.unfixable:
            return FixPolicy(unsafe=unsafe)
        fixable = self.fixable if self.fixable is not None else ("ALL",)  # GL001 too, though off by default
        return FixPolicy(unsafe, frozenset(r.code for r in select_rules(fixable, self.unfixable)))

    def excluded(self, path: str, is_dir: bool = False) -> bool:
        """Whether `exclude` / `extend-exclude` match `path` or a folder above it (up to the root)."""
        return self._excludes.matches(self.relative(path), is_dir)

    @cached_property
    def _excludes(self) -> PathPatterns:
        return PathPatterns((*self.exclude, *self.extend_exclude))

    @cached_property
    def _per_file_patterns(self) -> list[tuple[PathPatterns, tuple[str, ...]]]:
        return [(PathPatterns([pattern]), codes) for pattern, codes in self.per_file_ignores.items()]

    def relative(self, path: str) -> str:
        """`path` relative to the config's folder (as given when outside it), by name only: this
        runs for every file and folder of a walk, so no file system calls and no relpath."""
        absolute = path if os.path.isabs(path) else os.path.abspath(path)
        inside = within(self._root, absolute)
        return inside if inside is not None else Path(path).as_posix()

    @cached_property
    def _root(self) -> str:
        return os.path.abspath(self.root)


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
    unknown = sorted(set(table) - OPTIONS)
    if unknown:
        raise ConfigError(f"{pyproject}: unknown [tool.gradlint] option(s): {', '.join(unknown)}")
    per_file: dict[str, tuple[str, ...]] = {}
    for option in ("per-file-ignores", "extend-per-file-ignores"):
        globs = _table(pyproject, option, table.get(option, {}))
        _patterns(pyproject, option, list(globs))
        for glob, codes in globs.items():
            per_file[glob] = (*per_file.get(glob, ()), *_codes(pyproject, f"{option}.{glob}", codes))
    respect_gitignore = table.get("respect-gitignore", True)
    if not isinstance(respect_gitignore, bool):
        raise ConfigError(f"{pyproject}: respect-gitignore must be true or false")
    return Config(
        select=_codes(pyproject, "select", table["select"]) if "select" in table else None,
        extend_select=_codes(pyproject, "extend-select", table.get("extend-select", [])),
        ignore=_codes(pyproject, "ignore", table.get("ignore", [])),
        per_file_ignores=per_file,
        exclude=_patterns(pyproject, "exclude", table["exclude"]) if "exclude" in table else DEFAULT_EXCLUDES,
        extend_exclude=_patterns(pyproject, "extend-exclude", table.get("extend-exclude", [])),
        respect_gitignore=respect_gitignore,
        fixable=_codes(pyproject, "fixable", table["fixable"]) if "fixable" in table else None,
        unfixable=_codes(pyproject, "unfixable", table.get("unfixable", [])),
        root=pyproject.parent,
        source=pyproject,
    )


OPTIONS = frozenset({
    "select", "extend-select", "ignore", "per-file-ignores", "extend-per-file-ignores", "exclude", "extend-exclude",
    "respect-gitignore", "fixable", "unfixable",
})


def _table(pyproject: Path, option: str, value) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(f"{pyproject}: {option} must be a table of glob = [codes]")
    return value


class ConfigResolver:
    """The configuration of each path: the nearest [tool.gradlint] above it, with the command
    line's --select/--ignore on top. Loaded once per pyproject.toml."""

    def __init__(self, select: Sequence[str] | None = None, ignore: Sequence[str] = (), extend_select: Sequence[str] = ()):
        self.select, self.ignore, self.extend_select = select, ignore, extend_select
        self._by_source: dict[Path | None, Config] = {}
        self._by_directory: dict[str, Config] = {}
        Config().with_overrides(select, ignore, extend_select)  # report unknown selectors up front

    def for_path(self, path: str | Path) -> Config:
        absolute = os.path.abspath(path)
        folder = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
        config = self._by_directory.get(folder)  # asked for every file: strings, not Paths
        if config is None:
            directory = Path(folder)
            source = find_pyproject(directory)
            if source not in self._by_source:
                self._by_source[source] = self._load(directory, source)
            config = self._by_directory[folder] = self._by_source[source]
        return config

    def _load(self, directory: Path, source: Path | None) -> Config:
        """A broken [tool.gradlint] is an error for the files under it, not for the run."""
        try:
            return load_config(directory).with_overrides(self.select, self.ignore, self.extend_select)
        except ConfigError as error:
            root = source.parent if source is not None else directory
            return Config(root=root, source=source, error=str(error))


def _patterns(pyproject: Path, option: str, value) -> tuple[str, ...]:
    return _valid(pyproject, option, value, invalid, "invalid pattern(s)")


def _codes(pyproject: Path, option: str, value) -> tuple[str, ...]:
    return _valid(pyproject, option, value, unknown_selectors, "unknown rule selector(s)")


def _valid(pyproject: Path, option: str, value, rejects, what: str) -> tuple[str, ...]:
    """A list of strings of which `rejects` finds none wrong."""
    strings = _strings(pyproject, option, value)
    bad = rejects(strings)
    if bad:
        raise ConfigError(f"{pyproject}: {option}: {what}: {', '.join(bad)}")
    return strings


def _strings(pyproject: Path, option: str, value) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{pyproject}: {option} must be a list of strings")
    return tuple(value)
