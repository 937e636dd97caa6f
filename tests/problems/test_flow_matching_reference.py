"""Fast in-process tests of the flow matching reference: the statement's hand examples, the path's ends and its
derivative, the loss's reduction and constant target, the sampler against the exact flow of one Gaussian, and the
supplied mixture velocity against the conditional expectation it stands for."""

import math
from collections.abc import Callable
from types import ModuleType

import pytest
import torch

from grader.problems import Problem, load_problem

F64 = torch.float64


@pytest.fixture(scope="module")
def problem() -> Problem:
    return load_problem("flow_matching")  # it imports helpers.py: load_problem makes that work


@pytest.fixture(scope="module")
def ref(problem: Problem) -> ModuleType:
    return problem.reference


def _t(values: object) -> torch.Tensor:
    return torch.tensor(values, dtype=F64)


def test_hand_examples(ref: ModuleType) -> None:
    x0, x1, t = _t([[1.0, 0.0], [2.0, 2.0]]), _t([[3.0, 4.0], [0.0, -2.0]]), _t([0.25, 0.5])
    x_t, u = ref.conditional_path(x0, x1, t)
    assert x_t.tolist() == [[1.5, 1.0], [1.0, 0.0]] and u.tolist() == [[2.0, 4.0], [-2.0, -4.0]]
    x_t, u = ref.conditional_path(x0, x1, t, 0.1)
    assert torch.allclose(x_t, _t([[1.525, 1.0], [1.1, 0.1]])) and torch.allclose(u, _t([[2.1, 4.0], [-1.8, -3.8]]))
    v_pred = _t([[2.0, 3.0], [0.0, 0.0]]).requires_grad_(True)
    loss = ref.cfm_loss(v_pred, x0, x1)
    loss.backward()
    assert v_pred.grad is not None
    assert loss.item() == 10.5 and v_pred.grad.tolist() == [[0.0, -1.0], [2.0, 4.0]]
    trajectory = ref.euler_sample(_t([[1.0, 0.0], [0.0, 2.0]]), _t([[2.0, -2.0]]), 1.0, 2)
    assert trajectory.tolist() == [[[1.0, 0.0], [0.0, 2.0]], [[1.5, -1.0], [1.0, 0.0]], [[2.5, -2.0], [2.0, -1.0]]]


def test_path_ends_and_derivative(ref: ModuleType) -> None:
    generator = torch.Generator().manual_seed(0)
    x0, x1 = torch.randn(3, 2, 4, generator=generator, dtype=F64), torch.randn(3, 2, 4, generator=generator, dtype=F64)
    x_t, _ = ref.conditional_path(x0, x1, _t([0.0, 1.0, 0.0]))
    assert torch.equal(x_t[0], x0[0]) and torch.equal(x_t[1], x1[1]) and torch.equal(x_t[2], x0[2])
    t = _t([0.2, 0.5, 0.9]).requires_grad_(True)
    x_t, u = ref.conditional_path(x0, x1, t, 0.3)
    (grad,) = torch.autograd.grad(x_t.sum(), t)
    assert torch.allclose(grad, u.sum(dim=(1, 2)))  # d x_t / d t = u


def test_loss_reduction_and_detached_target(ref: ModuleType) -> None:
    generator = torch.Generator().manual_seed(1)
    v, x0, x1 = (torch.randn(4, 3, 5, generator=generator, dtype=F64, requires_grad=True) for _ in range(3))
    loss = ref.cfm_loss(v, x0, x1, 0.2)
    u = x1.detach() - 0.8 * x0.detach()
    assert loss.item() == pytest.approx(float(((v.detach() - u) ** 2).sum() / 4))
    loss.backward()
    assert x0.grad is None and x1.grad is None
    assert v.grad is not None
    assert torch.allclose(v.grad, 2 * (v.detach() - u) / 4)
    assert ref.cfm_loss(torch.zeros(3, 0, dtype=F64), torch.zeros(3, 0, dtype=F64), torch.zeros(3, 0, dtype=F64)) == 0


def test_sampler_converges_to_exact_flow_of_one_gaussian(ref: ModuleType) -> None:
    # x(1) = m + sigma x0 for the straight path from N(0, I) to N(m, sigma^2 I); Euler's error shrinks like 1 / n.
    generator = torch.Generator().manual_seed(2)
    x0, m = torch.randn(50, 2, generator=generator, dtype=F64), _t([[1.0, -3.0]])
    errors = [float((ref.euler_sample(x0, m, 0.5, n)[-1] - (m + 0.5 * x0)).norm(dim=1).mean()) for n in (50, 100)]
    assert errors[1] < 0.03 and errors[0] / errors[1] == pytest.approx(2.0, rel=0.1)
    one_step = ref.euler_sample(x0, _t([[3.0, 0.0], [-1.0, 2.0]]), 0.3, 1)
    assert torch.allclose(one_step[1], _t([1.0, 1.0]).expand(50, 2))  # one step lands on the mean of the means


def test_mixture_velocity_is_the_conditional_expectation(problem: Problem) -> None:
    # E[x1 - x0 | x_t = x] by importance weights over many (x0, x1) pairs, against the closed form.
    velocity = problem.reference.mixture_velocity
    generator = torch.Generator().manual_seed(3)
    means, sigma, t = _t([[2.0, 0.0], [-1.0, 1.5]]), 0.4, 0.6
    n = 400_000
    component = torch.randint(0, 2, (n,), generator=generator)
    x1 = means[component] + sigma * torch.randn(n, 2, generator=generator, dtype=F64)
    x = _t([[0.5, 0.4]])
    # weight each pair by the density of x_t = x given x1: N(x; t x1, (1 - t)^2 I)
    log_w = -((x - t * x1) ** 2).sum(dim=1) / (2 * (1 - t) ** 2)
    w = torch.softmax(log_w, dim=0)
    x0_given = (x - t * x1) / (1 - t)  # the x0 that puts this pair's path through x at time t
    estimate = (w.unsqueeze(1) * (x1 - x0_given)).sum(dim=0)
    assert torch.allclose(velocity(x, t, means, sigma)[0], estimate, atol=0.05)
    assert math.isfinite(float(velocity(x, 1.0, means, sigma).sum()))


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda r: r.conditional_path(torch.zeros(2, 3), torch.zeros(2, 3), torch.tensor([0.5, 1.5])), ValueError),
        (lambda r: r.conditional_path(torch.zeros(2, 3), torch.zeros(2, 3), torch.tensor([0.5, 0.5]), 1.0), ValueError),
        (lambda r: r.conditional_path(torch.zeros(2, 3), torch.zeros(2, 3, dtype=F64), torch.zeros(2)), TypeError),
        (lambda r: r.cfm_loss(torch.zeros(0, 3), torch.zeros(0, 3), torch.zeros(0, 3)), ValueError),
        (lambda r: r.euler_sample(torch.zeros(2, 3), torch.zeros(1, 3), 1.0, 0), ValueError),
        (lambda r: r.euler_sample(torch.zeros(2, 3), torch.zeros(1, 3), 1.0, True), TypeError),
        (lambda r: r.euler_sample(torch.zeros(2, 3), torch.zeros(1, 2), 1.0, 3), ValueError),
        (lambda r: r.euler_sample(torch.zeros(2, 3), torch.zeros(1, 3), 0.0, 3), ValueError),
    ],
)
def test_refusals(ref: ModuleType, call: Callable[[ModuleType], object], error: type[Exception]) -> None:
    with pytest.raises(error):
        call(ref)
