"""Check battery for the reward-model problem: the Bradley-Terry pairwise loss (Christiano et al., 2017; Ouyang et
al., 2022), Llama 2's margin (Touvron et al., 2023), soft labels, the pairwise accuracy and the K-choose-2 ranking
loss.

Groups `loss`, `gradients`, `accuracy`, `ranking` and `contract` are required; `experiment` is advisory (it records
the charts of the notes). The declared contract in problem.toml covers shapes, dtypes, layouts, inputs left
unchanged, new storage, requires_grad, gradients against the reference and central differences, the refused
arguments and a property search; the checks here hold what a declaration cannot say: the hand examples, the
direction of the difference, where the margin goes, soft labels, the mean, the empty batch, stability at
|z| = 1e4, the closed-form gradients, the tie convention of the accuracy, the order of a ranking and its pairs.

Tolerances: results are compared with an independent float64 oracle (a softplus that only exponentiates
non-positive numbers). float64 at rtol 1e-7 and atol 1e-9 (1 + max |z|); float32 at rtol 1e-5 and atol
16 eps32 (1 + max |z|): a correct float32 computation rounds z and each softplus once or twice, and a soft label
written as softplus(-z) + (1 - p) z cancels terms of size |z|, so its error scales with |z|. Every mutant is
off by far more (the self-test proves it).
"""

import functools
import math
from collections.abc import Callable
from typing import Any

import torch

from grader.checks import (
    Call,
    CheckFailed,
    WorkerLost,
    check,
    expect,
    expect_close,
    expect_grad_close,
    expect_rejected,
    expect_tensor,
    fail,
    legal_inputs,
    replay_agrees,
    seeded_randn,
)
from helpers import linear_step

F64 = torch.float64
F32 = torch.float32
EPS32 = torch.finfo(F32).eps
LN3 = math.log(3.0)
# z values at the extremes: float32's exp overflows beyond 88.7, float64's beyond 709.8
EXTREMES = [-1e4, -1000.0, -100.0, -89.0, -30.0, -1.0, 0.0, 1.0, 30.0, 89.0, 100.0, 1000.0, 1e4]


def _t(values, dtype=F64):
    return torch.tensor(values, dtype=dtype)


# -------------------------------------------------------------- an independent float64 oracle for the checks


def _softplus(x):
    """log(1 + e^x) in float64, exponentiating only non-positive numbers."""
    return x.clamp_min(0) + torch.log1p(torch.exp(-x.abs()))


def _z(r_chosen, r_rejected, margin=None):
    z = r_chosen.detach().double() - r_rejected.detach().double()
    return z if margin is None else z - margin.detach().double()


def _pair_losses(z, label=None):
    """-(p log sigma(z) + (1 - p) log sigma(-z)) = p softplus(-z) + (1 - p) softplus(z), float64."""
    if label is None:
        return _softplus(-z)
    p = label.detach().double()
    return p * _softplus(-z) + (1 - p) * _softplus(z)


def _loss(r_chosen, r_rejected, margin=None, label=None):
    losses = _pair_losses(_z(r_chosen, r_rejected, margin), label)
    return losses.sum() / max(losses.numel(), 1)


def _tolerances(dtype, z):
    scale = 1.0 + (float(z.abs().max()) if z.numel() else 0.0)
    if dtype == F32:
        return 1e-5, 16 * EPS32 * scale
    return 1e-7, 1e-9 * scale


def _expect_loss(result, expected, dtype, z, *, hint=""):
    """A 0-d tensor of `dtype`, finite, close to the float64 `expected`."""
    got = result.unwrap()
    expect_tensor(got, shape=(), dtype=dtype, call=result)
    if not bool(torch.isfinite(got.detach()).all()):
        fail(f"{result.call} returned {float(got.detach())}: not finite. "
             + (hint or "-log sigmoid(z) is softplus(-z): use a log-sigmoid that never takes the log of 0"))
    rtol, atol = _tolerances(dtype, z)
    expect_close(got, expected.to(dtype), call=result, rtol=rtol, atol=atol, hint=hint)


@legal_inputs("ranking_loss")
def _rankings_are_permutations(args, sizes):
    """Every ranking row must be a permutation of 0..K-1: order the drawn values (ties by position)."""
    ranking = args["ranking"]
    k = sizes["K"]
    keys = ranking * k + torch.arange(k)  # distinct keys, ordered as the draw
    args["ranking"] = keys.argsort(dim=1)
    return args


