"""Run each rule's fixtures (bad.py, and the autofix of bad.py) under the runner, check predictions.

Pure orchestration: subprocesses, files and the prediction table. No torch is imported here; the
scripts run in children (``python -m gradlint.verify.runner``), one per rank.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from gradlint.verify.predictions import PREDICTIONS, Prediction, PredictionError
from gradlint.verify.trace import Run, Trace

DEFAULT_TIMEOUT = 60.0  # seconds per script (per launch of all its ranks)
DRIFT = "fix output drifts from fixed.py"
RAISED = 1  # the runner's exit status when the script raised (its trace is still written)
DEVICE_VARIABLE = "GRADLINT_VERIFY_DEVICE"  # read by the runner: "cuda" must find a GPU

# fixer(text of bad.py, rule code) -> the fixed text
Fixer = Callable[[str, str], str]

_CODE = re.compile(r"^GL\d{3}$")
_PKG_PARENT = str(Path(__file__).resolve().parent.parent.parent)


def autofix(text: str, code: str) -> str:
    """gradlint's own autofix of `text`, restricted to one rule, unsafe fixes included (DESIGN §4)."""
    from gradlint.fixer import fix_source

    return fix_source(text, path="bad.py", select=[code], unsafe=True).text


def fixture_roots() -> list[Path]:
    """Where fixtures may live: shipped in the wheel first, then a repository checkout."""
    import gradlint

    pkg = Path(gradlint.__file__).resolve().parent
    return [pkg / "_fixtures", pkg.parent / "fixtures"]


def find_fixtures_root() -> Path | None:
    for root in fixture_roots():
        if root.is_dir() and any(_CODE.match(p.name) for p in root.iterdir()):
            return root
    return None


@dataclass
class RuleResult:
    code: str
    name: str
    prediction: str
    passed: bool
    measured: str
    error: str | None = None  # why it failed, when not (only) because the prediction did not hold
    details: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def verdict(self) -> str:
        return "pass" if self.passed else "FAIL"

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code, "name": self.name, "prediction": self.prediction,
            "measured": self.measured, "verdict": self.verdict, "passed": self.passed,
            "error": self.error, "details": self.details, "seconds": round(self.seconds, 2),
        }


class LaunchError(Exception):
    def __init__(self, message: str, transient: bool = False):
        super().__init__(message)
        # a multi-rank launch that a signal ended (gloo aborting on a dropped peer under load):
        # worth one more try, unlike a script's own error
        self.transient = transient


class UsageError(Exception):
    pass


def catalogue_codes() -> list[str]:
    """Every rule of the catalogue whose fix has a prediction: verify proves each of them, and a
    rule that lacks its fixtures fails rather than being skipped."""
    from gradlint.rules import ALL_RULES

    return [rule.code for rule in ALL_RULES if rule.no_prediction is None]


def available_codes(fixtures_root: Path | None, predictions: Mapping[str, Prediction], catalogue: Sequence[str] = ()) -> list[str]:
    """The catalogue's codes, plus any fixture folder or prediction (neither may go unverified).
    The fixtures of a rule that declares it has nothing to measure (`no_prediction`: GL001,
    GL105) document it and are judged by the tests, not run on torch."""
    from gradlint.rules import ALL_RULES

    unmeasured = {rule.code for rule in ALL_RULES if rule.no_prediction is not None} - set(predictions)
    codes = set(catalogue) | set(predictions)
    if fixtures_root is not None and fixtures_root.is_dir():
        codes |= {p.name for p in fixtures_root.iterdir() if p.is_dir() and _CODE.match(p.name)} - unmeasured
    return sorted(codes)


def select(codes: Sequence[str] | None, available: Sequence[str]) -> list[str]:
    """Full codes or prefixes (GL2 selects the GL2xx family); none selects all."""
    if not codes:
        return list(available)
    chosen: list[str] = []
    for raw in codes:
        code = raw.strip().upper()
        matches = [c for c in available if c.startswith(code)]
        if not matches:
            raise UsageError(f"no fixtures or prediction for {raw!r} (known: {', '.join(available)})")
        chosen.extend(c for c in matches if c not in chosen)
    return sorted(chosen)


def short_diff(expected: str, actual: str, limit: int = 24) -> str:
    lines = list(difflib.unified_diff(
        expected.splitlines(keepends=True), actual.splitlines(keepends=True),
        "fixed.py", "autofix(bad.py)", n=1,
    ))
    text = "".join(lines[:limit])
    if len(lines) > limit:
        text += f"... ({len(lines) - limit} more diff lines)\n"
    return text


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, lines: int = 12) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()
    proc.wait()


