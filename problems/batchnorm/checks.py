"""Check battery for batch_norm_train and batch_norm_eval (Ioffe & Szegedy, 2015).

Groups: `train`, `eval`, `result` and `contract` are required; `experiment` is advisory (the running statistics
converging over a stream of batches, for the notes). Every random input comes from a seeded generator.
"""

import math

import torch

from grader.checks import (
    check,
    expect,
    expect_close,
    expect_equal,
    expect_rejected,
    expect_tensor,
    fail,
)

NAMES = ("y", "new_running_mean", "new_running_var")

# ------------------------------------------------------------------------------------------------ inputs


def _layer(seed, shape, dtype=torch.float64, *, offset=0.0, spread=1.0):
    """x of `shape` plus per-channel running statistics, weight and bias."""
    generator = torch.Generator().manual_seed(seed)
    channels = shape[1]
    x = offset + spread * torch.randn(shape, generator=generator, dtype=torch.float64)
    x = x + torch.randn((1, channels) + (1,) * (len(shape) - 2), generator=generator, dtype=torch.float64)
    running_mean = torch.randn(channels, generator=generator, dtype=torch.float64)
    running_var = torch.rand(channels, generator=generator, dtype=torch.float64) + 0.5
    weight = 1 + 0.5 * torch.randn(channels, generator=generator, dtype=torch.float64)
    bias = torch.randn(channels, generator=generator, dtype=torch.float64)
    return tuple(t.to(dtype) for t in (x, running_mean, running_var, weight, bias))


def _exact_train(ref, layer, **kwargs):
    dtype = layer[0].dtype
    return tuple(t.to(dtype) for t in ref.batch_norm_train(*(t.detach().double() for t in layer), **kwargs))


def _exact_eval(ref, layer, **kwargs):
    return ref.batch_norm_eval(*(t.detach().double() for t in layer), **kwargs).to(layer[0].dtype)


def _unpack(result, layer):
    got = result.unwrap()
    if not isinstance(got, tuple | list) or len(got) != 3:
        fail(f"{result.call} returned {type(got).__name__}; return a tuple (y, new_running_mean, new_running_var)")
    shapes = (tuple(layer[0].shape), tuple(layer[1].shape), tuple(layer[1].shape))
    for name, value, shape in zip(NAMES, got, shapes, strict=True):
        expect_tensor(value, shape=shape, dtype=layer[0].dtype, what=name, call=result)
    return got


def _tolerance(layer):
    # float32: y is (x - mean) / std, each value carrying a few ulps of error relative to |x - mean| / std, and the
    # mean itself is a sum of m values; the default float32 tolerances cover it for the inputs used here.
    return (1e-7, 1e-9) if layer[0].dtype == torch.float64 else (2e-5, 2e-5)


def _expect_train(result, ref, layer, *, hint="", **kwargs):
    got = _unpack(result, layer)
    expected = _exact_train(ref, layer, **kwargs)
    rtol, atol = _tolerance(layer)
    for name, g, e in zip(NAMES, got, expected, strict=True):
        expect_close(g, e, what=name, call=result, rtol=rtol, atol=atol, hint=hint)


def _expect_eval(result, ref, layer, *, hint="", **kwargs):
    got = result.unwrap()
    expected = _exact_eval(ref, layer, **kwargs)
    rtol, atol = _tolerance(layer)
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


# ------------------------------------------------------------------------------------------------- train


@check("train.hand_example", "Hand example: N = 4, C = 2, biased variance 5 to normalise, unbiased 20/3 to track",
       clauses=["train.normalise", "train.running_mean", "train.running_var"])
