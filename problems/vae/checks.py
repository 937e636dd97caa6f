"""Check battery for the VAE problem: reparameterize, gaussian_kl and elbo_loss (Kingma & Welling, 2014).

Groups: `sample`, `kl`, `elbo` (values), `gradients` and `contract` are required; `experiment` is advisory
(it records the chart of the notes). Every check names the contract clauses of problem.toml it tests. Every
random input comes from a seeded generator, so two runs give identical verdicts.

float32 results are compared with the exact answer (the reference in float64 on the same inputs, rounded).
"""

import math

import torch

from grader.checks import (
    check,
    expect,
    expect_close,
    expect_grad_close,
    expect_no_alias,
    expect_rejected,
    expect_tensor,
    expect_unchanged,
    fail,
)

FLOAT32_EPS = torch.finfo(torch.float32).eps
LN2, LN3 = math.log(2.0), math.log(3.0)

# ------------------------------------------------------------------------------------------------ inputs


def _randn(generator, *shape, dtype=torch.float64, scale=1.0):
    return (scale * torch.randn(shape, generator=generator, dtype=torch.float64)).to(dtype)


def _latent(seed, n, d, dtype=torch.float64):
    """mu ~ N(0, 1), logvar ~ U(-3, 2): variances from 0.05 to 7, as an encoder produces early in training."""
    generator = torch.Generator().manual_seed(seed)
    mu = _randn(generator, n, d)
    logvar = -3.0 + 5.0 * torch.rand(n, d, generator=generator, dtype=torch.float64)
    return mu.to(dtype), logvar.to(dtype)


def _batch(seed, n, pixels, d, dtype=torch.float64, *, binary=False):
    """(x, recon_logits, mu, logvar): x grey levels in [0, 1] (or 0/1), logits ~ 3 N(0, 1)."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.rand(n, *pixels, generator=generator, dtype=torch.float64)
    if binary:
        x = (x > 0.5).double()
    logits = _randn(generator, n, *pixels, scale=3.0)
    mu, logvar = _latent(seed + 1000, n, d)
    return x.to(dtype), logits.to(dtype), mu.to(dtype), logvar.to(dtype)


def _exact(function, *args):
    """The reference on the same inputs computed in float64, rounded to the inputs' dtype."""
    dtype = args[0].dtype
    return function(*(a.detach().double() for a in args)).to(dtype)


def _tolerances(expected, dtype, terms=1):
    """(rtol, atol). float64: the defaults. float32: a sum of `terms` values of the result's size each carries
    a rounding error of about terms * eps32 * |value|; 16 times that admits any order of summation, while every
    mutant is off by far more (a factor, a missing term, a mean instead of a sum)."""
    if dtype == torch.float64:
        return 1e-7, 1e-9
    size = float(expected.detach().double().abs().max()) if expected.numel() else 0.0
    return 1e-5, 16 * FLOAT32_EPS * terms * (1.0 + size)


def _expect_value(result, expected, dtype, *, terms=1, hint=""):
    got = result.unwrap()
    expect_tensor(got, shape=tuple(expected.shape), dtype=dtype, call=result)
    if expected.numel() and not torch.isfinite(got.detach()).all():
        fail(f"{result.call} returned non-finite values (nan or inf) where the exact result is finite"
             f"{' ' + hint if hint else ''}")
    rtol, atol = _tolerances(expected, dtype, terms)
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


# ------------------------------------------------------------------------------------------------ sample

HAND_MU = torch.tensor([0.0, 1.0, -2.0])
HAND_LOGVAR = torch.tensor([0.0, 2 * LN2, -2 * LN2])
HAND_NOISE = torch.tensor([1.0, -1.0, 2.0])


@check("sample.hand_example", "Hand example: sigma = [1, 2, 0.5], so z = [1, -1, -1]", clauses=["sample.formula"])
def sample_hand_example(sub, ref):
    # logvar = [0, 2 ln 2, -2 ln 2] is log sigma^2 with sigma = [1, 2, 1/2]; z = mu + sigma * noise.
    result = sub.reparameterize.call(HAND_MU, HAND_LOGVAR, HAND_NOISE)
    _expect_value(result, torch.tensor([1.0, -1.0, -1.0]), torch.float32,
                  hint="(sigma = exp(logvar / 2) = [1, 2, 0.5]: logvar is the log of the variance)")


