"""The project a checked file belongs to (DESIGN §2.3): its root, its modules, how names
imported from them resolve, and who calls a function with what.

Everything here is lazy and bounded: a module is read and summarised only when a checked file
imports it or may call into it, at most MAX_MODULES of them per project, and the caller index
parses only modules whose text names the function's module and the function (a cheap test).
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import stat
import warnings
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Protocol

from gradlint.model.names import dotted, names_project_gradient_method
from gradlint.model.roles import Role, derives_from_ddp, wraps_in_ddp
from gradlint.model.spelling import CALLED_NAME_BYTES, WORD_BYTE, call_starts
from gradlint.model.summaries import ALTERNATE, ELEMENT, CallSite, ClassSummary, FunctionSummary, Import, ModuleSummary, argument_producer, star_imports, summarize

if TYPE_CHECKING:
    from gradlint.model import ModuleModel
    from gradlint.model.callees import Callee, CallContext

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
SKIPPED_FOLDERS = frozenset({
    "__pycache__", "build", "dist", "node_modules", "site-packages", "venv", "env", "__pypackages__",
    "_build", "wandb", "outputs", "logs",
})
TEST_FOLDERS = frozenset({"tests", "test", "unittests"})
IMPORT_DEPTH = 2  # imports followed from a checked file to find a word a project module spells
MAX_MODULES = 96  # summaries made per project and process
MAX_CALLER_FILES = 24  # modules parsed to find the callers of one module
MAX_DELEGATED_DEFINITIONS = 4  # files defining a name, beyond which a delegated call is not matched to one
MAX_PROJECT_FILES = 20_000  # Python files listed for the caller index
MAX_REEXPORTS = 3  # `from .engine import train` in a package's __init__, followed this deep
# after a name: called, or imported under another name (`import train_one_epoch as run`)
CALLED_OR_ALIASED_BYTES = re.compile(rb"\b(?:\s*\(|\s+as\b)")
DEFINITION_BYTES = re.compile(rb"def[ \t]+(\w+)")
DELEGATED_CALL_BYTES = re.compile(rb"self\.\w+\.(\w+)\s*\(")
ATTRIBUTE_CALL = re.compile(r"\.(\w+)\s*\(")
BACKWARD_CALL_BYTES = re.compile(rb"backward(?<!def backward)\s*\(")
METHOD_DEFINITION = re.compile(rb"^([ \t]+)(?:async[ \t]+)?def[ \t]+(\w+)", re.M)
TOP_LEVEL_DEFINITION = re.compile(rb"^(?:async[ \t]+)?def[ \t]+(\w+)|^class[ \t]+(\w+)", re.M)
GRADIENT_WORDS = re.compile(r"backward|step|grad|scal|clip|sync")
SYS_PATH_CALL = re.compile(r"\bsys\.path\.(?:append|insert)\(([^\n]*)\)")
STRING_LITERAL = re.compile(r"""['"]([^'"\n]*)['"]""")
GRADIENT_CODE_BYTES = re.compile(rb"backward\s*\(|\.step\s*\(|zero_grad|clip_grad|no_sync|unscale_|DistributedDataParallel|DDP\b")
DDP_BYTES = re.compile(rb"DistributedDataParallel|DDP\b")
CALL_METHOD_BYTES = re.compile(rb"def[ \t]+__call__\b")
NESTED_DEFINITION_BYTES = re.compile(rb"^[ \t]+(?:async[ \t]+)?def[ \t]+(\w+)", re.M)
# `from .utils import a, b` / `from pkg.engine import (a,` / `import pkg.engine as e`
IMPORT_LINE = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]*(?:\(([^)]*)\)|([\w \t,*]+))|import[ \t]+([\w.]+))", re.M
)


class SummaryStore(Protocol):
    """Where summaries are kept between runs (gradlint.cache), keyed by content hash."""

    def get_summary(self, digest: str) -> ModuleSummary | None: ...

    def put_summary(self, digest: str, summary: ModuleSummary) -> None: ...


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def find_root(path: Path) -> Path | None:
    """The nearest folder at or above `path`'s folder holding a project marker."""
    folder = path.parent if not path.is_dir() else path
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).is_file() for marker in ROOT_MARKERS[:3]) or (candidate / ".git").exists():
            return candidate
    return None


_ROOTS: dict[Path, Path | None] = {}  # a checked file's folder -> its root, for one run


def _root_of_folder(folder: Path) -> Path | None:
    """find_root once per folder: a run checks many files of each folder."""
    if folder not in _ROOTS:
        _ROOTS[folder] = find_root(folder)
    return _ROOTS[folder]


@dataclass(frozen=True)
class Symbol:
    """A function or class of a project module, found by resolving a name."""

    path: Path
    names: tuple[str, ...]  # ("train_one_epoch",) or ("Trainer", "step")
    summary: FunctionSummary | ClassSummary


