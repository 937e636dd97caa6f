"""Check battery for the GRPO problem (Shao et al., 2024, DeepSeekMath).

Groups `advantages`, `loss` and `contract` are required; `experiment` is advisory (it records the chart of the
notes). The declared contract in problem.toml covers shapes, dtypes, layouts, inputs left unchanged, new storage,
requires_grad, gradients of logp_new against the reference and central differences, no gradient into logp_old,
logp_ref, advantages or rewards, the same tensor passed twice (logp_new as logp_old), the refusals and a property
search. The checks here hold what a declaration cannot say: hand examples, which entries form a group, the
unbiased std and where eps goes, equal-reward groups, the clip on both sides of both signs of the advantage, the
k3 estimator, the per-completion mean and the mask, and the gradient when logp_old is logp_new itself (the
contract's same-tensor check compares values, not gradients).

Every expected value comes from the closed forms written out in this file (an oracle independent of the
reference). The inputs are float64, compared at float64's tolerance; the checks about rounding (padding
whose exp overflows, log-probabilities whose exp underflows) try float32 too, where
the exact value for the float32 inputs, cast to float32, is compared at float32's tolerance. The quantities are
O(1) and well conditioned, so any correct order of operations lands far inside either.
"""

import math
from collections.abc import Callable
from typing import Any

import torch

from grader.checks import (
    check,
    expect,
    expect_close,
    expect_grad_close,
    expect_tensor,
    legal_inputs,
)
from helpers import training_adam_step, training_logp, training_reference, training_rollouts

F64 = torch.float64
LN = math.log


def _t(values, dtype=F64):
    return torch.tensor(values, dtype=dtype)


# ---------------------------------------------------------------------------- inputs the contract draws


@legal_inputs("group_advantages")
def _rewards_on_a_grid(args, sizes):
    """Rewards on a grid of quarters, as graded rewards are: a group then either has equal rewards (advantage
    exactly 0) or a spread of at least a quarter. Rewards that differ only in their last bits would make
    (r - mean) / (std + 1e-4) amplify float32 rounding by up to 1e4, which no tolerance could tell from a bug."""
    args["rewards"] = (args["rewards"] * 4).round() / 4
    return args


# ----------------------------------------------------------------------------- an independent oracle


def _advantages(rewards, group_size, eps=1e-4):
    """Group by group, with Python sums: (r - mean) / (sqrt(sum of squared deviations / (G - 1)) + eps)."""
    values = [float(v) for v in rewards]
    out = []
    for start in range(0, len(values), group_size):
        group = values[start:start + group_size]
        if group_size == 1:
            out.append(0.0)
            continue
        mean = sum(group) / group_size
        std = math.sqrt(sum((v - mean) ** 2 for v in group) / (group_size - 1))
        out.extend((v - mean) / (std + eps) for v in group)
    return _t(out)


def _token_terms(new, old, ref, advantage, clip_eps, beta):
    """One token's surrogate - beta * k3, and its derivative in logp_new, from Python floats."""
    ratio = math.exp(new - old)
    clipped = min(max(ratio, 1 - clip_eps), 1 + clip_eps)
    unclipped_term, clipped_term = ratio * advantage, clipped * advantage
    surrogate = min(unclipped_term, clipped_term)
    # the derivative of min(.): the unclipped branch's rho A where it is the smaller one, 0 where the flat clipped
    # branch is (no check puts a ratio on the boundary, where the two touch)
    d_surrogate = unclipped_term if unclipped_term <= clipped_term else 0.0
    d = ref - new
    kl = math.exp(d) - d - 1
    d_kl = 1 - math.exp(d)  # d/d new of exp(ref - new) - (ref - new) - 1
    return surrogate - beta * kl, d_surrogate - beta * d_kl