@check("sample.random", "Random samples in float64 and float32 over shapes from 0-d to [2, 3, 4] and empty",
       clauses=["sample.formula", "sample.shapes"])
def sample_random(sub, ref):
    shapes = [(), (1,), (5,), (4, 3), (2, 3, 4), (0, 3)]
    cases = []
    for seed, shape in enumerate(shapes):
        for dtype in (torch.float64, torch.float32):
            generator = torch.Generator().manual_seed(10 + seed)
            mu, noise = _randn(generator, *shape, dtype=dtype), _randn(generator, *shape, dtype=dtype)
            logvar = (-4.0 + 6.0 * torch.rand(shape, generator=generator, dtype=torch.float64)).to(dtype)
            cases.append((mu, logvar, noise))
    results = sub.reparameterize.map([(case, {}) for case in cases])
    for result, case in zip(results, cases, strict=True):
        _expect_value(result, _exact(ref.reparameterize, *case), case[0].dtype)


@check("sample.large_logvar", "logvar = 150 in float32 (exp(logvar) overflows) still gives a finite sample",
       clauses=["sample.stable"])
def sample_large_logvar(sub, ref):
    # sigma = exp(75) = 3.7e32 fits float32 (max 3.4e38) although exp(150) = 1.4e65 does not; likewise
    # exp(700) fits float64 but exp(1400) does not. Very negative logvar gives sigma = 0 and z = mu.
    cases = [
        (torch.tensor([0.0, 1.0, -1.0]), torch.tensor([150.0, 120.0, -150.0]), torch.tensor([0.5, -2.0, 3.0])),
        (torch.tensor([2.0], dtype=torch.float64), torch.tensor([1400.0], dtype=torch.float64),
         torch.tensor([-0.25], dtype=torch.float64)),
    ]
    results = sub.reparameterize.map([(case, {}) for case in cases])
    for result, case in zip(results, cases, strict=True):
        got = result.unwrap()
        expect(isinstance(got, torch.Tensor) and bool(torch.isfinite(got).all()),
               f"{result.call} returned {got.tolist() if isinstance(got, torch.Tensor) else got}: the standard "
               f"deviation exp(logvar / 2) is finite here, but exp(logvar) overflows; compute exp(0.5 * logvar), "
               f"not sqrt(exp(logvar))")
        _expect_value(result, _exact(ref.reparameterize, *case), case[0].dtype)


# -------------------------------------------------------------------------------------------------- kl

HAND_KL_MU = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
HAND_KL_LOGVAR = torch.tensor([[0.0, 2 * LN2]], dtype=torch.float64)


@check("kl.hand_example", "Hand example: KL = 0.5 + (1.5 - ln 2) = 2 - ln 2, a sum over the latent dimensions",
       clauses=["kl.formula"])
def kl_hand_example(sub, ref):
    # dimension 1: -1/2 (1 + 0 - 1 - 1) = 0.5; dimension 2: -1/2 (1 + 2 ln 2 - 0 - 4) = 1.5 - ln 2.
    result = sub.gaussian_kl.call(HAND_KL_MU, HAND_KL_LOGVAR)
    _expect_value(result, torch.tensor(2 - LN2, dtype=torch.float64), torch.float64,
                  hint="(-1/2 (1 + logvar - mu^2 - exp(logvar)) per dimension, summed: 0.5 + 0.806853 = 1.306853)")


@check("kl.zero_at_prior", "mu = 0 and logvar = 0 give exactly 0; the KL is never negative",
       clauses=["kl.formula"])
