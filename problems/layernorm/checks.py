"""Check battery for LayerNorm and RMSNorm over the last dimension.

Groups: `layer_norm`, `rms_norm` (values of each function), `gradients` and `contract` are required;
`experiment` is advisory (it records the float16 chart for the notes). Every check names the clauses of
problem.toml it tests, and every random input comes from a seeded generator.

Gradients: the worker calls backward() only on a one-element result, and a normalised vector has one element
only when D = 1. RMSNorm at D = 1 is still a non-trivial function of x and the gain (x g / sqrt(x^2 + eps));
LayerNorm at D = 1 is constant in x, so its check can only prove that the bias, gain and x stay in the graph.
"""

import torch

from grader.checks import (
    check,
    expect_close,
    expect_grad_close,
    expect_no_alias,
    expect_rejected,
    expect_tensor,
    expect_unchanged,
    fail,
)

# Results are compared with the exact answer (the reference in float64 on the same inputs, rounded once to the
# input's dtype). Normalised outputs are O(1) times gains of O(1): a correct float32 computation is within a
# few 1e-7 of it, so 1e-5 admits any order of operations. A float16 or bfloat16 result is rounded once more
# than the exact one can be, so it may differ by one unit in the last place: 2^-9 near 2 for float16 and
# 2^-6 for bfloat16; every mutant is off by far more (float16 overflow gives inf, the others >= 5 %).
TOLERANCES = {
    torch.float64: (1e-7, 1e-9),
    torch.float32: (1e-5, 1e-5),
    torch.float16: (2e-3, 2e-3),
    torch.bfloat16: (1.6e-2, 1.6e-2),
}


# ------------------------------------------------------------------------------------------------ inputs


def _randn(seed, *shape, dtype=torch.float64, scale=1.0, shift=0.0):
    generator = torch.Generator().manual_seed(seed)
    return (shift + scale * torch.randn(*shape, generator=generator, dtype=torch.float64)).to(dtype)


def _affine(seed, d, dtype=torch.float64):
    """A gain near 1 and a bias near 0, as after some training."""
    return 1 + 0.5 * _randn(seed, d, dtype=dtype), 0.3 * _randn(seed + 1, d, dtype=dtype)


def _exact(function, x, *args, **kwargs):
    """The reference in float64 on the same inputs, rounded once to x's dtype."""
    wide = [a.double() if isinstance(a, torch.Tensor) else a for a in args]
    return function(x.detach().double(), *wide, **kwargs).to(x.dtype)


def _expect_result(result, expected, *, hint=""):
    """Shape, dtype, finiteness, then values. A value one of the mutants also gives is named by the engine's
    diagnosis (the mutant's description), so no hand-written list of mistakes is needed here."""
    got = result.unwrap()
    expect_tensor(got, shape=tuple(expected.shape), dtype=expected.dtype, call=result)
    if not torch.isfinite(got).all():
        fail(f"{result.call} returned non-finite values although every input is finite; "
             f"{hint or 'compute the statistics in float32 (or float64 for float64 inputs)'}")
    rtol, atol = TOLERANCES[expected.dtype]
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


def _expect_layer_norm(result, ref, x, weight, bias, eps=1e-5, *, hint=""):
    expected = _exact(ref.layer_norm, x, weight, bias, eps)
    _expect_result(result, expected, hint=hint)


def _expect_rms_norm(result, ref, x, weight, eps=1e-6, *, hint=""):
    expected = _exact(ref.rms_norm, x, weight, eps)
    _expect_result(result, expected, hint=hint)


# --------------------------------------------------------------------------------------------- layer_norm


@check("layer_norm.hand_example", "Hand example: mean 5, biased variance 4, gain 2, bias 1",
       clauses=["ln_formula", "biased_variance"])