class Project:
    """The modules under one root. `flat` projects (no marker found: the file's folder) are
    not walked below their folder."""

    def __init__(self, root: Path, flat: bool = False, store: SummaryStore | None = None):
        self.root = root.resolve()
        self._root_text = str(self.root)
        self._root_prefix = os.path.join(self._root_text, "")  # with its trailing separator
        self.flat = flat
        self.store = store
        self._summaries: dict[Path, tuple[str, ModuleSummary] | None] = {}
        self._stamps: dict[Path, list] = {}  # path -> [mtime_ns, size, content hash] as read
        self._bytes: dict[Path, bytes | None] = {}  # what each module read, for the run
        self._rebound: dict[tuple[Path, str], bool] = {}
        self._files: list[Path] | None = None
        self._behind: dict[Path, tuple[Path, ...]] = {}
        self._callers: dict[tuple[Path, str], list[tuple[Path, CallSite]]] = {}
        self._importers: dict[str, list[Path]] | None = None
        self._delegated: dict[str, list[Path]] = {}  # method -> files calling `self.<attr>.<method>(`
        self._defining: dict[str, list[Path]] = {}  # function or method name -> files defining one
        self._gradient_callables: frozenset[str] = frozenset()
        self._ddp_wrappers: frozenset[str] = frozenset()
        self._listings: dict[Path, frozenset[str]] = {}
        self._located: dict[tuple, tuple[Path, list[str]] | None] = {}
        self._imported: dict[tuple[Path, str], list[tuple[Path, list[str]]]] = {}
        self._models: dict[Path, ModuleModel | None] = {}
        self._spelled: dict[tuple[Path, tuple[str, ...]], bool] = {}
        self._text_tests: dict[Path, tuple[frozenset[str] | None, frozenset[str], frozenset[str]]] = {}
        self._factories: dict[Path, frozenset[str]] = {}
        self._partial_files: dict[Path, bool] = {}
        self._methods: dict[Path, dict[str, frozenset[str]]] = {}
        self._callable_modules: dict[Path, bool] = {}
        self._real: dict[Path, Path] = {}
        self._additions: dict[Path, tuple[Path, ...]] = {}
        self._bases: dict[Path, list[Path]] = {}
        self._longest: dict[tuple, tuple[Path, tuple[str, ...]] | None] = {}

    def _resolved(self, path: Path) -> Path:
        """path.resolve() once per path: it stats every folder above the file."""
        real = self._real.get(path)
        if real is None:
            real = self._real[path] = path.resolve()
        return real

    # -- modules ------------------------------------------------------------------------------

    def contains(self, path: Path) -> bool:
        text = str(path)
        return text == self._root_text or text.startswith(self._root_prefix)

    def imported_modules(self, importer: Path, text: str) -> list[tuple[Path, list[str]]]:
        """(project file, names inside it) of each import of `text`, `importer`'s text, that is
        a project module; read once per run (every checked file importing a package asks what
        its `__init__` re-exports)."""
        key = (importer, text)
        if key not in self._imported:
            self._imported[key] = list(self._import_targets(importer, text))
        return self._imported[key]

    def _import_targets(self, importer: Path, text: str):
        for match in _import_lines(text):
            module, parenthesized, names, plain = match.groups()
            names = parenthesized or names
            if plain:
                targets = [(plain, [])]
            else:
                targets = [(module, [name.split()[0]]) for name in names.replace("\n", " ").split(",") if name.strip()]
            for dotted_module, inner in targets:
                level = len(dotted_module) - len(dotted_module.lstrip("."))
                located = self.module_file(importer, dotted_module.lstrip("."), level, inner)
                if located is not None:
                    yield located

    def module_file(self, importer: Path, module: str, level: int, names: list[str]) -> tuple[Path, list[str]] | None:
        """The project file a name imported as (`module`, `level`) followed by `names` lives in,
        and the names left inside that file: the longest module path that is a file wins."""
        key = (os.path.dirname(str(importer)), module, level, tuple(names), self._path_additions(importer))
        if key not in self._located:
            self._located[key] = self._locate(importer, module, level, names)
        return self._located[key]

    def _locate(self, importer: Path, module: str, level: int, names: list[str]) -> tuple[Path, list[str]] | None:
        # `module` names modules only: a base where a file stops short of it cannot import it
        # (`trainer.trainer_utils` beside trainer/trainer.py, a module and no package)
        spelled = len([p for p in module.split(".") if p])
        parts = [p for p in module.split(".") if p] + names
        if level:
            base = importer.parent
            for _ in range(level - 1):
                base = base.parent
            bases = [base]
        else:
            bases = self._absolute_bases(importer)
            if parts and parts[0] == self.root.name:  # the root is the package: `mae_st.util.misc` in mae_st/
                bases = [*bases, self.root.parent]
        found: tuple[Path, list[str]] | None = None
        for base in bases:
            if not parts or not self._may_hold(base, parts[0]):
                continue
            match = self._longest_module(base, parts, max(spelled, 1))
            # the base reading more of the dotted path as modules wins: beside trainer/trainer.py,
            # `trainer.trainer_utils.AverageMeter` is trainer/trainer_utils.py's, from the root
            if match is not None and (found is None or len(match[1]) < len(found[1])):
                found = match
        if found is not None:
            return found
        package = bases[0] / "__init__.py"
        if level and parts and "__init__.py" in self._listing(bases[0]) and self.contains(package):
            return package, parts  # `from . import BaseActor`: a name the package's __init__ binds
        return None

    def _longest_module(self, base: Path, parts: list[str], shortest: int) -> tuple[Path, list[str]] | None:
        """The file under `base` the longest prefix (at least `shortest` parts) of `parts` names
        as a module, and the names left inside it (found once per base and dotted path: every
        module of a folder imports much the same)."""
        key = (base, tuple(parts), shortest)
        if key not in self._longest:
            self._longest[key] = self._find_longest_module(base, parts, shortest)
        found = self._longest[key]
        return (found[0], list(found[1])) if found is not None else None

    def _find_longest_module(self, base: Path, parts: list[str], shortest: int) -> tuple[Path, tuple[str, ...]] | None:
        for length in range(len(parts), shortest - 1, -1):
            folder, name = base.joinpath(*parts[: length - 1]), parts[length - 1]
            entries = self._listing(folder)  # most candidates are not there: no stat for them
            for entry, candidate in ((f"{name}.py", f"{name}.py"), (name, f"{name}/__init__.py")):
                if entry in entries and (folder / candidate).is_file() and self.contains(folder / candidate):
                    return folder / candidate, tuple(parts[length:])
        return None

    def _absolute_bases(self, importer: Path) -> list[Path]:
        """Where an absolute import of `importer` may find a project module: beside it, in the
        folders above it up to the root (a script run from there puts its own folder first on
        the path: `examples/image/train.py` runs `training/train_loop.py`, whose `from
        training.grad_scaler import ...` is found from `examples/image/`), under `src/`. Found
        once per importer: every import of a module asks."""
        if importer in self._bases:
            return self._bases[importer]
        above = [importer.parent, *importer.parent.parents]
        within = above[: above.index(self.root) + 1] if self.root in above else [importer.parent, self.root]
        self._bases[importer] = list(dict.fromkeys([*within, self.root / "src", *self._path_additions(importer)]))
        return self._bases[importer]

    def _path_additions(self, importer: Path) -> tuple[Path, ...]:
        """Project folders the module puts on `sys.path` before importing from them
        (`sys.path.append(os.path.join(ROOT_DIR, 'pointnet2'))`, then `from pytorch_utils import
        ...`): each call's string literals joined, from the module's folder or from the root."""
        if importer not in self._additions:
            found = []
            text = self.text(importer) if importer.suffix == ".py" else None
            for call in SYS_PATH_CALL.finditer(text or "") if text and "sys.path" in text else ():
                parts = STRING_LITERAL.findall(call.group(1))
                for base in (importer.parent, self.root) if parts else ():
                    folder = Path(os.path.normpath(base.joinpath(*parts)))
                    if self.contains(folder) and folder.is_dir():
                        found.append(folder)
            self._additions[importer] = tuple(dict.fromkeys(found))
        return self._additions[importer]

    def may_hold_top_level(self, importer: Path, name: str) -> bool:
        """Whether an absolute import of `name` (`torch` of `torch.cat`) from `importer` can
        be a project module: most dotted names a module calls are not."""
        return name == self.root.name or any(self._may_hold(base, name) for base in self._absolute_bases(importer))

    def _read(self, path: Path) -> bytes | None:
        """A module's bytes, its stamp noted (a cached result that used it depends on it); read
        once per run (a module is asked for by every question about it: about 8 times each)."""
        if path not in self._bytes:
            read = _read_regular(path)
            if read is not None:
                data, info = read
                self._stamps[path] = [info.st_mtime_ns, info.st_size, content_hash(data)]
            self._bytes[path] = read[0] if read is not None else None
        return self._bytes[path]

    def _may_hold(self, folder: Path, name: str) -> bool:
        """Whether `folder` has a module or package `name` (one listing per folder, no stat)."""
        entries = self._listing(folder)
        return name in entries or f"{name}.py" in entries

    def _listing(self, folder: Path) -> frozenset[str]:
        if folder not in self._listings:
            try:
                self._listings[folder] = frozenset(os.listdir(folder))
            except OSError:
                self._listings[folder] = frozenset()
        return self._listings[folder]

    def summary(self, path: Path) -> tuple[str, ModuleSummary] | None:
        """(content hash, summary) of a project module; None when it cannot be read or parsed,
        or when the project's budget of summaries is spent."""
        path = self._resolved(path)
        if path not in self._summaries:
            data = self._read(path) if len(self._summaries) < MAX_MODULES else None
            self._summaries[path] = None  # asked again while being made (modules importing each other): unknown
            self._summaries[path] = self._summarize(path) if data is not None else None
        return self._summaries[path]

    def _summarize(self, path: Path) -> tuple[str, ModuleSummary] | None:
        digest = self._stamps[path][2]
        cached = self.store.get_summary(digest) if self.store else None
        if cached is not None:
            return digest, cached
        model = self.model(path)  # parsed once for both: the caller index may follow it
        if model is None:
            return None
        summary = summarize(model)
        if self.store:
            self.store.put_summary(digest, summary)
        return digest, summary

    def model(self, path: Path) -> "ModuleModel | None":
        """The live model of a project module, parsed once per process, with its own view of
        the project (so calls are followed from it too); None past the budget or on bad input."""
        path = self._resolved(path)
        if path not in self._models:
            data = self._read(path) if len(self._models) < MAX_MODULES else None
            model = _parse(path, data) if data is not None else None
            if model is not None:
                model.project = ProjectContext(path, project=self)
            self._models[path] = model
        return self._models[path]

    def text(self, path: Path) -> str | None:
        """A module's text (its stamp noted, as for every module read)."""
        data = self._read(self._resolved(path))
        return data.decode("utf-8", "replace") if data is not None else None

    def modules_behind(self, path: Path) -> tuple[Path, ...]:
        """The module and the project modules it imports, to IMPORT_DEPTH imports down (what
        `from model import SoftMaskedBert` re-exports from a package, and the detector module
        that model's file imports in turn), each once; found once per module."""
        if path not in self._behind:
            found, frontier = [path], [path]
            for _ in range(IMPORT_DEPTH):
                texts = [(module, self.text(module)) for module in frontier]
                frontier = [
                    imported for module, text in texts if text is not None
                    for imported, _ in self.imported_modules(module, text) if imported not in found
                ]
                frontier = list(dict.fromkeys(frontier))
                found += frontier
            self._behind[path] = tuple(found)
        return self._behind[path]

    def spells(self, path: Path, words: tuple[str, ...]) -> bool:
        """Whether a module's text holds one of `words` (read once per module and words)."""
        key = (self._resolved(path), words)
        if key not in self._spelled:
            data = self._read(key[0])
            self._spelled[key] = data is not None and any(w.encode() in data for w in words)
        return self._spelled[key]

    def calls_backward(self, path: Path, name: str | None = None) -> bool:
        """Whether a module's text calls backward(), or (`name`) its top-level function or
        class `name` does, or calls one that does."""
        symbols = self._words(path)[0]
        return symbols is not None and (name is None or name in symbols)

    def defines_gradient_callable(self, path: Path) -> bool:
        """Whether a module defines a class whose `__call__` may run backward (timm's
        `NativeScaler`): a module importing anything from it may be handed an instance, called
        under any name (`loss_scaler(loss, optimizer)`) by a loop that never spells backward."""
        path = self._resolved(path)
        if path not in self._callable_modules:
            data = self._read(path)
            self._callable_modules[path] = (
                data is not None and b"__call__" in data and BACKWARD_CALL_BYTES.search(data) is not None
                and bool(_symbols_spelling(data, _callable_touching_gradients, follow_calls=False))
            )
        return self._callable_modules[path]

    def backward_symbols(self, path: Path) -> frozenset[str]:
        """Top-level functions and classes of a module that call backward(), or call one that
        does (to a few levels)."""
        return self._words(path)[0] or frozenset()

    def gradient_symbols(self, path: Path) -> frozenset[str]:
        """Top-level functions and classes of a module whose text spells gradient code, or a
        call of one that does (to a few levels): read off the text, the module is not parsed.
        It only decides which lines of a checked module are read; calls are resolved later."""
        return self._words(path)[1]

    def builds_gradient_callable(self, path: Path, name: str) -> bool:
        """Whether the top-level function `name` of a module constructs an object of a project
        class whose `__call__` touches gradients (`loss_scaler = NativeScaler()` in
        `create_optimizer_and_loss_scaler`): read off the text."""
        callables = self.gradient_callables()
        data = self._read(self._resolved(path)) if callables else None
        body = _top_level_bodies(data).get(name) if data is not None else None
        return body is not None and any(re.search(rb"\b" + re.escape(c.encode()) + rb"\s*\(", body) for c in callables)

    def closure_factories(self, path: Path) -> frozenset[str]:
        """Top-level functions of a module that touch gradients and return a function they
        define (`def get_step_fn(...): def step_fn(...): ... return step_fn`): read off the text."""
        path = self._resolved(path)
        if path not in self._factories:
            data = self._read(path)
            bodies = _top_level_bodies(data) if data is not None else {}
            self._factories[path] = frozenset(
                name for name in self.gradient_symbols(path)
                if not bodies.get(name, b"class").startswith(b"class") and _returns_nested(bodies[name])
            )
        return self._factories[path]

    def ddp_symbols(self, path: Path) -> frozenset[str]:
        """Top-level functions of a module whose text spells a DDP wrapper, or a call of one:
        the only ones whose returned roles are worth a summary (`model = smart_DDP(model)`)."""
        return self._words(path)[2]

    def gradient_methods(self, path: Path, cls: str) -> frozenset[str]:
        """Methods of a top-level class whose text spells gradient code, or calls one that does:
        `trainer.optimize(opt)` on a `MixedPrecisionTrainer` is worth resolving, `.to()` is not."""
        return self._gradient_methods_by_class(path).get(cls, frozenset())

    def gradient_method_names(self, path: Path) -> frozenset[str]:
        """The gradient-touching methods of all the module's top-level classes."""
        return frozenset().union(*self._gradient_methods_by_class(path).values())

    def backward_method_names(self, path: Path) -> frozenset[str]:
        """The gradient-touching methods of the module's top-level classes that reach backward."""
        reaching = self._words(path)[0] or frozenset()
        return frozenset().union(*(m for cls, m in self._gradient_methods_by_class(path).items() if cls in reaching))

    def _gradient_methods_by_class(self, path: Path) -> dict[str, frozenset[str]]:
        path = self._resolved(path)
        if path not in self._methods:
            data = self._read(path)
            self._methods[path] = _gradient_methods(data, self._words(path)[1]) if data is not None else {}
        return self._methods[path]

    def _words(self, path: Path) -> tuple[frozenset[str] | None, frozenset[str], frozenset[str]]:
        """(symbols reaching backward, None when nothing does; gradient symbols; DDP symbols)."""
        path = self._resolved(path)
        if path not in self._text_tests:
            data = self._read(path)
            if data is None:
                self._text_tests[path] = (None, frozenset(), frozenset())
            else:
                self._text_tests[path] = (
                    _symbols_spelling(data, BACKWARD_CALL_BYTES.search) if BACKWARD_CALL_BYTES.search(data) else None,
                    _symbols_spelling(data, GRADIENT_CODE_BYTES.search),
                    _symbols_spelling(data, DDP_BYTES.search) if DDP_BYTES.search(data) else frozenset(),
                )
        return self._text_tests[path]

    def parsed(self, path: Path, text: str) -> ast.Module | None:
        """The tree of a module already parsed as a project module, if it still reads `text`:
        a checked file that another checked file called into is not parsed again."""
        model = self._models.get(self._resolved(path))
        return model.tree if model is not None and model.text == text else None

    def release(self) -> None:
        """Let go of everything this project read, for a worker done with it: its models refer
        to the project, and to themselves through their memos, cycles that the collector (off
        during a check) would never free."""
        for model in self._models.values():
            if model is not None:
                model.__dict__.clear()
        self.__dict__.clear()

    def adopt(self, path: Path, model: "ModuleModel") -> None:
        """The checked module's own model (the latest text, when fixes re-lint it): callers
        found elsewhere must resolve to its nodes."""
        self._models[path] = model
        self._bytes.pop(path, None)  # read again if asked: a fix may have rewritten it

    def resolve(self, importer: Path, imports: dict, name: str, depth: int = 0) -> Symbol | None:
        """The project function or class `name` (dotted, as written in `importer`) refers to,
        through `importer`'s imports (a summary's); None for anything outside the project."""
        head, *rest = name.split(".")
        imported = imports.get(head)
        if depth > MAX_REEXPORTS:
            return None
        if imported is None:
            return self._through_stars(importer, imports, head, rest, depth)
        names = ([imported.name] if imported.name else []) + rest
        if not imported.name and not imported.level:  # `import pkg.engine as e`: the module itself
            located = self.module_file(importer, imported.module, 0, rest)
        else:
            located = self.module_file(importer, imported.module, imported.level, names)
        if located is not None and not located[1]:
            located = self.package_binding(located[0])
        if located is None:
            return None
        path, inner = located
        summarized = self.summary(path)
        if summarized is None:
            return None
        module = summarized[1]
        symbol = module.symbol(inner)
        if symbol is not None:
            return Symbol(self._resolved(path), tuple(inner), symbol)
        # re-exported: `from .engine import train_one_epoch`, or `from .engine import *`
        return self.resolve(path, module.imports, ".".join(inner), depth + 1)

    def _through_stars(self, importer: Path, imports: dict, head: str, rest: list[str], depth: int) -> Symbol | None:
        """`head` as a star import of `importer` brings it (see `star_binding`)."""
        found = self.star_binding(importer, star_imports(imports), head)
        if found is None:
            return None
        star = found[0]
        return self.resolve(importer, {head: Import(star.module, star.level, head)}, ".".join([head, *rest]), depth + 1)

    def star_binding(self, importer: Path, stars: list[Import], name: str) -> tuple[Import, Path, ModuleSummary] | None:
        """(star import, module file, its summary) of the first module `importer` star-imports
        from the project that defines `name` or imports it."""
        for star in stars:
            located = self.module_file(importer, star.module, star.level, [name])
            if located is None or located[1] != [name]:
                continue
            summarized = self.summary(located[0])
            if summarized is not None and (summarized[1].symbol([name]) is not None or name in summarized[1].imports):
                return star, located[0], summarized[1]
        return None

    def package_binding(self, module: Path) -> tuple[Path, list[str]] | None:
        """`tools.train(...)` names a module, `tools/train.py`; but when the package's
        `__init__.py` imports a name `train` (`from .train import train`), that import rebinds
        the package's attribute, and the call runs what it imported."""
        package = module.parent if module.name != "__init__.py" else module.parent.parent
        name = module.stem if module.name != "__init__.py" else module.parent.name
        init = package / "__init__.py"
        if not (init.is_file() and self.contains(init)):
            return None
        summarized = self.summary(init)
        return (init, [name]) if summarized is not None and name in summarized[1].imports else None

    # -- the caller index ---------------------------------------------------------------------

    def files(self) -> list[Path]:
        if self._files is None:
            self._files = list(_python_files(self.root, self.flat))
        return self._files

    @cached_property
    def listing(self) -> Listing:
        return list_project(self.root, self.flat)

    def importers(self) -> dict[str, list[Path]]:
        """Project files by the names their import lines mention (each part of a dotted module
        name, and the names imported from it): read once, the first time callers are asked."""
        if self._importers is None:
            index: dict[str, list[Path]] = {}
            delegated: dict[str, list[Path]] = {}
            defining: dict[str, list[Path]] = {}
            callables: set[str] = set()
            wrappers: set[str] = set()
            for file in self.files():
                if _is_test_module(file.relative_to(self.root)):
                    continue  # a unit test calls a step once, with what it checks: not how training runs
                read = _read_regular(file)
                if read is None:
                    continue
                for word in _imported_words(read[0].decode("utf-8", errors="replace")):
                    index.setdefault(word, []).append(file)
                for method in set(DELEGATED_CALL_BYTES.findall(read[0])):
                    delegated.setdefault(method.decode(), []).append(file)
                for name in set(DEFINITION_BYTES.findall(read[0])):
                    defining.setdefault(name.decode(), []).append(file)
                if b"__call__" in read[0]:
                    callables |= _symbols_spelling(read[0], _callable_touching_gradients, follow_calls=False)
                if DDP_BYTES.search(read[0]):
                    wrappers |= _symbols_spelling(read[0], DDP_BYTES.search)
            self._importers, self._gradient_callables, self._ddp_wrappers = index, frozenset(callables), frozenset(wrappers)
            self._delegated, self._defining = delegated, defining
        return self._importers

    def rebinds_setting(self, path: Path, name: str) -> bool:
        """Whether a project module importing the settings module `path` may rebind its
        top-level `name`: it calls `setattr(` (a loader copying a YAML file's keys onto the
        module) or assigns `<alias>.name = ...`."""
        key = (self._resolved(path), name)
        if key not in self._rebound:
            stem = key[0].parent.name if key[0].name == "__init__.py" else key[0].stem
            assigned = re.compile(rb"\.%s\s*=(?!=)" % re.escape(name.encode()))
            self._rebound[key] = any(
                (data := self._read(importer)) is not None and (b"setattr(" in data or assigned.search(data))
                for importer in self.importers().get(stem, ()) if importer != key[0]
            )
        return self._rebound[key]

    def delegating_files(self, method: str) -> list[Path]:
        """Files that call `method` on an object another one holds (`self.task.train_epoch(...)`),
        where the object's class may come from a registry the model cannot follow."""
        self.importers()
        return self._delegated.get(method, [])

    def defining_files(self, method: str) -> list[Path]:
        """Project files whose text defines a function or method named `method`."""
        self.importers()
        return self._defining.get(method, [])

    def ddp_wrappers(self) -> frozenset[str]:
        """Names of the project's top-level functions whose text spells a DDP wrapper, or calls
        one that does (read off the text with the caller index)."""
        self.importers()
        return self._ddp_wrappers

    def gradient_callables(self) -> frozenset[str]:
        """Top-level classes of the project whose `__call__` may run backward, as timm's
        `NativeScaler` does (read off the text with the caller index): their instances are
        called under any name (`loss_scaler(loss, optimizer)`)."""
        self.importers()
        return self._gradient_callables

    def callers(self, path: Path, name: str) -> list[tuple[Path, CallSite]]:
        """Call sites in other project modules of function `name` of module `path` (`Class.method`
        for a method). Only modules whose import lines name `path`'s module and whose text names
        the function are parsed, at most MAX_CALLER_FILES of them."""
        key = (self._resolved(path), name)
        if key not in self._callers:
            self._callers[key] = self._find_callers(*key)
        return self._callers[key]

    def _find_callers(self, path: Path, name: str) -> list[tuple[Path, CallSite]]:
        stem = path.parent.name if path.name == "__init__.py" else path.stem
        last = name.rsplit(".", 1)[-1]
        # a call site spells the name before a call, or imports it under another name
        found, parsed = [], 0
        for candidate in self._importers_of(path, stem, name.split(".", 1)[0], method="." in name):
            if candidate == path or parsed >= MAX_CALLER_FILES:
                continue
            data = self._read(candidate)
            if data is None or not (
                call_starts(data, [last], CALLED_OR_ALIASED_BYTES) or self._wraps_in_partial(candidate, data, last)
                or _picked_by_a_name(data, last)
            ):
                continue
            parsed += 1
            summarized = self.summary(candidate)
            if summarized is None:
                continue
            module = summarized[1]
            for site in module.calls:
                head, _, rest = site.callee.partition(".")
                spelled = rest.rsplit(".", 1)[-1] if rest else module.imports[head].name if head in module.imports else head
                if spelled != last:
                    continue
                symbol = self.resolve(candidate, module.imports, site.callee)
                if (symbol is not None and symbol.path == path and ".".join(symbol.names) == name) or (
                    "." in name and rest and self._made_by_factory(candidate, module, head)
                ):
                    found.append((candidate, replace(site, arguments=tuple(self._argument_roles(candidate, module, site)))))
        return found

    def _wraps_in_partial(self, path: Path, data: bytes, name: str) -> bool:
        """Whether the file hands the function `name` to `partial(...)` (`partial(train_loop,
        ...)`, `functools.partial(engine.train_loop, ...)`); whether it spells `partial(` at all
        is found once per file."""
        if path not in self._partial_files:
            self._partial_files[path] = b"partial(" in data
        if not self._partial_files[path]:
            return False
        return re.search(rb"partial\(\s*(?:\w+\.)*" + re.escape(name.encode()) + rb"\s*[,)]", data) is not None

    def _made_by_factory(self, path: Path, module: ModuleSummary, head: str) -> bool:
        """`build_trainer.train`: a method called on what a project function returns (which
        class it builds, a config decides); the caller's model tells whether it runs the method."""
        symbol = self.resolve(path, module.imports, head)
        return symbol is not None and isinstance(symbol.summary, FunctionSummary)

    def _importers_of(self, path: Path, stem: str, name: str, method: bool = False) -> list[Path]:
        """Files whose import lines name the module, and, when the `__init__.py` of a package
        above it imports the function (or the method's class) from it (`from .engine import
        train_one_epoch`, `from .utils.train import Trainer`), those naming that package: `from
        pkg import train_one_epoch` (or `from pkg import *`) calls it through the re-export. For a
        method, also the files naming its own package, whose factory may build the class from a
        registry (`model = build_model(opt)` ... `model.optimize_parameters(...)`)."""
        importers = self.importers()
        found = list(importers.get(stem, ()))
        naming = importers.get(name, ())
        # the packages above it whose __init__ re-exports it (`from .utils.train import Trainer`)
        reexporting = [
            init for init in found
            if init.name == "__init__.py" and init != path and init in naming
            and init.parent != self.root and init.parent in path.parents
        ]
        if method and path.name != "__init__.py" and path.parent != self.root and (path.parent / "__init__.py").is_file():
            reexporting.append(path.parent / "__init__.py")
        for init in reexporting:
            found += importers.get(init.parent.name, ())
        return list(dict.fromkeys(found))

    def _argument_roles(self, path: Path, module: ModuleSummary, site: CallSite):
        """A call site's arguments, with roles the project's functions return filled in."""
        for key, role, producer in site.arguments:
            if role is None and producer is not None:
                role = self.returned_role(path, module.imports, producer)
            yield key, role, producer

    def returned_role(self, importer: Path, imports: dict, callee: str) -> str | None:
        """The role of what a project function returns (`build_optimizer(...)` -> optimizer), or
        of the element unpacked from the tuple it returns (`initialize_optimizer#0`: its model)."""
        callee, _, element = callee.partition(ELEMENT)
        symbol = self.resolve(importer, imports, callee)
        returns = symbol.summary.returns if symbol and isinstance(symbol.summary, FunctionSummary) else ()
        if element:
            return returns[int(element)] if len(returns) > max(int(element), 1) else None
        return returns[0] if len(returns) == 1 else None

    def stamp(self, path: Path) -> list | None:
        """[mtime_ns, size, content hash] of a module as it was read for its summary."""
        return self._stamps.get(self._resolved(path))


