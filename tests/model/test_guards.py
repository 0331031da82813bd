"""Accumulation boundaries as people write them, and conditions that are not boundaries."""

import ast

import pytest

from gradlint.model.guards import make_guard


def guard_of(test: str, holds: bool = True, names: dict[str, str] | None = None):
    statement = ast.parse(f"if {test}:\n    pass\n").body[0]
    resolved = {k: ast.parse(v, mode="eval").body for k, v in (names or {}).items()}
    return make_guard(statement, statement.test, holds, resolved.get)


@pytest.mark.parametrize(
    "test, factor",
    [
        ("(i + 1) % accum_steps == 0", "accum_steps"),
        ("step % args.gradient_accumulation_steps == 0", "args.gradient_accumulation_steps"),
        ("(step + 1) % self.accum == 0", "self.accum"),
        ("micro_step == grad_accum - 1", "grad_accum"),
        ("micro_step + 1 == grad_accum", "grad_accum"),
        ("n_micro == accum", "accum"),
        ("self.hparams.virtual_batch_size == seen", "self.hparams.virtual_batch_size"),
        ("args.accum == n_micro", "args.accum"),
        ("i % 4 == 3", "4"),
        ("not (i + 1) % accum", "accum"),
        ("(i + 1) % accum == 0 and epoch > 0", "accum"),
    ],
)
def test_boundaries(test, factor):
    guard = guard_of(test)
    assert guard.boundary is not None
    assert ast.unparse(guard.boundary.factor) == factor
    assert guard.inside_window is None


@pytest.mark.parametrize(
    "test",
    [
        "(i + 1) % accum == 0 or i == len(loader) - 1",
        "(step + 1) % N == 0 or (step + 1) == len(train_loader)",
        "(i + 1) % N == 0 or is_last_batch",
        # the tail test reads as a window's end of its own (`counter == N - 1`)
        "((global_step + 1) % self.grad_accum == 0) or (step == self.epoch_len - 1)",
        "(i + 1) % N == 0 or i == num_batches - 1",
    ],
)
def test_boundaries_that_flush_the_tail(test):
    guard = guard_of(test)
    assert guard.boundary is not None and guard.boundary.flushes_tail
    assert ast.unparse(guard.boundary.factor) in ("accum", "N", "self.grad_accum")


@pytest.mark.parametrize(
    "test",
    [
        "not self.accum or idx % self.accum == 0",
        "self.accum is None or (idx + 1) % self.accum == 0",
        "self.accum <= 1 or (idx + 1) % self.accum == 0",
    ],
)
def test_a_window_beside_accumulation_turned_off_keeps_its_tail(test):
    """`not N or i % N == 0`: every micro-batch steps when accumulation is off, and with it on
    the window is the modulo's, its tail still dropped."""
    guard = guard_of(test)
    assert guard.boundary is not None and not guard.boundary.flushes_tail
    assert ast.unparse(guard.boundary.factor) == "self.accum"


def test_the_else_branch_of_a_boundary_is_inside_the_window():
    guard = guard_of("(i + 1) % accum == 0", holds=False)
    assert guard.boundary is None and guard.inside_window is not None


def test_not_equal_read_from_the_code_after_continue():
    # `if (i + 1) % accum != 0: continue` -- what follows runs when the test is false
    guard = guard_of("(i + 1) % accum != 0", holds=False)
    assert guard.boundary is not None


def test_a_boundary_held_in_a_variable():
    guard = guard_of("do_step", names={"do_step": "(it + 1) % grad_accum == 0"})
    assert ast.unparse(guard.boundary.factor) == "grad_accum"


@pytest.mark.parametrize(
    "test",
    [
        "args.max_grad_norm > 0",
        "scaler is not None",
        "i % 1 == 0",  # a factor of 1 accumulates nothing
        "i == len(loader) - 1",  # once per epoch is not an accumulation factor
        "(i + 1) % len(loader) == 0",
        "rank == 0",
        "torch.cuda.is_available()",
        # a switch's value, not a count
        "dtype == torch.float32",
        "args.amp_dtype == dtype",
        "self.mode == train_mode",
    ],
)
def test_not_boundaries(test):
    guard = guard_of(test)
    assert guard.boundary is None and guard.inside_window is None


@pytest.mark.parametrize(
    "test",
    [
        "(i + 1) % accum == 0 or should_append",  # `append` holds no `end`
        "(i + 1) % accum == 0 or pending",
        "(i + 1) % accum == 0 or j == m - 1",  # two windows, neither the end of the epoch
    ],
)
def test_an_or_with_no_tail_test_is_no_boundary(test):
    assert guard_of(test).boundary is None


@pytest.mark.parametrize(
    "value, holds_at_end",
    [
        ("True if train_step % args.grad_acc == 0 else False", True),
        ("False if train_step % args.grad_acc == 0 else True", False),
        ("True if (step + 1) % accum != 0 else False", False),
    ],
)
def test_a_flag_spelled_as_a_conditional_of_two_booleans(value, holds_at_end):
    guard = guard_of("is_update", names={"is_update": value})
    boundary = guard.boundary if holds_at_end else guard.inside_window
    assert boundary is not None and ast.unparse(boundary.factor) in ("args.grad_acc", "accum")
    assert (guard.boundary is None) == (not holds_at_end)


@pytest.mark.parametrize("value", ["1 if i % accum == 0 else 0", "lr if i % accum == 0 else 0.0", "True if rank == 0 else False"])
def test_a_conditional_that_is_no_pair_of_booleans_or_no_boundary_is_none(value):
    assert guard_of("flag", names={"flag": value}).boundary is None


def test_a_boundary_flag_kept_on_self():
    guard = guard_of("self.sync_gradients", names={"self.sync_gradients": "self.micro_step % self.accum == 0"})
    assert ast.unparse(guard.boundary.factor) == "self.accum"
    assert guard.boundary.counters == frozenset({"self.micro_step"})


def test_the_same_flag_tested_twice_excludes_its_other_side():
    fp16 = guard_of("self.use_fp16")
    fp32 = guard_of("self.use_fp16", holds=False)
    assert fp16.excludes(fp32) and not fp16.excludes(guard_of("self.use_fp16"))
    # a test whose value can change between two places is not a flag
    assert not guard_of("next(flags)").excludes(guard_of("next(flags)", holds=False))
