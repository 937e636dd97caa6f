"""Check battery for the REINFORCE problem (Williams, 1992).

Groups `returns`, `loss` and `baseline` are required, with the generic battery `contract`; `experiment` is
advisory (it records the charts of the notes). The declared contract in problem.toml covers shapes, dtypes,
layouts, inputs left unchanged, new storage, requires_grad, gradients against the reference and central
differences, the detached returns and baseline, the refused arguments and a property search; the checks here
hold what a declaration cannot say: the hand examples, reward-to-go against the whole-episode return and against
a discount run forwards, episodes that never mix, gamma at 0 and 1, long horizons, episodes of length 0 kept on
the autograd graph (the battery excuses an empty result from requires_grad), the sign and the mean of the
surrogate, its gradient chained through a softmax bandit and a three-state chain against the analytic estimate,
a step of gradient descent that must favour the better arm, and the moving-average baseline, whose empty-batch
result must be new storage that does not require grad, also when the baseline or the returns do (the
generic battery's empty batch finds it too; these cases say it in the learner's terms).

Tolerances: every expectation is computed here in float64 from independent formulas; float64 results are
compared at the defaults (1e-7 relative, 1e-9 absolute) and float32 ones at (1e-5, 1e-5) against values of
order 1 to 100, where a correct float32 computation is a few float32 epsilons (1.2e-7) of its scale away.
"""

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
    expect_grad_none,
    expect_no_alias,
    expect_tensor,
    fail,
    replay_agrees,
)
from helpers import bandit_calls, bandit_scores, bandit_step

F64 = torch.float64
F32 = torch.float32


def _t(values, dtype=F64):
    return torch.tensor(values, dtype=dtype)


def _tolerances(dtype):
    return (1e-5, 1e-5) if dtype == F32 else (1e-7, 1e-9)


# ------------------------------------------------------------------------- independent float64 oracles


def _reward_to_go(rewards, gamma):
    """G_t = sum_{k >= t} gamma^(k - t) r_k along the last axis, as one matrix product in float64."""
    r = rewards.detach().to(F64)
    steps = r.shape[-1]
    k = torch.arange(steps, dtype=F64)
    lag = k[:, None] - k[None, :]  # [k, t]: how far step k lies after step t
    weights = torch.where(lag >= 0, torch.tensor(float(gamma), dtype=F64).pow(lag.clamp_min(0)),
                          torch.zeros((), dtype=F64))
    return r @ weights  # [..., T] x [T, T] -> [..., T]


def _loss(log_probs, returns, baseline=None):
    lp, g = log_probs.detach().to(F64), returns.detach().to(F64)
    advantage = g if baseline is None else g - baseline.detach().to(F64)
    return -(lp * advantage).sum() / max(lp.numel(), 1)


def _expect_returns(result, rewards, gamma, *, hint=""):
    got = result.unwrap()
    expect_tensor(got, shape=tuple(rewards.shape), dtype=rewards.dtype, call=result)
    rtol, atol = _tolerances(rewards.dtype)
    expect_close(got, _reward_to_go(rewards, gamma).to(rewards.dtype), call=result, rtol=rtol, atol=atol, hint=hint)


# -------------------------------------------------------------------------------------------------- returns


@check("returns.hand_example", "Hand example: rewards [1, 0, 2] at gamma = 0.5 give reward-to-go [1.5, 1, 2]",
       clauses=["returns.reward_to_go"])
def returns_hand_example(sub, ref):
    # G_2 = 2; G_1 = 0 + 0.5 * 2 = 1; G_0 = 1 + 0.5 * 1 = 1.5. The whole-episode return would be [1.5, 1.5, 1.5],
    # a discount run forwards [1, 0.5, 2.25], a discount counted from the episode's start [1.5, 0.5, 0.5].
    rewards = _t([1.0, 0.0, 2.0])
    result = sub.discounted_returns.call(rewards, 0.5)
    _expect_returns(result, rewards, 0.5, hint="(G_t = r_t + gamma G_{t+1}, from the last step backwards: G_2 = 2, "
                    "G_1 = 0 + 0.5 * 2 = 1, G_0 = 1 + 0.5 * 1 = 1.5; each step sums only its own and later rewards, "
                    "and its own reward is not discounted)")