def _loss(new, old, ref, advantages, mask, clip_eps=0.2, beta=0.04):
    """(loss, d loss / d logp_new) by loops over completions and tokens."""
    n, t = new.shape
    total, grad = 0.0, torch.zeros(n, t, dtype=F64)
    for i in range(n):
        tokens = [j for j in range(t) if bool(mask[i, j])]
        for j in tokens:
            value, derivative = _token_terms(float(new[i, j]), float(old[i, j]), float(ref[i, j]),
                                             float(advantages[i]), clip_eps, beta)
            total += value / len(tokens)
            grad[i, j] = -derivative / (len(tokens) * n)
    return _t(-total / n), grad


def _expect_loss(result, new, old, ref, advantages, mask, clip_eps=0.2, beta=0.04, *, hint="", grad_hint=""):
    """The loss and its gradient against the oracle, in the inputs' dtype (the exact values, cast to it)."""
    got = result.unwrap()
    expect_tensor(got, shape=(), dtype=new.dtype, call=result)
    expected, grad = _loss(new, old, ref, advantages, mask, clip_eps, beta)
    expect(bool(torch.isfinite(got.detach())), f"{result.call} returned {float(got.detach())}: not finite. {hint}")
    expect_close(got, expected.to(new.dtype), call=result, hint=hint)
    if "logp_new" in result.grads:
        expect_grad_close(result, "logp_new", grad.to(new.dtype),
                          source="the chain rule through the clip and the k3 penalty", hint=grad_hint or hint)


def _leaf(t):
    return t.clone().requires_grad_(True)


# ------------------------------------------------------------------------------------------ advantages


@check("advantages.hand_example", "Hand example: two prompts, four answers each, rewards 1000 and 1100",
       clauses=["advantages.formula", "advantages.unbiased"])
def advantages_hand_example(sub, ref):
    # Group 1: mean 1/4, unbiased std sqrt((9/16 + 3/16) / 3) = 1/2, so [3/4, -1/4, -1/4, -1/4] / 0.5001.
    # Group 2: mean 1/2, std sqrt(4 * 1/4 / 3) = 0.577350, so +-(1/2) / 0.577450 = +-0.865875.
    rewards = _t([1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0])
    result = sub.group_advantages.call(rewards, 4)
    got = result.unwrap()
    expect_tensor(got, shape=(8,), dtype=F64, call=result)
    expect_close(got, _advantages(rewards, 4), call=result,
                 hint="(group 1 has mean 1/4 and unbiased std 1/2: [0.75, -0.25, -0.25, -0.25] / (0.5 + 1e-4) = "
                      "[1.49970, -0.49990, ...]; group 2 has mean 1/2 and std 0.577350: +-0.865875)")


@check("advantages.groups", "Each run of group_size consecutive rewards is one prompt's group, normalised alone",
       clauses=["advantages.groups", "advantages.formula"])
def advantages_groups(sub, ref):
    # Three prompts, three answers each. Shifting or scaling one group's rewards changes nothing in the others
    # (batch statistics would), and a group graded alone gives what it gives in the batch.
    rewards = _t([0.0, 1.0, 3.0, 10.0, 20.0, 60.0, 2.0, 2.5, 1.0])
    shifted = rewards.clone()
    shifted[3:6] += 100.0
    results = sub.group_advantages.map([((rewards, 3), {}), ((shifted, 3), {}), ((rewards[3:6].clone(), 3), {})])
    base, moved, alone = results
    expect_close(base.unwrap(), _advantages(rewards, 3), call=base,
                 hint="(prompt b owns rewards[b*G : (b+1)*G]; its mean and std come from those G entries only: "
                      "reshape to [B, G] and reduce along the G axis)")
    expect_close(moved.unwrap(), _advantages(rewards, 3), call=moved,
                 hint=f"(adding 100 to the second prompt's rewards must change no advantage at all, compared with "
                      f"{base.call}: each group is centred and scaled by its own statistics, not the batch's)")
    expect_close(alone.unwrap(), _advantages(rewards, 3)[3:6], call=alone,
                 hint="(one group alone must give what it gives inside the batch)")