def hand_example(sub, ref):
    x = torch.tensor([[1.0, 10.0], [3.0, 20.0], [5.0, 30.0], [7.0, 40.0]], dtype=torch.float64)
    zeros, ones = torch.zeros(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
    layer = (x, zeros, ones, ones.clone(), zeros.clone())
    result = sub.batch_norm_train.call(*layer)
    y, new_mean, new_var = _unpack(result, layer)
    steps = torch.tensor([-3.0, -1.0, 1.0, 3.0], dtype=torch.float64)
    expected_y = torch.stack([steps / math.sqrt(5 + 1e-5), 5 * steps / math.sqrt(125 + 1e-5)], dim=1)
    expect_close(y, expected_y, what="y", call=result,
                 hint="((x - 4) / sqrt(5 + eps) in channel 0: the biased variance, dividing by N = 4)")
    expect_close(new_mean, torch.tensor([0.4, 2.5], dtype=torch.float64), what="new_running_mean", call=result,
                 hint="(0.9 * 0 + 0.1 * [4, 25])")
    expect_close(new_var, torch.tensor([0.9 + 0.1 * 20 / 3, 0.9 + 0.1 * 500 / 3], dtype=torch.float64),
                 what="new_running_var", call=result,
                 hint="(0.9 * 1 + 0.1 * the unbiased variance [20/3, 500/3])")


@check("train.conv_dims", "For [N, C, H, W] the statistics run over N, H and W together",
       clauses=["train.dims"])
def conv_dims(sub, ref):
    layers = [_layer(10, (4, 3, 5, 5)), _layer(11, (2, 2, 3, 7)), _layer(12, (1, 3, 2, 2))]  # N = 1: m = 4 still
    results = sub.batch_norm_train.map([(layer, {}) for layer in layers])
    for result, layer in zip(results, layers, strict=True):
        _expect_train(result, ref, layer, hint="(average over every dimension but C: dims (0, 2, 3))")



@check("train.eps", "eps is added to the variance inside the square root", clauses=["train.normalise"])
def eps(sub, ref):
    # A small spread (variance ~1e-4) makes the placement of eps = 1e-2 visible.
    layer = _layer(32, (6, 2), spread=1e-2)
    for value in (1e-2, 1e-5, 1):
        _expect_train(sub.batch_norm_train.call(*layer, eps=value), ref, layer, eps=value,
                      hint="(divide by sqrt(var + eps))")


@check("train.constant_channel", "A constant channel has variance 0 and comes out as exactly its bias",
       clauses=["train.normalise", "result.precision"])
def constant_channel(sub, ref):
    # Each layer has one constant channel: its variance is 0, so y there must be bias exactly. The float mean of
    # equal values is not always that value (10000.1 six times in float32, 0.1 three times in float64), and any
    # residue of x - mean is divided by sqrt(eps): 1e-3 becomes 0.3. The other channels follow the reference.
    cases = []
    for seed, shape, dtype, channel, value in ((33, (4, 3), torch.float64, 1, 7.25),
                                               (37, (6, 3), torch.float32, 1, 10000.1),
                                               (38, (2, 3, 2, 3), torch.float32, 2, 12345.678),
                                               (39, (3, 3), torch.float64, 0, 0.1)):
        x, running_mean, running_var, weight, bias = _layer(seed, shape, dtype)
        x[:, channel] = value
        cases.append(((x, running_mean, running_var, weight, bias), channel))
    results = sub.batch_norm_train.map([(layer, {}) for layer, _ in cases])
    for (layer, channel), result in zip(cases, results, strict=True):
        hint = ("(a constant channel has variance 0, so x - mean must be exactly 0 and y exactly the bias; the float "
                "mean of equal values is not always that value: subtract one value of each channel before the "
                "two passes, mean and centring)")
        _expect_train(result, ref, layer, hint=hint)
        y = _unpack(result, layer)[0][:, channel]
        expect_equal(y, layer[4][channel].expand_as(y), what=f"y[:, {channel}] (a constant channel)", call=result,
                     hint=hint)


@check("train.large_offset", "Activations far from 0 (1e4 +- 1, float32) keep their precision",
       clauses=["result.precision"])
def large_offset(sub, ref):
    # mean(x^2) - mean(x)^2 subtracts two numbers near 1e8 in float32 (ulp 8): the variance 1 is lost entirely.
    # The two-pass mean((x - mean)^2) keeps it; what remains is the float32 mean of values near 1e4 (ulp 1e-3),
    # an error of about 1e-3 in y, so the comparison allows 1e-2 while the one-pass formula is off by order 1.
    layer = _layer(34, (32, 3), torch.float32, offset=1e4)
    result = sub.batch_norm_train.call(*layer)
    got = _unpack(result, layer)
    expect(bool(torch.isfinite(got[0]).all()), f"{result.call} returned a non-finite y: compute the variance as "
           "the mean of (x - mean)^2")
    expected = _exact_train(ref, layer)
    for name, g, e in zip(NAMES, got, expected, strict=True):
        expect_close(g, e, what=name, call=result, rtol=1e-2, atol=1e-2,
                     hint="(compute the variance in two passes, mean((x - mean)^2), not mean(x^2) - mean^2)")


@check("train.two_values", "Two values per channel are enough; one value per channel raises ValueError",
       clauses=["train.single_value"])
def two_values(sub, ref):
    pair = _layer(35, (2, 3))
    spatial = _layer(36, (1, 2, 1, 2))  # N = 1 but H * W = 2
    for layer in (pair, spatial):
        _expect_train(sub.batch_norm_train.call(*layer), ref, layer)
    calls = [(_layer(37, (1, 3)), {}, "N = 1 leaves one value per channel"),
             (_layer(38, (1, 2, 1, 1)), {}, "N * H * W = 1 leaves one value per channel")]
    expect_rejected("ValueError", sub.batch_norm_train, calls)


# -------------------------------------------------------------------------------------------------- eval


@check("eval.hand_example", "Evaluation uses the running statistics, not the batch's", clauses=["eval.formula"])
def eval_hand_example(sub, ref):
    x = torch.tensor([[1.0, 10.0], [3.0, 20.0]], dtype=torch.float64)
    running_mean = torch.tensor([2.0, 10.0], dtype=torch.float64)
    running_var = torch.tensor([4.0, 25.0], dtype=torch.float64)
    weight = torch.tensor([1.0, 2.0], dtype=torch.float64)
    bias = torch.tensor([0.0, 1.0], dtype=torch.float64)
    result = sub.batch_norm_eval.call(x, running_mean, running_var, weight, bias, eps=0.5)
    expected = torch.tensor([[-1 / math.sqrt(4.5), 1.0], [1 / math.sqrt(4.5), 2 * 10 / math.sqrt(25.5) + 1]],
                            dtype=torch.float64)
    expect_close(result.unwrap(), expected, call=result,
                 hint="((x - running_mean) / sqrt(running_var + eps) * weight + bias; the batch's own statistics "
                 "play no part)")



# ------------------------------------------------------------------------------------------------ result



# ---------------------------------------------------------------------------------------------- contract



# -------------------------------------------------------------------------------------------- experiment


@check("experiment.running_statistics", "Experiment: the running statistics over a stream of 12 batches",
       clauses=["train.running_mean"])
def running_statistics(sub, ref, ctx):
    # Batches of 8 examples from N(3, 2^2) in one channel, starting from running statistics 0 and 1, momentum 0.2:
    # the running mean approaches 3 and the running variance 4, each step closing 20% of the remaining gap.
    generator = torch.Generator().manual_seed(70)
    running_mean, running_var = torch.zeros(1, dtype=torch.float64), torch.ones(1, dtype=torch.float64)
    weight, bias = torch.ones(1, dtype=torch.float64), torch.zeros(1, dtype=torch.float64)
    means, variances = [float(running_mean)], [float(running_var)]
    for _ in range(12):
        x = 3 + 2 * torch.randn(8, 1, generator=generator, dtype=torch.float64)
        result = sub.batch_norm_train.call(x, running_mean, running_var, weight, bias, momentum=0.2)
        _, running_mean, running_var = result.unwrap()
        means.append(float(running_mean))
        variances.append(float(running_var))
    ctx.record_experiment(steps=list(range(13)), series={"running_mean": means, "running_var": variances})