@check("returns.random", "Reward-to-go of random episodes, float32 and float64, against the closed form; "
       "episodes of length 0 stay on the autograd graph", clauses=["returns.reward_to_go", "returns.empty"])
def returns_random(sub, ref):
    generator = torch.Generator().manual_seed(11)
    cases = []
    for steps, gamma, dtype in ((7, 0.9, F64), (5, 0.3, F32), (12, 0.99, F64), (1, 0.5, F32)):
        cases.append((torch.randn(steps, generator=generator, dtype=F64).to(dtype), gamma))
    # T = 0: an empty result, which requires grad exactly when the rewards do (both ways)
    empty = [(torch.zeros(shape, dtype=dtype).requires_grad_(grad), gamma)
             for shape, dtype, grad, gamma in (((0,), F64, True, 0.9), ((3, 0), F32, True, 0.5),
                                               ((2, 0), F64, False, 0.9))]
    results = sub.discounted_returns.map([((r, g), {}) for r, g in cases + empty])
    for result, (rewards, gamma) in zip(results, cases + empty, strict=True):
        _expect_returns(result, rewards, gamma, hint="(G_t = sum over k >= 0 of gamma^k r_{t+k}: the exponent "
                        "counts steps after t, not steps since the episode began)")
    for result, (rewards, _) in zip(results[len(cases):], empty, strict=True):
        got = result.unwrap()
        if rewards.requires_grad:
            expect(got.requires_grad, f"{result.call} returned an empty tensor that does not require grad, although "
                   "rewards does: the result of T = 0 must stay on the autograd graph like every other (build it from "
                   "rewards, e.g. rewards.clone() or rewards * 1, not with torch.empty, torch.zeros or .detach())")
        else:
            expect(not got.requires_grad, f"{result.call} returned a tensor that requires grad, although rewards "
                   "does not: nothing it depends on requires grad")


@check("returns.episodes", "Each row is its own episode: a batch equals its rows alone, and zero padding after "
       "an episode changes none of its returns", clauses=["returns.episodes"])
def returns_episodes(sub, ref):
    # Three episodes of lengths 4, 2 and 3, padded with zero rewards to T = 4.
    episodes = [[1.0, -2.0, 0.5, 3.0], [2.0, 1.0], [0.0, 4.0, -1.0]]
    padded = _t([e + [0.0] * (4 - len(e)) for e in episodes])
    batch3 = torch.stack([padded, 2.0 * padded])  # [2, 3, 4]: two leading dimensions
    calls = [((padded, 0.9), {}), ((batch3, 0.9), {})] + [((_t(e), 0.9), {}) for e in episodes]
    results = sub.discounted_returns.map(calls)
    _expect_returns(results[0], padded, 0.9, hint="(every row of rewards [..., T] is a separate episode: the "
                    "return of one row never includes another row's rewards; walk along the last axis only, "
                    "never over the flattened batch)")
    _expect_returns(results[1], batch3, 0.9, hint="(any number of leading dimensions: each vector along the last "
                    "axis is one episode)")
    whole = results[0].unwrap()
    for result, episode, row in zip(results[2:], episodes, range(3), strict=True):
        alone = result.unwrap()
        expect_close(whole[row, : len(episode)], alone, what=f"row {row} of the padded batch", call=results[0],
                     hint=f"(must equal {result.call} alone: zero rewards after an episode's end add nothing to "
                          "its returns, and the rows above or below it are other episodes)")


@check("returns.gamma_edges", "gamma = 0 returns the rewards, gamma = 1 the plain sums of the remaining rewards",
       clauses=["returns.gamma_edges"])
