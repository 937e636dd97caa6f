"""Check battery for the DPO problem (Rafailov et al., 2023).

Groups `logprob`, `loss` and `contract` are required; `experiment` is advisory (it trains two toy policies with the
learner's functions and records the charts of the notes). The contract declared in problem.toml makes the generic
battery: values against the reference over shapes and both dtypes, layouts, empty batches and sequences, inputs
left unchanged, new storage, gradients into the logits and the policy log-probs (against the reference and central
differences), none into the reference log-probs, rewards that never require grad, refusals, a property search.
The checks here hold what a declaration cannot say: the hand examples, the alignment of labels and logits, the sum
over the completion, the mask, stability at logits and margins of 1e4, the sign and the place of beta, the mean
over pairs, the closed-form gradients and the default beta.

Expected values come from an independent float64 oracle below (not the reference). Tolerances: float64 results at
(1e-9 relative, 1e-9 absolute); float32 results against the exact value with an absolute allowance of 64 float32
epsilons times the size of the numbers the result is computed from (a logit of 1e4 carries a rounding error of
about 1e-3 in float32, and every correct order of operations stays within a few such errors), while every mutant is
off by far more.
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
    expect_grad_none,
    expect_rejected,
    expect_tensor,
)
from helpers import training_logits, training_step

F64 = torch.float64
F32 = torch.float32
EPS32 = torch.finfo(F32).eps
LN2 = math.log(2.0)


# ----------------------------------------------------------------------------------- an independent float64 oracle


def _logprob(logits, labels, mask):
    """sum over masked-in t of log_softmax(logits[b, t])[labels[b, t]], in float64."""
    z = logits.detach().to(F64)
    top = z.max(dim=-1, keepdim=True).values if z.numel() else z.sum(dim=-1, keepdim=True)
    log_norm = top + torch.log(torch.exp(z - top).sum(dim=-1, keepdim=True))
    picked = (z - log_norm).gather(-1, labels.unsqueeze(-1)).squeeze(-1)
    return torch.where(mask, picked, torch.zeros_like(picked)).sum(dim=-1)


def _logprob_grad(logits, labels, mask, cotangent):
    """d (cotangent . result) / d logits = cotangent[b] mask[b, t] (onehot(labels[b, t]) - softmax(logits[b, t]))."""
    z = logits.detach().to(F64)
    probs = torch.softmax(z, dim=-1)
    onehot = torch.nn.functional.one_hot(labels, z.shape[-1]).to(F64)
    return (onehot - probs) * mask.to(F64).unsqueeze(-1) * cotangent.to(F64)[:, None, None]


def _softplus(x):
    """log(1 + e^x), exact at any x."""
    return torch.clamp(x, min=0) + torch.log1p(torch.exp(-x.abs()))


def _sigmoid(x):
    z = torch.exp(-x.abs())
    return torch.where(x >= 0, 1 / (1 + z), z / (1 + z))


def _loss(pc, pr, rc, rr, beta):
    """(loss, chosen_rewards, rejected_rewards) in float64."""
    pc, pr, rc, rr = (t.detach().to(F64) for t in (pc, pr, rc, rr))
    chosen, rejected = beta * (pc - rc), beta * (pr - rr)
    return _softplus(-(chosen - rejected)).mean(), chosen, rejected


def _logprob_atol(logits, dtype):
    if dtype == F64:
        return 1e-9
    scale = float(logits.detach().abs().max()) if logits.numel() else 0.0
    return 64 * EPS32 * (1 + scale + math.log(logits.shape[-1])) * max(logits.shape[1], 1)


def _loss_atol(beta, tensors, dtype):
    if dtype == F64:
        return 1e-9
    scale = max(float(t.detach().abs().max()) for t in tensors)
    return 64 * EPS32 * beta * (1 + scale)


def _expect_logprob(result, logits, labels, mask, *, hint=""):
    got = result.unwrap()
    expect_tensor(got, shape=(logits.shape[0],), dtype=logits.dtype, call=result)
    expect_close(got, _logprob(logits, labels, mask).to(logits.dtype), call=result, rtol=1e-9,
                 atol=_logprob_atol(logits, logits.dtype), hint=hint)


def _expect_rewards(result, args, beta, *, hint=""):
    got = result.unwrap()
    expect(isinstance(got, tuple) and len(got) == 3,
           f"{result.call} returned {type(got).__name__}: expected a tuple (loss, chosen_rewards, rejected_rewards)")
    dtype = args[0].dtype
    expected = _loss(*args, beta)
    atol = _loss_atol(beta, args, dtype)
    for index, (value, wanted) in enumerate(zip(got, expected, strict=True)):
        what = ("the loss (item 0 of the result)", "chosen_rewards (item 1)", "rejected_rewards (item 2)")[index]
        expect_close(value, wanted.to(dtype), what=what, call=result, rtol=1e-9, atol=atol, hint=hint)
    return got


# ------------------------------------------------------------------------------------------------- inputs

HAND_LOGITS = [
    [[0.0, 0.0, 0.0], [math.log(2.0), 0.0, 0.0], [0.0, math.log(3.0), 0.0]],
    [[5.0, -1.0, 2.0], [0.0, 0.0, 0.0], [-3.0, 4.0, 1.0]],
]
HAND_LABELS = [[2, 0, 1], [1, 2, 0]]
HAND_MASK = [[False, True, True], [False, True, False]]


def _hand_logprob(dtype=F64):
    return (torch.tensor(HAND_LOGITS, dtype=dtype), torch.tensor(HAND_LABELS), torch.tensor(HAND_MASK))


def _random_logprob(seed, b, t, v, *, dtype=F64, scale=2.0, p_mask=0.6):
    generator = torch.Generator().manual_seed(seed)
    logits = scale * torch.randn(b, t, v, generator=generator, dtype=F64)
    labels = torch.randint(0, v, (b, t), generator=generator)
    mask = torch.rand(b, t, generator=generator) < p_mask
    return logits.to(dtype), labels, mask


def _t(values, dtype=F64):
    return torch.tensor(values, dtype=dtype)


# pc, pr, rc, rr for the hand example of the statement, beta = 0.5
HAND_PAIRS = ([-2.0, -4.0], [-3.0, -1.0], [-2.5, -3.0], [-2.5, -2.0])


def _random_pairs(seed, b, *, dtype=F64, scale=3.0):
    generator = torch.Generator().manual_seed(seed)
    base = -scale * torch.rand(4, b, generator=generator, dtype=F64) * 4  # log-probs: negative numbers
    return tuple(row.to(dtype) for row in base)


# --------------------------------------------------------------------------------------------------- logprob


@check("logprob.hand_example", "Hand example: two sequences, a prompt position and a padding position masked out",
       clauses=["logprob.aligned", "logprob.sum", "logprob.mask"])
def logprob_hand_example(sub, ref):
    # Row 0: position 0 is prompt (masked); position 1 has probabilities [1/2, 1/4, 1/4] and label 0 -> ln(1/2);
    # position 2 has [1/5, 3/5, 1/5] and label 1 -> ln(3/5); sum ln(0.3) = -1.2039728. Row 1: only position 1
    # counts, uniform over 3 tokens -> ln(1/3) = -1.0986123.
    logits, labels, mask = _hand_logprob()
    result = sub.sequence_logprob.call(logits, labels, mask)
    _expect_logprob(result, logits, labels, mask,
                    hint="(expected [ln 0.3, ln 1/3] = [-1.2039728, -1.0986123]: row 0 adds ln(1/2) at position 1 "
                         "and ln(3/5) at position 2; logits[:, t] scores labels[:, t], nothing is shifted, and masked "
                         "positions add nothing)")


@check("logprob.aligned", "Labels are aligned with the logits: a one-token completion, and a sharp model that "
       "predicts each label at its own position", clauses=["logprob.aligned"])
def logprob_aligned(sub, ref):
    # Each position's logits put 12 on that position's label and 0 elsewhere: its log-prob is
    # -log(1 + (V - 1) e^-12) ~ -2.5e-5. Scoring label t + 1 with logits t (a shift) gives about -12 per token.
    generator = torch.Generator().manual_seed(3)
    labels = torch.randint(0, 5, (3, 4), generator=generator)
    logits = 12.0 * torch.nn.functional.one_hot(labels, 5).to(F64)
    mask = torch.tensor([[False, True, True, True], [True, True, False, False], [False, False, False, True]])
    result = sub.sequence_logprob.call(logits, labels, mask)
    _expect_logprob(result, logits, labels, mask,
                    hint="(every position's logits put their mass on that position's own label, so each sequence's "
                         "log-prob is near 0; labels are already aligned: logits[:, t] scores labels[:, t], do not "
                         "shift them again)")


@check("logprob.sum_not_mean", "The completion's log-prob is the sum over its tokens: 1, 2 and 4 tokens under a "
       "uniform model give -ln 4, -2 ln 4, -4 ln 4", clauses=["logprob.sum", "logprob.mask"])
def logprob_sum_not_mean(sub, ref):
    logits = torch.zeros(3, 6, 4, dtype=F64)
    labels = torch.tensor([[0, 1, 2, 3, 0, 1]] * 3)
    mask = torch.tensor([[False, True, False, False, False, False],
                         [False, False, True, True, False, False],
                         [False, True, True, True, True, False]])
    result = sub.sequence_logprob.call(logits, labels, mask)
    _expect_logprob(result, logits, labels, mask,
                    hint="(a uniform model over 4 tokens gives each token ln(1/4); a completion of k tokens has "
                         "log-prob -k ln 4 = [-1.386, -2.773, -5.545]: sum the masked-in tokens, do not average "
                         "them, and divide by nothing)")


@check("logprob.mask", "Masked positions count for nothing: a row with no completion token gives exactly 0, and "
       "changing logits or labels under the mask changes nothing", clauses=["logprob.mask"])
def logprob_mask(sub, ref):
    logits, labels, mask = _random_logprob(11, 3, 5, 4)
    mask[1] = False  # row 1 has no completion token
    changed_logits, changed_labels = logits.clone(), labels.clone()
    hidden = ~mask
    changed_logits[hidden] = 30.0 * torch.randn(int(hidden.sum()), 4, generator=torch.Generator().manual_seed(12),
                                                dtype=F64)
    changed_labels[hidden] = (changed_labels[hidden] + 1) % 4
    first, second = sub.sequence_logprob.map([((logits, labels, mask), {}),
                                              ((changed_logits, changed_labels, mask), {})])
    _expect_logprob(first, logits, labels, mask,
                    hint="(only the positions where mask is True count; row 1 has none, so its log-prob is 0)")
    got = first.unwrap()
    expect(float(got[1]) == 0.0, f"{first.call} returned {got.tolist()}: row 1 has no True in its mask, so its "
           "log-prob must be exactly 0 (an empty sum)")
    expect_close(second.unwrap(), got, call=second,
                 hint=f"(only the logits and labels under mask = False differ from {first.call}: masked positions "
                      "are prompt or padding and must not change the result)")


@check("logprob.stable", "Logits of +-1e4: finite, exact log-probs and gradients in float32 and float64, masked "
       "positions included", clauses=["logprob.stable", "logprob.mask"])
def logprob_stable(sub, ref):
    # Row [1e4, 0, -1e4]: label 0 has log-prob 0, label 1 -1e4, label 2 -2e4; exp(1e4) overflows any float, and
    # softmax underflows to exactly 0 for labels 1 and 2, so log(softmax) gives -inf.
    logits = _t([[[1e4, 0.0, -1e4], [1e4, 0.0, -1e4], [0.0, -1e4, 1e4], [-1e4, 1e4, 0.0]],
                 [[1e4, 0.0, -1e4], [0.0, 0.0, 0.0], [0.0, 1e4, -1e4], [3.0, 1.0, -2.0]]])
    labels = torch.tensor([[0, 1, 1, 2], [2, 1, 0, 0]])
    mask = torch.tensor([[True, True, False, True], [False, True, True, True]])
    cotangent = _t([1.0, -2.0])
    calls = [((logits.to(dtype).requires_grad_(True), labels, mask), {}) for dtype in (F32, F64)]
    results = sub.sequence_logprob.map(calls, grads=("logits",), grad_outputs=[cotangent.to(F32), cotangent])
    for result, dtype in zip(results, (F32, F64), strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(2,), dtype=dtype, call=result)
        expect(bool(torch.isfinite(got.detach()).all()),
               f"{result.call} returned {got.detach().tolist()}: not finite. exp(1e4) overflows, and a softmax that "
               "underflows to 0 gives log 0 = -inf (and -inf * 0 = nan at a masked position): take a log-softmax, "
               "which subtracts each row's maximum first")
        _expect_logprob(result, logits.to(dtype), labels, mask,
                        hint="(expected [-2e4, -1e4 - ln 3 - 0.1328]: a label its row scores 1e4 below the row's "
                             "maximum has log-prob -1e4)")
        grad = result.grads.get("logits")
        expect(grad is None or bool(torch.isfinite(grad).all()),
               f"after backward() on {result.call}, logits.grad has nan or inf: the gradient of a log-softmax is "
               "onehot - softmax, finite everywhere; log(softmax) differentiates into 1 / 0 where the softmax "
               "underflowed, even at a masked position")
        expected_grad = _logprob_grad(logits, labels, mask, cotangent).to(dtype)
        expect_grad_close(result, "logits", expected_grad, rtol=1e-6, atol=1e-6,
                          source="mask * (onehot(label) - softmax(logits))",
                          hint="(each counted position's gradient is onehot(label) - softmax(logits); masked positions "
                               "get 0)")


@check("logprob.labels", "Labels must be valid ids everywhere: -100 (an ignore index) and V are refused with "
       "ValueError, masked or not", clauses=["logprob.labels"])
def logprob_labels(sub, ref):
    logits, labels, mask = _hand_logprob()
    cases = []
    for position, value in (((0, 0), -100), ((1, 2), -1), ((0, 1), 3)):
        bad = labels.clone()
        bad[position] = value
        where = "a masked position" if not bool(mask[position]) else "a counted position"
        cases.append(((logits, bad, mask), {}, f"labels holds {value} at {where}; ids must be in [0, V) = [0, 3) "
                      "everywhere (replace -100 padding by a valid id and let the mask exclude it)"))
    expect_rejected("ValueError", sub.sequence_logprob, cases)


@check("logprob.random", "Random batches against an exact computation, float64 and float32, with many masks",
       clauses=["logprob.aligned", "logprob.sum", "logprob.mask"])
def logprob_random(sub, ref):
    cases = [_random_logprob(21, 4, 7, 5), _random_logprob(22, 2, 3, 11, scale=8.0),
             _random_logprob(23, 3, 6, 4, dtype=F32), _random_logprob(24, 5, 1, 3, p_mask=0.5)]
    results = sub.sequence_logprob.map([(case, {}) for case in cases])
    for result, case in zip(results, cases, strict=True):
        _expect_logprob(result, *case, hint="(the sum over positions with mask True of log_softmax(logits[b, t])"
                        "[labels[b, t]], labels aligned with the logits)")


# ------------------------------------------------------------------------------------------------------ loss


@check("loss.hand_example", "Hand example: two pairs, beta = 0.5, margins +1 and -2", clauses=["loss.formula",
                                                                                             "loss.rewards"])
def loss_hand_example(sub, ref):
    # Pair 1: pc - rc = 0.5, pr - rr = -0.5, margin 1, beta * margin 0.5, -log sigmoid(0.5) = 0.4740770.
    # Pair 2: pc - rc = -1, pr - rr = 1, margin -2, beta * margin -1, -log sigmoid(-1) = 1.3132617.
    # loss = (0.4740770 + 1.3132617) / 2 = 0.8936693; chosen rewards [0.25, -0.5], rejected [-0.25, 0.5].
    args = tuple(_t(row) for row in HAND_PAIRS)
    result = sub.dpo_loss.call(*args, 0.5)
    _expect_rewards(result, args, 0.5,
                    hint="(loss = mean of -log sigmoid(beta ((pc - rc) - (pr - rr))) = (0.4740770 + 1.3132617) / 2 = "
                         "0.8936693; chosen_rewards = beta (pc - rc) = [0.25, -0.5], rejected_rewards = beta (pr - rr) "
                         "= [-0.25, 0.5])")


@check("loss.sign_and_mean", "Swapping chosen and rejected negates every margin; zero margin gives ln 2; the loss "
       "is a mean over pairs, not a sum", clauses=["loss.formula"])
def loss_sign_and_mean(sub, ref):
    pc, pr, rc, rr = _random_pairs(31, 4)
    tied = _t([-3.0, -1.0, -7.0])  # policy and reference equal: every margin is 0
    one = tuple(t[:1] for t in (pc, pr, rc, rr))
    repeated = tuple(t[:1].repeat(3) for t in (pc, pr, rc, rr))
    forward, swapped, zero, single, triple = sub.dpo_loss.map([
        ((pc, pr, rc, rr, 0.3), {}), ((pr, pc, rr, rc, 0.3), {}), ((tied, tied - 2.0, tied, tied - 2.0, 2.0), {}),
        ((*one, 0.3), {}), ((*repeated, 0.3), {})])
    _expect_rewards(forward, (pc, pr, rc, rr), 0.3,
                    hint="(the margin is (pc - rc) - (pr - rr): the chosen log-ratio minus the rejected one)")
    _expect_rewards(swapped, (pr, pc, rr, rc), 0.3,
                    hint=f"(chosen and rejected swapped relative to {forward.call}: every margin changes sign, so the "
                         "loss is the mean of -log sigmoid(-m) where it was the mean of -log sigmoid(m))")
    expect_close(zero.unwrap()[0], torch.tensor(LN2, dtype=F64), what="the loss", call=zero,
                 hint="(policy equal to the reference: every margin is 0 and -log sigmoid(0) = ln 2 = 0.6931472, "
                      "whatever beta)")
    expect_close(triple.unwrap()[0], single.unwrap()[0], what="the loss", call=triple,
                 hint=f"(the same pair three times must give the loss of the pair alone, {single.call}: the loss is "
                      "the mean over pairs, not their sum)")


@check("loss.beta", "beta scales the margin inside the sigmoid (and both rewards), and defaults to 0.1",
       clauses=["loss.beta", "loss.formula", "loss.rewards"])
def loss_beta(sub, ref):
    pc, pr, rc, rr = _random_pairs(41, 3)
    betas = [0.05, 1.0, 4.0]
    results = sub.dpo_loss.map([((pc, pr, rc, rr, beta), {}) for beta in betas] + [((pc, pr, rc, rr), {})])
    for result, beta in zip(results, [*betas, 0.1], strict=True):
        _expect_rewards(result, (pc, pr, rc, rr), beta,
                        hint=f"(beta = {beta}{' by default' if result is results[-1] else ''}: the loss is "
                             "-log sigmoid(beta * margin), beta inside the sigmoid, not beta * -log sigmoid(margin); "
                             "each reward is beta times its log-ratio)")


@check("loss.gradient", "Gradients: -(beta / B) sigmoid(-m) into pc, the opposite into pr, none into the "
       "reference log-probs even when they require grad; rewards detached", clauses=["loss.gradient", "loss.rewards"])
def loss_gradient(sub, ref):
    pc, pr, rc, rr = _random_pairs(51, 5)
    beta = 0.7
    args = tuple(t.clone().requires_grad_(True) for t in (pc, pr, rc, rr))
    names = ("policy_chosen_logps", "policy_rejected_logps", "ref_chosen_logps", "ref_rejected_logps")
    cotangent = (_t(1.0), torch.zeros(5, dtype=F64), torch.zeros(5, dtype=F64))
    result = sub.dpo_loss.call(*args, beta, grads=names, grad_output=cotangent)
    _, chosen, rejected = _loss(pc, pr, rc, rr, beta)
    weight = beta * _sigmoid(-(chosen - rejected)) / 5
    expect_grad_none(result, "ref_chosen_logps", "ref_rejected_logps",
                     hint="(the reference model is frozen: detach its log-probs inside dpo_loss, whatever the caller "
                          "passed, so no gradient reaches them)")
    expect_grad_close(result, "policy_chosen_logps", -weight, source="-(beta / B) sigmoid(-m)",
                      hint="(raising the chosen log-prob lowers the loss: d loss / d pc = -(beta / B) sigmoid(-m))")
    expect_grad_close(result, "policy_rejected_logps", weight, source="(beta / B) sigmoid(-m)",
                      hint="(d loss / d pr = +(beta / B) sigmoid(-m), m = beta ((pc - rc) - (pr - rr)): the "
                           "rejected answer is pushed down)")
    _, chosen_rewards, rejected_rewards = result.unwrap()
    for what, value in (("chosen_rewards", chosen_rewards), ("rejected_rewards", rejected_rewards)):
        expect(isinstance(value, torch.Tensor) and not value.requires_grad,
               f"{result.call}: {what} requires grad; the rewards are reported for logging and must be detached, "
               "so that nobody backpropagates through them by accident")


@check("loss.stable", "Margins of +-1e4 and beyond float32's exp range: finite, exact loss and gradients",
       clauses=["loss.stable", "loss.gradient"])
def loss_stable(sub, ref):
    # beta * margin = [1e4, -1e4, 200, -200, 0]: -log sigmoid gives [0, 1e4, ~1.4e-87, 200, ln 2], mean 2040.1386;
    # sigmoid(-200) underflows to 0 in float32 and sigmoid(-1e4) in float64, so log(sigmoid(m)) is -inf. At m = 0
    # the gradient is exactly beta / (2B): a formula with a kink there (max(-m, 0) + ...) must still get it right.
    pc = _t([0.0, -1e4, -1.0, -201.0, -5.0])
    pr = _t([-1e4, 0.0, -201.0, -1.0, -5.0])
    rc = _t([-5.0, -5.0, -3.0, -3.0, -2.0])
    rr = _t([-5.0, -5.0, -3.0, -3.0, -2.0])
    beta = 1.0
    _, chosen, rejected = _loss(pc, pr, rc, rr, beta)
    weight = beta * _sigmoid(-(chosen - rejected)) / 5
    results = sub.dpo_loss.map(
        [(tuple(t.to(dtype).requires_grad_(True) for t in (pc, pr, rc, rr)) + (beta,), {}) for dtype in (F32, F64)],
        grads=("policy_chosen_logps", "policy_rejected_logps"),
        grad_outputs=[tuple(c.to(dtype) for c in (_t(1.0), torch.zeros(5), torch.zeros(5))) for dtype in (F32, F64)])
    for result, dtype in zip(results, (F32, F64), strict=True):
        loss = result.unwrap()[0]
        expect(isinstance(loss, torch.Tensor) and bool(torch.isfinite(loss.detach()).all()),
               f"{result.call} returned the loss {loss}: not finite. -log(sigmoid(m)) is -log 0 = inf once "
               "sigmoid(m) underflows (m below -104 in float32, -745 in float64); -log sigmoid(m) = softplus(-m) "
               "is exact at any m (F.logsigmoid, F.softplus)")
        _expect_rewards(result, tuple(t.to(dtype) for t in (pc, pr, rc, rr)), beta,
                        hint="(-log sigmoid(m) is 0 at m = 1e4, 1e4 at m = -1e4, 200 at m = -200 and ln 2 at 0)")
        for name, sign in (("policy_chosen_logps", -1.0), ("policy_rejected_logps", 1.0)):
            grad = result.grads.get(name)
            expect(grad is None or bool(torch.isfinite(grad).all()),
                   f"after backward() on {result.call}, {name}.grad has nan or inf: the derivative of "
                   "log(sigmoid(m)) is computed as sigmoid'(m) / sigmoid(m) = 0 / 0 once sigmoid underflows; "
                   "use a log-sigmoid that never forms sigmoid(m)")
            expect_grad_close(result, name, (sign * weight).to(dtype), rtol=1e-6, atol=1e-7,
                              source="(beta / B) sigmoid(-m)",
                              hint="(the gradient's size is (beta / B) sigmoid(-m): 0.2 for a hugely "
                                   "negative margin, 0 for a hugely positive one, exactly 0.1 at m = 0, where "
                                   "max(-m, 0) has a kink whose autograd derivative is -1 or 0, not -1/2)")


@check("loss.random", "Random pairs against an exact computation, float64 and float32, B from 1 to 7",
       clauses=["loss.formula", "loss.rewards"])
def loss_random(sub, ref):
    cases = [(_random_pairs(61, 1), 0.1), (_random_pairs(62, 7), 0.25), (_random_pairs(63, 3, dtype=F32), 0.1),
             (_random_pairs(64, 4, scale=50.0), 2.0)]
    results = sub.dpo_loss.map([((*args, beta), {}) for args, beta in cases])
    for result, (args, beta) in zip(results, cases, strict=True):
        _expect_rewards(result, args, beta, hint="(mean over pairs of -log sigmoid(beta ((pc - rc) - (pr - rr))); "
                        "rewards beta (pc - rc) and beta (pr - rr))")


# ------------------------------------------------------------------------------------------------ experiment

STEPS, LEARNING_RATE, BETA = 20, 8.0, 0.5
# A toy language model: at each (prompt, position) a trainable context vector h, and the logits h @ E^T against a
# fixed unembedding E. In the "shared" model the tokens live in 2 dimensions, so raising one token moves others;
# in the "tabular" model E is the identity, every logit is its own parameter.
SHARED_E = [[1.0, 0.4],  # 0: the chosen answers' distinctive token
            [1.0, 0.0],  # 1: the rejected answers' distinctive token, close to token 0
            [-1.0, 0.5],  # 2
            [0.0, 3.0],  # 3: in no answer, but lying along e0 - e1
            [0.0, -1.0],  # 4
            [-0.5, -0.5]]  # 5
PROMPT_LEN = 2
CHOSEN = [[4, 5, 0, 2, 0, 0], [5, 4, 2, 0, 0, 0], [4, 4, 0, 0, 5, 0]]
REJECTED = [[4, 5, 1, 2, 1, 0], [5, 4, 2, 1, 0, 0], [4, 4, 1, 1, 5, 0]]
COMPLETION = [[False, False, True, True, True, False],  # two prompt positions, then the completion, then padding
              [False, False, True, True, False, False],
              [False, False, True, True, True, True]]


@check("experiment.training", "Experiment: two toy policies trained with your sequence_logprob and dpo_loss on "
       "three preference pairs", group="experiment", required=False)
def experiment(sub, ref, ctx):
    # A step a request (42): a run of the whole training in the worker, replayed in one request per function,
    # cost more here once a request with gradients came down to about 1 ms (docs/authoring.md).
    series = training_series(lambda calls: live_logprobs(sub, calls), lambda calls: live_losses(sub, calls))
    steps = list(range(len(series["shared_reward_margin"])))
    ctx.record_experiment(steps=steps, series={key: values[: len(steps)] for key, values in series.items()})


Calls = list[tuple[tuple[Any, ...], dict[str, Any]]]
MODELS = ("shared", "tabular")


def _unembeddings() -> dict[str, torch.Tensor]:
    return {"shared": torch.tensor(SHARED_E, dtype=F64), "tabular": torch.eye(6, dtype=F64)}


def training_series(logprobs_of: Callable[[Calls], list[Any] | None],
                    losses_of: Callable[[Calls], list[Any] | None]) -> dict[str, list[float]]:
    """The chart's series, each step's calls answered by `logprobs_of` ((log-probs, their Jacobian in the logits or
    None) for each model's chosen and rejected answers) and `losses_of` ((what dpo_loss returned, its loss's
    gradients in the chosen and rejected log-probs) for each model). A None
    answer ends the run at once; a missing gradient ends it after its step, and the chart with it."""
    models = _unembeddings()
    chosen, rejected, mask = torch.tensor(CHOSEN), torch.tensor(REJECTED), torch.tensor(COMPLETION)
    params = {name: torch.zeros(3, 6, e.shape[1], dtype=F64) for name, e in models.items()}
    series: dict[str, list[float]] = {f"{name}_{key}": [] for name in models
                                      for key in ("reward_margin", "chosen_logprob", "rejected_logprob")}
    series["shared_token_3_probability"] = []  # where the shared model's probability goes: a token in no answer
    differ = mask & (chosen != rejected)
    references = {}
    for step in range(STEPS + 1):
        # 1. your sequence_logprob on the chosen and rejected answers of both models, with the gradient of each
        #    row's log-prob with respect to its logits (a cotangent of ones: each row depends on its own logits)
        calls: Calls = []
        for name, e in models.items():
            logits = training_logits(params[name], e)
            for tokens in (chosen, rejected):
                calls.append(((logits.clone().requires_grad_(True), tokens, mask), {}))
        logprobs = logprobs_of(calls)
        if logprobs is None:
            return series
        probs = torch.softmax(training_logits(params["shared"], models["shared"]), dim=-1)  # [P, T, V]
        series["shared_token_3_probability"].append(float(probs[..., 3][differ].mean()))
        values, jacobians = {}, {}
        for index, name in enumerate(models):
            for offset, side in enumerate(("chosen", "rejected")):
                values[name, side], jacobians[name, side] = logprobs[2 * index + offset]
        if step == 0:  # the reference policy is the starting one
            references = {key: value.clone() for key, value in values.items()}
        # 2. your dpo_loss on them, with the gradients into the policy log-probs
        losses = losses_of([((values[name, "chosen"].clone().requires_grad_(True),
                              values[name, "rejected"].clone().requires_grad_(True), references[name, "chosen"],
                              references[name, "rejected"], BETA), {}) for name in models])
        if losses is None:
            return series
        stop = False
        for (answer, d_chosen, d_rejected), name in zip(losses, models, strict=True):
            _, chosen_rewards, rejected_rewards = answer
            series[f"{name}_reward_margin"].append(float((chosen_rewards - rejected_rewards).detach().mean()))
            series[f"{name}_chosen_logprob"].append(float(values[name, "chosen"].mean()))
            series[f"{name}_rejected_logprob"].append(float(values[name, "rejected"].mean()))
            if d_chosen is None or d_rejected is None or any(jacobians[name, s] is None for s in ("chosen",
                                                                                                  "rejected")):
                stop = True  # no gradient reaches the policy: the chart stops here
                continue
            # 3. the chain rule, in the judge: d loss / d logits, then d loss / d h, then a gradient step
            params[name] = training_step(params[name], models[name], d_chosen, jacobians[name, "chosen"], d_rejected,
                                         jacobians[name, "rejected"], LEARNING_RATE)
        if stop:
            return series
    return series


def usable_logprobs(value: Any) -> bool:
    return isinstance(value, torch.Tensor) and value.shape == (3,)


def live_logprobs(sub: Any, calls: Calls) -> list[Any]:
    results = sub.sequence_logprob.map(calls, grads=("logits",), grad_outputs=[torch.ones(3, dtype=F64)] * len(calls))
    answers = []
    for result in results:
        got = result.unwrap()
        expect(usable_logprobs(got), f"{result.call} returned another shape")
        answers.append((got.detach().to(F64), result.grads.get("logits")))
    return answers


def live_losses(sub: Any, calls: Calls) -> list[Any]:
    results = sub.dpo_loss.map(
        calls, grads=("policy_chosen_logps", "policy_rejected_logps"),
        grad_outputs=[(_t(1.0), torch.zeros(3, dtype=F64), torch.zeros(3, dtype=F64))] * len(calls))
    return [(result.unwrap(), result.grads.get("policy_chosen_logps"), result.grads.get("policy_rejected_logps"))
            for result in results]