def layer_norm_hand_example(sub, ref):
    # x has mean 5 and biased variance (9 + 1 + 1 + 1 + 0 + 0 + 4 + 16) / 8 = 4, so x_hat = (x - 5) / 2 and
    # 2 x_hat + 1 = [-2, 0, 0, 0, 1, 1, 3, 5] (eps = 1e-5 moves that by at most 5e-6).
    x = torch.tensor([[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]], dtype=torch.float64)
    weight, bias = torch.full((8,), 2.0, dtype=torch.float64), torch.ones(8, dtype=torch.float64)
    result = sub.layer_norm.call(x, weight, bias, 1e-5)
    _expect_layer_norm(result, ref, x, weight, bias, 1e-5,
                       hint="(expected about [-2, 0, 0, 0, 1, 1, 3, 5]: mean 5, variance 4 dividing by D = 8)")


@check("layer_norm.biased_variance", "The variance divides by D, not D - 1 (D = 2 and D = 5)",
       clauses=["biased_variance"])
def layer_norm_biased_variance(sub, ref):
    # [0, 2]: mean 1, biased variance 1, so the result is [-1, 1] (times 1 / sqrt(1 + 1e-5)); the unbiased
    # variance 2 would give +-0.707.
    cases = [(torch.tensor([0.0, 2.0], dtype=torch.float64), None, None), (_randn(1, 3, 5), *_affine(2, 5))]
    results = sub.layer_norm.map([((x, w, b, 1e-5), {}) for x, w, b in cases])
    for result, (x, w, b) in zip(results, cases, strict=True):
        _expect_layer_norm(result, ref, x, w, b, hint="(divide the squared deviations by D: the statistics "
                           "describe this vector, they do not estimate a population)")


@check("layer_norm.eps_inside_sqrt", "eps sits inside the square root: (x - mean) / sqrt(var + eps)",
       clauses=["eps_inside"])
def layer_norm_eps_inside_sqrt(sub, ref):
    # [0, 2e-3] has variance 1e-6, ten times smaller than eps = 1e-5: inside the root the result is
    # +-1e-3 / sqrt(1.1e-5) = +-0.3015, while (std + eps) would give +-1e-3 / 1.01e-3 = +-0.990.
    cases = [(torch.tensor([0.0, 2e-3], dtype=torch.float64), 1e-5), (_randn(3, 4, 6), 0.5), (_randn(4, 3, 4), 2)]
    results = sub.layer_norm.map([((x, None, None, eps), {}) for x, eps in cases])
    for result, (x, eps) in zip(results, cases, strict=True):
        _expect_layer_norm(result, ref, x, None, None, eps, hint="(put eps inside the square root: "
                           "sqrt(variance + eps))")


@check("layer_norm.random_float64", "Random inputs in float64 over several shapes match the reference",
       clauses=["ln_formula", "last_dim"])
def layer_norm_random_float64(sub, ref):
    shapes = [(4, 8), (2, 3, 5), (7,), (3, 1, 16)]
    cases = [(_randn(10 + i, *shape, scale=3.0, shift=1.0), *_affine(20 + i, shape[-1]))
             for i, shape in enumerate(shapes)]
    results = sub.layer_norm.map([((x, w, b), {"eps": 1e-5}) for x, w, b in cases])
    for result, (x, w, b) in zip(results, cases, strict=True):
        _expect_layer_norm(result, ref, x, w, b)


@check("layer_norm.random_float32", "Random inputs in float32 match the exact result to float32 precision",
       clauses=["ln_formula"])
def layer_norm_random_float32(sub, ref):
    cases = [(_randn(30 + i, *shape, dtype=torch.float32, scale=2.0), *_affine(40 + i, shape[-1], torch.float32))
             for i, shape in enumerate([(5, 8), (2, 4, 32)])]
    results = sub.layer_norm.map([((x, w, b, 1e-5), {}) for x, w, b in cases])
    for result, (x, w, b) in zip(results, cases, strict=True):
        _expect_layer_norm(result, ref, x, w, b)


