"""Run a training script under gradient instrumentation and write what it did to a JSON trace.

    python -m gradlint.verify.runner SCRIPT TRACE.json

The script runs as ``__main__`` (as ``python SCRIPT`` would run it) after these hooks are
installed; it needs no change and knows nothing of them:

- every optimizer's constructor is wrapped so the parameters it owns are known;
- ``torch.autograd.backward`` (what ``Tensor.backward`` calls) is wrapped: each backward pass
  records the loss value and the gradient it *added* to every parameter (grad after minus grad
  before, a missing grad counting as zero), so a step's accumulation window can be rebuilt;
- a global optimizer step pre-hook records the gradients and learning rates each step consumes,
  and a post-hook the update it made (parameters after minus before);
- ``clip_grad_norm_`` / ``clip_grad_value_`` calls are recorded (max_norm, the norm they saw);
- ``GradScaler.unscale_/step/update`` are recorded with the scale in force;
- every ``DistributedDataParallel`` gets, before its first forward, a comm hook that counts bucket
  all-reduces and then does exactly what DDP does without a hook (average by all-reduce); a comm
  hook the script registers itself is counted instead;
- warnings the script triggers (category and message), e.g. torch's deprecation warnings;
- at exit, the final parameters, and for every scalar the script left in its global namespace
  (a running loss, say) whether it still holds an autograd graph: its ``grad_fn`` and a census
  of the graph nodes reachable from it.

Under GradScaler, ``scaler.step(optimizer)`` unscales the gradients (unless ``unscale_`` already
did) before it calls ``optimizer.step()``, so the step pre-hook always sees gradients in true
units; the per-backward deltas are in scaled units (the trace keeps the scale to convert).

This module imports torch: it only ever runs in the child process.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import traceback
import warnings
from typing import Any

import torch
import torch.optim.optimizer as _optim_mod

TRACE_VERSION = 1


def _flat(t: "torch.Tensor | None") -> list[float] | None:
    if t is None:
        return None
    return t.detach().to(torch.float64).reshape(-1).tolist()


class Recorder:
    def __init__(self) -> None:
        self.optimizers: list[torch.optim.Optimizer] = []
        self.params: list[torch.Tensor] = []  # every parameter of every optimizer, first-seen order
        self._param_index: dict[int, int] = {}
        self.events: list[dict[str, Any]] = []
        self._before_step: dict[int, list[torch.Tensor]] = {}
        self._allreduces = 0
        self._in_scaler_step = 0
        self.ddp_models = 0
        self._backward_depth = 0
        self.warnings: list[dict[str, str]] = []
        self.scalars: dict[str, dict[str, Any]] = {}

    # ----------------------------------------------------------------- parameters
    def _register_optimizer(self, opt: torch.optim.Optimizer) -> None:
        if not any(o is opt for o in self.optimizers):
            self.optimizers.append(opt)
        for group in opt.param_groups:
            for p in group["params"]:
                if id(p) not in self._param_index:
                    self._param_index[id(p)] = len(self.params)
                    self.params.append(p)

    def _opt_params(self, opt: torch.optim.Optimizer) -> list[torch.Tensor]:
        return [p for group in opt.param_groups for p in group["params"]]

    def _opt_index(self, opt: torch.optim.Optimizer) -> int:
        self._register_optimizer(opt)
        return next(i for i, o in enumerate(self.optimizers) if o is opt)

    # ----------------------------------------------------------------- hooks
    def install(self) -> None:
        rec = self

        orig_init = torch.optim.Optimizer.__init__

        def optimizer_init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            orig_init(self, *args, **kwargs)
            rec._register_optimizer(self)

        torch.optim.Optimizer.__init__ = optimizer_init  # type: ignore[method-assign]

        _optim_mod.register_optimizer_step_pre_hook(self._pre_step)
        _optim_mod.register_optimizer_step_post_hook(self._post_step)

        orig_backward = torch.autograd.backward

        def backward(tensors, *args, **kwargs):  # type: ignore[no-untyped-def]
            return rec._backward(orig_backward, tensors, args, kwargs)

        torch.autograd.backward = backward  # type: ignore[assignment]

        import torch.nn.utils as nn_utils
        import torch.nn.utils.clip_grad as clip_mod

        orig_norm = clip_mod.clip_grad_norm_
        orig_value = clip_mod.clip_grad_value_

        def clip_grad_norm_(parameters, max_norm, norm_type=2.0, *args, **kwargs):  # type: ignore[no-untyped-def]
            total = orig_norm(parameters, max_norm, norm_type, *args, **kwargs)
            rec.events.append(
                {"kind": "clip", "type": "norm", "max_norm": float(max_norm),
                 "norm_type": float(norm_type), "total_norm": float(total)}
            )
            return total

        def clip_grad_value_(parameters, clip_value, *args, **kwargs):  # type: ignore[no-untyped-def]
            out = orig_value(parameters, clip_value, *args, **kwargs)
            rec.events.append({"kind": "clip", "type": "value", "clip_value": float(clip_value)})
            return out

        for mod in (nn_utils, clip_mod):
            mod.clip_grad_norm_ = clip_grad_norm_  # type: ignore[assignment]
            mod.clip_grad_value_ = clip_grad_value_  # type: ignore[assignment]

        self._install_scaler()
        self._install_ddp()
        self._install_warnings()

    def _install_warnings(self) -> None:
        rec = self
        show = warnings.showwarning

        def showwarning(message, category, filename, lineno, file=None, line=None):  # type: ignore[no-untyped-def]
            rec.warnings.append({"category": category.__name__, "message": str(message)})
            return show(message, category, filename, lineno, file, line)

        warnings.showwarning = showwarning

    def _install_scaler(self) -> None:
        try:
            from torch.amp.grad_scaler import GradScaler
        except ImportError:  # pragma: no cover - very old torch
            return
        rec = self
        orig_unscale, orig_step, orig_update = GradScaler.unscale_, GradScaler.step, GradScaler.update

        def unscale_(self, optimizer):  # type: ignore[no-untyped-def]
            scale = self.get_scale() if self.is_enabled() else 1.0
            out = orig_unscale(self, optimizer)
            rec.events.append(
                {"kind": "unscale", "scale": float(scale), "explicit": rec._in_scaler_step == 0,
                 "optimizer": rec._opt_index(optimizer)}
            )
            return out

        def step(self, optimizer, *args, **kwargs):  # type: ignore[no-untyped-def]
            scale = self.get_scale() if self.is_enabled() else 1.0
            steps_before = sum(1 for e in rec.events if e["kind"] == "step")
            rec._in_scaler_step += 1
            try:
                out = orig_step(self, optimizer, *args, **kwargs)
            finally:
                rec._in_scaler_step -= 1
            stepped = sum(1 for e in rec.events if e["kind"] == "step") > steps_before
            rec.events.append(
                {"kind": "scaler_step", "scale": float(scale), "skipped": not stepped,
                 "optimizer": rec._opt_index(optimizer)}
            )
            return out

        def update(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            out = orig_update(self, *args, **kwargs)
            scale = self.get_scale() if self.is_enabled() else 1.0
            rec.events.append({"kind": "scaler_update", "scale": float(scale)})
            return out

        GradScaler.unscale_ = unscale_  # type: ignore[method-assign]
        GradScaler.step = step  # type: ignore[method-assign]
        GradScaler.update = update  # type: ignore[method-assign]

    def _install_ddp(self) -> None:
        try:
            from torch.nn.parallel import DistributedDataParallel
            from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
        except ImportError:  # pragma: no cover - torch built without distributed
            return
        rec = self
        orig_init = DistributedDataParallel.__init__
        orig_register = DistributedDataParallel.register_comm_hook
        orig_forward = DistributedDataParallel.forward

        def register_comm_hook(self, state, hook):  # type: ignore[no-untyped-def]
            # The script's own comm hook (or, by default, ours) runs behind a counter.
            def counted(state, bucket):  # type: ignore[no-untyped-def]
                rec._allreduces += 1
                rec.events.append(
                    {"kind": "allreduce", "bucket": int(bucket.index()), "numel": int(bucket.buffer().numel())}
                )
                return hook(state, bucket)

            self._gradlint_hooked = True
            return orig_register(self, state, counted)

        def ddp_init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            orig_init(self, *args, **kwargs)
            rec.ddp_models += 1

        def forward(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            if not getattr(self, "_gradlint_hooked", False):
                # allreduce_hook averages by all-reduce, exactly what DDP does without a hook.
                register_comm_hook(self, None, allreduce_hook)
            return orig_forward(self, *args, **kwargs)

        DistributedDataParallel.__init__ = ddp_init  # type: ignore[method-assign]
        DistributedDataParallel.register_comm_hook = register_comm_hook  # type: ignore[method-assign]
        DistributedDataParallel.forward = forward  # type: ignore[method-assign]

    # ----------------------------------------------------------------- recording
    def _backward(self, orig, tensors, args, kwargs):  # type: ignore[no-untyped-def]
        if self._backward_depth:  # a backward inside a backward (reentrant checkpointing)
            return orig(tensors, *args, **kwargs)
        self._backward_depth += 1
        try:
            return self._record_backward(orig, tensors, args, kwargs)
        finally:
            self._backward_depth -= 1

    def _record_backward(self, orig, tensors, args, kwargs):  # type: ignore[no-untyped-def]
        before = [None if p.grad is None else p.grad.detach().clone() for p in self.params]
        allreduces_before = self._allreduces
        loss = None
        if isinstance(tensors, torch.Tensor) and tensors.numel() == 1:
            loss = float(tensors.detach().float())
        out = orig(tensors, *args, **kwargs)
        deltas = []
        for p, b in zip(self.params, before):
            g = p.grad
            if g is None:
                deltas.append(None if b is None else _flat(-b))
            elif b is None:
                deltas.append(_flat(g))
            else:
                deltas.append(_flat(g.detach() - b))
        self.events.append(
            {"kind": "backward", "loss": loss, "deltas": deltas,
             "allreduces": self._allreduces - allreduces_before}
        )
        return out

    def _pre_step(self, opt, args, kwargs):  # type: ignore[no-untyped-def]
        idx = self._opt_index(opt)  # also picks up parameters added by add_param_group
        params = self._opt_params(opt)
        self._before_step[id(opt)] = [p.detach().clone() for p in params]
        lrs = []
        for group in opt.param_groups:
            lr = group.get("lr")
            lrs.append(float(lr) if lr is not None else None)
        self.events.append(
            {"kind": "step", "optimizer": idx, "params": [self._param_index[id(p)] for p in params],
             "lrs": lrs, "grads": [_flat(p.grad) for p in params],
             "params_before": [_flat(p) for p in params], "via_scaler": self._in_scaler_step > 0}
        )

    def _post_step(self, opt, args, kwargs):  # type: ignore[no-untyped-def]
        before = self._before_step.pop(id(opt), None)
        if before is None:
            return
        step = next(e for e in reversed(self.events) if e["kind"] == "step")
        step["update"] = [_flat(p.detach() - b) for p, b in zip(self._opt_params(opt), before)]

    def trace(self, status: str, error: str | None) -> dict[str, Any]:
        rank = os.environ.get("RANK")
        return {
            "version": TRACE_VERSION,
            "torch": torch.__version__,
            "status": status,
            "error": error,
            "rank": int(rank) if rank is not None else None,
            "world_size": int(os.environ.get("WORLD_SIZE", "1")),
            "ddp_models": self.ddp_models,
            "device": self.params[0].device.type if self.params else "cpu",
            "param_shapes": [list(p.shape) for p in self.params],
            "events": self.events,
            "final_params": [_flat(p) for p in self.params],
            "warnings": self.warnings,
            "scalars": self.scalars,
        }


def _scalars(namespace: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Scalar globals: floats, and one-element tensors with what autograd graph they keep alive."""
    found: dict[str, dict[str, Any]] = {}
    for name, value in namespace.items():
        if name.startswith("__"):
            continue
        if isinstance(value, torch.Tensor) and not isinstance(value, torch.nn.Parameter) and value.numel() == 1:
            fn = value.grad_fn
            found[name] = {"type": "tensor", "grad_fn": type(fn).__name__ if fn else None, "graph": _census(fn)}
        elif isinstance(value, float):
            found[name] = {"type": "float", "grad_fn": None, "graph": {}}
    return found