def kl_zero_at_prior(sub, ref):
    zero = sub.gaussian_kl.call(torch.zeros(3, 4, dtype=torch.float64), torch.zeros(3, 4, dtype=torch.float64))
    _expect_value(zero, torch.tensor(0.0, dtype=torch.float64), torch.float64,
                  hint="(q equal to the prior N(0, I) is at KL distance 0 from it)")
    # Only a variance moves away from the prior here (mu = 0), so every term is >= 0.
    logvar = torch.tensor([[-3.0, -1.0, 1.0, 3.0]], dtype=torch.float64)
    result = sub.gaussian_kl.call(torch.zeros(1, 4, dtype=torch.float64), logvar)
    got = result.unwrap()
    expect(isinstance(got, torch.Tensor) and got.numel() == 1 and float(got) > 0,
           f"{result.call} returned {got}: a KL divergence is >= 0, and > 0 once the variance differs from 1; "
           f"check the sign (the closed form starts with -1/2)")
    _expect_value(result, _exact(ref.gaussian_kl, torch.zeros(1, 4, dtype=torch.float64), logvar), torch.float64)


@check("kl.random", "Random batches in float64 and float32: summed over D, averaged over N",
       clauses=["kl.formula"])
def kl_random(sub, ref):
    sizes = [(1, 1), (1, 5), (4, 1), (6, 3), (16, 8), (3, 32)]
    cases = [_latent(20 + i, n, d, dtype) for i, (n, d) in enumerate(sizes)
             for dtype in (torch.float64, torch.float32)]
    results = sub.gaussian_kl.map([(case, {}) for case in cases])
    for result, (mu, logvar) in zip(results, cases, strict=True):
        _expect_value(result, _exact(ref.gaussian_kl, mu, logvar), mu.dtype, terms=mu.numel(),
                      hint=f"(sum over the D = {mu.shape[1]} latent dimensions, then average over the "
                      f"N = {mu.shape[0]} examples)")


# -------------------------------------------------------------------------------------------------- elbo


@check("elbo.hand_example", "Hand example: reconstruction ln 2 + ln 4, plus KL 2 - ln 2, gives 2 + 2 ln 2",
       clauses=["elbo.reconstruction", "elbo.total"])
def elbo_hand_example(sub, ref):
    x = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
    logits = torch.tensor([[0.0, LN3]], dtype=torch.float64)
    result = sub.elbo_loss.call(x, logits, HAND_KL_MU, HAND_KL_LOGVAR)
    _expect_value(result, torch.tensor(2 + 2 * LN2, dtype=torch.float64), torch.float64,
                  hint="(pixel 1 costs -ln sigmoid(0) = ln 2, pixel 2 costs -ln(1 - sigmoid(ln 3)) = ln 4; their sum "
                  "plus the KL 2 - ln 2 is 3.386294)")


@check("elbo.pixels_summed", "Images [N, C, H, W]: the cross-entropy is summed over all pixels of an example",
       clauses=["elbo.reconstruction", "elbo.total"])
def elbo_pixels_summed(sub, ref):
    cases = [_batch(30, 3, (1, 4, 4), 2), _batch(31, 2, (2, 3, 5), 4, binary=True), _batch(32, 1, (7,), 3)]
    results = sub.elbo_loss.map([(case, {}) for case in cases])
    for result, case in zip(results, cases, strict=True):
        pixels = case[0][0].numel()
        _expect_value(result, _exact(ref.elbo_loss, *case), torch.float64,
                      hint=f"(each example's {pixels} pixel costs are summed, not averaged; only the batch is "
                      f"averaged)")


@check("elbo.random", "Random batches in float64 and float32, grey-level and binary x, match the reference",
       clauses=["elbo.reconstruction", "elbo.total"])
def elbo_random(sub, ref):
    sizes = [(1, (1,), 1), (4, (10,), 3), (8, (6,), 2), (5, (3, 4), 5)]
    cases = [_batch(40 + i, n, pixels, d, dtype, binary=i % 2 == 1) for i, (n, pixels, d) in enumerate(sizes)
             for dtype in (torch.float64, torch.float32)]
    results = sub.elbo_loss.map([(case, {}) for case in cases])
    for result, case in zip(results, cases, strict=True):
        _expect_value(result, _exact(ref.elbo_loss, *case), case[0].dtype, terms=case[0].numel() + case[2].numel())


def _large_logit_batch(dtype):
    """x and logits whose cross-entropy is exactly known: max(l, 0) - l x, the log1p term being < 1e-8."""
    x = torch.tensor([[0.0, 1.0, 0.5, 0.0], [1.0, 0.0, 1.0, 0.25]], dtype=dtype)
    logits = torch.tensor([[1e4, -1e4, 1e4, -1e4], [50.0, -50.0, -20.0, 40.0]], dtype=dtype)
    zeros = torch.zeros(2, 1, dtype=dtype)
    return x, logits, zeros, zeros.clone()