@check("layer_norm.last_dim_only", "Each vector is normalised on its own: rows of very different scales, "
       "leading dims, empty batches, strided views", clauses=["last_dim"])
def layer_norm_last_dim_only(sub, ref):
    rows = _randn(50, 3, 4) * torch.tensor([[1e-2], [1.0], [1e3]], dtype=torch.float64)  # three scales
    base = _randn(51, 6, 10)
    cases = [rows, rows[:1], _randn(52, 0, 4), _randn(53, 2, 0, 4), base[:, ::2], base.T[:4], base[1].expand(3, 10)]
    results = sub.layer_norm.map([((x, None, None, 1e-5), {}) for x in cases])
    for result, x in zip(results, cases, strict=True):
        _expect_layer_norm(result, ref, x, None, None, hint="(mean and variance come from the last dimension of "
                           "each vector alone: x.mean(dim=-1, keepdim=True))")


@check("layer_norm.no_affine", "weight None means no gain, bias None means no bias", clauses=["affine_optional"])
def layer_norm_no_affine(sub, ref):
    x = _randn(60, 3, 5)
    weight, bias = _affine(61, 5)
    cases = [(None, None), (weight, None), (None, bias)]
    results = sub.layer_norm.map([((x, w, b, 1e-5), {}) for w, b in cases])
    for result, (w, b) in zip(results, cases, strict=True):
        _expect_layer_norm(result, ref, x, w, b, hint="(None stands for a gain of 1 or a bias of 0)")


@check("layer_norm.default_eps", "eps defaults to 1e-5", clauses=["defaults"])
def layer_norm_default_eps(sub, ref):
    # variance 9e-6, comparable to eps: 1e-5 gives +-0.688, 1e-6 +-0.949, 1e-12 +-1
    x = torch.tensor([[0.0, 6e-3], [1.0, 1.006]], dtype=torch.float64)
    result = sub.layer_norm.call(x, None, None)
    _expect_layer_norm(result, ref, x, None, None, 1e-5, hint="(layer_norm's eps defaults to 1e-5, as in PyTorch)")


@check("layer_norm.constant_vectors", "A constant vector (and D = 1) normalises to 0, returning the bias",
       clauses=["constant_vectors"])
def layer_norm_constant_vectors(sub, ref):
    weight, bias = _affine(70, 4)
    cases = [(torch.full((2, 4), 2.5, dtype=torch.float64), weight, bias),
             (torch.tensor([[3.0], [-7.0]], dtype=torch.float64), weight[:1], bias[:1])]
    results = sub.layer_norm.map([((x, w, b, 1e-5), {}) for x, w, b in cases])
    for result, (x, w, b) in zip(results, cases, strict=True):
        _expect_layer_norm(result, ref, x, w, b, hint="(a constant vector has variance 0: the output is "
                           "0 / sqrt(eps) = 0, times the gain, plus the bias)")


@check("layer_norm.half_precision", "float16 features of 300 (squares overflow float16) and bfloat16 inputs",
       clauses=["precision"])
def layer_norm_half_precision(sub, ref):
    # squares of 300 are 9e4 > 65504, float16's largest value: the variance must be computed in float32
    cases = []
    for seed, dtype in ((80, torch.float16), (81, torch.bfloat16)):
        x = _randn(seed, 4, 16, dtype=dtype, scale=300.0)
        cases.append((x, *_affine(seed + 10, 16, dtype)))
    results = sub.layer_norm.map([((x, w, b, 1e-5), {}) for x, w, b in cases])
    for result, (x, w, b) in zip(results, cases, strict=True):
        _expect_layer_norm(result, ref, x, w, b, hint="(convert float16 and bfloat16 inputs to float32 before "
                           "the statistics and convert the result back once, at the end)")


@check("layer_norm.float64_precision", "float64 inputs are computed in float64 (features near 1e8 differ by 1)",
       clauses=["precision"])
