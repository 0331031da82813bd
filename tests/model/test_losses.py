"""Is the loss that reaches backward() normalized? True, False, or None when it cannot tell."""

import ast
import textwrap

import pytest

from gradlint.model import ModuleModel
from gradlint.model.events import Kind


def verdict(body: str):
    source = "def train(model, batch, crit, accum, helper):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    source += "\ndef local_loss(out, y, n):\n    return crit(out, y) / n\n"
    model = ModuleModel(ast.parse(source), source)
    function = model.tree.body[0]
    (backward,) = [
        node for node in ast.walk(function)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "backward"
    ]
    from gradlint.model.losses import loss_normalized

    tensor = backward.func.value
    if isinstance(tensor, ast.Call) and getattr(tensor.func, "attr", "") == "scale":
        tensor = tensor.args[0]
    return loss_normalized(model, tensor, function, backward.lineno)


@pytest.mark.parametrize(
    "body",
    [
        "loss = crit(model(x), y) / accum\nloss.backward()\n",
        "loss = crit(model(x), y)\nloss = loss / accum\nloss.backward()\n",
        "loss = crit(model(x), y)\nloss /= accum\nloss.backward()\n",
        "loss = crit(model(x), y)\n(loss / accum).backward()\n",
        "loss = crit(model(x), y)\nscaler.scale(loss / accum).backward()\n",
        "loss = crit(model(x), y) * (1.0 / accum)\nloss.backward()\n",
        "loss_sum = crit(model(x), y)\nloss = loss_sum / num_tokens\nloss.backward()\n",
        "loss = local_loss(model(x), y, accum)\nloss.backward()\n",
        "loss = crit(model(x), y).div(accum)\nloss.backward()\n",
        "ce = crit(model(x), y)\nloss = args.ce_weight * (ce / accum)\nloss.backward()\n",
        "ce = crit(model(x), y) / accum\nkl = crit(model(x), y) / accum\nloss = 0\nfor t in (ce, kl):\n    loss = loss + t\nloss.backward()\n",
        "losses = crit(model(x), y)\nscale = 1.0 / accum\nloss = (losses * scale).mean()\nloss.backward()\n",
        # the window and the ranks together
        "loss = crit(model(x), y) / (accum * dist.get_world_size())\nloss.backward()\n",
        # a micro-batch's share of the window's total batch: divided by the window after all
        "loss = crit(model(x), y) / (args.total_batch_size / x.size(0))\nloss.backward()\n",
        "loss = crit(model(x), y) * (x.shape[0] / global_batch_size)\nloss.backward()\n",
        # a slice's share of the batch it was cut from (the window): measured, or a micro-batch's
        "loss = crit(model(micro), y) * (micro.shape[0] / batch.shape[0])\nloss.backward()\n",
        "loss = crit(model(micro), y) * (micro.shape[0] / self.batch_size)\nloss.backward()\n",
        "loss = crit(model(x), y) * (args.micro_batch_size / args.batch_size)\nloss.backward()\n",
    ],
)
def test_normalized(body):
    assert verdict(body) is True


