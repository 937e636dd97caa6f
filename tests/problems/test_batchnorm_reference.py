"""Fast in-process tests of the batchnorm reference: the hand example and agreement with F.batch_norm."""

from types import ModuleType

import pytest
import torch
import torch.nn.functional as F

from grader.problems import load_problem


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("batchnorm").reference  # it imports helpers.py: load_problem makes that work


def test_hand_example_running_statistics(ref: ModuleType) -> None:
    x = torch.tensor([[1.0, 10.0], [3.0, 20.0], [5.0, 30.0], [7.0, 40.0]], dtype=torch.float64)
    zeros, ones = torch.zeros(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
    _, mean, var = ref.batch_norm_train(x, zeros, ones, ones, zeros)
    assert mean.tolist() == pytest.approx([0.4, 2.5])
    assert var.tolist() == pytest.approx([0.9 + 0.1 * 20 / 3, 0.9 + 0.1 * 500 / 3])


@pytest.mark.parametrize("shape", [(6, 3), (3, 2, 4, 5)])
def test_matches_functional_batch_norm(ref: ModuleType, shape: tuple[int, ...]) -> None:
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(shape, generator=generator, dtype=torch.float64)
    weight, bias = torch.randn(shape[1], dtype=torch.float64, generator=generator), torch.randn(
        shape[1], dtype=torch.float64, generator=generator)
    running_mean, running_var = torch.zeros(shape[1], dtype=torch.float64), torch.ones(shape[1], dtype=torch.float64)
    y, new_mean, new_var = ref.batch_norm_train(x, running_mean, running_var, weight, bias, momentum=0.3)
    torch_mean, torch_var = running_mean.clone(), running_var.clone()
    expected = F.batch_norm(x, torch_mean, torch_var, weight, bias, training=True, momentum=0.3)
    torch.testing.assert_close(y, expected)
    torch.testing.assert_close(new_mean, torch_mean)
    torch.testing.assert_close(new_var, torch_var)
    torch.testing.assert_close(ref.batch_norm_eval(x, new_mean, new_var, weight, bias),
                               F.batch_norm(x, new_mean, new_var, weight, bias, training=False))


def test_single_value_per_channel_refused(ref: ModuleType) -> None:
    ones = torch.ones(2)
    with pytest.raises(ValueError):
        ref.batch_norm_train(torch.ones(1, 2), ones, ones, ones, ones)