def layer_norm_float64_precision(sub, ref):
    # float32 spaces numbers near 1e8 by 8, so 1e8 + [0, 1, 2, 3] collapses; in float64 the result is
    # (x - mean) / sqrt(1.25 + 1e-5)
    x = 1e8 + torch.tensor([[0.0, 1.0, 2.0, 3.0]], dtype=torch.float64)
    result = sub.layer_norm.call(x, None, None, 1e-5)
    _expect_layer_norm(result, ref, x, None, None, hint="(compute float64 inputs in float64)")


# ----------------------------------------------------------------------------------------------- rms_norm


@check("rms_norm.hand_example", "Hand example: [1, 7] has mean square 25, so RMSNorm gives [0.2, 1.4]",
       clauses=["rms_formula"])
def rms_norm_hand_example(sub, ref):
    x = torch.tensor([1.0, 7.0], dtype=torch.float64)
    result = sub.rms_norm.call(x, None, 1e-6)
    _expect_rms_norm(result, ref, x, None, 1e-6, hint="(mean square (1 + 49) / 2 = 25, so [1, 7] / 5)")


@check("rms_norm.random_float64", "Random inputs in float64 (with a non-zero mean) match the reference",
       clauses=["rms_formula", "last_dim"])
def rms_norm_random_float64(sub, ref):
    shapes = [(4, 8), (2, 3, 5), (6,), (3, 1, 16)]
    cases = [(_randn(100 + i, *shape, scale=2.0, shift=1.5), _affine(110 + i, shape[-1])[0])
             for i, shape in enumerate(shapes)]
    results = sub.rms_norm.map([((x, w), {"eps": 1e-6}) for x, w in cases])
    for result, (x, w) in zip(results, cases, strict=True):
        _expect_rms_norm(result, ref, x, w)


@check("rms_norm.random_float32", "Random inputs in float32 match the exact result to float32 precision",
       clauses=["rms_formula"])
def rms_norm_random_float32(sub, ref):
    cases = [(_randn(120 + i, *shape, dtype=torch.float32), _affine(130 + i, shape[-1], torch.float32)[0])
             for i, shape in enumerate([(5, 8), (2, 4, 32)])]
    results = sub.rms_norm.map([((x, w, 1e-6), {}) for x, w in cases])
    for result, (x, w) in zip(results, cases, strict=True):
        _expect_rms_norm(result, ref, x, w)


@check("rms_norm.eps_inside_sqrt", "eps sits inside the square root: x / sqrt(mean(x^2) + eps)",
       clauses=["eps_inside"])
def rms_norm_eps_inside_sqrt(sub, ref):
    # [1e-3, 1e-3] has mean square 1e-6: with eps = 1e-5, 1e-3 / sqrt(1.1e-5) = 0.3015, not 1e-3 / 1.01e-3
    cases = [(torch.tensor([1e-3, 1e-3], dtype=torch.float64), 1e-5), (_randn(140, 3, 5), 0.5)]
    results = sub.rms_norm.map([((x, None, eps), {}) for x, eps in cases])
    for result, (x, eps) in zip(results, cases, strict=True):
        _expect_rms_norm(result, ref, x, None, eps, hint="(put eps inside the square root)")


@check("rms_norm.default_eps", "eps defaults to 1e-6", clauses=["defaults"])
def rms_norm_default_eps(sub, ref):
    # mean square 1e-6, equal to the default eps: 1e-6 gives 0.707, 1e-5 0.302, 1e-8 0.995
    x = torch.tensor([[1e-3, -1e-3]], dtype=torch.float64)
    result = sub.rms_norm.call(x, None)
    _expect_rms_norm(result, ref, x, None, 1e-6, hint="(rms_norm's eps defaults to 1e-6)")


@check("rms_norm.zero_and_strided", "A zero vector gives 0; leading dims, empty batches, strided views, no gain",
       clauses=["constant_vectors", "last_dim", "affine_optional"])