def returns_gamma_edges(sub, ref):
    rewards = _t([[1.0, -2.0, 3.0, 0.5], [0.0, 0.0, 1.0, -1.0]])
    calls = [((rewards, 0.0), {}), ((rewards, 0), {}), ((rewards, 1.0), {}), ((rewards, 1), {}),
             ((rewards.float(), 0.0), {})]
    results = sub.discounted_returns.map(calls)
    for result, ((r, gamma), _) in zip(results, calls, strict=True):
        got = result.unwrap()
        expect(isinstance(got, torch.Tensor) and bool(torch.isfinite(got.detach()).all()),
               f"{result.call} returned {describe_values(got)}: not finite. At gamma = 0 every later reward is "
               "weighted 0 and the return is the reward itself (0^0 = 1); never divide by a power of gamma")
        if gamma == 0:
            expected = r
            hint = "(gamma = 0: G_t = r_t, the step's own reward only; 0^0 counts as 1)"
        else:
            expected = r.flip(-1).cumsum(-1).flip(-1)
            hint = "(gamma = 1: G_t is the plain sum of the rewards from t to the end: [2.5, 1.5, 3.5, 0.5] for " \
                   "the first row)"
        expect_tensor(got, shape=tuple(r.shape), dtype=r.dtype, call=result)
        rtol, atol = _tolerances(r.dtype)
        expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


def describe_values(value):
    if isinstance(value, torch.Tensor):
        return str(value.detach().tolist())
    return repr(value)


@check("returns.long_horizon", "64 steps with gamma = 1e-6, 0.01, 0.5 and 0.999: finite and correct in float32 "
       "and float64 (gamma^t underflows long before the end)", clauses=["returns.long_horizon"])
def returns_long_horizon(sub, ref):
    generator = torch.Generator().manual_seed(13)
    rewards = torch.rand(2, 64, generator=generator, dtype=F64) + 0.5
    calls = [((rewards.to(dtype), gamma), {}) for dtype in (F64, F32) for gamma in (1e-6, 0.01, 0.5, 0.999)]
    results = sub.discounted_returns.map(calls)
    for result, ((r, gamma), _) in zip(results, calls, strict=True):
        got = result.unwrap()
        expect(isinstance(got, torch.Tensor) and bool(torch.isfinite(got.detach()).all()),
               f"{result.call} has nan or inf entries: gamma^t underflows to 0 within an episode (0.01^23 in "
               "float32, (1e-6)^54 in float64), so a return computed as (a sum of gamma^k r_k) / gamma^t divides "
               "0 by 0. Accumulate backwards instead: G_t = r_t + gamma G_{t+1}")
        # float32: 64 roundings of a running sum (or gamma rounded to float32 and raised to the 63rd power) can
        # drift by a few 1e-6 of the value, so float32 gets rtol 1e-4; the bug this check is for gives nan or 0.
        rtol, atol = (1e-4, 1e-5) if r.dtype == F32 else _tolerances(r.dtype)
        got = result.unwrap()
        expect_tensor(got, shape=tuple(r.shape), dtype=r.dtype, call=result)
        expect_close(got, _reward_to_go(r, gamma).to(r.dtype), call=result, rtol=rtol, atol=atol,
                     hint="(the rewards are between 0.5 and 1.5, so every return lies between 0.5 and "
                          "1.5 / (1 - gamma); accumulate backwards, G_t = r_t + gamma G_{t+1})")


# ----------------------------------------------------------------------------------------------------- loss

HAND_LOG_PROBS = [-1.0, -2.0, -0.5]
HAND_RETURNS = [2.0, 1.0, 3.0]
HAND_BASELINE = [1.0, 1.0, 1.0]


@check("loss.hand_example", "Hand example: three actions, with and without a baseline of 1",
       clauses=["loss.surrogate"])
def loss_hand_example(sub, ref):
    # Advantages [2, 1, 3] - 1 = [1, 0, 2]: sum of log_probs * advantage = -1 + 0 - 1 = -2, so the loss is
    # -(-2) / 3 = 2/3. Without a baseline: -2 - 2 - 1.5 = -5.5, so 5.5 / 3 = 1.8333.
    log_probs, returns, baseline = _t(HAND_LOG_PROBS), _t(HAND_RETURNS), _t(HAND_BASELINE)
    with_baseline, without = sub.reinforce_loss.map([((log_probs, returns, baseline), {}), ((log_probs, returns), {})])
    for result, expected, why in (
        (with_baseline, 2.0 / 3.0, "advantages [2, 1, 3] - 1 = [1, 0, 2]; -(-1 * 1 + -2 * 0 + -0.5 * 2) / 3 = 2/3"),
        (without, 5.5 / 3.0, "no baseline: -(-1 * 2 + -2 * 1 + -0.5 * 3) / 3 = 5.5 / 3"),
    ):
        got = result.unwrap()
        expect_tensor(got, shape=(), dtype=F64, call=result)
        expect_close(got, _t(expected), call=result,
                     hint=f"({why}: the loss is minus the mean of log_probs * (returns - baseline), so that "
                          "minimising it raises the log-probability of actions that beat the baseline)")