@pytest.mark.parametrize(
    "body",
    [
        "loss = crit(model(x), y)\nloss.backward()\n",
        "outputs = model(**batch)\nloss = outputs.loss\nloss.backward()\n",
        "logits, loss = model(x, y)\nloss.backward()\n",
        "loss = crit(model(x), y)\nloss = loss.mean()\nloss.backward()\n",
        "loss, parts = model(x, y)\nloss = torch.mean(loss)\nloss.backward()\n",
        "loss = crit(model(x), y)\nscaler.scale(loss).backward()\n",
        "lm = crit(model(x), y)\nloss = lm + 0.1 * aux\nloss.backward()\n",
        # a named task weight sets a term's share; it does not divide by the window
        "ce = crit(model(x), y)\nloss = args.ce_weight * ce.mean()\nloss.backward()\n",
        "ce = crit(model(x), y)\nloss = ce * self.hparams.ce_loss_ratio\nloss.backward()\n",
        # terms summed by a loop over the listed terms, from a `None` or `0` start
        "ce = crit(model(x), y)\nkl = crit(model(x), y)\nloss = None\nfor t in [ce, kl]:\n    loss = t if loss is None else loss + t\nloss.backward()\n",
        "ce = crit(model(x), y)\nloss = 0\nloss += ce\nloss.backward()\n",
        # importance weights averaged over the micro-batch do not divide by the window
        "t, weights = sampler.sample(len(x))\nlosses = crit(model(x, t), y)\nloss = (losses * weights).mean()\nloss.backward()\n",
        # averaged over the ranks: each rank's loss stays as large, the window is not divided
        "loss = crit(model(x), y) / dist.get_world_size()\nloss.backward()\n",
        "ws = torch.distributed.get_world_size()\nloss = crit(model(x), y)\nloss /= ws\nloss.backward()\n",
        "loss = crit(model(x), y).div(args.world_size)\nloss.backward()\n",
        # a counter of the window's micro-batches so far weighs them 1, 1/2, 1/3 ...
        "micro = 0\nmicro += 1\nloss = crit(model(x), y) / micro\nloss.backward()\n",
        # a short batch weighed by its share of a full one: 1 for every full batch
        "loss = crit(model(x), y)\nloss = loss / (args.train_batch_size / x.shape[0])\nloss.backward()\n",
        # what RL code computes per sample of the micro-batch it generated
        "states, rewards = helper(x)\nloss = -rewards.mean()\nloss.backward()\n",
        "log_probs, advantages = helper(x)\nloss = -(log_probs * advantages).mean()\nloss.backward()\n",
        "loss = crit(model(x), y) * (len(batch) / bs)\nloss.backward()\n",
        "loss = crit(model(x), y)\nif batch['runt_size'] > 0:\n    share = batch['runt_size'] / args.batch_size\n    loss = loss * share\nloss.backward()\n",
    ],
)
def test_visibly_not_normalized(body):
    assert verdict(body) is False


@pytest.mark.parametrize(
    "body",
    [
        "helper(batch).backward()\n",  # a parameter: cannot tell
        "loss = sum(losses)\nloss.backward()\n",
        "loss = torch.mean(torch.stack(window_losses))\nloss.backward()\n",
        "loss = None\nfor t in losses:\n    loss = t if loss is None else loss + t\nloss.backward()\n",
        "outputs = model(**batch, num_items_in_batch=n)\nloss = outputs.loss\nloss.backward()\n",
        "loss = compute(model(x), y, accum_steps=accum)\nloss.backward()\n",
    ],
)
def test_cannot_tell(body):
    assert verdict(body) is None


def test_an_unpacked_helper_result_is_read_element_by_element():
    source = textwrap.dedent(
        """
        import torch.nn.functional as F

        def compute_losses(logits, labels, accum):
            total = F.cross_entropy(logits, labels)
            return total, {"ce": total.item()}

        def compute_scaled(logits, labels, accum):
            total = F.cross_entropy(logits, labels)
            return total / accum, {"ce": total.item()}

        def train(model, x, y, accum):
            raw, logs = compute_losses(model(x), y, accum)
            scaled, logs = compute_scaled(model(x), y, accum)
            raw.backward()
            scaled.backward()
        """
    )
    model = ModuleModel(ast.parse(source), source)
    from gradlint.model.losses import loss_normalized

    train = model.functions["train"]
    raw_line, scaled_line = train.body[-2].lineno, train.body[-1].lineno
    assert loss_normalized(model, ast.Name("raw"), train, raw_line) is False
    assert loss_normalized(model, ast.Name("scaled"), train, scaled_line) is True


def test_a_helper_hands_back_what_its_caller_passed():
    source = textwrap.dedent(
        """
        import torch.distributed as dist

        def average_over_ranks(value, world_size):
            value = value.clone()
            dist.all_reduce(value)
            return value / world_size

        def divide(value, steps):
            return value / steps

        def train(model, crit, x, y, args):
            raw = average_over_ranks(crit(model(x), y), args.world_size)
            scaled = divide(crit(model(x), y), args.accum_steps)
            raw.backward()
            scaled.backward()
        """
    )
    model = ModuleModel(ast.parse(source), source)
    from gradlint.model.losses import loss_normalized

    train = model.functions["train"]
    raw_line, scaled_line = train.body[-2].lineno, train.body[-1].lineno
    assert loss_normalized(model, ast.Name("raw"), train, raw_line) is False
    assert loss_normalized(model, ast.Name("scaled"), train, scaled_line) is True