def rms_norm_zero_and_strided(sub, ref):
    base = _randn(150, 6, 10)
    zero_row = base[:3].clone()
    zero_row[1] = 0.0
    cases = [(zero_row, None), (_randn(151, 0, 5), None), (base[:, ::2], _affine(152, 5)[0]), (base.T[:3], None),
             (base[2].expand(2, 10), None), (_randn(153, 2, 3, 7), _affine(154, 7)[0])]
    results = sub.rms_norm.map([((x, w, 1e-6), {}) for x, w in cases])
    for result, (x, w) in zip(results, cases, strict=True):
        _expect_rms_norm(result, ref, x, w, hint="(each vector is divided by its own root mean square over the "
                         "last dimension; a zero vector stays 0 because eps keeps the root positive)")


@check("rms_norm.half_precision", "float16 features of 300 (squares overflow float16) and bfloat16 inputs",
       clauses=["precision"])
def rms_norm_half_precision(sub, ref):
    cases = [(_randn(160, 4, 16, dtype=torch.float16, scale=300.0), _affine(161, 16, torch.float16)[0]),
             (_randn(162, 3, 8, dtype=torch.bfloat16, scale=300.0), None)]
    results = sub.rms_norm.map([((x, w, 1e-6), {}) for x, w in cases])
    for result, (x, w) in zip(results, cases, strict=True):
        _expect_rms_norm(result, ref, x, w, hint="(convert float16 and bfloat16 inputs to float32 before "
                         "squaring: 300^2 = 90,000 does not fit in float16)")


# ---------------------------------------------------------------------------------------------- gradients


def _reference_grads(function, *tensors, eps):
    leaves = [t.detach().double().requires_grad_() for t in tensors]
    function(*leaves, eps=eps).sum().backward()
    return [leaf.grad for leaf in leaves]


@check("gradients.rms_norm", "RMSNorm gradients into x and weight match the reference (D = 1, float64)",
       clauses=["gradients"])
def gradients_rms_norm(sub, ref):
    # y = x g / sqrt(x^2 + eps): dy/dx = g eps / (x^2 + eps)^(3/2) and dy/dg = x / sqrt(x^2 + eps). A large
    # eps keeps both derivatives far from 0 and from each other's shape.
    cases = [(torch.tensor([0.7], dtype=torch.float64), torch.tensor([1.3], dtype=torch.float64), 0.5),
             (torch.tensor([[-2.0]], dtype=torch.float64), torch.tensor([0.6], dtype=torch.float64), 1.0)]
    calls = [((x.clone().requires_grad_(), w.clone().requires_grad_()), {"eps": eps}) for x, w, eps in cases]
    results = sub.rms_norm.map(calls, grads=("x", "weight"))
    for result, (x, w, eps) in zip(results, cases, strict=True):
        result.unwrap()
        for name, expected in zip(("x", "weight"), _reference_grads(ref.rms_norm, x, w, eps=eps), strict=True):
            if result.grads.get(name) is None:
                fail(f"after backward() on {result.call}, {name}.grad is None: RMSNorm is differentiable in x and "
                     f"in the gain, so keep both in the graph (no .detach(), .item() or torch.no_grad())")
            expect_grad_close(result, name, expected, hint="(the derivative runs through the root mean square "
                              "too: do not detach the statistics)")


@check("gradients.rms_norm_finite_differences", "RMSNorm autograd agrees with central differences of your function",
       clauses=["gradients"])
def gradients_rms_norm_finite_differences(sub, ref):
    # Step 1e-6 in float64: truncation ~1e-12 f''', rounding ~1e-16 / 1e-6.
    x, w, eps = torch.tensor([0.4], dtype=torch.float64), torch.tensor([-1.1], dtype=torch.float64), 0.3
    calls = []
    for position in (0, 1):
        for sign in (1.0, -1.0):
            shifted = [x.clone(), w.clone()]
            shifted[position] += sign * 1e-6
            calls.append((tuple(shifted), {"eps": eps}))
    values = [float(expect_tensor(r.unwrap(), shape=(1,), call=r).reshape(())) for r in sub.rms_norm.map(calls)]
    numeric = [torch.tensor([(values[2 * i] - values[2 * i + 1]) / 2e-6], dtype=torch.float64) for i in range(2)]
    result = sub.rms_norm.call(x.clone().requires_grad_(), w.clone().requires_grad_(), eps=eps, grads=("x", "weight"))
    result.unwrap()
    for name, expected in zip(("x", "weight"), numeric, strict=True):
        expect_grad_close(result, name, expected, rtol=1e-5, atol=1e-8, source="central finite differences")