@check("loss.random", "The surrogate on random batches of several shapes, float32 and float64",
       clauses=["loss.surrogate", "loss.constants"])
def loss_random(sub, ref):
    generator = torch.Generator().manual_seed(21)
    cases = []
    for shape, dtype, with_baseline in (((6,), F64, True), ((3, 4), F64, False), ((2, 5), F32, True), ((), F64, True)):
        log_probs = -torch.rand(shape, generator=generator, dtype=F64) * 3.0
        returns = torch.randn(shape, generator=generator, dtype=F64) * 4.0 + 2.0
        baseline = torch.randn(shape, generator=generator, dtype=F64) if with_baseline else None
        cases.append(tuple(t if t is None else t.to(dtype) for t in (log_probs, returns, baseline)))
    results = sub.reinforce_loss.map([((lp, g, b), {}) for lp, g, b in cases])
    for result, (log_probs, returns, baseline) in zip(results, cases, strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(), dtype=log_probs.dtype, call=result)
        rtol, atol = _tolerances(log_probs.dtype)
        expect_close(got, _loss(log_probs, returns, baseline).to(log_probs.dtype), call=result, rtol=rtol, atol=atol,
                     hint="(-(1/N) sum of log_probs * (returns - baseline) over every element, N the number of "
                          "elements; the returns are used as given, not normalised)")


@check("loss.empty", "No actions at all: the loss is 0, finite, and backward() still works",
       clauses=["loss.surrogate"])
def loss_empty(sub, ref):
    cases = [torch.zeros(0, dtype=F64), torch.zeros(2, 0, dtype=F64), torch.zeros(0, dtype=F32)]
    calls = [((lp.clone().requires_grad_(True), lp.clone(), lp.clone()), {}) for lp in cases]
    results = sub.reinforce_loss.map(calls, grads=("log_probs",))
    for result, lp in zip(results, cases, strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(), dtype=lp.dtype, call=result)
        expect(bool(torch.isfinite(got.detach())), f"{result.call} returned {float(got.detach())}: the mean of "
               "an empty batch is 0 / 0; with no actions the loss is defined as 0 (divide by max(N, 1))")
        expect_close(got, torch.zeros((), dtype=lp.dtype), call=result, hint="(no actions: the loss is 0)")
        expect_grad_close(result, "log_probs", torch.zeros_like(lp), source="the empty batch's zero gradient")


@check("loss.constants", "Returns and baseline that require grad get no gradient; log_probs gets -(G - b) / N",
       clauses=["loss.constants", "loss.estimator"])
def loss_constants(sub, ref):
    log_probs = _t(HAND_LOG_PROBS).requires_grad_(True)
    returns = _t(HAND_RETURNS).requires_grad_(True)
    baseline = _t(HAND_BASELINE).requires_grad_(True)
    result = sub.reinforce_loss.call(log_probs, returns, baseline, grads=("log_probs", "returns", "baseline"))
    expect_close(result.unwrap(), _t(2.0 / 3.0), call=result, hint="(the same value as the hand example: "
                 "requires_grad on the returns changes nothing about the loss)")
    expect_grad_none(result, "returns", "baseline",
                     hint="(the returns and the baseline score the actions, they are not functions of the policy: "
                          "detach them, or a baseline trained through this loss is pushed to cancel the returns)")
    expect_grad_close(result, "log_probs", _t([-1.0, 0.0, -2.0]) / 3.0, source="-(returns - baseline) / N",
                      hint="(d loss / d log_probs_i = -(G_i - b_i) / N = [-1/3, 0, -2/3])")


# A two-armed bandit, a softmax policy over logits theta, and a fixed seeded batch of eight pulls.
BANDIT_THETA = [0.3, -0.2]
BANDIT_ACTIONS = [0, 1, 0, 0, 1, 0, 1, 0]
BANDIT_REWARDS = [1.0, 3.0, 0.5, 1.5, 2.5, 1.0, 3.5, 0.0]  # arm 1 pays more


