"""Window tests read as residues: which micro-batch of a window a test picks."""

import ast

import pytest

from gradlint.model.sync_phase import phase


def parsed(test: str) -> ast.expr:
    return ast.parse(test, mode="eval").body


@pytest.mark.parametrize(
    "first, second, same",
    [
        ("(i + 1) % n == 0", "i % n == n - 1", True),  # both the window's last micro-batch
        ("(1 + i) % n == 0", "(i + 1) % n != 0", True),  # one test and its negation pick one residue
        ("i % 4 == 3", "(i + 1) % 4 == 0", True),  # a literal factor: residues compared modulo it
        ("i % n != 0", "(i + 1) % n == 0", False),  # the first micro-batch against the last
        ("(i + 1) % n == 0 or i + 1 == len(loader)", "i % n == 0", False),  # the epoch's end aside
    ],
)
def test_residues_of_window_tests(first, second, same):
    a, b = phase(parsed(first)), phase(parsed(second))
    assert (a.counter, a.factor) == (b.counter, b.factor)
    assert a.same_residue(b) is same


@pytest.mark.parametrize("test", ["i % n > 0", "(k - i) % n == 0", "i % n == m", "i == n", "a % n == 0 and b % n == 0"])
def test_tests_that_name_no_single_residue(test):
    assert phase(parsed(test)) is None