@check("gradients.layer_norm_in_graph", "LayerNorm keeps x, weight and bias in the graph (D = 1: d/d bias = 1)",
       clauses=["gradients"])
def gradients_layer_norm_in_graph(sub, ref):
    # At D = 1 the normalised value is exactly 0, so y = bias: dy/dbias = 1, dy/dweight = 0 and dy/dx = 0.
    # All three gradients must exist (None means the tensor was cut out of the graph).
    x, w, b = (torch.tensor([v], dtype=torch.float64) for v in (3.0, 1.5, -0.5))
    result = sub.layer_norm.call(x.requires_grad_(), w.requires_grad_(), b.requires_grad_(),
                                 grads=("x", "weight", "bias"))
    result.unwrap()
    for name, expected in (("bias", 1.0), ("weight", 0.0), ("x", 0.0)):
        if result.grads.get(name) is None:
            fail(f"after backward() on {result.call}, {name}.grad is None: LayerNorm is differentiable in x, "
                 f"weight and bias, so keep all three in the graph")
        expect_grad_close(result, name, torch.tensor([expected], dtype=torch.float64))


# ----------------------------------------------------------------------------------------------- contract


@check("contract.result", "Results keep x's shape and dtype for all four dtypes and stay in the graph",
       clauses=["result", "precision"])
def result_type(sub, ref):
    calls, wanted = [], []
    for seed, dtype in enumerate((torch.float16, torch.bfloat16, torch.float32, torch.float64)):
        x = _randn(170 + seed, 2, 3, dtype=dtype).requires_grad_()
        calls.append(("layer_norm", x, (None, None)))
        calls.append(("rms_norm", x, (None,)))
        wanted.append(dtype)
    results = [getattr(sub, name).call(x, *rest) for name, x, rest in calls]
    for result, (_, x, _) in zip(results, calls, strict=True):
        expect_tensor(result.unwrap(), shape=(2, 3), dtype=x.dtype, requires_grad=True, call=result)


@check("contract.inputs_unchanged", "x, weight and bias are left unchanged and the result has its own storage",
       clauses=["unchanged", "result"])
def inputs_unchanged(sub, ref):
    x = _randn(180, 3, 4, dtype=torch.float32)
    weight, bias = _affine(181, 4, torch.float32)
    ones, zeros = torch.ones(4), torch.zeros(4)
    for result in (sub.layer_norm.call(x * 1, weight * 1, bias * 1), sub.rms_norm.call(x * 1, weight * 1),
                   sub.layer_norm.call(x * 1, ones * 1, zeros * 1), sub.rms_norm.call(x[:, :1] * 1, ones[:1] * 1)):
        expect_unchanged(result)
        expect_no_alias(result)