def _bandit_log_probs(theta, actions):
    return torch.log_softmax(theta, dim=-1)[actions]


def _chain_theta_grad(log_probs_grad, theta, actions):
    """d loss / d theta from d loss / d log_probs, by the chain rule d log pi(a) / d theta = onehot(a) - pi."""
    pi = torch.softmax(theta, dim=-1)
    score = torch.nn.functional.one_hot(actions, theta.shape[-1]).to(F64) - pi  # [N, arms]
    return (log_probs_grad.to(F64)[:, None] * score).sum(0)


@check("loss.bandit_step", "A two-armed bandit: the chained gradient equals the REINFORCE estimate, and one SGD "
       "step raises the better arm's probability", clauses=["loss.estimator", "loss.surrogate"])
def loss_bandit_step(sub, ref):
    theta = _t(BANDIT_THETA)
    actions = torch.tensor(BANDIT_ACTIONS)
    rewards = _t(BANDIT_REWARDS)
    baseline = rewards.mean().expand(len(BANDIT_ACTIONS))
    calls = [((_bandit_log_probs(theta, actions).requires_grad_(True), rewards, b), {}) for b in (baseline, None)]
    results = sub.reinforce_loss.map(calls, grads=("log_probs",))
    pi = torch.softmax(theta, dim=-1)
    score = torch.nn.functional.one_hot(actions, 2).to(F64) - pi
    for result, b in zip(results, (baseline, None), strict=True):
        result.unwrap()
        grad = result.grads.get("log_probs")
        if grad is None:
            fail(f"after backward() on {result.call}, log_probs.grad is None: the loss must depend on log_probs")
        advantage = rewards if b is None else rewards - b
        estimate = (advantage[:, None] * score).mean(0)  # (1/N) sum (G - b) grad log pi(a): ascent direction
        got = _chain_theta_grad(grad, theta, actions)
        expect_close(got, -estimate, what="d loss / d theta, chained through log_softmax(theta)", call=result,
                     hint=f"(expected minus the REINFORCE estimate (1/N) sum (G_i - b_i) (onehot(a_i) - pi) = "
                          f"{[round(v, 6) for v in estimate.tolist()]}; a minimiser steps against the gradient, so "
                          "the loss must be minus the mean of log_probs times advantages)")
        stepped = torch.softmax(theta - 0.5 * got, dim=-1)
        expect(float(stepped[1]) > float(pi[1]),
               f"one SGD step of size 0.5 on {result.call} moved the probability of arm 1, which pays more, from "
               f"{float(pi[1]):.4f} to {float(stepped[1]):.4f}: the loss points the wrong way (its sign)")


# A three-state chain: from state s the action 'right' (1) moves to s + 1, 'stay' (0) stays; reward 1 for each
# step that ends in state 2. Every episode lasts three steps; a tabular softmax policy theta[s, a].
CHAIN_THETA = [[0.2, -0.1], [0.0, 0.4], [-0.3, 0.1]]
CHAIN_EPISODES = [  # (states, actions) of four seeded episodes
    ([0, 1, 2], [1, 1, 0]), ([0, 0, 1], [0, 1, 1]), ([0, 1, 1], [1, 0, 0]), ([0, 0, 0], [0, 0, 1]),
]


def _chain_rewards(states, actions):
    return [1.0 if min(s + a, 2) == 2 else 0.0 for s, a in zip(states, actions, strict=True)]


@check("loss.chain_episodes", "A three-state chain: your returns and your loss give minus the analytic "
       "policy-gradient estimate for a tabular policy", clauses=["loss.estimator", "returns.episodes"])
