"""Check battery for dropout(x, p, uniform, training) (inverted dropout with its randomness passed in).

Groups: `dropout` (the mask, the scale, the edge cases), `gradients`, `result` and `contract` are required;
`experiment` is advisory (the expected value over many draws, for the notes). Every random input comes from a
seeded generator, so two runs give identical verdicts.
"""

import torch

from grader.checks import (
    check,
    expect_close,
    expect_equal,
    expect_no_alias,
    expect_tensor,
)

# ------------------------------------------------------------------------------------------------ inputs


def _inputs(seed, shape, dtype=torch.float64):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=generator, dtype=torch.float64).to(dtype)
    uniform = torch.rand(shape, generator=generator, dtype=torch.float64).to(dtype)
    return x, uniform


def _expect_dropout(result, ref, x, p, uniform, training=True, *, hint=""):
    got = result.unwrap()
    expected = ref.dropout(x.detach(), p, uniform.detach(), training)
    expect_tensor(got, shape=tuple(x.shape), dtype=x.dtype, device="cpu", call=result)
    expect_close(got, expected, call=result, equal_nan=True, hint=hint)


# ----------------------------------------------------------------------------------------------- dropout


@check("dropout.hand_example", "Hand example: p = 0.25, one draw below p, one exactly at p",
       clauses=["mask.keep_rule", "mask.scale"])
def hand_example(sub, ref):
    # uniform 0.1 < 0.25 drops x[0]; 0.25 >= 0.25 keeps x[2]; kept values are divided by 0.75.
    x = torch.tensor([1.0, 2.0, 3.0, 4.0])
    uniform = torch.tensor([0.1, 0.5, 0.25, 0.9])
    result = sub.dropout.call(x, 0.25, uniform)
    got = result.unwrap()
    hint = "(expected [0, 2/0.75, 3/0.75, 4/0.75]: keep where uniform >= p, divide the kept values by 1 - p)"
    expect_close(got, torch.tensor([0.0, 2 / 0.75, 4.0, 4 / 0.75]), call=result, hint=hint)


@check("dropout.boundary", "uniform exactly equal to p keeps the element", clauses=["mask.keep_rule"])
def boundary(sub, ref):
    p = 0.5  # exactly representable, so uniform == p really is equal
    x = torch.tensor([3.0, -1.0, 2.0], dtype=torch.float64)
    uniform = torch.tensor([0.5, 0.5 - 2**-40, 0.5 + 2**-40], dtype=torch.float64)
    result = sub.dropout.call(x, p, uniform)
    _expect_dropout(result, ref, x, p, uniform, hint="(the boundary: uniform == p keeps, uniform just below drops)")



@check("dropout.p_zero", "p = 0 returns a copy of x: equal values, its own storage", clauses=["edge.p_zero"])
def p_zero(sub, ref):
    x, uniform = _inputs(20, (3, 4))
    uniform[0, 0] = 0.0  # even a draw of exactly 0 is kept: 0 >= 0
    empty = torch.zeros(0, 3, dtype=torch.float64)  # no elements, but still a tensor of its own
    cases = [(x, 0, uniform), (x, 0.0, uniform), (empty, 0.0, empty.clone())]
    for (xi, _, _), result in zip(cases, sub.dropout.map([(case, {}) for case in cases]), strict=True):
        expect_equal(result.unwrap(), xi, call=result, hint="(p = 0 drops nothing and scales by 1 / (1 - 0) = 1)")
        expect_no_alias(result, hint="(return a copy of x, e.g. x.clone(), not x itself, even when x is empty)")


@check("dropout.p_one", "p = 1 gives all zeros, never nan, even where x is inf or nan",
       clauses=["edge.p_one", "edge.nonfinite"])
