"""Check battery for the PPO problem (Schulman et al., 2017): clipped_surrogate, value_loss and ppo_loss.

Groups `surrogate`, `value`, `ppo` and `contract` are required; `experiment` is advisory (it records the charts of
the notes). The declared contract in problem.toml covers shapes, dtypes, layouts, inputs left unchanged, new
storage, requires_grad, gradients against the reference and central differences, the detached arguments, the
refused arguments and a property search; the checks here hold what a declaration cannot say: the hand examples
with the four cases of the clip, which tensors are constants, the log-space ratio at underflowing
probabilities, the token mean under a mask and the empty selection, the pessimistic value clip, the sign of the
entropy bonus and stability at logits of 1e4.

Tolerances: float64 results are compared with an independent float64 oracle at the defaults of expect_close
(rtol 1e-7, atol 1e-9); float32 ones at (1e-5, 1e-5). The float32 inputs are chosen so that a stable computation
is exact to a few float32 epsilons (logits of 1e4 are a large offset plus small differences, and log_softmax
subtracts the offset exactly). No ratio sits on a clip boundary and no value difference on +-eps, where a
correct minimum or maximum could hand the gradient to either side.
"""

import math
from collections.abc import Callable
from typing import Any

import torch

from grader.checks import (
    CheckFailed,
    WorkerLost,
    check,
    expect,
    expect_close,
    expect_grad_close,
    expect_grad_none,
    replay_agrees,
    seeded_randn,
)
from helpers import bandit_logp, bandit_pulls, bandit_sgd_step

F64 = torch.float64
F32 = torch.float32

# The hand example of the statement: ratios 1.5, 0.5, 0.5, 1.5 against advantages 2, 1, -1, -1
HAND_NEW = [0.6, 0.3, 0.3, 0.6]
HAND_OLD = [0.4, 0.6, 0.6, 0.4]
HAND_ADV = [2.0, 1.0, -1.0, -1.0]
# value example: V moved towards R past the clip twice, away from R once
HAND_V = [1.0, 2.0, 0.0]
HAND_V_OLD = [0.5, 2.5, 0.5]
HAND_R = [2.0, 0.0, 1.0]


def _t(values, dtype=F64):
    return torch.tensor(values, dtype=dtype)


# -------------------------------------------------------------- an independent float64 oracle for the checks


def _count(shape_like, mask):
    return int(mask.sum()) if mask is not None else shape_like.numel()


def _surrogate_terms(logp_new, logp_old, adv, eps):
    r = torch.exp(logp_new.detach().to(F64) - logp_old.detach().to(F64))
    adv = adv.detach().to(F64)
    return -torch.minimum(r * adv, r.clamp(1 - eps, 1 + eps) * adv), r, adv


def _oracle_surrogate(logp_new, logp_old, adv, eps=0.2, mask=None):
    """(loss, d loss / d logp_new) in float64."""
    terms, r, adv = _surrogate_terms(logp_new, logp_old, adv, eps)
    n = max(_count(terms, mask), 1)
    keep = torch.ones_like(terms, dtype=torch.bool) if mask is None else mask
    # the unclipped term is the minimum exactly where the clip does not bind for this sign of A
    active = ~(((adv > 0) & (r > 1 + eps)) | ((adv < 0) & (r < 1 - eps)))
    grad = torch.where(keep & active, -r * adv / n, torch.zeros_like(r))
    return torch.where(keep, terms, torch.zeros_like(terms)).sum() / n, grad


def _oracle_value(v, v_old, ret, eps=None, mask=None):
    """(loss, d loss / d values) in float64."""
    v, v_old, ret = (t.detach().to(F64) for t in (v, v_old, ret))
    n = max(_count(v, mask), 1)
    keep = torch.ones_like(v, dtype=torch.bool) if mask is None else mask
    err = (v - ret) ** 2
    grad = (v - ret) / n
    if eps is not None:
        clipped_v = v_old + (v - v_old).clamp(-eps, eps)
        err_c = (clipped_v - ret) ** 2
        use_clipped = (err_c > err) & ((v - v_old).abs() > eps)
        err = torch.maximum(err, err_c)
        grad = torch.where(use_clipped, torch.zeros_like(grad), grad)
    loss = 0.5 * torch.where(keep, err, torch.zeros_like(err)).sum() / n
    return loss, torch.where(keep, grad, torch.zeros_like(grad))