@check("advantages.std_and_eps", "The unbiased std, eps added to it: two answers, a tight group, a larger eps",
       clauses=["advantages.unbiased", "advantages.formula"])
def advantages_std_and_eps(sub, ref):
    pair = _t([0.0, 1.0])  # unbiased std sqrt(1/2) = 0.707107 (the biased one is 1/2)
    tight = _t([0.0, 0.001, 0.002, 0.003])  # std 0.00129: eps = 1e-4 is 7 % of it, so where it goes shows
    results = sub.group_advantages.map([
        ((pair, 2), {}),
        ((tight, 4), {}),
        ((pair, 2), {"eps": 0.5}),
        ((tight, 4, 1e-4), {}),
    ])
    expect_close(results[0].unwrap(), _advantages(pair, 2), call=results[0],
                 hint="(two answers 0 and 1: mean 1/2, unbiased std sqrt(((1/2)^2 + (1/2)^2) / (2 - 1)) = 0.707107, "
                      "so +-0.5 / 0.707207 = +-0.707007; divide the squared deviations by G - 1, not G)")
    expect_close(results[1].unwrap(), _advantages(tight, 4), call=results[1],
                 hint="(std = 0.00129099, and eps is added to it: (r - mean) / (0.00129099 + 1e-4), not "
                      "sqrt(var + eps), not max(std, eps))")
    expect_close(results[2].unwrap(), _advantages(pair, 2, 0.5), call=results[2],
                 hint="(with eps = 0.5: +-0.5 / (0.707107 + 0.5) = +-0.414214; use the eps you are given)")
    expect_close(results[3].unwrap(), results[1].unwrap(), call=results[3],
                 hint="(eps defaults to 1e-4)")


@check("advantages.equal_groups", "Groups of equal rewards, and groups of one, give exactly 0, never nan",
       clauses=["advantages.equal"])
def advantages_equal_groups(sub, ref):
    # All-correct and all-wrong groups carry no signal: (r - mean) = 0 exactly, divided by 0 + eps.
    rewards = _t([1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, -2.5, -2.5, -2.5])
    results = sub.group_advantages.map([((rewards, 3), {}), ((rewards, 1), {}), ((rewards[:1].clone(), 1), {})])
    for result, size in zip(results, (3, 1, 1), strict=True):
        got = result.unwrap()
        expect(isinstance(got, torch.Tensor) and bool(torch.isfinite(got).all()),
               f"{result.call} returned {got.tolist() if isinstance(got, torch.Tensor) else got}: not finite. A "
               "group whose rewards are all equal has std 0, and a group of one has no unbiased std at all "
               "(torch.std of one value is nan): its advantage is 0, because r - mean is 0")
        source = rewards if size == 3 else rewards[: got.shape[0]]
        expect_close(got, _advantages(source, size), call=result,
                     hint="(a group of equal rewards, or of a single answer, has advantage exactly 0)")


# ------------------------------------------------------------------------------------------------- loss


def _hand_inputs():
    # Completion 1 (A = +1, two tokens): token 1 has rho = 1 and no KL; token 2 has rho = 0.3 / 0.2 = 1.5, clipped
    # to 1.2 (A > 0 takes the smaller 1.2), and ref / new = 0.5, so KL = 0.5 - ln 0.5 - 1 = 0.193147.
    # Completion 2 (A = -1, one token, then padding): rho = 0.2 / 0.4 = 0.5; min(-0.5, -0.8) = -0.8, no KL.
    new = _t([[LN(0.5), LN(0.3)], [LN(0.2), LN(0.9)]])
    old = _t([[LN(0.5), LN(0.2)], [LN(0.4), LN(0.1)]])
    refp = _t([[LN(0.5), LN(0.15)], [LN(0.2), LN(0.01)]])
    advantages = _t([1.0, -1.0])
    mask = torch.tensor([[True, True], [True, False]])
    return new, old, refp, advantages, mask