@check("elbo.large_logits", "Logits of +-1e4, +-50 and +-20 give the exact cross-entropy in float32 and float64",
       clauses=["elbo.stable"])
def elbo_large_logits(sub, ref):
    # Example 1: 1e4 + 1e4 + (1e4 - 5e3) + 0 = 25,000; example 2: 0 + 0 + 20 + 40 * 0.75 = 50 (up to e^-20).
    # sigmoid(1e4) is exactly 1, so log(1 - sigmoid) is log 0; a clamp at -100 (binary_cross_entropy's) says 100.
    for dtype in (torch.float32, torch.float64):
        case = _large_logit_batch(dtype)
        result = sub.elbo_loss.call(*case)
        _expect_value(result, _exact(ref.elbo_loss, *case), dtype,
                      hint="(compute the cross-entropy from the logits: max(l, 0) - l x + log(1 + exp(-|l|)), or "
                      "binary_cross_entropy_with_logits; a sigmoid rounds to exactly 0 or 1 at these logits)")


# ---------------------------------------------------------------------------------------------- gradients


def _reference_grads(function, args, names, wanted, grad_output=None):
    """Gradients of the reference (float64) with respect to the named arguments, for one cotangent."""
    leaves = [a.detach().double().requires_grad_(name in wanted) for a, name in zip(args, names, strict=True)]
    value = function(*leaves)
    # The vector-Jacobian product as the backward of one scalar, sum(cotangent * value): a first
    # torch.autograd.grad, or backward(gradient=...) of a non-scalar, costs a process 1.5-2.4 s of lazy imports.
    cotangent = torch.ones_like(value) if grad_output is None else grad_output.double()
    (value * cotangent).sum().backward()
    return {name: leaf.grad.to(args[0].dtype) for leaf, name in zip(leaves, names, strict=True) if name in wanted}


def _grad_call(args, names, wanted):
    return tuple(a.clone().requires_grad_(name in wanted) for a, name in zip(args, names, strict=True))


def _expect_grads(result, function, args, names, wanted, *, rtol=None, atol=None, hint=""):
    result.unwrap()
    expected = _reference_grads(function, args, names, wanted, result.grad_output)
    for name in wanted:
        if result.grads.get(name) is None:
            fail(f"after backward() on {result.call}, {name}.grad is None: the result depends on {name}, so keep "
                 f"it in the graph (no .detach(), no .item(), no torch.no_grad(), no torch.normal sampling)")
        expect_grad_close(result, name, expected[name], rtol=rtol, atol=atol, hint=hint)


def _central_differences(function, args, positions, grad_output=None, eps=1e-6):
    """{position: d sum(grad_output * result) / d args[position]} by central differences of the learner's own
    function, for every position in ONE round trip (grader.checks.central_differences makes one per argument,
    and on a busy grader each round trip costs more than the arithmetic). Step 1e-6 in float64: truncation
    ~1e-12 times the third derivative, rounding ~1e-16 / 1e-6."""
    calls, layout = [], []
    for position in positions:
        base = args[position]
        layout.append((position, base.shape, base.numel()))
        for flat in range(base.numel()):
            for sign in (1.0, -1.0):
                shifted = base.detach().clone()
                shifted.view(-1)[flat] += sign * eps
                calls.append((args[:position] + (shifted,) + args[position + 1:], {}))
    cotangents = None if grad_output is None else (
        list(grad_output) if isinstance(grad_output, tuple | list) else [grad_output])
    values = []
    for result in function.map(calls):
        value = result.unwrap()
        if cotangents is None:
            values.append(float(expect_tensor(value, shape=(), call=result)))
            continue
        parts = list(value) if isinstance(value, tuple | list) else [value]
        if len(parts) != len(cotangents):
            fail(f"{result.call}: expected {len(cotangents)} result tensor(s), got {len(parts)}")
        values.append(sum(float((expect_tensor(part, shape=tuple(c.shape), call=result).detach().double()
                                 * c.double()).sum()) for part, c in zip(parts, cotangents, strict=True)))
    gradients, offset = {}, 0
    for position, shape, count in layout:
        pairs = values[offset:offset + 2 * count]
        gradients[position] = torch.tensor([(pairs[2 * i] - pairs[2 * i + 1]) / (2 * eps) for i in range(count)],
                                           dtype=torch.float64).reshape(shape)
        offset += 2 * count
    return gradients