def _oracle_ppo(logits, actions, logp_old, adv, v, v_old, ret, mask=None, clip_eps=0.2, vf_clip_eps=None,
                vf_coef=0.5, ent_coef=0.01):
    z = logits.detach().to(F64)
    log_p = z - torch.logsumexp(z, dim=-1, keepdim=True)
    logp_new = log_p.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    policy, _ = _oracle_surrogate(logp_new, logp_old, adv, clip_eps, mask)
    value, _ = _oracle_value(v, v_old, ret, vf_clip_eps, mask)
    entropy = -(log_p.exp() * log_p).sum(dim=-1)
    n = max(_count(entropy, mask), 1)
    mean_entropy = (entropy if mask is None else torch.where(mask, entropy, torch.zeros_like(entropy))).sum() / n
    return policy + vf_coef * value - ent_coef * mean_entropy


def _ppo_logits_grad(logits, actions, logp_old, adv, v, v_old, ret, clip_eps=0.2, ent_coef=0.01):
    """d ppo_loss / d logits in float64 by the chain rule: the surrogate's gradient through log_softmax at the
    chosen action, and the entropy's, d(-H)/dz = p (log p + H), each over n steps."""
    z = logits.detach().to(F64)
    log_p = z - torch.logsumexp(z, dim=-1, keepdim=True)
    p = log_p.exp()
    logp_new = log_p.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    _, d_logp = _oracle_surrogate(logp_new, logp_old, adv, clip_eps)
    one_hot = torch.nn.functional.one_hot(actions, z.shape[-1]).to(F64)
    entropy = -(p * log_p).sum(dim=-1, keepdim=True)
    n = max(actions.numel(), 1)
    return d_logp.unsqueeze(-1) * (one_hot - p) + ent_coef * p * (log_p + entropy) / n


def _hand_surrogate():
    return _t(HAND_NEW).log(), _t(HAND_OLD).log(), _t(HAND_ADV)


def _random_steps(seed, shape, spread=0.4):
    """logp_new, logp_old, advantages with ratios exp(N(0, spread)) kept 0.01 away from 0.8 and 1.2."""
    generator = torch.Generator().manual_seed(seed)
    logp_old = -torch.rand(shape, generator=generator, dtype=F64) * 3.0 - 0.1
    log_ratio = torch.randn(shape, generator=generator, dtype=F64) * spread
    for bound in (math.log(0.8), math.log(1.2)):
        near = (log_ratio - bound).abs() < 0.01
        log_ratio = torch.where(near, log_ratio + 0.03, log_ratio)
    advantages = torch.randn(shape, generator=generator, dtype=F64)
    return logp_old + log_ratio, logp_old, advantages


def _expect_loss(result, expected, dtype=F64, hint="", tolerance=None):
    got = result.unwrap()
    expect(isinstance(got, torch.Tensor) and got.dim() == 0,
           f"{result.call} returned {got!r}: the loss must be a 0-d tensor (a mean over the steps, not a tensor per "
           "step or per row)")
    rtol, atol = tolerance or ((1e-5, 1e-5) if dtype == F32 else (1e-7, 1e-9))
    expect_close(got.detach(), expected.to(dtype), call=result, rtol=rtol, atol=atol, hint=hint)


# ------------------------------------------------------------------------------------------------ surrogate


@check("surrogate.hand_example", "Hand example: ratios 1.5, 0.5, 0.5, 1.5 against advantages 2, 1, -1, -1",
       clauses=["surrogate.formula", "surrogate.gradient", "surrogate.no_normalisation"])
def surrogate_hand_example(sub, ref):
    # r = [1.5, 0.5, 0.5, 1.5]; r A = [3, 0.5, -0.5, -1.5]; clip(r) A = [2.4, 0.8, -0.8, -1.2];
    # min = [2.4, 0.5, -0.8, -1.5], mean 0.15, loss -0.15. The gradient -r A / 4 flows where the unclipped
    # term is the minimum (steps 2 and 4): [0, -0.125, 0, 0.375].
    logp_new, logp_old, adv = _hand_surrogate()
    base, scaled = sub.clipped_surrogate.map(
        [((logp_new.clone().requires_grad_(True), logp_old, adv), {}),
         ((logp_new.clone().requires_grad_(True), logp_old, 10.0 * adv), {})], grads=("logp_new",))
    _expect_loss(base, _t(-0.15), hint="(r = [1.5, 0.5, 0.5, 1.5], r A = [3, 0.5, -0.5, -1.5], clip(r, 0.8, 1.2) A "
                 "= [2.4, 0.8, -0.8, -1.2]; each step keeps the smaller: [2.4, 0.5, -0.8, -1.5], mean 0.15, and the "
                 "loss is minus that)")
    expect_grad_close(base, "logp_new", _t([0.0, -0.125, 0.0, 0.375]), source="-r A / n where the unclipped term "
                      "is the minimum, 0 where the clip binds",
                      hint="(steps 1 and 3 are clipped: A > 0 with r above 1.2, and A < 0 with r below 0.8, so no "
                           "gradient; steps 2 and 4 keep r A, whose derivative in log-space is r A)")
    _expect_loss(scaled, _t(-1.5), hint="(advantages ten times larger give a loss ten times larger: the "
                 "advantages are used as given, not normalised inside the loss)")