@check("loss.hand_example", "Hand example: a ratio clipped above for A > 0, one clipped below for A < 0, one KL term",
       clauses=["loss.surrogate", "loss.kl", "loss.per_sequence", "loss.mask"])
def loss_hand_example(sub, ref):
    new, old, refp, advantages, mask = _hand_inputs()
    result = sub.grpo_loss.call(_leaf(new), old, refp, advantages, mask, grads=("logp_new",))
    _expect_loss(result, new, old, refp, advantages, mask,
                 hint="(completion 1: (1 + (1.2 - 0.04 * 0.193147)) / 2 = 1.096137; completion 2: min(0.5 * -1, "
                      "0.8 * -1) = -0.8, its padded token ignored; loss = -(1.096137 - 0.8) / 2 = -0.148069)",
                 grad_hint="(d loss / d logp_new: -(1/N)(1/|o_i|) times rho A where the unclipped term is the "
                           "smaller one, 0 where the clipped one is, plus beta (1 - exp(ref - new)) / (N |o_i|))")


CLIP_RATIOS = (0.5, 0.9, 1.0, 1.1, 1.5)


@check("loss.clip", "The clip on both sides, for A > 0 and A < 0: values and which tokens keep a gradient; "
       "logp_old passed as logp_new itself keeps the ratio's gradient", clauses=["loss.surrogate", "loss.gradient",
                                                                           "loss.same_tensor"])
def loss_clip(sub, ref):
    # One token per completion, beta = 0: the loss is -(1/N) sum of min(rho A, clip(rho, 0.8, 1.2) A). For A > 0 the
    # clip binds above (rho = 1.5 gives 1.2 A and no gradient), for A < 0 below (rho = 0.5 gives 0.8 A and none);
    # rho = 1.5 with A < 0 and rho = 0.5 with A > 0 stay unclipped: the pessimistic side keeps its gradient.
    cases = [(rho, a) for a in (1.5, -1.5) for rho in CLIP_RATIOS]
    old = torch.full((len(cases), 1), LN(0.5), dtype=F64)
    new = _t([[LN(0.5 * rho)] for rho, _ in cases])
    advantages = _t([a for _, a in cases])
    mask = torch.ones(len(cases), 1, dtype=torch.bool)
    # The same completions with logp_old the very same tensor object as logp_new (one update per batch): rho = 1
    # everywhere, and d rho / d logp_new = rho = 1, so every token gets -A / N; an old term that follows logp_new
    # through the graph cancels it to 0.
    same = _leaf(new)
    result, same_result = sub.grpo_loss.map([
        ((_leaf(new), old, new.clone(), advantages, mask, 0.2, 0.0), {}),
        ((same, same, new.clone(), advantages, mask, 0.2, 0.0), {}),
    ], grads=("logp_new",))
    _expect_loss(result, new, old, new, advantages, mask, 0.2, 0.0,
                 hint=f"(ratios {list(CLIP_RATIOS)} with A = +1.5, then with A = -1.5, clip_eps = 0.2, beta = 0: "
                      "each token gives min(rho A, clip(rho, 0.8, 1.2) A), the minimum taken after multiplying by "
                      "A, so rho = 1.5 gives 1.8 for A = 1.5 but -2.25 for A = -1.5)",
                 grad_hint="(a token whose clipped term is the smaller one gets no gradient: rho = 1.5 with A > 0, "
                           "rho = 0.5 with A < 0; every other token gets -rho A / N)")
    _expect_loss(same_result, new, new, new, advantages, mask, 0.2, 0.0,
                 hint="(logp_old is the same tensor as logp_new, so rho = 1 on every token and the loss is -(1/N) "
                      "sum of A = 0 here)",
                 grad_hint="(logp_old is the very same tensor as logp_new: rho = 1, but its gradient is still that "
                           "of rho = exp(logp_new - logp_old) with logp_old a constant, -A / N per token, not 0; "
                           "detach logp_old however it was passed, and do not special-case it)")