def loss_chain_episodes(sub, ref):
    gamma = 0.9
    theta = _t(CHAIN_THETA)
    states = torch.tensor([s for s, _ in CHAIN_EPISODES])  # [E, T]
    actions = torch.tensor([a for _, a in CHAIN_EPISODES])
    rewards = _t([_chain_rewards(s, a) for s, a in CHAIN_EPISODES])
    returns_result = sub.discounted_returns.call(rewards, gamma)
    _expect_returns(returns_result, rewards, gamma, hint="(each row is one episode of the chain; reward-to-go "
                    "along it)")
    returns = returns_result.unwrap().detach()
    baseline = returns.mean().expand_as(returns)  # a constant baseline: the mean return of the batch
    log_pi = torch.log_softmax(theta, dim=-1)  # [S, A]
    log_probs = log_pi[states, actions].requires_grad_(True)  # [E, T]
    result = sub.reinforce_loss.call(log_probs, returns, baseline, grads=("log_probs",))
    result.unwrap()
    grad = result.grads.get("log_probs")
    if grad is None:
        fail(f"after backward() on {result.call}, log_probs.grad is None: the loss must depend on log_probs")
    # d log pi(a | s) / d theta[s', a'] = [s = s'] (onehot(a) - pi(. | s))[a']
    pi = log_pi.exp()
    got = torch.zeros_like(theta)
    estimate = torch.zeros_like(theta)
    true_returns = _reward_to_go(rewards, gamma)
    advantage = true_returns - true_returns.mean()
    for e in range(len(CHAIN_EPISODES)):
        for t in range(states.shape[1]):
            s, a = int(states[e, t]), int(actions[e, t])
            score = torch.nn.functional.one_hot(torch.tensor(a), 2).to(F64) - pi[s]
            got[s] += grad[e, t].to(F64) * score
            estimate[s] += advantage[e, t] * score / states.numel()
    expect_close(got, -estimate, what="d loss / d theta for the tabular chain policy", call=result,
                 hint="(minus (1/N) sum over episodes and steps of (G_t - b) grad log pi(a_t | s_t), N = 12 "
                      "steps: every step weighted by its own reward-to-go)")


# ------------------------------------------------------------------------------------------------- baseline


@check("baseline.hand_example", "Moving average: b = 1 and returns [2, 4] give 1.2 at momentum 0.9; 3 at momentum "
       "0; 1 at momentum 1", clauses=["baseline.moving_average"])
def baseline_hand_example(sub, ref):
    baseline, returns = _t(1.0), _t([2.0, 4.0])
    cases = [(0.9, 1.2, "0.9 * 1 + 0.1 * mean([2, 4]) = 0.9 + 0.3 = 1.2: momentum is the weight on the old value"),
             (0.0, 3.0, "momentum 0 replaces the baseline by the batch mean, 3"),
             (1.0, 1.0, "momentum 1 keeps the old baseline, 1"),
             (0.5, 2.0, "0.5 * 1 + 0.5 * 3 = 2")]
    results = sub.update_baseline.map([((baseline, returns, m), {}) for m, _, _ in cases])
    for result, (_, expected, why) in zip(results, cases, strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(), dtype=F64, call=result)
        expect_close(got, _t(expected), call=result, hint=f"({why})")


@check("baseline.batches", "The mean runs over every element of returns, of any shape, float32 and float64",
       clauses=["baseline.moving_average"])
def baseline_batches(sub, ref):
    generator = torch.Generator().manual_seed(31)
    cases = []
    for shape, dtype, m in (((3, 4), F64, 0.8), ((5,), F32, 0.99), ((), F64, 0.25), ((2, 3), F32, 0.0)):
        returns = torch.randn(shape, generator=generator, dtype=F64) * 3.0 + 1.0
        cases.append((_t(0.7).to(dtype), returns.to(dtype), m))
    results = sub.update_baseline.map([((b, g, m), {}) for b, g, m in cases])
    for result, (b, g, m) in zip(results, cases, strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(), dtype=b.dtype, call=result)
        expected = m * b.to(F64) + (1 - m) * g.to(F64).mean()
        rtol, atol = _tolerances(b.dtype)
        expect_close(got, expected.to(b.dtype), call=result, rtol=rtol, atol=atol,
                     hint="(momentum * baseline + (1 - momentum) * the mean of every element of returns)")


@check("baseline.empty", "An empty batch of returns leaves the baseline's value as it was, in a new tensor that "
       "does not require grad", clauses=["baseline.empty"])
