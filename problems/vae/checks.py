"""Check battery for the VAE problem: reparameterize, gaussian_kl and elbo_loss (Kingma & Welling, 2014).

The contract of problem.toml (shapes, dtypes, layouts, storage, gradients, refusals, random values against the
reference) is checked by the generic battery (`contract.*`); the checks here are the hand examples, the KL's
zero at the prior, stability at extreme logvar and logits, and the experiment. Groups: `sample`, `kl`, `elbo`,
`gradients` and `contract` are required; `experiment` is advisory (it records the chart of the notes). Every
random input comes from a seeded generator, so two runs give identical verdicts.

float32 results are compared with the exact answer (the reference in float64 on the same inputs, rounded).
"""

import math

import torch

from grader.checks import check, expect, expect_close, expect_grad_close, expect_tensor, fail, reference_grads

FLOAT32_EPS = torch.finfo(torch.float32).eps
LN2, LN3 = math.log(2.0), math.log(3.0)

# ------------------------------------------------------------------------------------------------ inputs


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


@check("kl.large_logvar", "logvar of +25 and -35 (a variance of 7e10 and of 6e-16): the exact KL, in gaussian_kl and "
       "in elbo_loss, nothing clamped", clauses=["kl.formula", "elbo.total"])
def kl_large_logvar(sub, ref):
    # logvar is any real number: these are finite in both dtypes (exp(25) = 7.2e10), and the KL is dominated by
    # exp(logvar) / 2 at +25 and by -logvar / 2 at -35. A logvar clamped before the closed form (to [-30, 20], as
    # some public VAE code does for numerical safety) gives another value.
    mu = torch.tensor([[0.0, 0.5, -1.0], [2.0, 0.0, 0.0]], dtype=torch.float64)
    logvar = torch.tensor([[25.0, -35.0, 0.0], [-0.5, 18.0, -40.0]], dtype=torch.float64)
    x = torch.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=torch.float64)
    logits = torch.tensor([[0.5, -1.0], [2.0, 0.0]], dtype=torch.float64)
    dtypes = (torch.float64, torch.float32)
    kls = sub.gaussian_kl.map([((mu.to(dtype), logvar.to(dtype)), {}) for dtype in dtypes])
    elbos = sub.elbo_loss.map([((x.to(dtype), logits.to(dtype), mu.to(dtype), logvar.to(dtype)), {})
                               for dtype in dtypes])
    hint = ("(logvar may be any real number: the closed form -1/2 sum(1 + logvar - mu^2 - exp(logvar)) is finite "
            "here, 3.6e10 from exp(25) alone; do not clamp logvar)")
    for result, dtype in zip(kls, dtypes, strict=True):
        _expect_value(result, _exact(ref.gaussian_kl, mu.to(dtype), logvar.to(dtype)), dtype, terms=3, hint=hint)
    for result, dtype in zip(elbos, dtypes, strict=True):
        expected = _exact(ref.elbo_loss, x.to(dtype), logits.to(dtype), mu.to(dtype), logvar.to(dtype))
        _expect_value(result, expected, dtype, terms=5, hint=hint)


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


@check("gradients.large_logits", "At logits of +-1e4 the gradient is (sigmoid(l) - x) / N: finite, never NaN",
       clauses=["elbo.stable"])
def gradients_large_logits(sub, ref):
    for dtype in (torch.float32, torch.float64):
        x, logits, mu, logvar = _large_logit_batch(dtype)
        result = sub.elbo_loss.call(x, logits.requires_grad_(), mu, logvar, grads=("recon_logits",))
        result.unwrap()
        grad = result.grads.get("recon_logits")
        if grad is None:
            fail(f"after backward() on {result.call}, recon_logits.grad is None: the loss depends on the logits, "
                 f"so keep them in the graph")
        expect(bool(torch.isfinite(grad).all()),
               f"after backward() on {result.call}, recon_logits.grad is {grad.tolist()}: the derivative "
               f"(sigmoid(l) - x) / N is finite at every logit, but log(sigmoid(l)) is not differentiable "
               f"once the sigmoid rounds to 0 or 1; write the cross-entropy in terms of the logits")
        expected = reference_grads(ref.elbo_loss, (x, logits, mu, logvar), ("recon_logits",),
                                   grad_output=result.grad_output)
        expect_grad_close(result, "recon_logits", expected["recon_logits"], rtol=1e-5, atol=1e-6)


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