KL_GAPS = (-2.0, -0.5, 0.5, 2.0)  # logp_ref - logp_new


@check("loss.kl", "The k3 penalty exp(ref - new) - (ref - new) - 1, never negative, subtracted with weight beta",
       clauses=["loss.kl", "loss.gradient"])
def loss_kl(sub, ref):
    # rho = 1 and A = 0, so the surrogate is 0 and the loss is beta times the mean k3 estimate:
    # k3(d) = e^d - d - 1 = 0.135335 + 1, 0.106531, 0.148721, 4.389056 for d = -2, -0.5, 0.5, 2.
    new = torch.full((len(KL_GAPS), 1), -2.5, dtype=F64)
    refp = new + _t([[d] for d in KL_GAPS])
    advantages = torch.zeros(len(KL_GAPS), dtype=F64)
    mask = torch.ones(len(KL_GAPS), 1, dtype=torch.bool)
    result = sub.grpo_loss.call(_leaf(new), new.clone(), refp, advantages, mask, 0.2, 0.5, grads=("logp_new",))
    got = result.unwrap()
    expect(bool(torch.isfinite(got.detach())) and float(got.detach()) >= 0,
           f"{result.call} returned {float(got.detach())}: with A = 0 the loss is beta times the mean KL estimate, "
           "which the k3 form exp(ref - new) - (ref - new) - 1 keeps >= 0 token by token (the k1 form new - ref "
           "does not), and the penalty is subtracted from the objective, so it adds to the loss")
    _expect_loss(result, new, new, refp, advantages, mask, 0.2, 0.5,
                 hint="(with d = logp_ref - logp_new in [-2, -0.5, 0.5, 2], k3 = e^d - d - 1 = [1.135335, 0.106531, "
                      "0.148721, 4.389056]; loss = 0.5 * their mean = 0.722455; the exponent is ref - new, not "
                      "new - ref)",
                 grad_hint="(d/d logp_new of beta * k3 / N is beta (1 - exp(ref - new)) / N: the penalty pulls "
                           "logp_new towards logp_ref)")


@check("loss.per_sequence", "Each completion's tokens are averaged first, then the completions; an empty one counts 0",
       clauses=["loss.per_sequence", "loss.mask"])
def loss_per_sequence(sub, ref):
    # Completion 1: one token with objective 1 (rho = 1, A = 1); completion 2: three tokens with objective -1
    # (A = -1); completion 3: no token at all. Per completion: -(1 + (-1) + 0) / 3 = 0. A token mean over the batch
    # would give -(1 - 3) / 4 = 0.5; dividing each completion by T = 4 gives -(1/4 - 3/4) / 3 = 0.1667.
    new = torch.full((3, 4), LN(0.25), dtype=F64)
    advantages = _t([1.0, -1.0, 0.7])
    mask = torch.tensor([[True, False, False, False], [True, True, True, False], [False] * 4])
    result = sub.grpo_loss.call(_leaf(new), new.clone(), new.clone(), advantages, mask, grads=("logp_new",))
    _expect_loss(result, new, new, new, advantages, mask,
                 hint="(completion 1 has one token worth +1, completion 2 three tokens worth -1 each, completion 3 "
                      "no token: -(1/3)(1/1 + (-3)/3 + 0) = 0. Average over each completion's own tokens, then over "
                      "the N completions, the empty one counting 0)",
                 grad_hint="(each token's gradient is divided by its own completion's length and by N: -A / (N "
                           "|o_i|) here)")
    lengths = sub.grpo_loss.map([
        ((new[:1].clone(), new[:1].clone(), new[:1].clone(), advantages[:1].clone(), mask[:1].clone()), {}),
        ((new[2:].clone(), new[2:].clone(), new[2:].clone(), advantages[2:].clone(), mask[2:].clone()), {}),
    ])
    for result, what in zip(lengths, ("one completion of one token worth +1 gives -1",
                                      "one completion with no token gives 0 (an empty completion counts 0, not nan)"),
                            strict=True):
        got = result.unwrap()
        expected = _t(-1.0 if what.startswith("one completion of") else 0.0)
        expect_close(got, expected, call=result, hint=f"({what})")