def launch(
    script: Path, workdir: Path, world_size: int = 1, timeout: float = DEFAULT_TIMEOUT, may_raise: bool = False,
    device: str = "auto",
) -> Run:
    """Run `script` under the runner (on `world_size` gloo ranks) and load its traces.
    `may_raise`: an exception raised by the script is a result (its trace says which), not a
    launch failure; the prediction decides whether it was expected. `device`: cpu hides CUDA
    from the script, cuda makes the runner refuse to run without it."""
    for attempt in range(2):
        try:
            return _launch_once(script, workdir, world_size, timeout, may_raise, device)
        except LaunchError as exc:
            # Another process may have taken the free port between our probe and gloo's bind,
            # or a rank was aborted by the transport rather than by the script.
            if world_size > 1 and attempt == 0 and (exc.transient or "address already in use" in str(exc).lower()):
                continue
            raise
    raise AssertionError("unreachable")


def _launch_once(
    script: Path, workdir: Path, world_size: int, timeout: float, may_raise: bool = False, device: str = "auto"
) -> Run:
    env = dict(os.environ)
    env[DEVICE_VARIABLE] = device
    if device == "cpu":  # the fixtures pick CUDA when torch sees it: hide it
        env["CUDA_VISIBLE_DEVICES"] = ""
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PKG_PARENT, env.get("PYTHONPATH")) if p)
    env.setdefault("OMP_NUM_THREADS", "1")  # tiny models; ranks and runs share the cores
    env["PYTHONUNBUFFERED"] = "1"
    if world_size > 1:
        env.update({
            "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(_free_port()),
            "WORLD_SIZE": str(world_size), "LOCAL_WORLD_SIZE": str(world_size),
            "GROUP_RANK": "0", "ROLE_NAME": "default", "ROLE_WORLD_SIZE": str(world_size),
            "TORCHELASTIC_RESTART_COUNT": "0", "TORCHELASTIC_MAX_RESTARTS": "0",
        })
        env.pop("TORCHELASTIC_USE_AGENT_STORE", None)
    stem = script.stem
    procs: list[tuple[int, subprocess.Popen[bytes], Path, Path]] = []
    try:
        for rank in range(world_size):
            tag = f"{stem}.rank{rank}" if world_size > 1 else stem
            trace, err = workdir / f"{tag}.trace.json", workdir / f"{tag}.stderr"
            trace.unlink(missing_ok=True)
            if world_size > 1:
                env = dict(env, RANK=str(rank), LOCAL_RANK=str(rank), ROLE_RANK=str(rank))
            with open(workdir / f"{tag}.stdout", "wb") as out, open(err, "wb") as errf:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "gradlint.verify.runner", str(script), str(trace)],
                    cwd=script.parent, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=errf,
                    start_new_session=True,
                )
            procs.append((rank, proc, trace, err))
        deadline = time.monotonic() + timeout
        failed_at: float | None = None
        while any(p.poll() is None for _, p, _, _ in procs):
            now = time.monotonic()
            if now > deadline:
                hung = [r for r, p, _, _ in procs if p.poll() is None]
                raise LaunchError(
                    f"{script.name} timed out after {timeout:g} s (hang?)"
                    + (f" on rank(s) {hung}" if world_size > 1 else "")
                    + _stderr_note(procs)
                )
            if failed_at is None and any(p.poll() not in (None, 0) for _, p, _, _ in procs):
                failed_at = now  # one rank died: the others are stuck in a collective soon
            if failed_at is not None and now - failed_at > 5.0:
                break
            time.sleep(0.05)
        states = [(r, p.poll(), err) for r, p, _, err in procs]
        failed = (0, RAISED) if may_raise else (0,)
        bad = [s for s in states if s[1] not in (*failed, None)] + [s for s in states if s[1] is None]
        if bad:
            rank, rc, err = bad[0]
            where = f" on rank {rank}" if world_size > 1 else ""
            rc_text = "killed" if rc is None or rc < 0 else f"exit {rc}"
            signalled = world_size > 1 and rc is not None and rc < 0
            raise LaunchError(f"{script.name} crashed{where} ({rc_text}):\n{_tail(err)}", transient=signalled)
        traces = []
        for rank, _, trace, err in procs:
            if not trace.exists():
                raise LaunchError(f"{script.name} left no trace (rank {rank}):\n{_tail(err)}")
            traces.append(Trace.load(trace))
        return Run(script=script.name, traces=traces)
    finally:
        for _, p, _, _ in procs:
            _kill(p)


def _stderr_note(procs: list[tuple[int, subprocess.Popen[bytes], Path, Path]]) -> str:
    tail = _tail(procs[0][3], 6)
    return f"\n{tail}" if tail else ""


