"""Check battery for {{title}}. Each check states one property, names the clauses of problem.toml it tests, and
fails with a message that tells the learner what to fix."""

import torch

from grader.checks import check, expect_close, expect_raises, expect_tensor, expect_unchanged


def _random_matrix(seed, dtype, shape=(5, 3)):
    # A seeded generator: the same cases every run, so two runs give identical verdicts.
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator, dtype=dtype)


@check("normalize_rows.hand_example", "Hand example: [3, 4] becomes [0.6, 0.8]", clauses=["normalize_rows.unit_rows"])
def hand_example(sub, ref):
    got = sub.normalize_rows(torch.tensor([[3.0, 4.0]]))
    expect_close(got, torch.tensor([[0.6, 0.8]]), hint="(each row is divided by its length, here 5)")


@check("normalize_rows.zero_row", "A zero row stays zero", clauses=["normalize_rows.zero_row"])
def zero_row(sub, ref):
    x = torch.tensor([[0.0, 0.0], [1.0, 0.0]])
    got = sub.normalize_rows(x)
    expect_close(got, torch.tensor([[0.0, 0.0], [1.0, 0.0]]),
                 hint="(divide by max(norm, 1e-12), so 0 / 1e-12 = 0 rather than 0 / 0 = nan)")


@check("normalize_rows.random", "Random matrices in float32 and float64 match the reference",
       clauses=["normalize_rows.unit_rows"])
def random_cases(sub, ref):
    for seed, dtype in [(0, torch.float32), (1, torch.float64)]:
        x = _random_matrix(seed, dtype)
        result = sub.normalize_rows.call(x)
        expect_close(result.unwrap(), ref.normalize_rows(x), call=result)


@check("normalize_rows.differentiable", "The result is differentiable with respect to x",
       clauses=["normalize_rows.differentiable"])
def differentiable(sub, ref):
    x = _random_matrix(2, torch.float64).requires_grad_()
    result = sub.normalize_rows.call(x)
    expect_tensor(result.unwrap(), requires_grad=True, call=result)
    # For a function with a scalar result, compare gradients too:
    #     result = sub.loss.call(x, grads=("x",)); expect_grad_close(result, "x", expected_grad)


@check("contract.dtype_and_shape", "The result keeps the input's shape and dtype", clauses=["contract.result_kind"])
def dtype_and_shape(sub, ref):
    for dtype in (torch.float32, torch.float64):
        x = _random_matrix(3, dtype, shape=(4, 2))
        result = sub.normalize_rows.call(x)
        expect_tensor(result.unwrap(), shape=(4, 2), dtype=dtype, call=result)


@check("contract.inputs_unchanged", "x is left unchanged", clauses=["contract.unchanged"])
def inputs_unchanged(sub, ref):
    expect_unchanged(sub.normalize_rows.call(_random_matrix(4, torch.float32)))


@check("contract.bad_inputs", "Wrong kinds of input raise TypeError or ValueError", clauses=["contract.validation"])
def bad_inputs(sub, ref):
    expect_raises("TypeError", sub.normalize_rows, [[1.0, 2.0]])
    expect_raises("TypeError", sub.normalize_rows, torch.ones(2, 2, dtype=torch.int64))
    expect_raises("ValueError", sub.normalize_rows, torch.ones(3))
    expect_raises("ValueError", sub.normalize_rows, torch.tensor([[float("nan"), 1.0]]))