@check("loss.mask", "Whatever the masked positions hold changes neither the loss nor its gradient",
       clauses=["loss.mask"])
def loss_mask(sub, ref):
    generator = torch.Generator().manual_seed(7)
    n, t = 4, 5
    new = -torch.rand(n, t, generator=generator, dtype=F64) * 2 - 0.05
    old = new - 0.3 * torch.randn(n, t, generator=generator, dtype=F64).clamp(-1, 1)
    old = old.clamp(max=0.0)
    refp = (new + 0.5 * torch.randn(n, t, generator=generator, dtype=F64)).clamp(max=0.0)
    advantages = _t([1.2, -0.7, 0.4, -1.5])
    mask = torch.tensor([[True, True, True, False, False], [True, True, True, True, True],
                         [True, False, False, False, False], [True, True, False, False, False]])
    # Padding that is legal but far from the policy: ratios near e^-20 and e^20, KL terms near e^20.
    noisy = [x.clone() for x in (new, old, refp)]
    noisy[0][~mask] = -20.0
    noisy[1][~mask] = -0.001
    noisy[2][~mask] = -0.001
    results = sub.grpo_loss.map([((_leaf(new), old, refp, advantages, mask), {}),
                                 ((_leaf(noisy[0]), noisy[1], noisy[2], advantages, mask), {})],
                                grads=("logp_new",))
    _expect_loss(results[0], new, old, refp, advantages, mask,
                 hint="(each completion's tokens are those where mask is True; the loss averages over them only)")
    _expect_loss(results[1], *noisy, advantages, mask,
                 hint=f"(the same completions as {results[0].call} with other values at the positions where mask is "
                      "False: the loss must not change; average over the masked tokens only)",
                 grad_hint="(positions where mask is False get exactly zero gradient)")


def _ordinary_completions(dtype):
    """Three completions of T = 4: two tokens, three tokens, none; ordinary values where mask is True."""
    generator = torch.Generator().manual_seed(23)
    new = -torch.rand(3, 4, generator=generator, dtype=F64) * 2 - 0.05
    old = (new - 0.1 * torch.randn(3, 4, generator=generator, dtype=F64).clamp(-1, 1)).clamp(max=0.0)
    refp = (new + 0.5 * torch.randn(3, 4, generator=generator, dtype=F64)).clamp(max=0.0)
    mask = torch.tensor([[True, True, False, False], [True, True, True, False], [False] * 4])
    return [x.to(dtype) for x in (new, old, refp)], _t([0.8, -1.1, 0.5], dtype), mask


@check("loss.padding_overflow", "Padding whose exp overflows (e^100 in float32, e^1000 in float64) leaves the loss "
       "and its gradient finite and unchanged", clauses=["loss.mask"])
