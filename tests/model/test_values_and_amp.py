"""Value origins (model/values.py, model/criteria.py) and mixed-precision facts (model/amp.py)."""

import ast
import textwrap

from gradlint.model import Kind, ModuleModel
from gradlint.model.amp import exclusive, scaled_by, scaler_enabled, visibly_unscaled
from gradlint.model.criteria import loss_calls


def model_of(source: str) -> ModuleModel:
    source = textwrap.dedent(source)
    return ModuleModel(ast.parse(source), source)


def origin_at(model: ModuleModel, text: str):
    """The origin of the expression `text`, asked in the innermost statement that holds it."""
    found = [
        (stmt, node) for stmt in model.statements for node in ast.walk(stmt)
        if isinstance(node, ast.expr) and hasattr(node, "lineno") and ast.unparse(node) == text
    ]
    stmt, node = min(found, key=lambda pair: pair[0].end_lineno - pair[0].lineno)
    return model.values.origin(node, model.parents.scope_of(stmt), node.lineno)


def test_origins_through_calls_variables_modules_and_aliases():
    model = model_of(
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class Net(nn.Module):
            def __init__(self):
                self.act = nn.Softmax(dim=1)
            def forward(self, h):
                use(self.act(h))

        head = nn.Sequential(nn.Linear(4, 2), nn.Sigmoid())
        probs = F.softmax(logits, dim=-1)
        use(probs)
        use(logits.sigmoid())
        use(head(x))
        use(F.gumbel_softmax(logits))
        probs = probs / probs.sum()
        use(probs + 1)
        """
    )
    direct = model.values.origin(ast.parse("F.softmax(z, 1)", mode="eval").body, model.tree, 99)
    assert direct.function == "softmax" and ast.unparse(direct.argument) == "z" and direct.direct
    found = model.values.origin(ast.Name("probs", ast.Load()), model.tree, 15)
    assert found.function == "softmax" and not found.direct and ast.unparse(found.argument) == "logits"
    module = origin_at(model, "self.act(h)")
    assert module.function == "softmax" and ast.unparse(module.argument) == "h"
    assert ast.unparse(module.module) == "nn.Softmax(dim=1)"
    method = origin_at(model, "logits.sigmoid()")
    assert method.function == "sigmoid" and ast.unparse(method.argument) == "logits"
    sequential = origin_at(model, "head(x)")
    assert sequential.function == "sigmoid" and sequential.argument is None  # x is not the logits
    assert origin_at(model, "F.gumbel_softmax(logits)").function == "gumbel_softmax"
    # reassigned by arithmetic: the model cannot tell what `probs` is any more
    assert model.values.origin(ast.Name("probs", ast.Load()), model.tree, 19) is None


def test_loss_calls_by_function_and_by_module_object():
    model = model_of(
        """
        import torch.nn as nn
        import torch.nn.functional as F

        criterion = nn.CrossEntropyLoss()
        bce = nn.BCEWithLogitsLoss(pos_weight=w)
        a = criterion(p, y)
        b = F.cross_entropy(q, y)
        c = bce(r, t)
        d = F.binary_cross_entropy(s, t)
        e = my_cross_entropy(u, y)
        """
    )
    found = {(c.kind, ast.unparse(c.input), c.functional) for c in loss_calls(model, frozenset({"cross_entropy", "bce_with_logits", "bce"}))}
    assert found == {
        ("cross_entropy", "p", False), ("cross_entropy", "q", True),
        ("bce_with_logits", "r", False), ("bce", "s", True),
    }


def test_scaler_enabled_unless_visibly_disabled():
    model = model_of(
        """
        import torch
        from torch.cuda.amp import GradScaler
        USE_AMP = True
        a = torch.amp.GradScaler("cuda")
        b = torch.amp.GradScaler("cuda", enabled=False)
        c = torch.amp.GradScaler("cuda", enabled=args.amp)
        d = GradScaler(enabled=USE_AMP)
        e = torch.amp.GradScaler("cuda", **scaler_kwargs)
        f = torch.amp.GradScaler("cuda") if args.fp16 else None
        h = torch.cuda.amp.GradScaler(enabled=0)
        """
    )
    verdicts = {name: scaler_enabled(model, name) for name in "abcdefgh"}
    assert verdicts == {"a": True, "b": False, "c": True, "d": True, "e": None, "f": True, "g": None, "h": False}


def test_scaled_backwards_and_exclusive_branches():
    model = model_of(
        """
        import torch
        scaler = torch.amp.GradScaler("cuda")
        for x, y in loader:
            loss = criterion(model(x), y)
            if args.amp:
                scaled = scaler.scale(loss)
                scaled.backward()
            else:
                loss.backward()
            if not args.amp:
                optimizer.step()
            else:
                scaler.step(optimizer)
                scaler.update()
        """
    )
    (loop,) = model.loops
    scaled, plain = loop.of(Kind.BACKWARD)
    assert scaled_by(model, scaled) == "scaler" and not visibly_unscaled(model, scaled)
    assert scaled_by(model, plain) is None and visibly_unscaled(model, plain)
    (step,) = loop.of(Kind.STEP)
    (scaler_step,) = loop.of(Kind.SCALER_STEP)
    assert exclusive(scaled, step) and exclusive(plain, scaler_step)
    assert not exclusive(plain, step) and not exclusive(scaled, scaler_step)