# ---------------------------------------------------------------------------------------------------- loss


@check("loss.hand_example", "Hand example: z = [ln 3, 0] gives the mean of ln(4/3) and ln 2",
       clauses=["loss.formula", "loss.mean"])
def hand_example(sub, ref):
    # pair 1: sigma(ln 3) = 3/4, so -log(3/4) = ln(4/3) = 0.287682; pair 2: z = 0, -log(1/2) = ln 2 = 0.693147;
    # the mean is 0.490415 (the sum would be 0.980829, the difference the other way round 1.039721)
    r_chosen, r_rejected = _t([LN3, 2.0]), _t([0.0, 2.0])
    result = sub.preference_loss.call(r_chosen, r_rejected)
    _expect_loss(result, _t((math.log(4 / 3) + math.log(2)) / 2), F64, _z(r_chosen, r_rejected),
                 hint="(the loss of a pair is -log sigmoid(r_chosen - r_rejected): ln(4/3) = 0.287682 for the first "
                      "pair, ln 2 = 0.693147 for the tie, and the batch loss is their mean 0.490415)")


@check("loss.margin", "A margin is subtracted inside the sigmoid: z = r_chosen - r_rejected - m",
       clauses=["loss.margin"])
def margin(sub, ref):
    # z = [2 ln 3 - ln 3, 1 - 1 - 0] = [ln 3, 0]: the hand example's 0.490415 again; with the margin added
    # (z = 3 ln 3) the first pair would cost ln(28/27) = 0.036368 and the mean 0.364758
    r_chosen, r_rejected, m = _t([2 * LN3, 1.0]), _t([0.0, 1.0]), _t([LN3, 0.0])
    r2_chosen, r2_rejected = seeded_randn(11, 5), seeded_randn(12, 5)
    with_margin, zero_margin, no_margin = sub.preference_loss.map([
        ((r_chosen, r_rejected, m), {}),
        ((r2_chosen, r2_rejected, torch.zeros(5, dtype=F64)), {}),
        ((r2_chosen, r2_rejected), {"margin": None}),
    ])
    _expect_loss(with_margin, _t((math.log(4 / 3) + math.log(2)) / 2), F64, _z(r_chosen, r_rejected, m),
                 hint="(the margin is what the difference must beat: z = r_chosen - r_rejected - margin = [ln 3, 0], "
                      "so the loss is 0.490415 as in the hand example; adding the margin would reward a pair for "
                      "being close)")
    expected = _loss(r2_chosen, r2_rejected)
    _expect_loss(zero_margin, expected, F64, _z(r2_chosen, r2_rejected), hint="(a margin of zeros changes nothing)")
    _expect_loss(no_margin, expected, F64, _z(r2_chosen, r2_rejected), hint="(margin=None means no margin, m = 0)")


@check("loss.soft_label", "Soft labels: p = 1 is the hard loss, p = 0 the swapped pair, p = 0.5 a tie",
       clauses=["loss.soft_label"])
def soft_label(sub, ref):
    # z = [ln 3, 0], p = 0.5: pair 1 costs 0.5 ln(4/3) + 0.5 ln 4 = 0.836988, the tie ln 2: the mean is 0.765068
    r_chosen, r_rejected = _t([LN3, 2.0]), _t([0.0, 2.0])
    half = _t([0.5, 0.5])
    a, b = seeded_randn(21, 6), seeded_randn(22, 6)
    p = torch.rand(6, generator=torch.Generator().manual_seed(23), dtype=F64)
    tie, ones, zeros, swapped, mixed, mixed_swapped = sub.preference_loss.map([
        ((r_chosen, r_rejected), {"label": half}),
        ((a, b), {"label": torch.ones(6, dtype=F64)}),
        ((a, b), {"label": torch.zeros(6, dtype=F64)}),
        ((b, a), {}),
        ((a, b), {"label": p}),
        ((b, a), {"label": 1 - p}),
    ])
    _expect_loss(tie, _t((0.5 * math.log(4 / 3) + 0.5 * math.log(4) + math.log(2)) / 2), F64,
                 _z(r_chosen, r_rejected),
                 hint="(a label p mixes both directions: p (-log sigmoid(z)) + (1 - p) (-log sigmoid(-z)); at p = 0.5 "
                      "and z = ln 3 that is 0.5 ln(4/3) + 0.5 ln 4 = 0.836988, and the batch mean is 0.765068)")
    z = _z(a, b)
    _expect_loss(ones, _loss(a, b), F64, z, hint="(label = 1 everywhere is the hard loss -log sigmoid(z))")
    _expect_loss(zeros, _loss(b, a), F64, z,
                 hint="(label = 0 says the rejected response was the better one: the loss of the swapped pair, "
                      "-log sigmoid(-z))")
    _expect_loss(swapped, _loss(b, a), F64, z, hint="(the hard loss of the swapped pairs)")
    _expect_loss(mixed, _loss(a, b, label=p), F64, z,
                 hint="(p (-log sigmoid(z)) + (1 - p) (-log sigmoid(-z)) per pair, then the mean)")
    expect_close(mixed_swapped.unwrap(), mixed.unwrap(), call=mixed_swapped,
                 hint=f"(swapping the two rewards and replacing p by 1 - p describes the same judgements as "
                      f"{mixed.call}, so the loss must be the same)")