@check("surrogate.random", "Random steps with ratios on both sides of the clip, positive and negative "
       "advantages, against the formula", clauses=["surrogate.formula", "surrogate.gradient"])
def surrogate_random(sub, ref):
    cases = [((3, 5), 0.2), ((16,), 0.1), ((2, 2, 3), 0.5)]
    calls, expected = [], []
    for index, (shape, eps) in enumerate(cases):
        logp_new, logp_old, adv = _random_steps(40 + index, shape)
        calls.append(((logp_new.clone().requires_grad_(True), logp_old, adv, eps), {}))
        expected.append(_oracle_surrogate(logp_new, logp_old, adv, eps))
    results = sub.clipped_surrogate.map(calls, grads=("logp_new",))
    for result, (loss, grad) in zip(results, expected, strict=True):
        _expect_loss(result, loss, hint="(per step -min(r A, clip(r, 1 - eps, 1 + eps) A) with r = exp(logp_new - "
                     "logp_old), averaged over every step)")
        expect_grad_close(result, "logp_new", grad, source="the formula", hint="(the gradient is -r A / n where the "
                          "unclipped term is the smaller one and 0 where the clip binds)")


@check("surrogate.constants", "logp_old and advantages are constants: with requires_grad they get no gradient",
       clauses=["surrogate.gradient"])
def surrogate_constants(sub, ref):
    logp_new, logp_old, adv = _random_steps(50, (6,))
    args = [t.clone().requires_grad_(True) for t in (logp_new, logp_old, adv)]
    result = sub.clipped_surrogate.call(*args, grads=("logp_new", "logp_old", "advantages"))
    _expect_loss(result, _oracle_surrogate(logp_new, logp_old, adv)[0])
    expect_grad_none(result, "advantages", hint="(advantages are a fixed weight per step, computed from the old "
                     "rollout: detach them, or the policy loss trains the critic that produced them)")
    expect_grad_none(result, "logp_old", hint="(logp_old belongs to the policy that collected the data: it is a "
                     "constant, only logp_new is trained)")
    expect_grad_close(result, "logp_new", _oracle_surrogate(logp_new, logp_old, adv)[1], source="the formula")


@check("surrogate.log_space", "Log-probabilities of -150 in float32 and -800 in float64, whose probabilities are 0",
       clauses=["surrogate.log_space"])
def surrogate_log_space(sub, ref):
    # exp(-150) = 0 in float32 and exp(-800) = 0 in float64: a ratio of probabilities is 0 / 0; the ratio of the
    # difference is exp(0.25), exp(-0.5), exp(0.1), exact in either dtype
    cases = []
    for dtype, offset in ((F32, -150.0), (F64, -800.0)):
        logp_old = _t([offset, offset - 1.0, offset + 0.5], dtype)
        logp_new = logp_old + _t([0.25, -0.5, 0.1], dtype)
        adv = _t([1.0, -1.0, 2.0], dtype)
        cases.append((logp_new, logp_old, adv))
    results = sub.clipped_surrogate.map([((n.clone().requires_grad_(True), o, a), {}) for n, o, a in cases],
                                        grads=("logp_new",))
    for result, (logp_new, logp_old, adv) in zip(results, cases, strict=True):
        got = result.unwrap()
        expect(isinstance(got, torch.Tensor) and bool(torch.isfinite(got.detach()).all()),
               f"{result.call} returned {got!r}: not finite. exp(logp) underflows to 0 at these log-probabilities, so "
               "a ratio formed as exp(logp_new) / exp(logp_old) is 0 / 0; exponentiate the difference instead")
        loss, grad = _oracle_surrogate(logp_new, logp_old, adv)
        _expect_loss(result, loss, logp_new.dtype, hint="(r = exp(logp_new - logp_old) = [1.284, 0.607, 1.105])")
        grad_got = result.grads.get("logp_new")
        expect(grad_got is not None and bool(torch.isfinite(grad_got).all()),
               f"after backward() on {result.call}, logp_new.grad = {grad_got}: not finite")
        expect_grad_close(result, "logp_new", grad.to(logp_new.dtype), rtol=1e-5, atol=1e-6, source="the formula")


@check("surrogate.mask", "A mask averages over the counted steps only: a token mean across rows of different "
       "lengths", clauses=["mask.token_mean"])
