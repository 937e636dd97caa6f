"""Fast in-process tests of the groupnorm reference: the hand example, the two special cases, the edge cases the
statement fixes and the refusals of num_groups."""

from types import ModuleType

import pytest
import torch
import torch.nn.functional as F

from grader.problems import load_problem


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("groupnorm").reference  # it imports helpers.py: load_problem makes that work


def _randn(seed: int, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def test_hand_example(ref: ModuleType) -> None:
    x = torch.tensor([[[1.0, 5.0], [5.0, 1.0], [2.0, 4.0], [6.0, 8.0]]], dtype=torch.float64)
    weight = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
    bias = torch.tensor([0.0, 0.0, 1.0, -1.0], dtype=torch.float64)
    r4, r5 = 1 / (4 + 1e-5) ** 0.5, 1 / (5 + 1e-5) ** 0.5
    expected = torch.tensor(
        [[[-2 * r4, 2 * r4], [4 * r4, -4 * r4], [1 - 9 * r5, 1 - 3 * r5], [-1 + 4 * r5, -1 + 12 * r5]]],
        dtype=torch.float64,
    )
    torch.testing.assert_close(ref.group_norm(x, 2, weight, bias), expected)


@pytest.mark.parametrize(("shape", "groups"), [((3, 6, 4, 5), 3), ((2, 6), 2), ((2, 4, 2, 3, 2), 2), ((2, 8, 7), 8)])
def test_matches_torch(ref: ModuleType, shape: tuple[int, ...], groups: int) -> None:
    x, weight, bias = _randn(1, *shape), _randn(2, shape[1]), _randn(3, shape[1])
    torch.testing.assert_close(ref.group_norm(x, groups, weight, bias), F.group_norm(x, groups, weight, bias))


def test_one_group_is_layer_norm_and_c_groups_instance_norm(ref: ModuleType) -> None:
    x = _randn(4, 2, 4, 3, 3)
    torch.testing.assert_close(ref.group_norm(x, 1), F.layer_norm(x, x.shape[1:]))
    torch.testing.assert_close(ref.group_norm(x, 4), F.instance_norm(x))


def test_constant_and_single_value_groups_give_the_bias(ref: ModuleType) -> None:
    bias = torch.tensor([0.5, -1.0, 2.0, 3.0], dtype=torch.float64)
    x = _randn(5, 2, 4, 3)
    x[0, 2:] = 7.0
    y = ref.group_norm(x, 2, None, bias)
    assert torch.equal(y[0, 2:], bias[2:, None].expand(2, 3))
    single = ref.group_norm(_randn(6, 3, 4), 4, None, bias)
    assert torch.equal(single, bias.expand(3, 4))


def test_empty_batch(ref: ModuleType) -> None:
    y = ref.group_norm(torch.zeros(0, 4, 3), 2, torch.ones(4), torch.zeros(4))
    assert y.shape == (0, 4, 3) and y.dtype == torch.float32


def test_float32_far_from_zero(ref: ModuleType) -> None:
    x = (1e4 + _randn(7, 3, 8, 6)).float()
    expected = F.group_norm(x.double(), 4).float()
    torch.testing.assert_close(ref.group_norm(x, 4), expected, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize(
    ("groups", "error"), [(4, ValueError), (0, ValueError), (-2, ValueError), (2.0, TypeError), (True, TypeError)]
)
def test_num_groups_refused(ref: ModuleType, groups: float, error: type[Exception]) -> None:
    with pytest.raises(error):
        ref.group_norm(torch.zeros(2, 6, 3), groups)