@check("loss.mean", "The mean over pairs: duplicating the batch, or splitting it, changes nothing",
       clauses=["loss.mean"])
def mean(sub, ref):
    a, b, m = seeded_randn(31, 4), seeded_randn(32, 4), seeded_randn(33, 4).abs()
    once, twice, single = sub.preference_loss.map([
        ((a, b, m), {}),
        ((torch.cat([a, a]), torch.cat([b, b]), torch.cat([m, m])), {}),
        ((a[:1], b[:1], m[:1]), {}),
    ])
    _expect_loss(once, _loss(a, b, m), F64, _z(a, b, m), hint="(the mean over the 4 pairs)")
    expect_close(twice.unwrap(), once.unwrap(), call=twice,
                 hint=f"(every pair twice must give the loss of {once.call}: a mean, not a sum)")
    _expect_loss(single, _loss(a[:1], b[:1], m[:1]), F64, _z(a[:1], b[:1], m[:1]),
                 hint="(one pair: the loss is that pair's -log sigmoid(z))")


def _no_pairs(dtype, tracked=False):
    return torch.zeros(0, dtype=dtype).requires_grad_(tracked)


@check("loss.empty", "An empty batch gives 0.0, not nan, and keeps the graph", clauses=["loss.empty"])
def empty(sub, ref):
    calls, dtypes = [], []
    for dtype in (F64, F32):
        nothing = functools.partial(_no_pairs, dtype)
        # Both rewards on the graph, with and without the optional tensors; then only one of the other three: the
        # loss hangs from every input that requires grad, so any one of them is enough.
        for rewards, optional in (((nothing(True), nothing(True)), {}),
                                  ((nothing(True), nothing(True)), {"margin": nothing(), "label": nothing()}),
                                  ((nothing(), nothing(True)), {}),
                                  ((nothing(), nothing()), {"margin": nothing(True)}),
                                  ((nothing(), nothing()), {"label": nothing(True)})):
            calls.append((rewards, optional))
            dtypes.append(dtype)
    results = sub.preference_loss.map(calls, grads=("r_chosen", "r_rejected"))
    for result, dtype in zip(results, dtypes, strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(), dtype=dtype, call=result)
        expect(bool(torch.isfinite(got.detach()).all()),
               f"{result.call} returned {float(got.detach())}: the mean of no pairs is 0 / 0. Define it as 0.0: "
               "divide the sum "
               "by max(N, 1), so an empty micro-batch adds nothing to training instead of a nan")
        expect_close(got.detach(), torch.zeros((), dtype=dtype), call=result,
                     hint="(an empty batch has loss 0.0)")
        expect(bool(got.requires_grad),
               f"{result.call} returned a loss that does not require grad although an input does: compute the "
               "0.0 from every input (their sum over no pairs), not as a new tensor or from one of them only, so "
               "backward() still works")
        for name in ("r_chosen", "r_rejected"):
            grad = result.grads.get(name)
            expect(grad is None or (grad.numel() == 0),
                   f"after backward() on {result.call}, {name}.grad = {grad}: expected an empty gradient")


# ----------------------------------------------------------------------------------------------- gradients


@check("gradients.pairs", "Closed-form gradients: -(p - sigmoid(z)) / N into r_chosen, the opposite into r_rejected "
       "and the margin, -z / N into the label", clauses=["gradients.pairs"])