@check("contract.type_errors", "Wrong kinds of x, weight, bias and eps raise TypeError", clauses=["type_errors"])
def type_errors(sub, ref):
    x = _randn(190, 2, 3)
    w = torch.ones(3, dtype=torch.float64)
    layer_calls = [
        ((x.tolist(), None, None), {}, "x is a list, not a tensor"),
        ((x.long(), None, None), {}, "integer x is outside the contract"),
        ((x, w.float(), None), {}, "weight is float32 while x is float64"),
        ((x, None, [0.0, 0.0, 0.0]), {}, "bias is a list"),
        ((x, None, None, True), {}, "eps is a bool"),
        ((x, None, None, torch.tensor(1e-5)), {}, "eps is a tensor, not a Python number"),
        ((x, None, None, "1e-5"), {}, "eps is a string"),
    ]
    expect_rejected("TypeError", sub.layer_norm, layer_calls)
    rms_calls = [
        ((x.int(),), {"weight": None}, "integer x is outside the contract"),
        ((x, 2.0), {}, "weight is a float, not a tensor"),
        ((x, w.half()), {}, "weight is float16 while x is float64"),
        ((x, None, None), {}, "eps is None"),
        ((x, None, False), {}, "eps is a bool"),
    ]
    expect_rejected("TypeError", sub.rms_norm, rms_calls)


@check("contract.value_errors", "D = 0, a 0-d x, weight/bias not of shape [D], non-finite values and eps <= 0 "
       "raise ValueError", clauses=["value_errors"])
def value_errors(sub, ref):
    x = _randn(191, 2, 3)
    w = torch.ones(3, dtype=torch.float64)
    layer_calls = [
        ((x[:, :0], None, None), {}, "D = 0: there is nothing to normalise"),
        ((torch.tensor(2.0, dtype=torch.float64), None, None), {}, "a 0-d tensor has no last dimension"),
        ((x, torch.ones(2, dtype=torch.float64), None), {}, "weight has 2 entries for D = 3"),
        ((x, None, torch.zeros(1, 3, dtype=torch.float64)), {}, "bias has shape [1, 3], not [3]"),
        ((x.masked_fill(x > 0.5, float("nan")), None, None), {}, "x contains nan"),
        ((x, w.masked_fill(w > 0, float("inf")), None), {}, "weight contains inf"),
        ((x, None, None, 0.0), {}, "eps = 0 divides a constant vector by 0"),
        ((x, None, None, -1e-5), {}, "eps is negative"),
        ((x, None, None, float("nan")), {}, "eps is nan"),
    ]
    expect_rejected("ValueError", sub.layer_norm, layer_calls)
    rms_calls = [
        ((x[:, :0], None), {}, "D = 0: there is nothing to normalise"),
        ((x, torch.ones(4, dtype=torch.float64)), {}, "weight has 4 entries for D = 3"),
        ((x.masked_fill(x > 0.5, float("inf")), None), {}, "x contains inf"),
        ((x, None, 0), {}, "eps = 0"),
        ((x, None, float("inf")), {}, "eps is infinite"),
    ]
    expect_rejected("ValueError", sub.rms_norm, rms_calls)


# --------------------------------------------------------------------------------------------- experiment


@check("experiment.float16_range", "Experiment: your float16 LayerNorm against a float16-only computation",
       clauses=["precision"])
def float16_range(sub, ref, ctx):
    # The same random vectors at growing scales, in float16. Your function (statistics in float32) stays within
    # one float16 rounding of the exact result at every scale. The same formula evaluated in float16 itself
    # overflows once squares pass 65504 (features near 256): the variance becomes inf and every output of
    # that vector collapses to 0, an error as large as the normalised values themselves.
    scales = [1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0]
    inputs = [_randn(200, 8, 64, dtype=torch.float16, scale=s) for s in scales]
    results = [r.unwrap() for r in sub.layer_norm.map([((x, None, None, 1e-5), {}) for x in inputs])]
    yours, naive = [], []
    for x, got in zip(inputs, results, strict=True):
        exact = ref.layer_norm(x.double(), None, None).double()
        yours.append(float((got.double() - exact).abs().max()))
        centred = x - x.mean(dim=-1, keepdim=True)  # float16 throughout
        in_half = centred / torch.sqrt((centred * centred).mean(dim=-1, keepdim=True) + 1e-5)
        naive.append(float((in_half.double() - exact).abs().nan_to_num(nan=10.0).max()))
    ctx.record_experiment(x_label="input scale", steps=scales,
                          series={"your_max_error": yours, "float16_only_max_error": naive})