def surrogate_mask(sub, ref):
    logp_new, logp_old, adv = _random_steps(60, (2, 4))
    mask = torch.tensor([[True, True, True, False], [True, False, False, False]])
    garbage = logp_new.clone()
    garbage[~mask] = 30.0  # masked steps hold nonsense (a ratio of e^30): they must not matter at all
    result = sub.clipped_surrogate.call(garbage.clone().requires_grad_(True), logp_old, adv, 0.2, mask,
                                        grads=("logp_new",))
    loss, grad = _oracle_surrogate(garbage, logp_old, adv, 0.2, mask)
    _expect_loss(result, loss, hint="(the sum over the 4 counted steps divided by 4: not by the 8 entries, and not a "
                 "mean per row followed by a mean over rows, which would weigh the lone step of row 2 as much as "
                 "the three of row 1)")
    expect_grad_close(result, "logp_new", grad, source="the formula over the counted steps",
                      hint="(masked steps get exactly zero gradient; counted ones -r A / 4 where unclipped)")


@check("surrogate.padding_overflow", "Masked steps whose ratio overflows exp (e^100 in float32, e^1000 in float64) "
       "leave the loss and its gradient finite and unchanged", clauses=["mask.token_mean"])
def surrogate_padding_overflow(sub, ref):
    # Legal, finite log-probabilities at the masked steps whose difference overflows exp: logp_new - logp_old = big,
    # 100 in float32 (exp gives inf above 88.7) and 1000 in float64 (above 709.8). Multiplying by the mask after the
    # exp gives inf * 0 = nan in the loss; selecting the masked terms away after it (torch.where) keeps the loss
    # finite but not the gradient: the backward pass multiplies their zero gradient by exp's inf.
    logp_new, logp_old, adv = _random_steps(75, (2, 4))
    mask = torch.tensor([[True, True, False, False], [True, False, True, False]])
    calls, cases = [], []
    for dtype, big in ((F32, 100.0), (F64, 1000.0)):
        new, old = logp_new.clone(), logp_old.clone()
        new[~mask], old[~mask] = 0.0, -big
        new, old, advantages = new.to(dtype), old.to(dtype), adv.to(dtype)
        calls.append(((new.clone().requires_grad_(True), old, advantages, 0.2, mask), {}))
        cases.append((big, new, old, advantages))
    results = sub.clipped_surrogate.map(calls, grads=("logp_new",))
    for result, (big, new, old, advantages) in zip(results, cases, strict=True):
        where = f"logp_new = 0 over logp_old = -{big:g}, a ratio of exp({big:g}), which overflows to inf"
        loss, grad = _oracle_surrogate(new, old, advantages, 0.2, mask)
        _expect_loss(result, loss, new.dtype,
                     hint=f"(the masked steps hold {where}; masked steps contribute nothing, whatever they hold. "
                          "Multiplying by the mask gives inf * 0 = nan: replace the masked log-ratios (by 0, say) "
                          "before the exp)")
        got = result.grads.get("logp_new")
        expect(got is not None and bool(torch.isfinite(got).all()),
               f"after backward() on {result.call}, logp_new.grad = {got}: not finite. The masked steps hold {where}. "
               "Selecting them away after the exp (torch.where, masked_fill) keeps the loss finite, but the backward "
               "pass still multiplies their zero gradient by that inf: 0 * inf = nan. Replace the masked "
               "log-ratios (by 0, say) before the exp, so no masked step ever overflows")
        expect_grad_close(result, "logp_new", grad.to(new.dtype), rtol=1e-5, atol=1e-6,
                          source="the formula over the counted steps",
                          hint="(masked steps get exactly zero gradient, whatever they hold)")


@check("surrogate.empty", "No step counts (an all-False mask, an empty batch): the loss is 0 with zero gradients",
       clauses=["mask.empty"])
def surrogate_empty(sub, ref):
    logp_new, logp_old, adv = _random_steps(70, (2, 3))
    none = torch.zeros(2, 3, dtype=torch.bool)
    empty = torch.zeros(0, dtype=F64)
    results = sub.clipped_surrogate.map([
        ((logp_new.clone().requires_grad_(True), logp_old, adv, 0.2, none), {}),
        ((empty.clone().requires_grad_(True), empty, empty), {}),
    ], grads=("logp_new",))
    for result, shape in zip(results, ((2, 3), (0,)), strict=True):
        got = result.unwrap()
        expect(isinstance(got, torch.Tensor) and bool(torch.isfinite(got.detach()).all()),
               f"{result.call} returned {got!r}: no step is counted, so the loss is defined as 0 (divide by the "
               "number of counted steps, but by at least 1), never 0 / 0 = nan")
        _expect_loss(result, _t(0.0))
        expect_grad_close(result, "logp_new", torch.zeros(shape, dtype=F64), source="a loss that is 0 by definition")


# ---------------------------------------------------------------------------------------------------- value


@check("value.hand_example", "Hand example: V = [1, 2, 0], V_old = [0.5, 2.5, 0.5], R = [2, 0, 1], unclipped and "
       "clipped at 0.2", clauses=["value.formula", "value.gradient"])