def gradient_pairs(sub, ref):
    n = 5
    a, b = seeded_randn(41, n), seeded_randn(42, n)
    m = seeded_randn(43, n).abs()
    p = torch.rand(n, generator=torch.Generator().manual_seed(44), dtype=F64)
    names = ("r_chosen", "r_rejected", "margin", "label")
    args = [t.clone().requires_grad_(True) for t in (a, b, m, p)]
    hard = [t.clone().requires_grad_(True) for t in (a, b)]
    soft, plain = sub.preference_loss.map([(tuple(args), {}), (tuple(hard), {})], grads=names[:2])
    z = _z(a, b, m)
    expected = -(p - torch.sigmoid(z)) / n
    hints = {
        "r_rejected": "(the rejected reward is trained too: its gradient is +(p - sigmoid(z)) / N, the chosen one's "
                      "with the opposite sign; a rejected reward computed under no_grad or detached gets none)",
        "r_chosen": "(d/dr_chosen of -(p log sigma(z) + (1 - p) log sigma(-z)) is -(p - sigma(z)), divided by N "
                    "for the mean)",
    }
    for name, sign in (("r_rejected", -1.0), ("r_chosen", 1.0)):
        expect_grad_close(soft, name, sign * expected, source="-(p - sigmoid(z)) / N", hint=hints[name])
    z_hard = _z(a, b)
    for name, sign in (("r_rejected", -1.0), ("r_chosen", 1.0)):
        expect_grad_close(plain, name, sign * -(1 - torch.sigmoid(z_hard)) / n, source="-(1 - sigmoid(z)) / N",
                          hint=hints[name])
    full = sub.preference_loss.call(*[t.clone().requires_grad_(True) for t in (a, b, m, p)], grads=names)
    expect_grad_close(full, "margin", expected.neg(), source="(p - sigmoid(z)) / N",
                      hint="(the margin enters as -m inside z, so its gradient is that of r_rejected)")
    expect_grad_close(full, "label", -z / n, source="-z / N",
                      hint="(d/dp of p softplus(-z) + (1 - p) softplus(z) is softplus(-z) - softplus(z) = -z)")


@check("loss.stable", "Value and gradients finite and correct at |z| up to 1e4, in float32 and float64",
       clauses=["loss.stable", "loss.soft_label", "loss.margin"])
def stable(sub, ref):
    exact_chosen = _t(EXTREMES)
    exact_rejected = torch.zeros(len(EXTREMES), dtype=F64)
    cases = []  # (r_chosen, r_rejected, margin, label, dtype)
    for dtype in (F32, F64):
        c, r = exact_chosen.to(dtype), exact_rejected.to(dtype)
        cases.append((c, r, None, None, dtype))
        cases.append((c, r, None, torch.full_like(c, 0.5), dtype))
        cases.append((c / 2, -c / 2, None, torch.full_like(c, 0.25), dtype))
        cases.append((r, r, -c, None, dtype))
    calls = [((c.clone().requires_grad_(True), r.clone().requires_grad_(True)),
              {} if m is None and p is None else {"margin": m, "label": p}) for c, r, m, p, _ in cases]
    results = sub.preference_loss.map(calls, grads=("r_chosen", "r_rejected"))
    for result, (c, r, m, p, dtype) in zip(results, cases, strict=True):
        z = _z(c, r, m)
        _expect_loss(result, _loss(c, r, m, p), dtype, z,
                     hint="(at z = -1e4 the loss of the pair is 1e4 and at z = 1e4 it is 0: log(sigmoid(z)) is "
                          "log 0 = -inf once the sigmoid underflows, and log(1 + exp(-z)) overflows; use a stable "
                          "log-sigmoid, -log sigmoid(z) = softplus(-z))")
        n = len(EXTREMES)
        label = torch.ones(n, dtype=F64) if p is None else p.double()
        expected = -(label - torch.sigmoid(z)) / n
        rtol, atol = (1e-5, 16 * EPS32 / n) if dtype == F32 else (1e-9, 1e-12)
        for name, sign in (("r_chosen", 1.0), ("r_rejected", -1.0)):
            grad = result.grads.get(name)
            expect(grad is None or bool(torch.isfinite(grad).all()),
                   f"after backward() on {result.call}, {name}.grad = {None if grad is None else grad.tolist()} is "
                   "not finite: an exp inside your log-sigmoid overflowed, or a torch.where between two formulas "
                   "let the discarded branch's inf leak into the gradient as 0 * inf. Use torch's logsigmoid (or "
                   "softplus), whose gradient is sigmoid-based and saturates")
            expect_grad_close(result, name, (sign * expected).to(dtype), rtol=rtol, atol=atol,
                              source="-(p - sigmoid(z)) / N",
                              hint="(at z = -1e4 with p = 1 the gradient into r_chosen is -1 / N, at z = 1e4 it is 0)")