def loss_padding_overflow(sub, ref):
    # Legal log-probabilities at the padded positions whose differences overflow exp: logp_new - logp_old = big
    # (the ratio) or logp_ref - logp_new = big (the k3 penalty), big = 100 in float32 (exp gives inf above 88.7)
    # and 1000 in float64 (above 709.8); the third completion is all padding. Selecting the padded terms away after
    # the exp keeps the loss finite but not the gradient: the backward pass multiplies the padding's zero gradient
    # by exp's inf, 0 * inf = nan. Expected: the loss and gradient of the same completions with clean padding.
    cases, calls = [], []
    for dtype, big in ((torch.float32, 100.0), (F64, 1000.0)):
        (new, old, refp), advantages, mask = _ordinary_completions(dtype)
        for path, padded in (("ratio", (0.0, -big, 0.0)), ("k3", (-big, -big, 0.0))):
            noisy = [x.clone() for x in (new, old, refp)]
            for x, value in zip(noisy, padded, strict=True):
                x[~mask] = value
            cases.append((path, big, noisy, advantages, mask))
            calls.append(((_leaf(noisy[0]), noisy[1], noisy[2], advantages, mask), {}))
    results = sub.grpo_loss.map(calls, grads=("logp_new",))
    for result, (path, big, noisy, advantages, mask) in zip(results, cases, strict=True):
        if path == "ratio":
            where = f"logp_new = 0 over logp_old = -{big:g}, so exp(logp_new - logp_old) = exp({big:g})"
        else:
            where = f"logp_ref = 0 over logp_new = -{big:g}, so the k3 term's exp(logp_ref - logp_new) = exp({big:g})"
        _expect_loss(result, *noisy, advantages, mask,
                     hint=f"(the padded positions, where mask is False, hold {where}, which overflows to inf; "
                          "padding must change neither the loss nor its gradient. Multiplying by the mask gives "
                          "inf * 0 = nan; replace the padded log-probabilities (by 0, say) before any exp)",
                     grad_hint=f"(the padded positions hold {where}, which overflows to inf. Selecting the padded "
                               "terms away after the exp (torch.where, masked_fill) keeps the loss finite, but the "
                               "backward pass still multiplies their zero gradient by that inf: 0 * inf = nan. "
                               "Replace the padded log-probabilities (by 0, say) before any exp, so no padded term "
                               "ever overflows; the padded positions' gradient is then exactly 0)")


@check("loss.tiny_probabilities", "Log-probabilities near -200 (float32) and -800 (float64), where exp underflows to 0",
       clauses=["loss.surrogate", "loss.kl"])
def loss_tiny_probabilities(sub, ref):
    # Legal log-probabilities so low that exp gives 0 (below -103 in float32, -745 in float64), with logp_old equal
    # to logp_new or half a nat away: the ratio is exp(logp_new - logp_old), 1 or exp(+-0.5), while
    # exp(logp_new) / exp(logp_old) is 0 / 0. The reference log-probabilities are the old ones, so the k3 term
    # exp(ref - new) is as ordinary; exp(ref) / exp(new) would be 0 / 0 too.
    calls, cases = [], []
    for dtype, low in ((torch.float32, -200.0), (F64, -800.0)):
        new = _t([[low, low - 0.5, -1.0], [low + 50, low + 1, -0.5]], dtype)
        old = _t([[low, low, -1.0], [low + 49.8, low + 1, -0.5]], dtype)
        advantages = _t([1.0, -0.5], dtype)
        mask = torch.ones(2, 3, dtype=torch.bool)
        cases.append((low, new, old, advantages, mask))
        calls.append(((_leaf(new), old, old.clone(), advantages, mask), {}))
    results = sub.grpo_loss.map(calls, grads=("logp_new",))
    for result, (low, new, old, advantages, mask) in zip(results, cases, strict=True):
        _expect_loss(result, new, old, old, advantages, mask,
                     hint=f"(log-probabilities near {low:g}, whose exp underflows to 0 in this dtype; the ratio is "
                          "exp(logp_new - logp_old), 1 where the two are equal: compute it from the difference of "
                          "the logs, never as exp(logp_new) / exp(logp_old), which is 0 / 0 here, and the k3 "
                          "term from exp(logp_ref - logp_new) the same way)")


# -------------------------------------------------------------------------------------------- experiment

PROMPTS, VOCAB, LENGTH, GROUP, STEPS, INNER, LEARNING_RATE, SEED = 6, 5, 4, 8, 20, 2, 0.2, 11
STOP = VOCAB - 1  # the end-of-answer token
BETAS = {"beta_small": 0.04, "beta_large": 0.4}  # the paper's beta, and ten times it


def _kl_to_reference(logits, reference):
    """The exact KL(pi || pi_ref), averaged over every (prompt, position) state."""
    log_p, log_q = torch.log_softmax(logits, dim=-1), torch.log_softmax(reference, dim=-1)
    return float((log_p.exp() * (log_p - log_q)).sum(dim=-1).mean())


