"""Read the traces the runner writes and cut them into optimizer steps (pure Python, no torch)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

Vector = list[float]


def numel(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def norm(v: Iterable[float]) -> float:
    return math.sqrt(sum(x * x for x in v))


def sub(a: Sequence[float], b: Sequence[float]) -> Vector:
    return [x - y for x, y in zip(a, b, strict=True)]


def scaled(a: Sequence[float], k: float) -> Vector:
    return [x * k for x in a]


def add_all(vectors: Sequence[Sequence[float]], size: int) -> Vector:
    out = [0.0] * size
    for v in vectors:
        for i, x in enumerate(v):
            out[i] += x
    return out


def rel_error(measured: Sequence[float], expected: Sequence[float]) -> float:
    """max |measured - expected| / max |expected| (the infinity-norm relative error)."""
    scale = max((abs(x) for x in expected), default=0.0)
    err = max((abs(x - y) for x, y in zip(measured, expected, strict=True)), default=0.0)
    if scale == 0.0:
        return 0.0 if err == 0.0 else math.inf
    return err / scale


def max_abs_diff(a: Sequence[float], b: Sequence[float]) -> float:
    return max((abs(x - y) for x, y in zip(a, b, strict=True)), default=0.0)


@dataclass
class Step:
    """One optimizer.step() and the window of events since the previous step."""

    index: int  # 0-based, in the order steps ran
    optimizer: int
    lrs: list[float | None]
    grads: Vector  # the gradients the step consumed, all its parameters flattened (None -> 0)
    update: Vector | None  # parameters after the step minus before
    params_before: Vector
    via_scaler: bool
    backwards: list[Vector] = field(default_factory=list)  # per backward: grad it added (these params)
    losses: list[float | None] = field(default_factory=list)
    backward_allreduces: list[int] = field(default_factory=list)  # DDP bucket all-reduces per backward
    clips: list[dict[str, Any]] = field(default_factory=list)
    unscales: list[dict[str, Any]] = field(default_factory=list)
    scale: float | None = None  # GradScaler scale in force for this step, if one drove it

    @property
    def grad_norm(self) -> float:
        return norm(self.grads)

    @property
    def update_norm(self) -> float:
        return norm(self.update) if self.update is not None else math.nan

    @property
    def window_sum(self) -> Vector:
        """What the step's gradients would be if every backward of the window had accumulated."""
        return add_all(self.backwards, len(self.grads))

    @property
    def allreduce_rounds(self) -> int:
        """Backward passes of the window that all-reduced (DDP synchronised) at least one bucket."""
        return sum(1 for n in self.backward_allreduces if n > 0)


@dataclass
class Trace:
    path: str
    status: str
    error: str | None
    rank: int | None
    world_size: int
    ddp_models: int
    torch: str
    param_shapes: list[list[int]]
    steps: list[Step]
    final_params: Vector
    events: list[dict[str, Any]]
    warnings: list[dict[str, str]] = field(default_factory=list)
    scalars: dict[str, dict[str, Any]] = field(default_factory=dict)  # globals left at exit
    device: str = "cpu"  # where the parameters lived

    @classmethod
    def load(cls, path: str | Path) -> "Trace":
        with open(path, encoding="utf-8") as fh:
            return cls.from_dict(json.load(fh), str(path))

    @classmethod
    def from_dict(cls, raw: dict[str, Any], path: str = "<trace>") -> "Trace":
        shapes = [list(s) for s in raw["param_shapes"]]
        sizes = [numel(s) for s in shapes]

        def flat(values: list[list[float] | None], indexes: list[int]) -> Vector:
            out: Vector = []
            for v, i in zip(values, indexes, strict=True):
                out.extend(v if v is not None else [0.0] * sizes[i])
            return out

        steps: list[Step] = []
        window: list[dict[str, Any]] = []
        for ev in raw["events"]:
            kind = ev["kind"]
            if kind == "scaler_step":
                if steps and not ev.get("skipped") and steps[-1].scale is None and window == []:
                    steps[-1].scale = ev["scale"]
                continue
            if kind != "step":
                window.append(ev)
                continue
            idx = ev["params"]
            step = Step(
                index=len(steps),
                optimizer=ev["optimizer"],
                lrs=ev["lrs"],
                grads=flat(ev["grads"], idx),
                update=flat(ev["update"], idx) if ev.get("update") is not None else None,
                params_before=flat(ev["params_before"], idx),
                via_scaler=ev.get("via_scaler", False),
            )
            for w in window:
                if w["kind"] == "backward":
                    deltas = w["deltas"]
                    step.backwards.append(
                        flat([deltas[i] if i < len(deltas) else None for i in idx], idx)
                    )
                    step.losses.append(w.get("loss"))
                    step.backward_allreduces.append(w.get("allreduces", 0))
                elif w["kind"] == "clip":
                    step.clips.append(w)
                elif w["kind"] == "unscale":
                    step.unscales.append(w)
            window = []
            steps.append(step)
        final = flat(raw["final_params"], list(range(len(shapes))))
        return cls(
            path=path,
            status=raw["status"],
            error=raw.get("error"),
            rank=raw.get("rank"),
            world_size=raw.get("world_size", 1),
            ddp_models=raw.get("ddp_models", 0),
            torch=raw.get("torch", "?"),
            param_shapes=shapes,
            steps=steps,
            final_params=final,
            events=raw["events"],
            warnings=raw.get("warnings", []),
            scalars=raw.get("scalars", {}),
            device=raw.get("device", "cpu"),
        )

    def clip_events(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["kind"] == "clip"]

    def scaler_steps(self) -> list[dict[str, Any]]:
        """Every GradScaler.step() that returned, skipped or not."""
        return [e for e in self.events if e["kind"] == "scaler_step"]

    def skipped_before_first_step(self) -> list[dict[str, Any]]:
        """GradScaler.step() calls that found inf/NaN gradients before any optimizer step ran.

        The run's first optimizer step then consumed a later batch than a run that skipped none.
        """
        skipped: list[dict[str, Any]] = []
        for e in self.events:
            if e["kind"] == "step":
                break
            if e["kind"] == "scaler_step" and e.get("skipped"):
                skipped.append(e)
        return skipped


@dataclass
class Run:
    """One execution of a script: one trace per rank (a single trace without DDP)."""

    script: str
    traces: list[Trace]

    @property
    def main(self) -> Trace:
        return self.traces[0]

    @property
    def steps(self) -> list[Step]:
        return self.main.steps