# ------------------------------------------------------------------------------------------------ accuracy


@check("accuracy.hand_example", "Accuracy of [2, 1, 0, 3] against [1, 1, 1, -1]: two wins and a tie of four",
       clauses=["accuracy.ties"])
def accuracy_hand(sub, ref):
    # wins at pairs 0 and 3, a tie at pair 1 (counts 1/2), a loss at pair 2: (1 + 0.5 + 0 + 1) / 4 = 0.625
    result = sub.preference_accuracy.call(_t([2.0, 1.0, 0.0, 3.0]), _t([1.0, 1.0, 1.0, -1.0]))
    got = result.unwrap()
    expect(isinstance(got, float) and not isinstance(got, bool),
           f"{result.call} returned {type(got).__name__} {got!r}: the accuracy is a Python float (float(...))")
    expect_close(got, 0.625, call=result, rtol=1e-6, atol=1e-6,
                 hint="(two pairs ordered right, one exact tie counting 1/2, one wrong: 2.5 / 4 = 0.625; counting "
                      "the tie as right gives 0.75, as wrong 0.5)")


@check("accuracy.ties", "A constant reward scores 0.5; swapping the arguments gives 1 minus the accuracy; rewards "
       "that require grad are fine", clauses=["accuracy.ties"])
def accuracy_ties(sub, ref):
    a = seeded_randn(51, 7)
    b = seeded_randn(52, 7)
    b[2] = a[2]  # one exact tie
    a32 = _t([0.1, 1e-8, 3.0], F32)
    constant = torch.full((5,), 2.0, dtype=F64)
    calls = [
        ((constant, constant.clone()), {}),
        ((a, b), {}),
        ((b, a), {}),
        ((a32, a32.clone()), {}),
        ((a.clone().requires_grad_(True), b.clone().requires_grad_(True)), {}),
    ]
    same, forward, backward, ties32, graded = sub.preference_accuracy.map(calls)
    expect_close(same.unwrap(), 0.5, call=same, rtol=1e-6, atol=1e-6,
                 hint="(a reward model that gives every response the same score knows nothing: every pair is a tie, "
                      "and a tie counts 1/2, so it scores chance, 0.5)")
    expected = float(((a > b).double() + 0.5 * (a == b).double()).mean())
    expect_close(forward.unwrap(), expected, call=forward, rtol=1e-6, atol=1e-6,
                 hint="(wins plus half the ties, over the number of pairs)")
    expect_close(forward.unwrap() + backward.unwrap(), 1.0, rtol=1e-6, atol=1e-6, call=backward,
                 hint=f"(with the arguments swapped every win becomes a loss and a tie stays a tie: the two "
                      f"accuracies must add up to 1; {forward.call} gave {forward.unwrap()})")
    expect_close(ties32.unwrap(), 0.5, call=ties32, rtol=1e-6, atol=1e-6,
                 hint="(equal float32 rewards are ties: 0.5)")
    got = graded.unwrap()
    expect(isinstance(got, float) and not isinstance(got, bool),
           f"{graded.call} returned {type(got).__name__}: a Python float is expected even when the rewards require "
           "grad (compare detached values, or under torch.no_grad())")
    expect_close(got, expected, call=graded, rtol=1e-6, atol=1e-6)


# ------------------------------------------------------------------------------------------------- ranking


def _ranking_oracle(rewards, ranking):
    """Mean over prompts of the mean over positions a < b of softplus(-(r[order[a]] - r[order[b]])), float64."""
    rewards = rewards.detach().double()
    if rewards.shape[0] == 0:
        return torch.zeros((), dtype=F64)
    per_prompt = []
    for row, order in zip(rewards, ranking, strict=True):
        ordered = row[order]
        k = len(ordered)
        pairs = [_softplus(-(ordered[i] - ordered[j])) for i in range(k) for j in range(i + 1, k)]
        per_prompt.append(torch.stack(pairs).mean())
    return torch.stack(per_prompt).mean()