SAMPLE_NAMES = ("mu", "logvar", "noise")
LATENT_NAMES = ("mu", "logvar")
ELBO_NAMES = ("x", "recon_logits", "mu", "logvar")


@check("gradients.sample", "Gradients of the sample reach mu (through z) and logvar, as the reference and "
       "finite differences of your function say", clauses=["gradients.sample"])
def gradients_sample(sub, ref):
    generator = torch.Generator().manual_seed(50)
    args = (_randn(generator, 3, 2), -1.0 + torch.rand(3, 2, generator=generator, dtype=torch.float64),
            _randn(generator, 3, 2))
    wanted = ("mu", "logvar")
    float32_args = tuple(a.float() for a in args)
    result, result32 = sub.reparameterize.map([(_grad_call(args, SAMPLE_NAMES, wanted), {}),
                                               (_grad_call(float32_args, SAMPLE_NAMES, wanted), {})], grads=wanted)
    _expect_grads(result, ref.reparameterize, args, SAMPLE_NAMES, wanted,
                  hint="(dz/dmu = 1 and dz/dlogvar = exp(logvar / 2) * noise / 2)")
    numeric = _central_differences(sub.reparameterize, args, (0, 1), result.grad_output)
    for position, name in enumerate(wanted):
        expect_grad_close(result, name, numeric[position], rtol=1e-5, atol=1e-8, source="central finite differences")
    _expect_grads(result32, ref.reparameterize, float32_args, SAMPLE_NAMES, wanted, rtol=1e-5, atol=1e-6)


@check("gradients.kl", "Gradients of the KL into mu and logvar match the reference and finite differences",
       clauses=["gradients.losses"])
def gradients_kl(sub, ref):
    args = _latent(60, 3, 2)
    result = sub.gaussian_kl.call(*_grad_call(args, LATENT_NAMES, LATENT_NAMES), grads=LATENT_NAMES)
    _expect_grads(result, ref.gaussian_kl, args, LATENT_NAMES, LATENT_NAMES,
                  hint="(d KL / d mu = mu / N and d KL / d logvar = (exp(logvar) - 1) / (2 N))")
    numeric = _central_differences(sub.gaussian_kl, args, (0, 1))
    for position, name in enumerate(LATENT_NAMES):
        expect_grad_close(result, name, numeric[position], rtol=1e-5, atol=1e-8, source="central finite differences")


@check("gradients.elbo", "Gradients of the loss into recon_logits, mu and logvar match the reference and finite "
       "differences", clauses=["gradients.losses"])
def gradients_elbo(sub, ref):
    args = _batch(70, 2, (3,), 2)
    wanted = ("recon_logits", "mu", "logvar")
    float32_args = tuple(a.float() for a in args)
    result, result32 = sub.elbo_loss.map([(_grad_call(args, ELBO_NAMES, wanted), {}),
                                          (_grad_call(float32_args, ELBO_NAMES, wanted), {})], grads=wanted)
    _expect_grads(result, ref.elbo_loss, args, ELBO_NAMES, wanted,
                  hint="(d loss / d logit = (sigmoid(logit) - x) / N)")
    numeric = _central_differences(sub.elbo_loss, args, tuple(ELBO_NAMES.index(name) for name in wanted))
    for name in wanted:
        expect_grad_close(result, name, numeric[ELBO_NAMES.index(name)], rtol=1e-5, atol=1e-8,
                          source="central finite differences")
    _expect_grads(result32, ref.elbo_loss, float32_args, ELBO_NAMES, wanted, rtol=1e-5, atol=1e-6)


@check("gradients.large_logits", "At logits of +-1e4 the gradient is (sigmoid(l) - x) / N: finite, never NaN",
       clauses=["elbo.stable", "gradients.losses"])