def value_hand_example(sub, ref):
    # (V - R)^2 = [1, 4, 1]: unclipped 0.5 * 6 / 3 = 1.0, gradient (V - R) / 3 = [-1/3, 2/3, -1/3].
    # clipped V = [0.7, 2.3, 0.3]: errors [1.69, 5.29, 0.49]; max = [1.69, 5.29, 1], loss 0.5 * 7.98 / 3 = 1.33;
    # steps 1 and 2 take the clipped error, flat in V: gradient [0, 0, -1/3]
    v, v_old, ret = _t(HAND_V), _t(HAND_V_OLD), _t(HAND_R)
    plain, clipped = sub.value_loss.map([((v.clone().requires_grad_(True), v_old, ret), {}),
                                         ((v.clone().requires_grad_(True), v_old, ret, 0.2), {})], grads=("values",))
    _expect_loss(plain, _t(1.0), hint="(0.5 * mean (V - R)^2 = 0.5 * (1 + 4 + 1) / 3: the factor 0.5 is part of "
                 "the loss)")
    expect_grad_close(plain, "values", _t([-1.0, 2.0, -1.0]) / 3, source="(V - R) / n")
    _expect_loss(clipped, _t(1.33), hint="(clipped V = V_old + clip(V - V_old, -0.2, 0.2) = [0.7, 2.3, 0.3], errors "
                 "[1.69, 5.29, 0.49] against the unclipped [1, 4, 1]; each step keeps the LARGER: [1.69, 5.29, 1])")
    expect_grad_close(clipped, "values", _t([0.0, 0.0, -1.0 / 3]), source="the branch the max picks",
                      hint="(steps 1 and 2 take the clipped error, which does not move with V: gradient 0 there)")


@check("value.random", "Random values, clipped and unclipped, with a mask, against the formula",
       clauses=["value.formula", "value.gradient", "mask.token_mean"])
def value_random(sub, ref):
    generator = torch.Generator().manual_seed(80)
    shape = (3, 4)
    v_old = torch.randn(shape, generator=generator, dtype=F64)
    step = torch.randn(shape, generator=generator, dtype=F64) * 0.5
    step = torch.where((step.abs() - 0.2).abs() < 0.02, step * 1.5, step)  # away from the clip boundary
    v = v_old + step
    ret = torch.randn(shape, generator=generator, dtype=F64)
    mask = torch.tensor([[True, True, True, True], [True, False, True, False], [False, False, False, True]])
    cases = [(None, None), (0.2, None), (0.2, mask), (None, mask)]
    results = sub.value_loss.map([((v.clone().requires_grad_(True), v_old, ret, eps, m), {}) for eps, m in cases],
                                 grads=("values",))
    for result, (eps, m) in zip(results, cases, strict=True):
        loss, grad = _oracle_value(v, v_old, ret, eps, m)
        _expect_loss(result, loss, hint="(0.5 * the mean over counted steps of (V - R)^2, or with clip_eps of "
                     "max((V - R)^2, (V_old + clip(V - V_old, -eps, eps) - R)^2))")
        expect_grad_close(result, "values", grad, source="the formula")


@check("value.empty", "No step counts: the value loss is 0 with zero gradients", clauses=["mask.empty"])
def value_empty(sub, ref):
    v, v_old, ret = seeded_randn(90, 2, 2), seeded_randn(91, 2, 2), seeded_randn(92, 2, 2)
    none = torch.zeros(2, 2, dtype=torch.bool)
    result = sub.value_loss.call(v.clone().requires_grad_(True), v_old, ret, 0.2, none, grads=("values",))
    got = result.unwrap()
    expect(isinstance(got, torch.Tensor) and bool(torch.isfinite(got.detach()).all()),
           f"{result.call} returned {got!r}: with no counted step the loss is 0, never 0 / 0")
    _expect_loss(result, _t(0.0))
    expect_grad_close(result, "values", torch.zeros(2, 2, dtype=F64), source="a loss that is 0 by definition")


@check("value.padding_overflow", "Masked steps whose squared error overflows (values of 1e30 in float32, 1e200 in "
       "float64) leave the value loss and its gradient finite and unchanged", clauses=["mask.token_mean"])
