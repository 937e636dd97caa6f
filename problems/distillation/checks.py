"""Check battery for distillation_loss (Hinton et al., 2015).

Groups: `loss` (hand examples, the ends of alpha, logits far beyond exp's range) and `contract` are required;
`experiment` is advisory (the soft term against the temperature, for the notes). The contract declared in
problem.toml makes the rest: values against the reference, float32, layouts, gradients into the student and none
into the teacher, refusals. Every random input comes from a seeded generator, so two runs give identical verdicts.
"""

import math

import torch

from grader.checks import check, expect, expect_close, expect_tensor

FLOAT32_EPS = torch.finfo(torch.float32).eps

# ------------------------------------------------------------------------------------------------ inputs


def _batch(seed, n, c, dtype=torch.float64, *, scale=2.0):
    generator = torch.Generator().manual_seed(seed)
    student = scale * torch.randn(n, c, generator=generator, dtype=torch.float64)
    teacher = scale * torch.randn(n, c, generator=generator, dtype=torch.float64)
    target = torch.randint(0, c, (n,), generator=generator)
    return student.to(dtype), teacher.to(dtype), target


def _exact(ref, student, teacher, target, temperature, alpha):
    """The loss computed in float64 from the same inputs, rounded to the inputs' dtype."""
    return ref.distillation_loss(student.detach().double(), teacher.detach().double(), target, temperature,
                                 alpha).to(student.dtype)


def _tolerances(student, teacher, temperature):
    """(rtol, atol). In float32 every logit / T carries a rounding error of about eps * |z| / T, and the soft term
    is multiplied by T^2, so the loss's error scales with eps * max|z| * max(T, 1); 64 times that leaves room for
    any order of operations, while every mutant is off by far more."""
    if student.dtype == torch.float64:
        return 1e-7, 1e-9
    size = float(torch.cat([student.detach().abs().flatten(), teacher.detach().abs().flatten()]).max())
    return 1e-5, 64 * FLOAT32_EPS * (1 + size) * max(temperature, 1.0)


def _expect_loss(result, ref, student, teacher, target, temperature, alpha, *, hint=""):
    got = result.unwrap()
    expect_tensor(got, shape=(), dtype=student.dtype, call=result)
    expected = _exact(ref, student, teacher, target, temperature, alpha)
    rtol, atol = _tolerances(student, teacher, temperature)
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


# -------------------------------------------------------------------------------------------------- loss


@check("loss.hand_example", "Hand example: p_teacher = [3/4, 1/4], p_student = [1/2, 1/2], T = 1",
       clauses=["loss.kl", "loss.hard", "loss.mix"])
def hand_example(sub, ref):
    # KL = 3/4 ln(3/2) + 1/4 ln(1/2), CE = ln 2, loss = 0.5 KL + 0.5 CE.
    student = torch.zeros(1, 2, dtype=torch.float64)
    teacher = torch.tensor([[math.log(3.0), 0.0]], dtype=torch.float64)
    target = torch.tensor([0])
    result = sub.distillation_loss.call(student, teacher, target, 1, 0.5)
    kl = 0.75 * math.log(1.5) + 0.25 * math.log(0.5)
    got = result.unwrap()
    hint = "(0.5 * (3/4 ln 3/2 + 1/4 ln 1/2) + 0.5 * ln 2 = 0.411980)"
    expect_close(got, torch.tensor(0.5 * kl + 0.5 * math.log(2), dtype=torch.float64), call=result, hint=hint)


@check("loss.temperature_squared", "Hand example at T = 2: the same soft distributions, a soft term 4 times larger",
       clauses=["loss.t_squared", "loss.temperature"])
def temperature_squared(sub, ref):
    student = torch.zeros(1, 2, dtype=torch.float64)
    teacher = torch.tensor([[2 * math.log(3.0), 0.0]], dtype=torch.float64)
    target = torch.tensor([0])
    result = sub.distillation_loss.call(student, teacher, target, 2, 0.5)
    kl = 0.75 * math.log(1.5) + 0.25 * math.log(0.5)
    got = result.unwrap()
    hint = "(0.5 * 2^2 * 0.130812 + 0.5 * ln 2 = 0.608198)"
    expect_close(got, torch.tensor(0.5 * 4 * kl + 0.5 * math.log(2), dtype=torch.float64), call=result, hint=hint)


