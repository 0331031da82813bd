"""The values a project's shipped settings give a key: YAML and JSON configs, and the shell
scripts and READMEs that pass it as an option (`--gradient_accumulation_steps 8`, Hydra's
`trainer.accum=4`). A window read from such settings (`config.trainer_config.accum_steps` of an
OmegaConf YAML) that every one of them fixes at 1 accumulates nothing: the code that would
matter for a larger window runs in no configuration the project ships."""

from __future__ import annotations

import os
import re
from pathlib import Path

SETTINGS_SUFFIXES = (".yaml", ".yml", ".json", ".sh", ".md")
MAX_SETTINGS_BYTES = 256_000  # larger files are data (datasets, vocabularies), not settings
MAX_SETTINGS_FILES = 2_000


class SettingsFiles:
    """A project's settings files, read once, asked key by key."""

    def __init__(self, root: Path, skipped: frozenset[str]):
        self.root, self.skipped = root, skipped
        self._texts: list[tuple[Path, str, str]] | None = None  # (path, suffix, text)
        self._values: dict[str, tuple[list[str], list[Path]]] = {}

    def values(self, key: str) -> tuple[list[str], list[Path]]:
        """The values written for `key`, and the files that write them."""
        if key not in self._values:
            found, files = [], []
            for path, suffix, text in self._read():
                written = _written(key, suffix, text)
                if written:
                    found += written
                    files.append(path)
            self._values[key] = (found, files)
        return self._values[key]

    def _read(self) -> list[tuple[Path, str, str]]:
        if self._texts is None:
            self._texts = []
            for path in _settings_paths(self.root, self.skipped):
                try:
                    if os.stat(path).st_size <= MAX_SETTINGS_BYTES:
                        self._texts.append((path, path.suffix, path.read_text(encoding="utf-8", errors="replace")))
                except OSError:
                    continue
        return self._texts


def fixed_at_one(values: list[str]) -> bool:
    """Every value written is the integer 1 (quoted or not); an interpolation or any other value
    leaves the window open."""
    return bool(values) and all(v.strip("'\"") == "1" for v in values)


def _written(key: str, suffix: str, text: str) -> list[str]:
    if key not in text:
        return []
    word = re.escape(key)
    if suffix in (".yaml", ".yml"):
        pattern = rf"^[ \t]*-?[ \t]*{word}[ \t]*:[ \t]*([^\s#,}}]+)"
    elif suffix == ".json":
        pattern = rf"\"{word}\"\s*:\s*([^\s,}}\]]+)"
    else:  # a command line: `--key 8`, `--key=8`, Hydra's `section.key=8`
        pattern = rf"(?:--{word}[ \t]*[= \t][ \t]*|(?<![\w-]){word}=)([^\s\\;&|]+)"
    return re.findall(pattern, text, re.M)


def _settings_paths(root: Path, skipped: frozenset[str]):
    count = 0
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(
            d for d in subfolders if not d.startswith(".") and d not in skipped and not d.endswith(".egg-info")
        )
        for name in sorted(names):
            if name.endswith(SETTINGS_SUFFIXES):
                count += 1
                if count > MAX_SETTINGS_FILES:
                    return
                yield Path(folder, name)