def baseline_empty(sub, ref):
    cases = [(_t(1.5), torch.zeros(0, dtype=F64), 0.9), (_t(-2.0), torch.zeros(3, 0, dtype=F64), 0.0),
             (_t(0.25, F32), torch.zeros(0, dtype=F32), 0.5)]
    # a baseline, or returns, that require grad: the result is still a new tensor detached from both
    cases += [(_t(0.75).requires_grad_(True), torch.zeros(0, dtype=F64), 0.9),
              (_t(3.0, F32), torch.zeros(2, 0, dtype=F32).requires_grad_(True), 0.5)]
    results = sub.update_baseline.map([((b, g, m), {}) for b, g, m in cases])
    for result, (b, _, _) in zip(results, cases, strict=True):
        got = result.unwrap()
        expect_tensor(got, shape=(), dtype=b.dtype, call=result)
        expect(bool(torch.isfinite(got.detach())), f"{result.call} returned {float(got.detach())}: an empty batch "
               "has no mean (0 / 0), so the baseline must come back unchanged, even at momentum 0")
        expect_close(got, b.detach(), call=result, hint="(no returns to average: the baseline keeps its value)")
        expect_no_alias(result, hint="(an empty batch leaves the value unchanged, but the result is still a new "
                        "tensor with storage of its own: return baseline.detach().clone(), not baseline itself nor "
                        "baseline.detach(), which shares the caller's memory)")
        expect(not got.requires_grad, f"{result.call} returned a baseline that requires grad: the result never does, "
               "on the empty path too, even when baseline or returns do (a baseline is a statistic, not part of "
               "the policy's graph: detach, then clone)")


# ---------------------------------------------------------------------------------------------- experiment

ARMS_MEAN = [0.0, 0.5, 1.0]
CURVE_OFFSET, CURVE_STEPS, CURVE_RUNS, CURVE_BATCH, CURVE_LR, CURVE_MOMENTUM, CURVE_SEED = (
    5.0, 25, 8, 8, 0.3, 0.8, 51)
PROBE_PULLS = 512


@check("experiment.bandit", "A three-armed bandit trained with your loss, with and without your moving-average "
       "baseline: the best arm's probability, and the variance of the gradient estimate", group="experiment",
       required=False)
def experiment_bandit(sub, ref, ctx):
    # Arms pay c + [0, 0.5, 1] + N(0, 1) with c = 5, so every reward is positive. 8 seeded runs per setting,
    # eight pulls a step, plain SGD on the logits. At every step a
    # probe of 512 fresh pulls at the first with-baseline run's policy measures the variance of the per-pull
    # estimate (G_i - b) grad log pi(a_i), recovered from your loss's gradient d loss / d log_probs_i = -(G_i - b)/N,
    # once with b = your running baseline and once with no baseline. The runs share one running baseline: it is
    # updated after each step, so it never depends on the actions it scores.
    series = run_in_one_request(sub)
    if series is None:
        series = bandit_series(lambda calls: live_gradients(sub, calls), lambda call: live_baseline(sub, call))
    if series is not None:  # always, as the live calls fail the check rather than answer None
        ctx.record_experiment(steps=list(range(CURVE_STEPS)), x_label="step", series=series)


KINDS = ("no_baseline", "with_baseline")


def bandit_series(gradients: Callable[[list[Call]], list[Any] | None],
                  baseline_after: Callable[[Call], Any]) -> dict[str, list[float]] | None:
    """The chart's series: each step's four reinforce_loss calls answered by `gradients` with their gradients in
    log_probs, then the running baseline's update by `baseline_after` (None from either: no run to chart)."""
    generator = torch.Generator().manual_seed(CURVE_SEED)
    means = _t(ARMS_MEAN) + CURVE_OFFSET
    thetas = [torch.zeros(CURVE_RUNS, 3, dtype=F64) for _ in KINDS]
    baseline = torch.zeros((), dtype=F64)  # one running baseline, fed by every with-baseline run's returns
    series: dict[str, list[float]] = {f"{what}_{kind}": [] for what in ("best_arm", "grad_variance") for kind in KINDS}
    for _ in range(CURVE_STEPS):
        for kind, theta in zip(KINDS, thetas, strict=True):
            series[f"best_arm_{kind}"].append(float(torch.softmax(theta, dim=-1)[:, 2].mean()))
        probe_theta = thetas[1][0]
        calls, batches, probe_actions = bandit_calls(thetas, baseline, generator, means, CURVE_BATCH, PROBE_PULLS)
        grads = gradients([(arguments, {}) for arguments in calls])
        if grads is None:
            return None
        grads = [grad.to(F64) for grad in grads]
        for index, ((actions, _), grad) in enumerate(zip(batches, grads, strict=False)):
            thetas[index] = bandit_step(thetas[index], actions, grad, CURVE_RUNS, CURVE_LR)
        probe_scores = bandit_scores(probe_theta, probe_actions)  # [pulls, arms]
        for kind, grad in zip(KINDS, grads[2:], strict=True):
            estimates = -grad[:, None] * PROBE_PULLS * probe_scores  # each pull's own estimate
            series[f"grad_variance_{kind}"].append(float(estimates.var(dim=0).sum()))
        baseline = baseline_after(((baseline, batches[1][1], CURVE_MOMENTUM), {}))
        if baseline is None:
            return None
    return series