def _fits(function: ast.FunctionDef, call: ast.Call, method: bool) -> bool:
    """The call's arguments bind to the function's parameters: no unknown keyword, no more
    positional arguments than it takes, every required parameter given (no * or ** unpacking)."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args][1 if method else 0 :]
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return False
    if len(call.args) > len(positional) and arguments.vararg is None:
        return False
    names = {a.arg for a in [*positional, *arguments.kwonlyargs]}
    given = {a.arg for a in positional[: len(call.args)]} | {k.arg for k in call.keywords}
    if not given <= names and arguments.kwarg is None:
        return False
    required = positional[: len(positional) - len(arguments.defaults)]
    required_keywords = [a for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is None]
    return all(a.arg in given for a in [*required, *required_keywords])


def _called_parameters(function: ast.FunctionDef, params: list[str]) -> set[str]:
    """The parameters `function` calls themselves: `loss_scaler(...)`, not `optimizer.step()`."""
    return {
        node.func.id for node in ast.walk(function)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in params
    }


def _bound_to_parameters(module: "ModuleModel", function: ast.FunctionDef, params: list[str]) -> tuple[dict[str, str], set[str]]:
    """Names `function` binds to a parameter: copies of one as it is (`scaler_ae =
    loss_scaler`), each with the parameter, and names unpacked from one (`a, b = pair`)."""
    aliases, unpacked = {}, set()
    for stmt in module.assignments_within(function):
        if not (len(stmt.targets) == 1 and isinstance(stmt.value, ast.Name) and stmt.value.id in params):
            continue
        target = stmt.targets[0]
        if isinstance(target, ast.Name) and target.id not in params:
            aliases[target.id] = stmt.value.id
        elif isinstance(target, ast.Tuple):
            unpacked |= {t.id for t in target.elts if isinstance(t, ast.Name)}
    return aliases, unpacked


def _picked_by_a_name(data: bytes, name: str) -> bool:
    """The file binds a name to the function (`train = pretrain if ... else finetune`, `fn =
    pretrain`): calls of that name run it. Each spelling of the name is looked at, not the file; the
    name must end the value or a branch of it (not a keyword argument's `fn=pretrain,`)."""
    encoded = name.encode()
    start = data.find(encoded)
    while start != -1:
        end = start + len(encoded)
        before = data[max(0, start - 8):start].rstrip(b" \t")
        whole = not (start and WORD_BYTE.match(data, start - 1)) and not WORD_BYTE.match(data, end)
        assigned = before.endswith(b"=") and not before.endswith((b"==", b"!=", b"<=", b">=")) or before.endswith(b" else")
        after = data[end:end + 8].lstrip(b" \t")
        if whole and assigned and (after[:1] in (b"", b"\n", b"\r", b"#") or after.startswith((b"if ", b"else "))):
            return True
        start = data.find(encoded, end)
    return False


def _given_here(module: "ModuleModel", function: ast.FunctionDef, cls: ast.ClassDef | None, called: set[str], touching: set[str]) -> set[str]:
    """Parameters of `function` (a method of `cls`) among `called` that a call in its own module
    passes an object made by one of the `touching` names (`loss_scaler = NativeScaler()` in
    `main`, or in the method `train` calling `self.train_one_epoch(..., loss_scaler)`, or in
    `main` calling `trainer.train_one_epoch(..., loss_scaler)` on `trainer = Trainer(...)`)."""
    from gradlint.model.callees import Callee, bind_arguments

    found = set()
    for call, stmt in module.calls_named(function.name):
        if cls is None and not isinstance(call.func, ast.Name):
            continue  # `x.train(...)`: some other object's method of the same name
        if cls is not None and not (
            dotted(call.func) == f"self.{function.name}" and module.parents.enclosing_class(module.parents.scope_of(stmt)) is cls
            or isinstance(call.func, ast.Attribute) and argument_producer(module, stmt, call.func.value) == cls.name
        ):
            continue  # a method is called on `self` by the methods of its class, or on an object made of it here
        for param, argument in bind_arguments(Callee(module, function, cls), call).items():
            producer = argument_producer(module, stmt, argument) if param in called else None
            if producer is not None and _made_by(module, producer, touching):
                found.add(param)
    return found


def _made_by(module: "ModuleModel", producer: str, touching: set[str]) -> bool:
    """`producer` is one of the `touching` names, or the place of an element a function of the
    module returns made by one (`model, optimizer, scaler = initialize_model(cfg)`, whose
    `return model, optimizer, scaler` holds `scaler = NativeScaler()`)."""
    if producer in touching or producer.split(".")[0] in touching:
        return True
    head, _, place = producer.partition(ELEMENT)
    function = module.functions.get(head) if place.isdigit() else None
    if function is None:
        return False
    index = int(place)
    returns = [
        s for s in ast.walk(function) if isinstance(s, ast.Return) and module.parents.scope_of(s) is function
        and isinstance(s.value, ast.Tuple) and len(s.value.elts) > index
    ]
    made = [argument_producer(module, s, s.value.elts[index]) for s in returns]
    return bool(made) and all(m is not None and ELEMENT not in m and _made_by(module, m, touching) for m in made)


def _read_regular(path: Path) -> tuple[bytes, os.stat_result] | None:
    """A regular file's bytes and stat; never blocks (a FIFO named like a module is none)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(fd)
            return (handle.read(), info) if stat.S_ISREG(info.st_mode) else None
    except OSError:
        return None


def _symbols_spelling(data: bytes, matches: Callable[[bytes], object], follow_calls: bool = True) -> frozenset[str]:
    """Top-level functions and classes whose text `matches`, or (`follow_calls`) calls one
    that does."""
    bodies = _top_level_bodies(data)
    return _spelling(bodies, matches) if follow_calls else frozenset(n for n, b in bodies.items() if matches(b))


def _returns_nested(body: bytes) -> bool:
    """Whether a function's text returns, by name, a function it defines."""
    for definition in NESTED_DEFINITION_BYTES.finditer(body):
        needle = b"return " + definition.group(1)
        start = body.find(needle)
        while start >= 0:
            end = start + len(needle)
            if not WORD_BYTE.match(body, end):
                return True
            start = body.find(needle, end)
    return False


def _top_level_bodies(data: bytes) -> dict[str, bytes]:
    return _bodies(data, [(m.start(), (m.group(1) or m.group(2)).decode()) for m in TOP_LEVEL_DEFINITION.finditer(data)])


def _bodies(data: bytes, starts: list[tuple[int, str]]) -> dict[str, bytes]:
    return {name: data[start:end] for (start, name), (end, _) in zip(starts, [*starts[1:], (len(data), "")])}


def _spelling(bodies: dict[str, bytes], matches: Callable[[bytes], object]) -> frozenset[str]:
    """Names whose body `matches`, or calls (to a few levels) one whose body does."""
    found = {name for name, body in bodies.items() if matches(body)}
    if not found:
        return frozenset()
    calls = {name: {c.decode() for c in CALLED_NAME_BYTES.findall(body)} for name, body in bodies.items() if name not in found}
    for _ in range(3):  # helpers calling helpers
        more = {name for name, called in calls.items() if name not in found and not called.isdisjoint(found)}
        if not more:
            break
        found |= more
    return frozenset(found)


def _gradient_methods(data: bytes, gradient_symbols: frozenset[str]) -> dict[str, frozenset[str]]:
    """For each top-level class among `gradient_symbols`: its methods (at the class body's
    indentation) whose text spells gradient code or calls such a method."""
    found = {}
    for name, body in _top_level_bodies(data).items():
        if name not in gradient_symbols or not body.startswith(b"class"):
            continue
        methods = list(METHOD_DEFINITION.finditer(body))
        if methods:
            indent = methods[0].group(1)
            starts = [(m.start(), m.group(2).decode()) for m in methods if m.group(1) == indent]
            found[name] = _spelling(_bodies(body, starts), GRADIENT_CODE_BYTES.search)
    return found


def _callable_touching_gradients(class_text: bytes) -> bool:
    """A class with a `__call__` whose text calls backward (its __call__ may run it through
    the class's other methods). A pipeline whose __call__ steps a noise scheduler is none."""
    return CALL_METHOD_BYTES.search(class_text) is not None and BACKWARD_CALL_BYTES.search(class_text) is not None


def _import_lines(text: str) -> Iterator[re.Match]:
    """IMPORT_LINE's matches, as `finditer` gives them, tried only at the starts of lines that
    spell `import`: scanning every position of every project file for a line start cost half
    of building the project's index."""
    starts, at = set(), text.find("import")
    while at >= 0:
        starts.add(text.rfind("\n", 0, at) + 1)
        at = text.find("import", at + 6)
    end = 0
    for start in sorted(starts):
        match = IMPORT_LINE.match(text, start) if start >= end else None
        if match is not None:
            end = match.end()
            yield match


def _imported_words(text: str) -> set[str]:
    words = set()
    for match in _import_lines(text):
        module, parenthesized, names, plain = match.groups()
        words.update((module or plain or "").lstrip(".").split("."))
        words.update(n.split()[0] for n in (parenthesized or names or "").replace("\n", " ").split(",") if n.split())
    return words


def _parse(path: Path, data: bytes) -> "ModuleModel | None":
    from gradlint.model import ModuleModel
    from gradlint.sources import SourceError
    from gradlint.sources.python import PythonDocument

    try:
        text = PythonDocument.from_bytes(str(path), data).text
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ModuleModel(ast.parse(text), text)
    except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


LISTING_MODULUS = 1 << 128


@dataclass(frozen=True)
class Listing:
    """The project's Python files, each as a number made from its name, size and modification
    time: their sum fingerprints the project, for a result that asked every file (who calls a
    function, which files define a name), new files included."""

    terms: dict[str, int]
    total: int

    def digest(self, checked: str) -> str:
        """The fingerprint of every file but the checked one (whose own content the cache
        compares by itself, so that touching it alone costs nothing)."""
        return format((self.total - self.terms.get(checked, 0)) % LISTING_MODULUS, "x")


def list_project(root: Path, flat: bool) -> Listing:
    terms = {}
    for path in _python_files(root, flat):
        try:
            info = os.stat(path)
        except OSError:
            continue
        key = f"{path}\0{info.st_size}\0{info.st_mtime_ns}".encode()
        terms[str(path)] = int.from_bytes(hashlib.blake2b(key, digest_size=16).digest(), "big")
    return Listing(terms, sum(terms.values()))


def _is_test_module(relative: Path) -> bool:
    """A module of the project's unit tests (pytest's and unittest's naming conventions)."""
    name = relative.name
    return (
        name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
        or any(part in TEST_FOLDERS for part in relative.parts[:-1])
    )


def _python_files(root: Path, flat: bool):
    count = 0
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = [] if flat else sorted(
            d for d in subfolders
            if not d.startswith(".") and d not in SKIPPED_FOLDERS and not d.endswith(".egg-info")
        )
        for name in sorted(names):
            if name.endswith(".py"):
                count += 1
                if count > MAX_PROJECT_FILES:
                    return
                yield Path(folder, name)


class ProjectContext:
    """One checked file's view of its project: resolve what it calls, learn from its callers,
    and remember which modules' summaries were used (a cached result depends on them). The
    project is found on first use: most checked files never ask."""

    def __init__(self, path: Path, store: SummaryStore | None = None, project: Project | None = None):
        self._given_path = path
        self._store = store
        self._project = project
        self.used: dict[str, list] = {}  # path -> [mtime_ns, size, content hash] of each summary used
        self.searched = False  # a question was asked of every project file (callers, definitions)
        self._located: dict[str, tuple[Path, list[str]] | None] = {}
        self._heads: dict[str, bool] = {}
        self._called_methods: dict[str, set[str]] = {}
        self._packages: dict[Path, str | None] = {}  # _package_of

    @cached_property
    def path(self) -> Path:
        return self._given_path.resolve()

    @cached_property
    def project(self) -> Project | None:
        return self._project or project_for(str(self.path), self._store)

    @property
    def listing(self) -> list | None:
        """[root, flat, fingerprint of the project's files] when the result depends on them all."""
        project = self.project
        if not self.searched or project is None:
            return None
        return [str(project.root), project.flat, project.listing.digest(str(self.path))]

    def _index(self) -> "Project":
        """The project, for a question asked of all its files: the result then depends on which
        files there are and what they say."""
        self.searched = True
        return self.project

    def _note(self, path: Path) -> None:
        recorded = self.project.stamp(path) if self.project else None
        if recorded is not None and path != self.path:
            self.used[str(path)] = recorded

    def parsed(self, text: str) -> ast.Module | None:
        """The checked file's tree, when its project parsed the same text already."""
        return self.project.parsed(self.path, text) if self.project else None

    # -- the callee seam (gradlint/model/callees.py: ProjectResolver) ---------------------------

    def function(self, module: "ModuleModel", qualname: str) -> "Callee | None":
        """The project function (or method `Class.method`) an imported dotted name designates."""
        from gradlint.model.callees import Callee

        found = self._definition(module, qualname)
        if found is None or isinstance(found[1], ast.ClassDef):
            return None
        return Callee(*found)

    def class_def(self, module: "ModuleModel", qualname: str) -> "tuple[ModuleModel, ast.ClassDef] | None":
        found = self._definition(module, qualname)
        return (found[0], found[1]) if found is not None and isinstance(found[1], ast.ClassDef) else None

    def subclasses(self, module: "ModuleModel", cls: ast.ClassDef) -> "list[tuple[ModuleModel, ast.ClassDef]]":
        """Classes of other project modules that list `cls` among their bases (`class
        Trainer(TrainingLoopMixin, DeviceMixin)` in another file): only the modules whose import
        lines name the class are parsed, at most MAX_CALLER_FILES of them."""
        from gradlint.model.callees import base_classes

        if self.project is None:
            return []
        self.project.adopt(self.path, module)
        found = []
        for path in self.project.importers().get(cls.name, ())[:MAX_CALLER_FILES]:
            other = self.project.model(path) if path.resolve() != self.path else None
            for candidate in other.classes.values() if other is not None else ():
                if any(base is cls for _, base in base_classes(other, candidate)):
                    self._note(path)
                    found.append((other, candidate))
        return found

    def gradient_names(self, module: "ModuleModel", reaching_backward: bool = False) -> set[str]:
        """Local names of `module` bound to project functions or modules that touch gradients
        (`reaching_backward`: that reach a backward call), the names of those functions in the
        modules (`backward_step` of `utils.backward_step`), and the gradient-touching methods of
        those classes (`optimize` of a trainer object)."""
        names = self._imported_names(module, reaching_backward)
        # parameters given gradient-touching objects: found once, from the wider set
        objects = module.memo(("gradient object parameters",), lambda: self._gradient_object_parameters(module, self._imported_names(module, False)))
        method_names = self.project.backward_method_names if reaching_backward else self.project.gradient_method_names
        return names | objects | self._configured_calls(module.text, method_names)

    def _imported_names(self, module: "ModuleModel", reaching_backward: bool) -> set[str]:
        names = set()
        stars = [(None, star) for star in module.imports.stars]  # a module's names, brought by `*`
        for local, qualname in [*module.imports.aliases.items(), *stars]:
            located = self._locate(module, qualname)
            if located is None:
                continue
            path, inner = located
            touching = self.project.backward_symbols(path) if reaching_backward else self.project.gradient_symbols(path)
            if not inner:  # a module: `utils.backward_step(...)` is spelled with the function's name
                names |= touching
            if touching if not inner else inner[0] in touching:
                self._note(path)
                if local is not None:
                    names.add(local)
                if inner:  # `trainer.optimize(opt)` on an instance of an imported class
                    names |= self.project.gradient_methods(path, inner[0])
        return names

    def makes_closure(self, module: "ModuleModel", func: ast.expr) -> bool:
        """Whether the imported function `func` names is a project function returning a function
        it defines (`losses.get_step_fn`)."""
        qualname = module.imports.qualname(func)
        located = self._locate(module, qualname) if qualname else None
        if located is None or len(located[1]) != 1:
            return False
        path, (name,) = located
        return name in self.project.closure_factories(path)

    def calls_configured_backward(self, text: str) -> bool:
        """Whether `text` calls, on some object, a method that a few project files define and
        one of them runs backward in: `loss.accumulate_gradients(...)` on a loss object a config
        names. Read off the text, before any parse (as imports_backward)."""
        return self.project is not None and bool(self._configured_calls(text, self.project.backward_method_names))

    def _configured_calls(self, text: str, method_names: Callable[[Path], frozenset[str]]) -> set[str]:
        if text not in self._called_methods:  # the trigger asks, then each set of helper names
            self._called_methods[text] = {name for name in set(ATTRIBUTE_CALL.findall(text)) if names_project_gradient_method(name)}
        called = self._called_methods[text]
        found = set()
        for name in called:
            files = self._index().defining_files(name)
            if 0 < len(files) <= MAX_DELEGATED_DEFINITIONS and any(name in method_names(f) for f in files):
                for file in files:
                    self._note(file)
                found.add(name)
        return found

    def wraps_models_in_ddp(self) -> bool:
        """Whether a module of the project spells a DDP wrapper (read off the text): where a
        framework's runner holds the model, this is what it may hold."""
        if self.project is None:
            return False
        self.searched = True  # the answer depends on every file of the project
        return bool(self._index().ddp_wrappers())

    def returned_roles(self, module: "ModuleModel", qualname: str) -> tuple[str | None, ...]:
        """Roles, by position, of what the project function `qualname` (imported by `module`)
        returns: `model = smart_DDP(model)` where utils wraps the model in DDP. Only functions
        whose text spells a DDP wrapper (or a package's re-export of one) are summarised for
        it; () when unknown."""
        if self.project is None or qualname.rsplit(".", 1)[-1] not in self._index().ddp_wrappers():
            return ()  # asked for every assignment from a call: most name no DDP wrapper
        located = self._locate(module, qualname)
        if located is None or len(located[1]) != 1:
            return ()
        path, (name,) = located
        if name not in self.project.ddp_symbols(path) and path.name != "__init__.py":
            return ()
        summarized = self.project.summary(path)
        symbol = self.project.resolve(path, summarized[1].imports, name) if summarized else None
        if summarized and name in summarized[1].functions:
            symbol = Symbol(path, (name,), summarized[1].functions[name])
        if symbol is None or symbol.names[0] not in self.project.ddp_symbols(symbol.path):
            return ()
        if isinstance(symbol.summary, ClassSummary):  # `TorchDDP(model, ...)`: a project subclass of DDP
            found = self.class_def(module, qualname)
            if found is None or not (derives_from_ddp(*found) or wraps_in_ddp(*found)):
                return ()
            self._note(symbol.path)
            return (Role.DDP_MODEL.value,)
        self._note(symbol.path)
        return symbol.summary.returns

    def _gradient_object_parameters(self, module: "ModuleModel", imported: set[str]) -> set[str]:
        """Parameters called in a gradient-touching function that callers pass an object of a
        project class whose `__call__` touches gradients (`loss_scaler(loss, optimizer)` of
        timm's NativeScaler made in main.py, or in the same module from an imported class,
        `imported` naming those; a method's, from the `self.<method>(...)` calls of its class):
        the lines calling them must be read. (A parameter that is a DDP model is the walk's:
        frames know what callers pass.)"""
        if self.project is None or not self._index().gradient_callables():
            return set()
        names = set()
        methods = [(f, cls) for cls in module.classes.values() for f in module.methods(cls).values()]
        for function, cls in [*((f, None) for f in module.functions.values()), *methods]:
            params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
            if not GRADIENT_WORDS.search(module.function_text(function)):
                continue
            calls = module.function_calls(function)
            aliases, unpacked = _bound_to_parameters(module, function, params) if calls.difference(params) else ({}, set())
            if not calls.intersection([*params, *aliases, *unpacked]):
                continue  # the text first: a docstring's "optimizer (`Optimizer`):" reads as a call
            called_here = _called_parameters(function, [*params, *aliases, *unpacked])
            # `scaler_ae, scaler_disc = loss_scaler`, then `scaler_ae(loss, opt_ae)`: what the
            # elements are, the walk asks the callers
            names |= unpacked & called_here
            called = {aliases.get(name, name) for name in called_here if name in params or name in aliases}
            if not called:
                continue
            found = set()
            for path, site in self._index().callers(self.path, function.name) if cls is None else ():
                for key, _, producer in site.arguments:
                    param = params[key] if isinstance(key, int) and key < len(params) else key
                    if param in called and self._touching(path, producer):
                        found.add(param)
            found |= _given_here(module, function, cls, called, imported)
            names |= found | {alias for alias, param in aliases.items() if param in found}
        return names

    def _touching(self, path: Path, producer: str | None) -> bool:
        """Whether `producer` (a callee as written in module `path`) is a project function or
        class that touches gradients."""
        summarized = self.project.summary(path) if producer else None
        made_by = producer.partition(ELEMENT)[0] if producer else None  # `build#1`: what `build` returns holds it
        symbol = self.project.resolve(path, summarized[1].imports, made_by) if summarized else None
        return symbol is not None and (
            symbol.names[0] in self.project.gradient_symbols(symbol.path)
            or self.project.builds_gradient_callable(symbol.path, symbol.names[0])
        )

    def callers(self, module: "ModuleModel", function: ast.AST) -> "list[tuple[ast.Call, CallContext]]":
        """Calls of `function` (of the module this context belongs to) in other project
        modules: only modules whose summary shows a call of it are parsed."""
        from gradlint.model.callees import made_by_factory, possible_methods, resolve_called

        if self.project is None or not isinstance(function, FUNCTIONS):
            return []
        cls = module.parents.enclosing_class(function)
        if cls is not None and function.name == "__init__":
            return self.instantiations(module, cls)

        def runs(caller: "ModuleModel", call: ast.Call, context: "CallContext", bound_here: bool) -> bool:
            if bound_here:
                return True  # the caller's summary bound the name to this function there
            callee = resolve_called(caller, call, context)
            if callee is not None:
                return callee.function is function
            return any(m.function is function for m in possible_methods(caller, call, context)) or (
                # `model = build_model(opt)` from a registry: any of its classes may run
                isinstance(call.func, ast.Attribute) and made_by_factory(caller, call.func.value, context)
                and _fits(function, call, method=True)
            )

        found = self._calls_at_sites(module, f"{cls.name}.{function.name}" if cls else function.name, runs, aliases=True)
        if not found and cls is not None:
            found = self._delegated_callers(function)
        return found

    def instantiations(self, module: "ModuleModel", cls: ast.ClassDef) -> "list[tuple[ast.Call, CallContext]]":
        """`Class(...)` calls building `cls` in other project modules."""
        from gradlint.model.callees import class_of_instance

        if self.project is None:
            return []

        def builds(caller: "ModuleModel", call: ast.Call, context: "CallContext", bound_here: bool) -> bool:
            made = class_of_instance(caller, call)
            return made is not None and made[1] is cls

        return self._calls_at_sites(module, cls.name, builds, aliases=False)

    def _calls_at_sites(self, module: "ModuleModel", name: str, runs, aliases: bool) -> "list[tuple[ast.Call, CallContext]]":
        """The calls, in the modules the caller index names for `name`, that `runs(caller, call,
        context, bound_here)` accepts; `aliases`: also calls through a name a caller binds the
        function to (`train = pretrain if ... else finetune`)."""
        from gradlint.model.callees import CallContext, class_of_scope

        self.project.adopt(self.path, module)
        found = []
        sites = self._index().callers(self.path, name)
        # each caller once, under the name it calls the function by (`t` for `import ... as t`);
        # a name an import on another branch also binds (`train_epoch|1`) calls this one there
        for path, called_as in dict.fromkeys((path, site.callee.rsplit(".", 1)[-1]) for path, site in sites):
            caller = self.project.model(path)
            if caller is None:
                continue
            called_as, alternate, _ = called_as.partition(ALTERNATE)
            picked = caller.alias_calls(called_as) if aliases else []
            for call, stmt in [*caller.calls_named(called_as), *caller.partials_of(called_as), *picked]:
                scope = caller.parents.scope_of(stmt)
                context = CallContext(caller, scope, class_of_scope(caller, scope), stmt)
                if runs(caller, call, context, bool(alternate) or (call, stmt) in picked):
                    self._note(path)
                    found.append((call, context))
        return found

    def _delegated_callers(self, function: ast.FunctionDef) -> "list[tuple[ast.Call, CallContext]]":
        """`self.task.train_epoch(model=self.model, ...)` where `task` comes from a registry:
        the calls of the method's name on another object's attribute that the model cannot
        resolve, when their arguments fit this method and no other definition of the name fits
        them in the caller's package (see _package_of)."""
        from gradlint.model.callees import CallContext, class_of_scope, resolve_callee

        package = self._package_of(self.path)
        if len([p for p in self._index().defining_files(function.name) if self._in_package(p, package)]) > MAX_DELEGATED_DEFINITIONS:
            return []  # `forward`, `training_step`: too common a name to tell which one runs
        candidates = []
        for path in self._index().delegating_files(function.name)[:MAX_CALLER_FILES]:
            calling = self._package_of(path)
            if path == self.path or None not in (package, calling) and calling != package:
                continue  # another package's runner delegates to its own tasks
            caller = self.project.model(path)
            for call, stmt in caller.calls_named(function.name) if caller is not None else ():
                receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
                if receiver is None or not (dotted(receiver) or "").startswith("self.") or not _fits(function, call, method=True):
                    continue
                scope = caller.parents.scope_of(stmt)
                context = CallContext(caller, scope, class_of_scope(caller, scope), stmt)
                if resolve_callee(caller, call, context) is None and self._only_fitting_definition(function, call, calling):
                    candidates.append((path, call, context))
        for path in {*(path for path, _, _ in candidates), *self._index().defining_files(function.name)}:
            self._note(path)  # a result depends on the callers and on the other definitions
        return [(call, context) for _, call, context in candidates]

    def _package_of(self, path: Path) -> str | None:
        """The project's top-level folder holding `path` (None for a file at the root): a
        registry picks among the classes of the package that asks it, so a repository holding
        two copies of a trainer package (`lavis/`, `lavis_cleaned/`) delegates within each; a
        script at the root may ask any."""
        if path not in self._packages:
            parts = path.relative_to(self.project.root).parts if path.is_relative_to(self.project.root) else ()
            self._packages[path] = parts[0] if len(parts) > 1 else None
        return self._packages[path]

    def _in_package(self, path: Path, package: str | None) -> bool:
        """Whether a definition in `path` is one a call of `package` may run (see _package_of)."""
        return package is None or self._package_of(path) in (package, None)

    def _only_fitting_definition(self, function: ast.FunctionDef, call: ast.Call, package: str | None) -> bool:
        """This method is the one the call can run: the only one that takes it in the package
        (and the root's files), or in the project for a call at its root, or one of copies with
        the same code (a package vendored twice in a repository runs the same loop whichever
        copy the registry picks)."""
        fitting = self._fitting_methods(function.name, [call], package)
        return fitting is not None and len({ast.dump(callee.function) for callee in fitting}) == 1

    def _fitting_methods(self, name: str, calls: list[ast.Call], package: str | None = None) -> "list[Callee] | None":
        """The methods `name` of the project's classes (of `package`'s files, when given) whose
        parameters take every one of `calls`; None when a file defining one cannot be read."""
        from gradlint.model.callees import Callee

        fitting = []
        for path in self._index().defining_files(name):
            if not self._in_package(path, package):
                continue
            module = self.project.model(path)
            if module is None:
                return None
            for node in module.statements:
                if isinstance(node, ast.ClassDef):
                    method = module.methods(node).get(name)
                    if method is not None and all(_fits(method, call, method=True) for call in calls):
                        fitting.append(Callee(module, method, node))
        return fitting

    def sole_method(self, call: ast.Call) -> "Callee | None":
        """`loss.accumulate_gradients(phase=..., gain=...)` on an object a factory built from a
        config (`construct_class_by_name(**loss_kwargs)`): the method, when it is the one
        concrete definition of its name in the project that takes the call's arguments."""
        from gradlint.model.callees import is_abstract

        name = call.func.attr
        if self.project is None or not names_project_gradient_method(name):
            return None
        if len(self._index().defining_files(name)) > MAX_DELEGATED_DEFINITIONS:
            return None
        fitting = [m for m in self._fitting_methods(name, [call]) or () if not is_abstract(m.function)]
        if len(fitting) != 1:
            return None
        for path in self._index().defining_files(name):
            self._note(path)  # the answer depends on every definition of the name
        return fitting[0]

    def setting(self, module: "ModuleModel", qualname: str, depth: int = 0) -> list[ast.expr]:
        """`config.ACCUMULATION_STEPS` read from project module `config`: the values its top
        level gives the name, when no other code of it assigns it; `CFG.accum_iter` of a
        namespace class `CFG` there, the values the class's body gives the field ([] otherwise),
        also where that module has the class from a star import of its own (`from configs
        import *`, a few modules down)."""
        from gradlint.model.values import class_setting, module_setting, reassigned

        located = self._locate(module, qualname)
        if located is None or len(located[1]) not in (1, 2):
            return []
        other = self.project.model(located[0])
        if other is None:
            return []
        self._note(located[0])
        if len(located[1]) == 1:
            if self.project.rebinds_setting(located[0], located[1][0]):
                return []  # `setattr(config, key.upper(), value)` from a YAML file, `config.X = ...`
            return module_setting(other, located[1][0])
        owner, field = located[1]
        if owner in other.classes:
            return class_setting(other, other.classes[owner], field)
        # `cfg = CFG()` at the top of that module: the instance's field is the class's, unless
        # something sets it on the instance (there, or in a module importing it)
        built = _sole_instance(other, owner)
        if built is None and owner not in other.imports.aliases and other.project is not None and depth < MAX_REEXPORTS:
            return other.project.star_setting(other, owner, field, depth + 1)
        if built is None or reassigned(other, f"{owner}.{field}") or self.project.rebinds_setting(located[0], field):
            return []
        return class_setting(other, built, field)

    def star_setting(self, module: "ModuleModel", owner: str, field: str, depth: int = 0) -> list[ast.expr]:
        """`cfg.accumulation_steps` where `cfg` comes from `from cfg import *` (the last star
        import defining it wins, as in Python): the setting that module gives it (see `setting`)."""
        summarized = self.project.summary(self.path) if self.project is not None else None
        for star in reversed(star_imports(summarized[1].imports) if summarized is not None else []):
            found = self.setting(module, f"{'.' * star.level}{star.module}.{owner}.{field}", depth)
            if found:
                return found
        return []

    def _locate(self, module: "ModuleModel", qualname: str) -> tuple[Path, list[str]] | None:
        if self.project is None:
            return None
        self.project.adopt(self.path, module)
        if qualname not in self._located:  # asked for every call the walk meets
            level = len(qualname) - len(qualname.lstrip("."))
            parts = qualname.lstrip(".").split(".")
            if not level and not self._in_project(parts[0]):
                self._located[qualname] = None
            else:
                self._located[qualname] = self.project.module_file(self.path, "", level, parts)
        return self._located[qualname]

    def registered_elsewhere(self, module: "ModuleModel", cls: ast.ClassDef) -> bool:
        """Whether a module of the project importing the class keeps it as a value (`TRAINERS =
        {"base": Trainer}` in a package's __init__): only the modules whose import lines name
        the class are parsed, at most MAX_CALLER_FILES of them."""
        from gradlint.model.callees import may_be_stored, stores_as_value

        if self.project is None:
            return False
        self.project.adopt(self.path, module)
        for path in self.project.importers().get(cls.name, ())[:MAX_CALLER_FILES]:
            text = self.project.text(path) if path.resolve() != self.path else None
            if text is None or not may_be_stored(text, cls.name):
                continue
            other = self.project.model(path)
            if other is None or not stores_as_value(other, cls.name):
                continue
            qualname = other.imports.qualname(ast.Name(cls.name, ast.Load()))
            found = other.project.class_def(other, qualname) if qualname and other.project is not None else None
            if found is not None and found[1] is cls:  # that name is this class there
                self._note(path)
                return True
        return False

    def through_star(self, module: "ModuleModel", name: str) -> str | None:
        """`model.name` for a name `from model import *` brings into `module`, when the project
        module `model` defines it or imports it from the project; what it imports from outside
        the project is that (`torch` of `from utils import *` is torch). The star-imported
        modules are noted either way."""
        if self.project is None:
            return None
        stars = [Import(star.lstrip("."), len(star) - len(star.lstrip("."))) for star in module.imports.stars]
        found = self.project.star_binding(self.path, stars, name)
        for star in stars:  # the answer, found or not, depends on what each of them binds
            located = self.project.module_file(self.path, star.module, star.level, [])
            if located is not None:
                self._note(located[0])
        if found is None:
            return None
        star, _, summary = found
        imported = summary.imports.get(name)
        if imported is not None and not imported.level and not self._in_project(imported.module.split(".")[0]):
            return ".".join(filter(None, [imported.module, imported.name]))
        return f"{'.' * star.level}{star.module}.{name}"

    def _in_project(self, head: str) -> bool:
        if head not in self._heads:  # `torch` of `torch.cat`, asked for every call assigned
            self._heads[head] = self.project.may_hold_top_level(self.path, head)
        return self._heads[head]

    def _definition(self, module: "ModuleModel", qualname: str, depth: int = 0):
        """(module model, function or class node, class of a method) of a dotted name."""
        located = self._locate(module, qualname)
        if located is not None and not located[1]:
            located = self.project.package_binding(located[0])
        if located is None:
            return None
        path, inner = located
        target = self.project.model(path)
        if target is None:
            return None
        self._note(path)
        node = target.functions.get(inner[0]) or target.classes.get(inner[0])
        if node is None:
            alias = target.imports.origin(inner[0])  # re-exported by a package's __init__
            if alias is None or depth >= MAX_REEXPORTS:
                return None
            return target.project._definition(target, ".".join([alias, *inner[1:]]), depth + 1)
        if len(inner) == 1:
            return target, node, None
        if len(inner) == 2 and isinstance(node, ast.ClassDef) and inner[1] in target.methods(node):
            return target, target.methods(node)[inner[1]], node
        return None

    # -- the trigger ----------------------------------------------------------------------------

    def imports_spelling(self, text: str, words: tuple[str, ...]) -> bool:
        """Whether `text` imports a project module whose text spells one of `words` (a model
        whose forward ends in `F.softmax` in models.py, the loss taken in train.py): read off the
        import lines and the modules' bytes, nothing is parsed."""
        if self.project is None:
            return False
        for path, _ in self._imported_modules(text):
            spelling = next((m for m in self.project.modules_behind(path) if self.project.spells(m, words)), None)
            if spelling is not None:
                self._note(path)
                self._note(spelling)
                return True
        return False

    def _imported_modules(self, text: str, importer: Path | None = None) -> list[tuple[Path, list[str]]]:
        """(project file, names inside it) of each import of `text` (the checked file's, or
        `importer`'s) that is a project module."""
        return self.project.imported_modules(importer or self.path, text)

    def imports_backward(self, text: str) -> bool:
        """Whether `text` imports a project function or class that reaches backward(), or a
        project module that calls it: a loop that steps here may run it through a helper
        (`backward_step(loss, optimizer)`). Read off the import lines, before any parse: this
        decides whether the file is parsed at all."""
        if self.project is None:
            return False
        found = False
        for located in self._imported_modules(text):
            name = located[1][0] if located[1] and located[1][0] != "*" else None
            if self.project.calls_backward(located[0], name) or self.project.defines_gradient_callable(located[0]):
                self._note(located[0])
                found = True
        return found


_PROJECTS: dict[tuple[Path, bool], Project] = {}  # the most recently used last
# A run over many projects (a folder of checkouts) hands each worker one project's files at a
# time: the models and summaries of the projects it is done with are let go.
MAX_LIVE_PROJECTS = 8


def project_for(path: str, store: SummaryStore | None = None) -> Project | None:
    """The project of a file on disk (one Project per root and process); None for paths that
    are not files (stdin). A file with no project marker above it is a project of its folder."""
    file = Path(path)
    if not file.is_file():
        return None
    file = file.resolve()
    root = _root_of_folder(file.parent)
    key = (root or file.parent, root is None)
    project = _PROJECTS.pop(key, None)
    if project is None:
        project = Project(key[0], flat=key[1], store=store)
    _PROJECTS[key] = project
    while len(_PROJECTS) > MAX_LIVE_PROJECTS:
        _PROJECTS.pop(next(iter(_PROJECTS))).release()
    return project


def project_key(path: str) -> Path:
    """The root a file's project is found at (its folder when it has none), for grouping
    files by project; the path is not resolved."""
    folder = Path(path).parent
    return _root_of_folder(folder) or folder


def forget_projects() -> None:
    """Start a run afresh: files may have changed since the last run of this process."""
    _PROJECTS.clear()
    _ROOTS.clear()


def project_context(path: str, cache_dir: str | None = None) -> ProjectContext | None:
    """The checked file's view of its project, with summaries cached under `cache_dir`."""
    store = None
    if cache_dir is not None:
        from gradlint.cache import SummaryCache

        store = SummaryCache(Path(cache_dir))
    return ProjectContext(Path(path), store)


def _sole_instance(module: "ModuleModel", name: str) -> ast.ClassDef | None:
    """The module's class whose instance the top-level `name` holds (`cfg = CFG()`, built with
    no arguments and assigned nowhere else in the module)."""
    from gradlint.model.values import module_setting

    values = module_setting(module, name)
    if len(values) != 1 or not isinstance(values[0], ast.Call) or values[0].args or values[0].keywords:
        return None
    return module.classes.get(values[0].func.id) if isinstance(values[0].func, ast.Name) else None