@check("ranking.hand_example", "Hand example: rewards [1, 3, 2] ranked 1, 2, 0 (best first)",
       clauses=["ranking.order", "ranking.pairs"])
def ranking_hand(sub, ref):
    # best first the rewards are 3, 2, 1; the pairs (3, 2), (3, 1), (2, 1) have z = 1, 2, 1 and cost
    # softplus(-1) = 0.313262, softplus(-2) = 0.126928, 0.313262: the mean over C(3, 2) = 3 pairs is 0.251151
    rewards, ranking = _t([[1.0, 3.0, 2.0]]), torch.tensor([[1, 2, 0]])
    result = sub.ranking_loss.call(rewards, ranking)
    _expect_loss(result, _ranking_oracle(rewards, ranking), F64, _t([2.0]),
                 hint="(ranking lists response indices from best to worst: response 1 (reward 3) beats response 2 "
                      "(reward 2), which beats response 0 (reward 1); the three pairs cost 0.313262, 0.126928 and "
                      "0.313262, and their mean is 0.251151. Reading the row as each response's rank gives 1.251)")


@check("ranking.pairs", "All C(K, 2) pairs per prompt, weighted 1 / C(K, 2), then the mean over prompts",
       clauses=["ranking.pairs", "ranking.order"])
def ranking_pairs(sub, ref):
    generator = torch.Generator().manual_seed(61)
    rewards4 = torch.randn(3, 4, generator=generator, dtype=F64)
    ranking4 = torch.stack([torch.randperm(4, generator=generator) for _ in range(3)])
    rewards2 = torch.randn(5, 2, generator=generator, dtype=F64)
    ranking2 = torch.stack([torch.randperm(2, generator=generator) for _ in range(5)])
    rewards5 = torch.randn(2, 5, generator=generator, dtype=F64)
    ranking5 = torch.stack([torch.randperm(5, generator=generator) for _ in range(2)])
    k4, k2, k5, first = sub.ranking_loss.map([((rewards4, ranking4), {}), ((rewards2, ranking2), {}),
                                              ((rewards5, ranking5), {}), ((rewards4[:1], ranking4[:1]), {})])
    hint = ("(each prompt compares every earlier response of its ranking with every later one, K (K - 1) / 2 pairs, "
            "not only neighbours; their losses are averaged within the prompt, then over prompts)")
    for result, (r, o) in zip((k4, k2, k5, first), ((rewards4, ranking4), (rewards2, ranking2), (rewards5, ranking5),
                                                    (rewards4[:1], ranking4[:1])), strict=True):
        _expect_loss(result, _ranking_oracle(r, o), F64, r.max() - r.min(), hint=hint)
    winners = rewards2.gather(1, ranking2[:, :1]).squeeze(1)
    losers = rewards2.gather(1, ranking2[:, 1:]).squeeze(1)
    expect_close(k2.unwrap(), _loss(winners, losers), call=k2,
                 hint="(with K = 2 each prompt is one pair: the mean of -log sigmoid(r_first - r_second))")


@check("ranking.empty_and_stable", "No prompts gives 0.0; rewards 1e4 apart give finite, correct values and "
       "gradients in float32 and float64", clauses=["ranking.pairs", "loss.stable"])
def ranking_empty_and_stable(sub, ref):
    calls, expected, dtypes = [], [], []
    ranking = torch.tensor([[2, 0, 1], [0, 1, 2]])
    for dtype in (F32, F64):
        empty = torch.zeros(0, 3, dtype=dtype).requires_grad_(True)
        calls.append(((empty, torch.zeros(0, 3, dtype=torch.int64)), {}))
        expected.append((torch.zeros((), dtype=F64), None))
        rewards = _t([[1e4, -1e4, 0.0], [-1e4, 0.0, 1e4]], dtype)
        calls.append(((rewards.clone().requires_grad_(True), ranking), {}))
        exact = rewards.double().requires_grad_(True)
        value = _ranking_oracle(exact, ranking)
        grad, = torch.autograd.grad(_ranking_oracle_graph(exact, ranking), exact)
        expected.append((value, grad))
        dtypes += [dtype, dtype]
    results = sub.ranking_loss.map(calls, grads=("rewards",))
    for result, (value, grad), dtype in zip(results, expected, dtypes, strict=True):
        _expect_loss(result, value, dtype, _t([2e4]),
                     hint="(no prompt gives 0.0; a pair ranked against rewards 2e4 apart costs 2e4, one ranked "
                          "with them 0: use a stable log-sigmoid, and divide by max(P, 1))")
        if grad is None:
            expect(bool(result.unwrap().requires_grad),
                   f"{result.call} returned a loss that does not require grad: compute the 0.0 from the rewards")
            continue
        g = result.grads.get("rewards")
        expect(g is not None and bool(torch.isfinite(g).all()),
               f"after backward() on {result.call}, rewards.grad = {None if g is None else g.tolist()}: expected "
               "finite gradients (a stable log-sigmoid saturates instead of overflowing)")
        rtol, atol = (1e-5, 16 * EPS32) if dtype == F32 else (1e-9, 1e-12)
        expect_grad_close(result, "rewards", grad.to(dtype), rtol=rtol, atol=atol, source="the exact gradient")


