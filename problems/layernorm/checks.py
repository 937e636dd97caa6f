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
    expect_tensor,
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
    # A gain of 1000 and a bias of -1000 cancel where the normalised value is near 1, so the exact outputs there
    # are small: the gain and bias must act on the float32 normalised value. Rounding it to float16 (bfloat16)
    # first multiplies that rounding, up to 2^-11 (2^-8) near 1, by 1000: errors of 0.5 (4) on outputs near 0.
    cancelling = []
    for seed, dtype in ((82, torch.float16), (83, torch.bfloat16)):
        x = _randn(seed, 64, 16, dtype=dtype)
        cancelling.append((x, torch.full((16,), 1000.0, dtype=dtype), torch.full((16,), -1000.0, dtype=dtype)))
    results = sub.layer_norm.map([((x, w, b, 1e-5), {}) for x, w, b in (*cases, *cancelling)])
    for result, (x, w, b) in zip(results[:len(cases)], cases, strict=True):
        _expect_layer_norm(result, ref, x, w, b, hint="(convert float16 and bfloat16 inputs to float32 before "
                           "the statistics and convert the result back once, at the end)")
    for result, (x, w, b) in zip(results[len(cases):], cancelling, strict=True):
        _expect_layer_norm(result, ref, x, w, b, hint="(gain 1000 and bias -1000 cancel where the normalised value "
                           "is near 1: apply them to the float32 normalised value and convert to the input's dtype "
                           "once, at the end; converting before the gain multiplies its rounding error by 1000)")


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



@check("rms_norm.eps_inside_sqrt", "eps sits inside the square root: x / sqrt(mean(x^2) + eps)",
       clauses=["eps_inside"])
def rms_norm_eps_inside_sqrt(sub, ref):
    # [1e-3, 1e-3] has mean square 1e-6: with eps = 1e-5, 1e-3 / sqrt(1.1e-5) = 0.3015, not 1e-3 / 1.01e-3
    cases = [(torch.tensor([1e-3, 1e-3], dtype=torch.float64), 1e-5), (_randn(140, 3, 5), 0.5)]
    results = sub.rms_norm.map([((x, None, eps), {}) for x, eps in cases])
    for result, (x, eps) in zip(results, cases, strict=True):
        _expect_rms_norm(result, ref, x, None, eps, hint="(put eps inside the square root)")



@check("rms_norm.zero_vector", "A zero vector gives 0 (eps keeps the root positive), beside ordinary ones",
       clauses=["constant_vectors"])
def rms_norm_zero_vector(sub, ref):
    x = _randn(150, 3, 10)
    x[1] = 0.0
    result = sub.rms_norm.call(x, None, 1e-6)
    _expect_rms_norm(result, ref, x, None, hint="(a zero vector stays 0: eps keeps its root mean square positive, "
                     "so it is 0 / sqrt(eps) = 0, not 0 / 0)")


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



# ----------------------------------------------------------------------------------------------- contract



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