def _census(fn: Any) -> dict[str, int]:
    """How many autograd nodes of each kind are reachable from `fn`.

    A node's Python wrapper lives only while referenced, and a new wrapper can take a freed one's
    id: every visited node is held in `seen`, so an id names one node for the whole walk (on CUDA
    the walk had stopped after 4 nodes of a graph holding 12 losses).
    """
    counts: dict[str, int] = {}
    seen: dict[int, Any] = {}
    stack = [fn] if fn is not None else []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        counts[type(node).__name__] = counts.get(type(node).__name__, 0) + 1
        stack.extend(child for child, _ in node.next_functions if child is not None)
    return counts


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python -m gradlint.verify.runner SCRIPT TRACE.json", file=sys.stderr)
        return 2
    script, trace_path = os.path.abspath(argv[1]), argv[2]
    if os.environ.get("GRADLINT_VERIFY_DEVICE") == "cuda" and not torch.cuda.is_available():
        print("gradlint verify --device cuda: torch sees no CUDA device", file=sys.stderr)
        return 2
    rec = Recorder()
    rec.install()
    sys.argv = [script]
    sys.path[0] = os.path.dirname(script)
    status, error, code = "ok", None, 0
    try:
        namespace = runpy.run_path(script, run_name="__main__")
        rec.scalars = _scalars(namespace)
    except SystemExit as exc:
        if exc.code not in (None, 0):
            status, error, code = "exit", f"SystemExit({exc.code!r})", 1
    except BaseException as exc:  # noqa: BLE001 - report whatever the script raised
        traceback.print_exc()
        status, error, code = "error", f"{type(exc).__name__}: {exc}", 1
    with open(trace_path, "w", encoding="utf-8") as fh:
        json.dump(rec.trace(status, error), fh)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