def value_padding_overflow(sub, ref):
    # (1e30)^2 is inf in float32 and (1e200)^2 in float64: a masked error multiplied by the mask after squaring is
    # inf * 0 = nan. Selecting it away (torch.where) is enough here: the square's backward multiplies the zero
    # gradient by 2 (V - R), which is large but finite. Clipped too: the larger error is the inf one.
    v, v_old, ret = seeded_randn(93, 2, 3), seeded_randn(94, 2, 3), seeded_randn(95, 2, 3)
    mask = torch.tensor([[True, False, True], [False, True, True]])
    calls, cases = [], []
    for dtype, big in ((F32, 1e30), (F64, 1e200)):
        for eps in (None, 0.2):
            values = v.clone()
            values[~mask] = big
            values, olds, returns = values.to(dtype), v_old.to(dtype), ret.to(dtype)
            calls.append(((values.clone().requires_grad_(True), olds, returns, eps, mask), {}))
            cases.append((big, eps, values, olds, returns))
    results = sub.value_loss.map(calls, grads=("values",))
    for result, (big, eps, values, olds, returns) in zip(results, cases, strict=True):
        where = f"values of {big:g}, whose squared error overflows to inf"
        loss, grad = _oracle_value(values, olds, returns, eps, mask)
        _expect_loss(result, loss, values.dtype, tolerance=(1e-5, 1e-5) if values.dtype == F32 else None,
                     hint=f"(the masked steps hold {where}; masked steps contribute nothing, whatever they hold. "
                          "Multiplying by the mask after squaring gives inf * 0 = nan: select the counted steps "
                          "(torch.where, or indexing with the mask) instead)")
        got = result.grads.get("values")
        expect(got is not None and bool(torch.isfinite(got).all()),
               f"after backward() on {result.call}, values.grad = {got}: not finite. The masked steps hold {where}; "
               "their gradient must be exactly 0")
        expect_grad_close(result, "values", grad.to(values.dtype), rtol=1e-5, atol=1e-6,
                          source="the formula over the counted steps",
                          hint="(masked steps get exactly zero gradient, whatever they hold)")


# ------------------------------------------------------------------------------------------------------ ppo


