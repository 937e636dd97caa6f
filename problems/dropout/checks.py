"""Check battery for dropout(x, p, uniform, training) (inverted dropout with its randomness passed in).

Groups: `dropout` (the mask, the scale, the edge cases), `gradients`, `result` and `contract` are required;
`experiment` is advisory (the expected value over many draws, for the notes). Every random input comes from a
seeded generator, so two runs give identical verdicts.
"""

import torch

from grader.checks import (
    central_differences,
    check,
    expect_close,
    expect_equal,
    expect_grad_close,
    expect_no_alias,
    expect_rejected,
    expect_tensor,
    expect_unchanged,
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


@check("dropout.random", "Random inputs in float64 and float32 match the reference",
       clauses=["mask.keep_rule", "mask.scale"])
def random(sub, ref):
    cases = [((10,), 0.1, torch.float64), ((4, 5), 0.5, torch.float64), ((2, 3, 4), 0.9, torch.float64),
             ((3, 7), 0.3, torch.float32), ((64,), 0.75, torch.float32), ((5, 5), 1 / 3, torch.float64)]
    inputs = [_inputs(10 + i, shape, dtype) for i, (shape, _, dtype) in enumerate(cases)]
    results = sub.dropout.map([((x, p, u), {}) for (x, u), (_, p, _) in zip(inputs, cases, strict=True)])
    for result, (x, u), (_, p, _) in zip(results, inputs, cases, strict=True):
        _expect_dropout(result, ref, x, p, u)


@check("dropout.p_zero", "p = 0 returns a copy of x: equal values, its own storage", clauses=["edge.p_zero"])
def p_zero(sub, ref):
    x, uniform = _inputs(20, (3, 4))
    uniform[0, 0] = 0.0  # even a draw of exactly 0 is kept: 0 >= 0
    for p in (0, 0.0):
        result = sub.dropout.call(x, p, uniform)
        expect_equal(result.unwrap(), x, call=result, hint="(p = 0 drops nothing and scales by 1 / (1 - 0) = 1)")
        expect_no_alias(result, hint="(return a copy of x, e.g. x.clone(), not x itself)")


@check("dropout.p_one", "p = 1 gives all zeros, never nan", clauses=["edge.p_one"])
def p_one(sub, ref):
    for dtype in (torch.float32, torch.float64):
        x, uniform = _inputs(21, (2, 5), dtype)
        for p in (1, 1.0):
            result = sub.dropout.call(x, p, uniform)
            expect_equal(result.unwrap(), torch.zeros_like(x), call=result,
                         hint="(p = 1 drops everything; never compute 1 / (1 - p), which is 1 / 0 there)")


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


@check("dropout.nonfinite", "Dropped elements are exactly 0 even where x is inf or nan",
       clauses=["edge.nonfinite"])
def nonfinite(sub, ref):
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([inf, -inf, nan, inf, 1.0], dtype=torch.float64)
    uniform = torch.tensor([0.1, 0.2, 0.3, 0.9, 0.1], dtype=torch.float64)
    result = sub.dropout.call(x, 0.5, uniform)
    _expect_dropout(result, ref, x, 0.5, uniform, hint="(the first three elements are dropped and must be 0: "
                    "multiplying by a 0/1 mask gives inf * 0 = nan; select with torch.where instead)")


@check("result.inputs_unchanged", "x and uniform are left unchanged", clauses=["result.inputs_unchanged"])
def inputs_unchanged(sub, ref):
    x, u = _inputs(36, (5, 4))
    for p, training in ((0.5, True), (0.0, True), (1.0, True), (0.3, False)):
        result = sub.dropout.call(x, p, u, training)
        expect_unchanged(result, hint="(build the output as a new tensor; do not zero x in place)")


# --------------------------------------------------------------------------------------------- gradients


@check("gradients.x", "d y / d x is 1 / (1 - p) where kept, 0 where dropped (0-d inputs, float64)",
       clauses=["gradients.x"])
def gradients_x(sub, ref):
    # 0-d inputs so the result is a scalar and backward() runs on it; kept, dropped, p = 0, p = 1, eval.
    cases = [(0.7, 0.25, True, 1 / 0.75), (0.1, 0.25, True, 0.0), (0.3, 0.0, True, 1.0), (0.3, 1.0, True, 0.0),
             (0.1, 0.6, False, 1.0)]
    for u, p, training, slope in cases:
        x = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
        result = sub.dropout.call(x, p, torch.tensor(u, dtype=torch.float64), training, grads=("x",))
        expect_grad_close(result, "x", torch.tensor(slope, dtype=torch.float64),
                          hint=f"(uniform={u}, p={p}, training={training}: the slope is {slope:g}; keep x in the "
                          "graph and never form 1 / 0)")


@check("gradients.finite_differences", "Autograd agrees with central differences of your own function",
       clauses=["gradients.x"])
def finite_differences(sub, ref):
    for u, p in ((0.8, 0.4), (0.2, 0.4)):
        x = torch.tensor(-0.7, dtype=torch.float64)
        uniform = torch.tensor(u, dtype=torch.float64)
        numeric = central_differences(sub.dropout, (x, p, uniform), 0)
        result = sub.dropout.call(x.clone().requires_grad_(), p, uniform, grads=("x",))
        expect_grad_close(result, "x", numeric, rtol=1e-5, atol=1e-8, source="central finite differences")


# ------------------------------------------------------------------------------------------------ result


@check("result.shapes", "Any shape works: 0-d, empty, 3-D and non-contiguous inputs", clauses=["result.tensor"])
def shapes(sub, ref):
    base_x, base_u = _inputs(30, (4, 6))
    cases = [_inputs(31, ()), _inputs(32, (0,)), _inputs(33, (2, 0, 3)), _inputs(34, (2, 3, 4)),
             (base_x.T, base_u.T), (base_x[:, ::2], base_u[:, 1::2]), (base_x[0].expand(3, 6), base_u[:3])]
    results = sub.dropout.map([((x, 0.4, u), {}) for x, u in cases])
    for result, (x, u) in zip(results, cases, strict=True):
        _expect_dropout(result, ref, x, 0.4, u, hint="(use operations that accept any shape and strides)")


@check("result.dtype", "The result has x's dtype (float32 stays float32)", clauses=["result.tensor"])
def dtype(sub, ref):
    for dt in (torch.float32, torch.float64):
        x, u = _inputs(35, (3, 3), dt)
        for p, training in ((0.5, True), (0.0, True), (1.0, True), (0.5, False)):
            result = sub.dropout.call(x, p, u, training)
            expect_tensor(result.unwrap(), shape=(3, 3), dtype=dt, call=result)


# ---------------------------------------------------------------------------------------------- contract


@check("contract.types", "Wrong kinds of x, uniform, p or training raise TypeError", clauses=["contract.types"])
def contract_types(sub, ref):
    x, u = _inputs(40, (3,))
    calls = [
        (([1.0, 2.0, 3.0], 0.5, u), {}, "x is a list"),
        ((x, 0.5, [0.1, 0.2, 0.3]), {}, "uniform is a list"),
        ((x.long(), 0.5, u), {}, "x is int64"),
        ((x.half(), 0.5, u.half()), {}, "float16 is not supported"),
        ((x, 0.5, u.float()), {}, "uniform is float32 and x float64"),
    ]
    for bad in (True, torch.tensor(0.5), "0.5", None):
        calls.append(((x, bad, u), {}, f"p={bad!r} is not a Python int or float"))
    for bad in (1, 0, "True", None, torch.tensor(True)):
        calls.append(((x, 0.5, u), {"training": bad}, f"training={bad!r} is not a bool"))
    expect_rejected("TypeError", sub.dropout, calls)


@check("contract.values", "Shape mismatches, uniform outside [0, 1) and p outside [0, 1] raise ValueError",
       clauses=["contract.values"])
def contract_values(sub, ref):
    x, u = _inputs(41, (3,))
    calls = [
        ((x, 0.5, u[:2]), {}, "uniform has another shape"),
        ((x, 0.5, u[None]), {}, "uniform has an extra dimension"),
        ((x, 0.5, torch.tensor([0.1, 1.0, 0.2], dtype=torch.float64)), {}, "a uniform value is 1, outside [0, 1)"),
        ((x, 0.5, torch.tensor([0.1, -0.1, 0.2], dtype=torch.float64)), {}, "a uniform value is negative"),
        ((x, 0.5, torch.tensor([0.1, float("nan"), 0.2], dtype=torch.float64)), {}, "a uniform value is nan"),
    ]
    for bad in (-0.1, 1.5, float("nan"), float("inf")):
        calls.append(((x, bad, u), {}, f"p={bad} is not in [0, 1]"))
    expect_rejected("ValueError", sub.dropout, calls)


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
