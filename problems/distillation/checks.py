"""Check battery for distillation_loss (Hinton et al., 2015).

Groups: `loss` (values), `gradients` (into the student only), `result` and `contract` are required;
`experiment` is advisory (the soft term against the temperature, for the notes). Every random input comes from
a seeded generator, so two runs give identical verdicts.
"""

import math

import torch

from grader.checks import (
    central_differences,
    check,
    expect,
    expect_close,
    expect_grad_close,
    expect_grad_none,
    expect_rejected,
    expect_tensor,
    expect_unchanged,
    fail,
)

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


@check("loss.per_example_mean", "The KL is summed over classes and averaged over examples only",
       clauses=["loss.kl"])
def per_example_mean(sub, ref):
    student, teacher, target = _batch(12, 3, 10)
    result = sub.distillation_loss.call(student, teacher, target, 2.0, 1.0)
    _expect_loss(result, ref, student, teacher, target, 2.0, 1.0)


@check("loss.temperatures", "Temperatures from 0.5 to 20 (int temperatures accepted)",
       clauses=["loss.temperature", "loss.t_squared"])
def temperatures(sub, ref):
    student, teacher, target = _batch(13, 5, 6)
    ts = [0.5, 1, 2, 4.0, 20]
    results = sub.distillation_loss.map([((student, teacher, target, t, 0.7), {}) for t in ts])
    for result, t in zip(results, ts, strict=True):
        _expect_loss(result, ref, student, teacher, target, t, 0.7)


@check("loss.random_float64", "Random batches in float64 match the reference", clauses=["loss.kl", "loss.mix"])
def random_float64(sub, ref):
    cases = [(1, 2, 1.0, 0.5), (8, 10, 4.0, 0.9), (16, 3, 2.0, 0.1), (5, 1, 3.0, 0.5), (32, 100, 5.0, 0.7)]
    batches = [_batch(20 + i, n, c) for i, (n, c, _, _) in enumerate(cases)]
    results = sub.distillation_loss.map([((s, t, y, temp, a), {}) for (s, t, y), (_, _, temp, a) in
                                         zip(batches, cases, strict=True)])
    for result, (s, t, y), (_, _, temp, a) in zip(results, batches, cases, strict=True):
        _expect_loss(result, ref, s, t, y, temp, a)


@check("loss.random_float32", "Random batches in float32 match the exact loss to float32 precision",
       clauses=["loss.kl", "result.precision"])
def random_float32(sub, ref):
    cases = [(4, 5, 2.0, 0.5), (16, 10, 4.0, 0.9), (8, 3, 1.0, 0.3)]
    batches = [_batch(30 + i, n, c, torch.float32) for i, (n, c, _, _) in enumerate(cases)]
    results = sub.distillation_loss.map([((s, t, y, temp, a), {}) for (s, t, y), (_, _, temp, a) in
                                         zip(batches, cases, strict=True)])
    for result, (s, t, y), (_, _, temp, a) in zip(results, batches, cases, strict=True):
        _expect_loss(result, ref, s, t, y, temp, a)


@check("loss.extreme_logits", "Logits of +-10,000 and a near one-hot teacher give a finite, exact loss",
       clauses=["result.precision"])
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


# --------------------------------------------------------------------------------------------- gradients


def _reference_grad(ref, student, teacher, target, temperature, alpha):
    s = student.detach().double().requires_grad_()
    ref.distillation_loss(s, teacher.detach().double(), target, temperature, alpha).backward()
    return s.grad.to(student.dtype)


@check("gradients.student", "Gradients into student_logits match the reference (float64)",
       clauses=["gradients.student"])
def gradients_student(sub, ref):
    student, teacher, target = _batch(40, 4, 5)
    result = sub.distillation_loss.call(student.clone().requires_grad_(), teacher, target, 3.0, 0.6,
                                        grads=("student_logits",))
    expect_grad_close(result, "student_logits", _reference_grad(ref, student, teacher, target, 3.0, 0.6),
                      hint="(the soft gradient is alpha * T * (p_student - p_teacher) / N per logit)")


@check("gradients.finite_differences", "Autograd agrees with central differences of your own function",
       clauses=["gradients.student"])
def finite_differences(sub, ref):
    student, teacher, target = _batch(41, 2, 3)
    numeric = central_differences(sub.distillation_loss, (student, teacher, target, 2.0, 0.5), 0)
    result = sub.distillation_loss.call(student.clone().requires_grad_(), teacher, target, 2.0, 0.5,
                                        grads=("student_logits",))
    expect_grad_close(result, "student_logits", numeric, rtol=1e-5, atol=1e-8, source="central finite differences")