def gradients_large_logits(sub, ref):
    for dtype in (torch.float32, torch.float64):
        args = _large_logit_batch(dtype)
        result = sub.elbo_loss.call(*_grad_call(args, ELBO_NAMES, ("recon_logits",)), grads=("recon_logits",))
        result.unwrap()
        grad = result.grads.get("recon_logits")
        if grad is not None:
            expect(bool(torch.isfinite(grad).all()),
                   f"after backward() on {result.call}, recon_logits.grad is {grad.tolist()}: the derivative "
                   f"(sigmoid(l) - x) / N is finite at every logit, but log(sigmoid(l)) is not differentiable "
                   f"once the sigmoid rounds to 0 or 1; write the cross-entropy in terms of the logits")
        _expect_grads(result, ref.elbo_loss, args, ELBO_NAMES, ("recon_logits",), rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------------------------- contract


@check("contract.result", "Each result has the contract's shape and the inputs' dtype and is attached to the graph",
       clauses=["contract.result", "sample.shapes"])
def contract_result(sub, ref):
    for dtype in (torch.float32, torch.float64):
        x, logits, mu, logvar = _batch(80, 3, (4,), 2, dtype)
        noise = torch.zeros_like(mu)
        sample = sub.reparameterize.call(mu.clone().requires_grad_(), logvar, noise)
        expect_tensor(sample.unwrap(), shape=(3, 2), dtype=dtype, requires_grad=True, call=sample)
        kl = sub.gaussian_kl.call(mu, logvar.clone().requires_grad_())
        expect_tensor(kl.unwrap(), shape=(), dtype=dtype, requires_grad=True, call=kl)
        loss = sub.elbo_loss.call(x, logits.clone().requires_grad_(), mu, logvar)
        expect_tensor(loss.unwrap(), shape=(), dtype=dtype, requires_grad=True, call=loss)


@check("contract.inputs_unchanged", "No input is modified and no result shares an input's storage",
       clauses=["contract.result"])
def contract_inputs_unchanged(sub, ref):
    x, logits, mu, logvar = _batch(81, 2, (3,), 2, torch.float32)
    results = [
        sub.reparameterize.call(mu * 1, logvar * 1, torch.ones_like(mu)),
        sub.reparameterize.call(mu * 1, logvar * 1, torch.zeros_like(mu)),  # z = mu: still new storage
        sub.gaussian_kl.call(mu * 1, logvar * 1),
        sub.elbo_loss.call(x * 1, logits * 1, mu * 1, logvar * 1),
    ]
    for result in results:
        expect_unchanged(result)
        expect_no_alias(result)


@check("contract.type_errors", "Non-tensors, non-float dtypes and mixed dtypes raise TypeError",
       clauses=["contract.types"])
def contract_type_errors(sub, ref):
    x, logits, mu, logvar = _batch(82, 2, (3,), 2)
    expect_rejected("TypeError", sub.reparameterize, [
        ((mu.tolist(), logvar, mu), {}, "mu is a list, not a tensor"),
        ((mu, 0.0, mu), {}, "logvar is a float, not a tensor"),
        ((mu, logvar, logvar.float()), {}, "noise is float32 while mu and logvar are float64"),
        ((mu.long(), logvar.long(), mu.long()), {}, "integer tensors are outside the contract"),
        ((mu.half(), logvar.half(), mu.half()), {}, "float16 is outside the contract"),
    ])
    expect_rejected("TypeError", sub.gaussian_kl, [
        ((mu, None), {}, "logvar is None"),
        ((mu.float(), logvar), {}, "mu is float32 while logvar is float64"),
        ((mu.bool(), logvar.bool()), {}, "bool tensors are outside the contract"),
    ])
    expect_rejected("TypeError", sub.elbo_loss, [
        ((x.tolist(), logits, mu, logvar), {}, "x is a list, not a tensor"),
        ((x.float(), logits, mu, logvar), {}, "x is float32 while the others are float64"),
        ((x, logits, mu, logvar.float()), {}, "logvar is float32 while the others are float64"),
        (((x > 0.5), logits, mu, logvar), {}, "a bool x is not a float tensor"),
    ])


@check("contract.value_errors", "Mismatched shapes, empty batches, non-finite values and x outside [0, 1] raise "
       "ValueError", clauses=["contract.values"])
def contract_value_errors(sub, ref):
    x, logits, mu, logvar = _batch(83, 2, (3,), 2)
    expect_rejected("ValueError", sub.reparameterize, [
        ((mu, logvar[:1], mu), {}, "logvar has another shape than mu"),
        ((mu, logvar, mu[:, :1]), {}, "noise has another shape than mu (it is not broadcast)"),
        ((mu.masked_fill(mu > 0, math.nan), logvar, mu), {}, "mu contains nan"),
        ((mu, logvar, mu.masked_fill(mu > 0, math.inf)), {}, "noise contains inf"),
    ])
    expect_rejected("ValueError", sub.gaussian_kl, [
        ((mu[0], logvar[0]), {}, "1-D mu and logvar are not [N, D]"),
        ((mu, logvar[:, :1]), {}, "logvar has another shape than mu"),
        ((mu[:0], logvar[:0]), {}, "an empty batch (N = 0) has no mean"),
        ((mu[:, :0], logvar[:, :0]), {}, "D = 0 latent dimensions"),
        ((mu, logvar.masked_fill(logvar > 0, math.inf)), {}, "logvar contains inf"),
    ])
    expect_rejected("ValueError", sub.elbo_loss, [
        ((x[0], logits[0], mu, logvar), {}, "a 1-D x has no pixel axis"),
        ((x, logits[:, :2], mu, logvar), {}, "recon_logits has another shape than x"),
        ((x[:1], logits[:1], mu, logvar), {}, "x has 1 example but mu has 2"),
        ((x[:, :0], logits[:, :0], mu, logvar), {}, "examples with no pixels"),
        ((x * 2, logits, mu, logvar), {}, "x has values above 1 (it holds Bernoulli means)"),
        ((x - 1, logits, mu, logvar), {}, "x has values below 0"),
        ((x, logits.masked_fill(logits > 0, math.nan), mu, logvar), {}, "recon_logits contains nan"),
        ((x, logits, mu[:, :1], logvar), {}, "mu and logvar have different shapes"),
    ])


# --------------------------------------------------------------------------------------------- experiment

EXPERIMENT_LOGVARS = list(range(-4, 4))  # the chart's horizontal axis: logvar of one latent dimension
EXPERIMENT_SAMPLES = 64


@check("experiment.kl_and_spread", "Experiment: the KL of one dimension and the spread of your samples against logvar")
def experiment_kl_and_spread(sub, ref, ctx):
    # One latent dimension: the KL at mu = 0 and mu = 1 (a shift adds mu^2 / 2), and the standard deviation of
    # 64 of your samples drawn with fixed noise (rescaled to mean 0, std 1), against exp(logvar / 2).
    generator = torch.Generator().manual_seed(90)
    noise = torch.randn(EXPERIMENT_SAMPLES, generator=generator, dtype=torch.float64)
    noise = (noise - noise.mean()) / noise.std()  # exactly mean 0 and std 1, so the spread is sigma itself
    kl_calls, sample_calls = [], []
    for logvar in EXPERIMENT_LOGVARS:
        for mu in (0.0, 1.0):
            kl_calls.append(((torch.tensor([[mu]], dtype=torch.float64),
                              torch.tensor([[float(logvar)]], dtype=torch.float64)), {}))
        sample_calls.append(((torch.zeros(EXPERIMENT_SAMPLES, dtype=torch.float64),
                              torch.full((EXPERIMENT_SAMPLES,), float(logvar), dtype=torch.float64), noise), {}))
    kls = [float(r.unwrap()) for r in sub.gaussian_kl.map(kl_calls)]
    spreads = [float(r.unwrap().std()) for r in sub.reparameterize.map(sample_calls)]
    ctx.record_experiment(x_label="logvar", steps=EXPERIMENT_LOGVARS, series={
        "kl_at_mu_0": kls[0::2],
        "kl_at_mu_1": kls[1::2],
        "sample_std": spreads,
        "exp_half_logvar": [math.exp(lv / 2) for lv in EXPERIMENT_LOGVARS],
    })