def p_one(sub, ref):
    inf, nan = float("inf"), float("nan")
    cases = []
    for dtype in (torch.float32, torch.float64):
        x, uniform = _inputs(21, (2, 5), dtype)
        cases += [(x, 1, uniform), (x, 1.0, uniform)]
        nonfinite = torch.tensor([inf, -inf, nan, 2.0], dtype=dtype)  # dropped means removed: 0, not inf * 0
        cases.append((nonfinite, 1.0, torch.tensor([0.0, 0.5, 0.25, 0.9], dtype=dtype)))
    empty = torch.zeros(2, 0, dtype=torch.float64)
    cases.append((empty, 1.0, empty.clone()))
    for (x, _, _), result in zip(cases, sub.dropout.map([(case, {}) for case in cases]), strict=True):
        expect_equal(result.unwrap(), torch.zeros_like(x), call=result,
                     hint="(p = 1 drops everything, inf and nan included: the result is zeros, never nan; never "
                     "compute 1 / (1 - p), which is 1 / 0 there, nor x * 0, which is nan where x is inf or nan)")
        expect_no_alias(result, hint="(return a new tensor, not x itself, even when x is empty)")


@check("dropout.eval_mode", "training=False returns a copy of x for any p", clauses=["edge.eval"])
def eval_mode(sub, ref):
    x, uniform = _inputs(22, (4, 3))
    for p in (0.0, 0.3, 0.9, 1.0):
        result = sub.dropout.call(x, p, uniform, training=False)
        expect_equal(result.unwrap(), x, call=result,
                     hint="(in eval mode dropout is the identity: no mask and no 1 / (1 - p) scaling)")
        expect_no_alias(result, hint="(return a copy of x in eval mode, not x itself)")
    result = sub.dropout.call(x, 0.5, uniform, False)
    expect_equal(result.unwrap(), x, call=result, hint="(training passed by position)")
    empty = torch.zeros(0, dtype=torch.float32)
    result = sub.dropout.call(empty, 0.5, empty.clone(), training=False)
    expect_equal(result.unwrap(), empty, call=result, hint="(an empty x gives an empty result)")
    expect_no_alias(result, hint="(return a copy of x in eval mode, not x itself, even when x is empty)")


@check("dropout.nonfinite", "Dropped elements are exactly 0 even where x is inf or nan",
       clauses=["edge.nonfinite"])
def nonfinite(sub, ref):
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([inf, -inf, nan, inf, 1.0], dtype=torch.float64)
    uniform = torch.tensor([0.1, 0.2, 0.3, 0.9, 0.1], dtype=torch.float64)
    result = sub.dropout.call(x, 0.5, uniform)
    _expect_dropout(result, ref, x, 0.5, uniform, hint="(the first three elements are dropped and must be 0: "
                    "multiplying by a 0/1 mask gives inf * 0 = nan; select with torch.where instead)")



# --------------------------------------------------------------------------------------------- gradients



# ------------------------------------------------------------------------------------------------ result



# ---------------------------------------------------------------------------------------------- contract



# -------------------------------------------------------------------------------------------- experiment


@check("experiment.expectation", "Experiment: the mean output over 20,000 draws, for p from 0 to 1",
       clauses=["mask.scale"])
def expectation(sub, ref, ctx):
    # x = 1 everywhere, 20,000 independent draws per p: the mean output estimates E[y] = 1 (0 at p = 1, where
    # nothing survives), with a standard error of sqrt(p / (1 - p) / 20000); the kept fraction estimates 1 - p.
    generator = torch.Generator().manual_seed(50)
    ps = [k / 10 for k in range(11)]
    x = torch.ones(20000, dtype=torch.float64)
    draws = [torch.rand(20000, generator=generator, dtype=torch.float64) for _ in ps]
    results = sub.dropout.map([((x, p, u), {}) for p, u in zip(ps, draws, strict=True)])
    outputs = [result.unwrap() for result in results]
    ctx.record_experiment(
        x_label="k: p = k/10",
        steps=list(range(11)),  # step k: p = k / 10
        series={
            "mean_output": [float(y.mean()) for y in outputs],
            "kept_fraction": [float((y != 0).double().mean()) for y in outputs],
        },
    )