def _ppo_batch(seed, shape, actions_count, scale=1.0):
    generator = torch.Generator().manual_seed(seed)
    logits = torch.randn(*shape, actions_count, generator=generator, dtype=F64) * scale
    actions = torch.randint(0, actions_count, shape, generator=generator)
    log_p = torch.log_softmax(logits, dim=-1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    logp_old = log_p + torch.randn(shape, generator=generator, dtype=F64) * 0.3
    adv = torch.randn(shape, generator=generator, dtype=F64)
    v_old = torch.randn(shape, generator=generator, dtype=F64)
    v = v_old + torch.randn(shape, generator=generator, dtype=F64) * 0.5
    ret = torch.randn(shape, generator=generator, dtype=F64)
    return logits, actions, logp_old, adv, v, v_old, ret


@check("ppo.entropy_sign", "Uniform logits, zero advantages, ent_coef = 1: the loss is minus the entropy, -ln 3",
       clauses=["ppo.entropy", "ppo.combination"])
def ppo_entropy_sign(sub, ref):
    zeros = torch.zeros(2, dtype=F64)
    logits = torch.zeros(2, 3, dtype=F64)
    actions = torch.tensor([0, 2])
    logp_old = torch.full((2,), -math.log(3.0), dtype=F64)
    result = sub.ppo_loss.call(logits, actions, logp_old, zeros, zeros, zeros, zeros, vf_coef=0.0, ent_coef=1.0)
    _expect_loss(result, _t(-math.log(3.0)), hint="(three equally likely actions have entropy ln 3 = 1.0986; the "
                 "entropy is a bonus the loss subtracts, so a more random policy lowers the loss: -ln 3)")


@check("ppo.combination", "Random batches: surrogate + vf_coef * value loss - ent_coef * entropy, with and without "
       "a mask and value clipping", clauses=["ppo.combination", "ppo.entropy", "mask.token_mean"])
def ppo_combination(sub, ref):
    batch = _ppo_batch(100, (3, 4), 5)
    mask = torch.tensor([[True, True, True, True], [True, True, False, False], [True, False, False, False]])
    options = [
        {},
        {"mask": mask},
        {"mask": mask, "clip_eps": 0.1, "vf_clip_eps": 0.3, "vf_coef": 2.0, "ent_coef": 0.5},
        {"vf_coef": 0.0, "ent_coef": 0.0},
    ]
    logits = batch[0]
    calls = [((logits.clone().requires_grad_(True), *batch[1:]), opts) for opts in options]
    results = sub.ppo_loss.map(calls)
    for result, opts in zip(results, options, strict=True):
        described = ", ".join(f"{k}={'...' if k == 'mask' else v}" for k, v in opts.items()) or "the defaults"
        _expect_loss(result, _oracle_ppo(*batch, **opts),
                     hint=f"(with {described}: clipped_surrogate(log_softmax(logits)[actions], ...) + vf_coef * "
                     "value_loss - ent_coef * the "
                     "mean entropy -sum p log p, every term averaged over the same counted steps)")


@check("ppo.gradients", "Gradients reach logits and values only", clauses=["ppo.combination"])
def ppo_gradients(sub, ref):
    batch = _ppo_batch(110, (5,), 3)
    args = [t.clone().requires_grad_(True) if t.is_floating_point() else t for t in batch]
    names = ("logits", "logp_old", "advantages", "values", "old_values", "returns")
    result = sub.ppo_loss.call(*args, vf_clip_eps=0.2, grads=names)
    _expect_loss(result, _oracle_ppo(*batch, vf_clip_eps=0.2))
    for name, why in (("advantages", "advantages are constants of the rollout"),
                      ("logp_old", "the old policy is a constant"),
                      ("returns", "the value target is a constant"),
                      ("old_values", "the old values only set the clip's centre")):
        expect_grad_none(result, name, hint=f"({why}: detach it)")
    expect(result.grads.get("logits") is not None and result.grads.get("values") is not None,
           f"after backward() on {result.call}, logits.grad or values.grad is None: the policy and the critic are "
           "both trained by this loss")


@check("ppo.stable", "Logits of magnitude 1e4 (probabilities of exactly 0): finite, correct loss and gradients in "
       "float32 and float64", clauses=["ppo.stable", "ppo.entropy"])
def ppo_stable(sub, ref):
    # rows: a large offset plus small differences (log_softmax exact), and a spread of 2e4 where two of the three
    # probabilities are exactly 0 (p log p must be 0 there, not 0 * -inf)
    base = _t([[1e4, 1e4 - 1.0, 1e4 - 2.0], [-1e4, -1e4 + 0.5, -1e4 + 1.0], [1e4, -1e4, 0.0]])
    actions = torch.tensor([1, 2, 0])
    log_p = torch.log_softmax(base, dim=-1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    logp_old = log_p + _t([0.1, -0.1, 0.05])
    rest = (_t([1.0, -0.5, 0.5]), _t([0.5, 0.0, 1.0]), _t([0.4, 0.2, 1.1]), _t([1.0, 0.5, 0.0]))
    calls = []
    for dtype in (F32, F64):
        calls.append(((base.to(dtype).requires_grad_(True), actions, logp_old.to(dtype),
                       *(t.to(dtype) for t in rest)), {"ent_coef": 0.1}))
    results = sub.ppo_loss.map(calls, grads=("logits",))
    for result, dtype in zip(results, (F32, F64), strict=True):
        got = result.unwrap()
        expect(isinstance(got, torch.Tensor) and bool(torch.isfinite(got.detach()).all()),
               f"{result.call} returned {got!r}: not finite. With logits of 1e4 some probabilities are exactly 0: "
               "log(softmax) gives -inf there and 0 * -inf = nan; take log-probabilities from log_softmax")
        # float32: an implementation that forms logsumexp(z) = 1e4 + 0.41 rounds it to float32's spacing at 1e4
        # (0.001) before subtracting it from z, so log-probabilities carry errors up to 5e-4: allow 5e-3
        tolerance = (5e-3, 5e-3) if dtype == F32 else None
        _expect_loss(result, _oracle_ppo(base, actions, logp_old, *rest, ent_coef=0.1), dtype, tolerance=tolerance)
        grad = result.grads.get("logits")
        expect(grad is not None and bool(torch.isfinite(grad).all()),
               f"after backward() on {result.call}, logits.grad = {grad}: not finite. The entropy or the "
               "log-probability went through log(softmax) or exp of a large logit")
        exact = _ppo_logits_grad(base, actions, logp_old, *rest, ent_coef=0.1)
        rtol, atol = tolerance or (1e-7, 1e-9)
        expect_grad_close(result, "logits", exact.to(dtype), rtol=rtol, atol=atol, source="the formula in float64")


# ---------------------------------------------------------------------------------------------- experiment

ARM_MEANS = (0.0, 0.5, 1.0)  # a three-armed bandit: reward = arm mean + N(0, 1) noise
RUNS, BATCH, ITERATIONS, EPOCHS, LEARNING_RATE, UNCLIPPED, SEED = 32, 8, 12, 4, 3.0, 1e6, 2017


@check("experiment.bandit", "Your clipped surrogate against the unclipped one (clip_eps = 1e6), training a softmax "
       "policy on a noisy three-armed bandit", group="experiment", required=False)
def experiment(sub, ref, ctx):
    """32 independent runs side by side in one [32, 8] batch: each iteration samples 8 pulls per run from the
    current policy, normalises the rewards into advantages, then takes 4 gradient steps (SGD, lr 3) on the logits
    with your clipped_surrogate's gradient. The same draws feed both arms of the comparison."""
    series = run_in_one_request(sub)
    if series is None:
        series = bandit_series(lambda calls: live_gradients(sub, calls))
    if series is not None:  # None: no usable gradient from your function, and the chart stops there
        ctx.record_experiment(steps=list(range(1, ITERATIONS + 1)), series=series,
                              x_label="iteration (8 pulls, 4 epochs)")


Answer = Callable[[list[tuple[tuple[Any, ...], dict[str, Any]]]], list[Any] | None]


def bandit_series(answer: Answer) -> dict[str, list[float]] | None:
    """The chart's series, each step's two calls (one per arm) answered by `answer` with their gradients in
    logp_new (None: the run stops, and so does the chart)."""
    means = torch.tensor(ARM_MEANS, dtype=F64)
    generator = torch.Generator().manual_seed(SEED)
    thetas = {"clipped": torch.zeros(RUNS, 3, dtype=F64), "unclipped": torch.zeros(RUNS, 3, dtype=F64)}
    eps = {"clipped": 0.2, "unclipped": UNCLIPPED}
    series: dict[str, list[float]] = {f"{metric}_{name}": [] for metric in
                                      ("expected_reward", "stuck_runs", "max_ratio", "clip_fraction")
                                      for name in thetas}
    for _ in range(ITERATIONS):
        uniforms = torch.rand(RUNS, BATCH, generator=generator, dtype=F64)
        noise = torch.randn(RUNS, BATCH, generator=generator, dtype=F64)
        pulls = {name: bandit_pulls(theta, uniforms, noise, means) for name, theta in thetas.items()}
        for _ in range(EPOCHS):
            calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
            for name, theta in thetas.items():
                actions, adv, logp_old = pulls[name]
                calls.append(((bandit_logp(theta, actions).detach().requires_grad_(True), logp_old, adv, eps[name]),
                              {}))
            gradients = answer(calls)
            if gradients is None:
                return None
            for gradient, name in zip(gradients, list(thetas), strict=True):
                if not (isinstance(gradient, torch.Tensor) and gradient.shape == (RUNS, BATCH)
                        and bool(torch.isfinite(gradient).all())):
                    return None
                thetas[name] = bandit_sgd_step(thetas[name], pulls[name][0], gradient, RUNS, LEARNING_RATE)
        for name, theta in thetas.items():
            actions, adv, logp_old = pulls[name]
            probs = torch.softmax(theta, dim=-1)
            ratio = torch.exp(bandit_logp(theta, actions) - logp_old)
            expected = probs @ means
            series[f"expected_reward_{name}"].append(float(expected.mean()))
            series[f"stuck_runs_{name}"].append(float((probs[:, :2].max(dim=-1).values > 0.9).sum()))
            series[f"max_ratio_{name}"].append(float(ratio.max()))
            series[f"clip_fraction_{name}"].append(float(((ratio - 1).abs() > 0.2).double().mean()))
    return series


def live_gradients(sub: Any, calls: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> list[Any]:
    """One step's calls, one request: your clipped_surrogate's gradients in logp_new (what it raised fails the
    check, as any call's error does)."""
    results = sub.clipped_surrogate.map(calls, grads=("logp_new",))
    for result in results:
        result.unwrap()
    return [result.grads.get("logp_new") for result in results]


def run_in_one_request(sub: Any) -> dict[str, list[float]] | None:
    """The series as bandit_series with live_gradients makes them, in two requests instead of 48, or None.

    The worker runs the whole training (helpers.bandit_run, the same glue as bandit_series's) and returns every
    call's surrogate and gradient. The judge takes the run's gradients as the answers to its own steps, building
    each step's calls from its own states, then makes all those calls again in one request. Only when every
    answer is bit for bit the run's are these the series the live run gives: by induction from the zero policies,
    each step's calls get the same input and the same answer. Anything else (a run that raised or broke a limit,
    a record of the wrong form, a function that answers the same input differently) returns None, and the check
    runs the training a step a request, message and chart included."""
    zeros = torch.zeros(RUNS, 3, dtype=F64)
    try:
        run = sub.from_helpers("bandit_run", uses=("clipped_surrogate",)).call(
            torch.tensor(ARM_MEANS, dtype=F64), [zeros, zeros.clone()], [0.2, UNCLIPPED], RUNS, BATCH, ITERATIONS,
            EPOCHS, LEARNING_RATE, SEED)
    except (CheckFailed, WorkerLost):
        return None
    records = run.value if run.raised is None else None
    if not (isinstance(records, list) and len(records) == ITERATIONS * EPOCHS):
        return None
    steps = iter(records)
    made: list[tuple[tuple[tuple[Any, ...], dict[str, Any]], Any]] = []

    def recorded(calls: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> list[Any] | None:
        record = next(steps)
        if not (isinstance(record, list) and len(record) == len(calls)
                and all(isinstance(pair, tuple | list) and len(pair) == 2 for pair in record)):
            return None
        made.extend(zip(calls, record, strict=True))
        return [gradient for _, gradient in record]

    try:
        series = bandit_series(recorded)
        if series is None:
            return None
        agrees = replay_agrees(sub.clipped_surrogate, made, grads=("logp_new",))
    except (CheckFailed, WorkerLost):
        return None
    return series if agrees else None