def verify_rule(
    code: str,
    fixtures_root: Path | None,
    predictions: Mapping[str, Prediction],
    fixer: Fixer | None,
    timeout: float,
    workroot: Path,
    pool: ThreadPoolExecutor,
    device: str = "auto",
) -> RuleResult:
    start = time.monotonic()
    pred = predictions.get(code)
    result = RuleResult(code, pred.name if pred else "", pred.text if pred else "", False, "")

    def fail(error: str, measured: str | None = None) -> RuleResult:
        if measured is not None:
            result.measured = measured
        result.error = error
        result.seconds = time.monotonic() - start
        return result

    folder = fixtures_root / code if fixtures_root is not None else None
    if folder is None or not (folder / "bad.py").is_file() or not (folder / "fixed.py").is_file():
        return fail(f"no fixtures: expected {code}/bad.py and {code}/fixed.py under {fixtures_root}", "no fixtures")
    if pred is None:
        return fail(f"no prediction is defined for {code}", "no prediction")
    bad_text = (folder / "bad.py").read_text(encoding="utf-8")
    fixed_text = (folder / "fixed.py").read_text(encoding="utf-8")
    if fixer is not None:
        try:
            produced = fixer(bad_text, code)
        except Exception as exc:  # noqa: BLE001 - any fixer failure is this rule's failure
            return fail(f"autofix of bad.py failed: {type(exc).__name__}: {exc}", "autofix failed")
        if produced != fixed_text:
            result.measured = DRIFT
            return fail(f"{DRIFT}:\n{short_diff(fixed_text, produced)}")
    work = workroot / code
    shutil.copytree(folder, work, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    futures = {
        variant: pool.submit(
            launch, work / f"{variant}.py", work, pred.world_size, timeout, variant == "bad" and pred.bad_raises,
            device,
        )
        for variant in ("bad", "fixed")
    }
    runs: dict[str, Run] = {}
    errors = []
    for variant, fut in futures.items():
        try:
            runs[variant] = fut.result()
        except LaunchError as exc:
            errors.append(str(exc))
    if errors:
        result.measured = "did not run"
        return fail("\n".join(errors))
    ran_on = sorted({t.device for run in runs.values() for t in run.traces})
    result.details["device"] = ",".join(ran_on)
    # DDP fixtures run on gloo ranks on the CPU wherever they are (DESIGN §4)
    if device != "auto" and pred.world_size == 1 and ran_on != [device]:
        result.measured = f"ran on {', '.join(ran_on)}"
        return fail(f"--device {device}: the fixtures' parameters were on {', '.join(ran_on)}")
    try:
        outcome = pred.check(runs["bad"], runs["fixed"])
    except PredictionError as exc:
        result.measured = "cannot measure"
        return fail(str(exc))
    except Exception as exc:  # noqa: BLE001
        result.measured = "prediction crashed"
        return fail(f"prediction check crashed: {type(exc).__name__}: {exc}")
    result.passed = outcome.passed
    result.measured = outcome.measured
    result.details = {**outcome.details, "device": result.details["device"]}
    result.seconds = time.monotonic() - start
    return result


_USE_AUTOFIX: Any = object()


def run_verify(
    codes: Sequence[str] | None = None,
    *,
    fixtures_root: Path | str | None = None,
    predictions: Mapping[str, Prediction] | None = None,
    fixer: Fixer | None = _USE_AUTOFIX,
    timeout: float = DEFAULT_TIMEOUT,
    jobs: int | None = None,
    device: str = "auto",
) -> list[RuleResult]:
    """Verify the selected rules. `fixer=None` runs fixed.py as it is (no drift check). With the
    real prediction table the rules come from the catalogue; a test's own table brings its codes."""
    catalogue = catalogue_codes() if predictions is None else []
    predictions = PREDICTIONS if predictions is None else predictions
    root = Path(fixtures_root) if fixtures_root is not None else find_fixtures_root()
    if fixer is _USE_AUTOFIX:
        fixer = autofix
    chosen = select(codes, available_codes(root, predictions, catalogue))
    jobs = jobs or max(2, os.cpu_count() or 2)
    with tempfile.TemporaryDirectory(prefix="gradlint-verify-") as tmp, \
            ThreadPoolExecutor(max_workers=jobs) as launches, \
            ThreadPoolExecutor(max_workers=max(1, len(chosen))) as rules:
        futures = [
            rules.submit(verify_rule, code, root, predictions, fixer, timeout, Path(tmp), launches, device)
            for code in chosen
        ]
        return [f.result() for f in futures]