def _ranking_oracle_graph(rewards, ranking):
    """The oracle with its graph (rewards float64 requiring grad), for exact gradients."""
    per_prompt = []
    for row, order in zip(rewards, ranking, strict=True):
        ordered = row[order]
        k = len(ordered)
        per_prompt.append(torch.stack([_softplus(-(ordered[i] - ordered[j]))
                                       for i in range(k) for j in range(i + 1, k)]).mean())
    return torch.stack(per_prompt).mean()


@check("ranking.permutation", "A ranking row with a response missing or repeated is refused with ValueError",
       clauses=["ranking.permutation"])
def ranking_permutation(sub, ref):
    rewards = seeded_randn(71, 2, 3)
    expect_rejected("ValueError", sub.ranking_loss, [
        ((rewards, torch.tensor([[0, 0, 1], [2, 1, 0]])), {}, "response 0 appears twice and response 2 never"),
        ((rewards, torch.tensor([[0, 1, 2], [1, 1, 1]])), {}, "the second row ranks response 1 three times"),
        ((rewards[:, :2], torch.tensor([[1, 1], [0, 1]])), {}, "the first row ranks response 1 twice"),
    ])


# ---------------------------------------------------------------------------------------------- experiment

FEATURES, TRAIN_PAIRS, HELD_OUT, STEPS, LEARNING_RATE = 6, 1000, 1000, 15, 4.0


def _synthetic():
    """A hidden linear reward w* . x, and pairs whose winner is drawn from Bradley-Terry: P(a beats b) =
    sigmoid(w* . x_a - w* . x_b). Returns w*, the training pairs (chosen, rejected) as drawn, and held-out pairs
    ordered by the true reward."""
    generator = torch.Generator().manual_seed(7)
    w_true = torch.randn(FEATURES, generator=generator, dtype=F64)

    def pairs(n):
        a = torch.randn(n, FEATURES, generator=generator, dtype=F64)
        b = torch.randn(n, FEATURES, generator=generator, dtype=F64)
        a_wins = torch.rand(n, generator=generator, dtype=F64) < torch.sigmoid(a @ w_true - b @ w_true)
        return torch.where(a_wins[:, None], a, b), torch.where(a_wins[:, None], b, a)

    train_chosen, train_rejected = pairs(TRAIN_PAIRS)
    a, b = pairs(HELD_OUT)
    a_better = (a @ w_true >= b @ w_true)[:, None]
    return w_true, train_chosen, train_rejected, torch.where(a_better, a, b), torch.where(a_better, b, a)


def _train(sub, chosen, rejected):
    """Full-batch gradient descent on a linear reward w . x with your preference_loss: your loss and its gradients
    into the two reward vectors, chained through the features here (one call per step, or the whole run in one
    request when a replay confirms it: run_in_one_request). Returns the weights after each step and your loss
    before it; the run stops early when your loss gives no gradient."""
    trained = run_in_one_request(sub, chosen, rejected)
    if trained is not None:
        return trained
    return _train_with(chosen, rejected, lambda call: _live_loss(sub, call))




def _train_with(chosen, rejected, answer: Callable[[Call], tuple[float, Any, Any]]):
    """The run, each step's call answered by `answer` with (loss, gradient into r_chosen, into r_rejected)."""
    w = torch.zeros(FEATURES, dtype=F64)
    weights, losses = [w], []
    for step in range(STEPS + 1):
        loss, g_chosen, g_rejected = answer((((chosen @ w).requires_grad_(True),
                                               (rejected @ w).requires_grad_(True)), {}))
        losses.append(loss)
        if g_chosen is None or g_rejected is None or step == STEPS:
            break
        w = linear_step(w, chosen, rejected, g_chosen, g_rejected, LEARNING_RATE)
        weights.append(w)
    return weights[: len(losses)], losses