@check("loss.alpha_ends", "alpha = 0 is plain cross-entropy, alpha = 1 is pure distillation", clauses=["loss.mix"])
def alpha_ends(sub, ref):
    student, teacher, target = _batch(10, 4, 5)
    plain, pure = sub.distillation_loss.map([((student, teacher, target, 3.0, 0), {}),
                                             ((student, teacher, target, 3.0, 1), {})])
    _expect_loss(plain, ref, student, teacher, target, 3.0, 0, hint="(alpha = 0: only the cross-entropy is left)")
    _expect_loss(pure, ref, student, teacher, target, 3.0, 1, hint="(alpha = 1: only T^2 * KL is left)")


@check("loss.same_logits", "A student equal to its teacher pays only the cross-entropy", clauses=["loss.kl"])
def same_logits(sub, ref):
    student, _, target = _batch(11, 3, 4)
    result = sub.distillation_loss.call(student, student.clone(), target, 2.5, 0.4)
    _expect_loss(result, ref, student, student, target, 2.5, 0.4, hint="(KL(p || p) = 0, so the loss is "
                 "(1 - alpha) * cross-entropy)")


@check("loss.extreme_logits", "Logits of +-10,000 and a near one-hot teacher give a finite, exact loss",
       clauses=["result.stability"])
def extreme_logits(sub, ref):
    # exp(10000 / T) overflows and the teacher's small probabilities underflow to exactly 0: log(softmax(.)) then
    # gives log(0) = -inf and 0 * -inf = nan; log_softmax stays finite.
    cases = [(torch.tensor([[1e4, -1e4, 0.0], [3.0, 2.0, 1.0]]), torch.tensor([[-1e4, 1e4, 0.0], [5e3, 0.0, -5e3]]),
              torch.tensor([2, 0]), 0.5, 0.7),
             (torch.tensor([[1e4, -1e4]], dtype=torch.float64), torch.tensor([[2e4, 0.0]], dtype=torch.float64),
              torch.tensor([1]), 1.0, 0.5)]
    results = sub.distillation_loss.map([((s, t, y, temp, a), {}) for s, t, y, temp, a in cases])
    for result, (s, t, y, temp, a) in zip(results, cases, strict=True):
        got = result.unwrap()
        expect(isinstance(got, torch.Tensor) and bool(torch.isfinite(got).all()),
               f"{result.call} returned {got}; use log_softmax for both distributions (log(softmax(.)) gives "
               "log(0) = -inf) and let a zero teacher probability contribute 0")
        _expect_loss(result, ref, s, t, y, temp, a)


# -------------------------------------------------------------------------------------------- experiment


@check("experiment.temperature", "Experiment: the soft term against the temperature, with and without T^2",
       clauses=["loss.t_squared"])
def temperature_experiment(sub, ref, ctx):
    # With alpha = 1 the loss is T^2 * KL. As T grows, KL falls like 1 / T^2, and T^2 * KL approaches the
    # logit-matching limit (1 / 2C) * sum_c (d_c - mean(d))^2, d = teacher - student logits, averaged over the
    # examples: distillation at high temperature matches the logits themselves.
    student, teacher, target = _batch(70, 16, 10)
    temperatures = list(range(1, 21))
    results = sub.distillation_loss.map([((student, teacher, target, t, 1.0), {}) for t in temperatures])
    scaled = [float(result.unwrap()) for result in results]
    gap = teacher - student
    limit = float(((gap - gap.mean(dim=1, keepdim=True)) ** 2).sum(dim=1).mean() / (2 * gap.shape[1]))
    ctx.record_experiment(
        x_label="temperature T",
        steps=temperatures,
        series={
            "soft_term": scaled,  # your loss at alpha = 1: T^2 * KL
            "kl_without_t_squared": [value / (t * t) for value, t in zip(scaled, temperatures, strict=True)],
            "logit_matching_limit": [limit] * len(temperatures),
        },
    )