def live_gradients(sub: Any, calls: list[Call]) -> list[Any]:
    """One step's calls, one request: your reinforce_loss's gradients in log_probs (what it raised fails the
    check, as any call's error does)."""
    grads = []
    for result in sub.reinforce_loss.map(calls, grads=("log_probs",)):
        result.unwrap()
        grad = result.grads.get("log_probs")
        expect(grad is not None, f"after backward() on {result.call}, log_probs.grad is None")
        grads.append(grad)
    return grads


def live_baseline(sub: Any, call: Call) -> Any:
    update = sub.update_baseline.call(*call[0], **call[1])
    baseline = update.unwrap()
    expect(isinstance(baseline, torch.Tensor) and baseline.shape == (), f"{update.call} did not return a 0-d tensor")
    return baseline


def run_in_one_request(sub: Any) -> dict[str, list[float]] | None:
    """The series as bandit_series with live_gradients and live_baseline makes them, in three requests instead of
    50, or None.

    The worker runs both trainings (helpers.bandit_run, the same glue as bandit_series's) and returns every call's
    loss and gradient and every update's baseline. The judge takes them as the answers to its own steps, building
    each step's calls from its own states, then makes all those calls again, one request per function. Only when
    every answer is bit for bit the run's are these the series the live run gives: by induction from the zero
    policies and baseline, each step's calls get the same inputs and the same answers. Anything else (a run that
    raised or broke a limit, a record of the wrong form, a function that answers the same input differently)
    returns None, and the check runs the training a step a request, messages and chart included."""
    try:
        run = sub.from_helpers("bandit_run", uses=("reinforce_loss", "update_baseline")).call(
            _t(ARMS_MEAN) + CURVE_OFFSET, CURVE_RUNS, CURVE_BATCH, PROBE_PULLS, CURVE_STEPS, CURVE_LR, CURVE_MOMENTUM,
            CURVE_SEED)
    except (CheckFailed, WorkerLost):
        return None
    records = run.value if run.raised is None else None
    if not (isinstance(records, list) and len(records) == CURVE_STEPS
            and all(isinstance(record, tuple | list) and len(record) == 2 for record in records)):
        return None
    steps = iter(records)
    losses: list[tuple[Call, Any]] = []  # each call made, and the run's (loss, gradient) for it
    updates: list[tuple[Call, Any]] = []
    step: list[Any] = []

    def recorded_gradients(calls: list[Call]) -> list[Any] | None:
        step[:] = next(steps)
        answers = step[0]
        if not (isinstance(answers, list) and len(answers) == len(calls)
                and all(isinstance(pair, tuple | list) and len(pair) == 2
                        and isinstance(pair[1], torch.Tensor) for pair in answers)):
            return None
        losses.extend(zip(calls, answers, strict=True))
        return [gradient for _, gradient in answers]

    def recorded_baseline(call: Call) -> Any:
        baseline = step[1]
        if not (isinstance(baseline, torch.Tensor) and baseline.shape == ()):
            return None
        updates.append((call, baseline))
        return baseline

    try:
        series = bandit_series(recorded_gradients, recorded_baseline)
        if series is None:
            return None
        losses_agree = replay_agrees(sub.reinforce_loss, losses, grads=("log_probs",))
        updates_agree = replay_agrees(sub.update_baseline, updates)
    except (CheckFailed, WorkerLost):
        return None
    return series if losses_agree and updates_agree else None