@check("experiment.training", "Your two functions train a toy policy: mean reward and KL to the reference over 20 "
       "steps, with beta = 0.04 and beta = 0.4", group="experiment", required=False)
def experiment(sub, ref, ctx):
    # A step a request (60): a run of the whole training in the worker, replayed in one request per function,
    # cost more here once a request with gradients came down to about 1 ms (docs/authoring.md).
    series = training_series(lambda calls: live_advantages(sub, calls), lambda calls: live_gradients(sub, calls))
    ctx.record_experiment(steps=list(range(1, len(series["kl_beta_small"]) + 1)), series=series)


Calls = list[tuple[tuple[Any, ...], dict[str, Any]]]


def training_series(advantages_of: Callable[[Calls], list[Any] | None],
                    gradients_of: Callable[[Calls], list[Any] | None]) -> dict[str, list[float]]:
    """The chart's series, each step's calls answered by `advantages_of` (the two policies' advantages, checked)
    and `gradients_of` (their losses' gradients in logp_new). A None answer, or a
    gradient that is not finite, stops the run there, and the chart with it."""
    generator = torch.Generator().manual_seed(SEED)
    reference = training_reference(generator, PROMPTS, LENGTH, VOCAB, STOP)
    runs = {name: (reference.clone(), (torch.zeros_like(reference), torch.zeros_like(reference))) for name in BETAS}
    series: dict[str, list[float]] = {f"reward_{name}": [] for name in BETAS} | {f"kl_{name}": [] for name in BETAS}
    adam_step = 0
    for _ in range(STEPS):
        batches = {}
        for name, (logits, _) in runs.items():
            tokens, mask, rewards = training_rollouts(logits, generator, GROUP, STOP)
            batches[name] = (tokens, mask, rewards, training_logp(logits, tokens, GROUP).detach())
            series[f"reward_{name}"].append(float(rewards.mean()))
            series[f"kl_{name}"].append(_kl_to_reference(logits, reference))
        advantages = advantages_of([((batches[name][2], GROUP), {}) for name in BETAS])
        if advantages is None:
            return series
        taken = {name: value.detach().to(F64) for name, value in zip(BETAS, advantages, strict=True)}
        for _ in range(INNER):  # two updates per batch: on the second, logp_old is stale and the clip can bind
            adam_step += 1
            calls: Calls = []
            for name, (logits, _) in runs.items():
                tokens, mask, _, old = batches[name]
                calls.append(((training_logp(logits, tokens, GROUP).detach().requires_grad_(True), old,
                               training_logp(reference, tokens, GROUP).detach(), taken[name], mask, 0.2, BETAS[name]),
                              {}))
            gradients = gradients_of(calls)
            if gradients is None:
                return series
            for name, gradient in zip(BETAS, gradients, strict=True):
                if not (isinstance(gradient, torch.Tensor) and gradient.shape == (PROMPTS * GROUP, LENGTH)
                        and bool(torch.isfinite(gradient).all())):
                    return series  # no usable gradient: the chart stops here
                logits, adam = runs[name]
                runs[name] = training_adam_step(logits, batches[name][0], gradient, adam, adam_step, LEARNING_RATE,
                                                GROUP)
    return series


def usable_advantages(value: Any) -> bool:
    return isinstance(value, torch.Tensor) and value.shape == (PROMPTS * GROUP,)


def live_advantages(sub: Any, calls: Calls) -> list[Any]:
    results = sub.group_advantages.map(calls)
    for result in results:
        expect(usable_advantages(result.unwrap()), f"{result.call} returned another shape")
    return [result.value for result in results]


def live_gradients(sub: Any, calls: Calls) -> list[Any] | None:
    results = sub.grpo_loss.map(calls, grads=("logp_new",))
    for result in results:
        result.unwrap()
    return [result.grads.get("logp_new") for result in results]