def _live_loss(sub, call: Call) -> tuple[float, Any, Any]:
    result = sub.preference_loss.call(*call[0], grads=("r_chosen", "r_rejected"))
    return float(result.unwrap().detach()), result.grads.get("r_chosen"), result.grads.get("r_rejected")


class _NotTheRun(Exception):
    """A record of the worker's run that is not the form the judge's steps need."""


def run_in_one_request(sub, chosen, rejected):
    """What _train_with and _live_loss give, in two requests instead of 16, or None.

    The worker runs the training (helpers.linear_run, with the same step as _train_with's) and returns every call's
    loss and gradients. The judge takes them as the answers to its own steps, building each step's call from its
    own weights, then makes all those calls again in one request. Only when every answer is bit for bit the run's
    is this the training the live calls give: by induction from w = 0, each step's call gets the same input and the
    same answer. Anything else (a run that raised or broke a limit, a record of the wrong form, a function that
    answers the same input differently) returns None, and the training runs a step a request."""
    try:
        run = sub.from_helpers("linear_run", uses=("preference_loss",)).call(chosen, rejected, STEPS, LEARNING_RATE)
    except (CheckFailed, WorkerLost):
        return None
    records = run.value if run.raised is None else None
    if not (isinstance(records, list) and len(records) == STEPS + 1):
        return None
    steps = iter(records)
    made: list[tuple[Call, Any]] = []

    def recorded(call: Call) -> tuple[float, Any, Any]:
        record = next(steps)
        if not (isinstance(record, tuple | list) and len(record) == 3
                and all(isinstance(t, torch.Tensor) for t in record) and record[0].shape == ()):
            raise _NotTheRun
        made.append((call, record))
        return float(record[0]), record[1], record[2]

    try:
        trained = _train_with(chosen, rejected, recorded)
        agrees = replay_agrees(sub.preference_loss, made, grads=("r_chosen", "r_rejected"))
    except (_NotTheRun, CheckFailed, WorkerLost):
        return None
    return trained if agrees else None


@check("experiment.training", "A linear reward model trained with your loss on Bradley-Terry preferences: loss, "
       "accuracy, and how close the recovered reward comes to the hidden one", group="experiment", required=False)
def experiment_training(sub, ref, ctx):
    w_true, chosen, rejected, held_chosen, held_rejected = _synthetic()
    weights, losses = _train(sub, chosen, rejected)
    # the accuracies do not steer the training: all of them in one round trip, after it
    calls = [((chosen @ w_true, rejected @ w_true), {})]
    for w in weights:
        calls += [((chosen @ w, rejected @ w), {}), ((held_chosen @ w, held_rejected @ w), {})]
    accuracies = [result.unwrap() for result in sub.preference_accuracy.map(calls)]
    best = sub.preference_loss.call(chosen @ w_true, rejected @ w_true).unwrap()
    cosines = [float(torch.nn.functional.cosine_similarity(w, w_true, dim=0)) for w in weights]
    ctx.record_experiment(steps=list(range(len(losses))), series={
        "training_loss": losses,
        "loss_of_true_reward": [float(best)] * len(losses),
        "training_accuracy": accuracies[1::2],
        "accuracy_of_true_reward": [accuracies[0]] * len(losses),
        "held_out_agreement": accuracies[2::2],
        "direction_cosine": cosines,
        "scale_ratio": [float(w.norm() / w_true.norm()) for w in weights],
    })
    expect(len(losses) == STEPS + 1, f"your preference_loss gave no gradient to the rewards at step {len(losses) - 1}:"
           " the training stopped there")
    expect(losses[-1] < losses[0] - 0.2 and accuracies[-1] > 0.9 and cosines[-1] > 0.95,
           f"{STEPS} steps of gradient descent on your preference_loss took the loss from {losses[0]:.4f} to "
           f"{losses[-1]:.4f}, left the held-out agreement with the hidden reward at {accuracies[-1]:.3f} and the "
           f"cosine between the learned and the hidden weights at {cosines[-1]:.3f}: a correct loss reaches about "
           "0.32, 0.97 and 0.997")