@check("gradients.teacher_detached", "No gradient flows into teacher_logits, even when it requires grad",
       clauses=["gradients.teacher_detached"])
def teacher_detached(sub, ref):
    student, teacher, target = _batch(42, 3, 4)
    result = sub.distillation_loss.call(student.clone().requires_grad_(), teacher.clone().requires_grad_(), target,
                                        2.0, 0.5, grads=("student_logits", "teacher_logits"))
    result.unwrap()
    if result.grads.get("student_logits") is None:
        fail(f"after backward() on {result.call}, student_logits.grad is None: the student is what is trained")
    expect_grad_none(result, "teacher_logits", hint="(the teacher is a fixed target: detach teacher_logits before "
                     "the softmax)")


# ------------------------------------------------------------------------------------------------ result


@check("result.scalar", "A 0-d tensor of the logits' dtype, attached to the student's graph",
       clauses=["result.scalar"])
def scalar(sub, ref):
    for dtype in (torch.float32, torch.float64):
        student, teacher, target = _batch(50, 3, 4, dtype)
        result = sub.distillation_loss.call(student.requires_grad_(), teacher, target, 2.0, 0.5)
        expect_tensor(result.unwrap(), shape=(), dtype=dtype, requires_grad=True, call=result)


@check("result.inputs_unchanged", "Logits and target are left unchanged", clauses=["result.inputs_unchanged"])
def inputs_unchanged(sub, ref):
    student, teacher, target = _batch(51, 3, 4)
    result = sub.distillation_loss.call(student, teacher, target, 2.0, 0.5)
    expect_unchanged(result, hint="(divide by the temperature out of place: logits / T, not logits.div_(T))")


# ---------------------------------------------------------------------------------------------- contract


@check("contract.types", "Wrong kinds of logits, target, temperature or alpha raise TypeError",
       clauses=["contract.types"])
def contract_types(sub, ref):
    s, t, y = _batch(60, 3, 4)
    calls = [
        ((s.tolist(), t, y, 2.0, 0.5), {}, "student_logits is a list"),
        ((s, None, y, 2.0, 0.5), {}, "teacher_logits is None"),
        ((s.long(), t.long(), y, 2.0, 0.5), {}, "the logits are int64"),
        ((s.half(), t.half(), y, 2.0, 0.5), {}, "float16 is not supported"),
        ((s, t.float(), y, 2.0, 0.5), {}, "the teacher is float32 and the student float64"),
        ((s, t, y.float(), 2.0, 0.5), {}, "target holds floats, not int64 class indices"),
        ((s, t, y.int(), 2.0, 0.5), {}, "target is int32, not int64"),
        ((s, t, y.tolist(), 2.0, 0.5), {}, "target is a list"),
    ]
    for bad in (True, torch.tensor(2.0), "2", None):
        calls.append(((s, t, y, bad, 0.5), {}, f"temperature={bad!r} is not a Python int or float"))
        calls.append(((s, t, y, 2.0, bad), {}, f"alpha={bad!r} is not a Python int or float"))
    expect_rejected("TypeError", sub.distillation_loss, calls)


@check("contract.values", "Wrong shapes, targets out of range and out-of-range settings raise ValueError",
       clauses=["contract.values"])
def contract_values(sub, ref):
    s, t, y = _batch(61, 3, 4)
    nan, inf = float("nan"), float("inf")
    calls = [
        ((s[0], t[0], y[:1], 2.0, 0.5), {}, "the logits are 1-D"),
        ((s, t[:2], y, 2.0, 0.5), {}, "the teacher has another batch size"),
        ((s, t[:, :3], y, 2.0, 0.5), {}, "the teacher has another number of classes"),
        ((s[:0], t[:0], y[:0], 2.0, 0.5), {}, "the batch is empty"),
        ((s, t, y[:2], 2.0, 0.5), {}, "target has another length"),
        ((s, t, torch.tensor([0, 4, 1]), 2.0, 0.5), {}, "a target is 4 with only 4 classes"),
        ((s, t, torch.tensor([0, -1, 1]), 2.0, 0.5), {}, "a target is negative"),
        ((s.masked_fill(s > 1, nan), t, y, 2.0, 0.5), {}, "the student logits hold nan"),
        ((s, t.masked_fill(t > 1, inf), y, 2.0, 0.5), {}, "the teacher logits hold inf"),
    ]
    for bad in (0, -1.0, nan, inf):
        calls.append(((s, t, y, bad, 0.5), {}, f"temperature={bad} is not finite and > 0"))
    for bad in (-0.1, 1.5, nan):
        calls.append(((s, t, y, 2.0, bad), {}, f"alpha={bad} is not in [0, 1]"))
    expect_rejected("ValueError", sub.distillation_loss, calls)


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
