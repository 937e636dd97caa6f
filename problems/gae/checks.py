"""Check battery for the GAE problem (Schulman et al., 2016): gae and discounted_returns.

Groups `gae`, `returns` and `contract` are required; `experiment` is advisory (it records the charts of the
notes). The declared contract in problem.toml covers shapes, dtypes, layouts, inputs left unchanged, new storage,
results that never require grad, no gradient into rewards, values or last_value, and every refused argument; the
checks here hold what a declaration cannot say: the hand example, where the done flag cuts the rollout (both
places, the step's own flag), the limits lam = 0, lam = 1 and gamma = 0, returns = advantages + values, the time
axis of a [T, N] rollout, the empty rollout and float64 precision over a long horizon. Expected values come from
an oracle written here in plain Python floats, independent of the reference. Every random input comes from a
seeded generator, so two runs give identical verdicts.
"""

import torch

from grader.checks import check, expect, expect_close, expect_tensor, hint

# float32 results are compared with the exact answer (float64 oracle on the same float32 inputs). The inputs of
# these checks are O(1) and at most 8 steps long, so rounding stays within a few 1e-7 per step; 2e-5 admits any
# order of operations while every mutant is off by more than 1e-2.
FLOAT32_RTOL, FLOAT32_ATOL = 2e-5, 2e-5
# float64: any correct order of operations is within ~1e-13 here (values of magnitude 1e3 over 300 steps); a
# float32 buffer anywhere is off by ~1e-4, so 1e-10 separates them by orders of magnitude either way.
FLOAT64_RTOL, FLOAT64_ATOL = 1e-10, 1e-10


def _tolerances(dtype):
    return (FLOAT32_RTOL, FLOAT32_ATOL) if dtype == torch.float32 else (FLOAT64_RTOL, FLOAT64_ATOL)


# ------------------------------------------------------------------------------------ an independent oracle


def _columns(t):
    """A [T] or [T, N] tensor as a list of columns of Python values (one column for a 1-D rollout)."""
    t = t.detach()
    if t.dim() == 1:
        return [t.tolist()]
    return [t[:, j].tolist() for j in range(t.shape[1])]


def _from_columns(columns, like):
    """The inverse of _columns, in float64."""
    if like.dim() == 1:
        return torch.tensor(columns[0], dtype=torch.float64)
    out = torch.tensor(columns, dtype=torch.float64).reshape(like.shape[1], like.shape[0])
    return out.T.contiguous()


def _oracle(rewards, values, dones, last_value, gamma, lam):
    """(advantages, returns) of the statement, in float64 from the inputs' exact values, one column at a time."""
    lasts = [float(last_value)] if last_value.dim() == 0 else last_value.double().tolist()
    advantages = []
    for r, v, d, last in zip(_columns(rewards.double()), _columns(values.double()), _columns(dones), lasts,
                             strict=True):
        a, carried = [0.0] * len(r), 0.0
        for t in reversed(range(len(r))):
            following = last if t == len(r) - 1 else v[t + 1]
            alive = 0.0 if d[t] else 1.0
            delta = r[t] + gamma * alive * following - v[t]
            carried = delta + gamma * lam * alive * carried
            a[t] = carried
        advantages.append(a)
    a = _from_columns(advantages, rewards) if rewards.shape[0] else torch.zeros(rewards.shape, dtype=torch.float64)
    return a, a + values.detach().double()


def _oracle_returns(rewards, dones, last_value, gamma):
    """G_t = r_t + gamma (1 - done_t) G_{t+1}, G_T = last_value, float64, one column at a time."""
    lasts = [float(last_value)] if last_value.dim() == 0 else last_value.double().tolist()
    out = []
    for r, d, last in zip(_columns(rewards.double()), _columns(dones), lasts, strict=True):
        g, running = [0.0] * len(r), last
        for t in reversed(range(len(r))):
            running = r[t] + gamma * (0.0 if d[t] else 1.0) * running
            g[t] = running
        out.append(g)
    return _from_columns(out, rewards) if rewards.shape[0] else torch.zeros(rewards.shape, dtype=torch.float64)


def _f64(values):
    return torch.tensor(values, dtype=torch.float64)


def _flags(values):
    return torch.tensor(values, dtype=torch.bool)


def _rollout(seed, steps, envs, dtype=torch.float64, p_done=0.3, scale=1.0):
    """A random rollout: rewards, values [T, N] (or [T] when envs is None), dones, last_value."""
    generator = torch.Generator().manual_seed(seed)
    shape = (steps,) if envs is None else (steps, envs)
    rewards = torch.randn(shape, generator=generator, dtype=torch.float64)
    values = torch.randn(shape, generator=generator, dtype=torch.float64) * scale
    dones = torch.rand(shape, generator=generator, dtype=torch.float64) < p_done
    last_value = torch.randn(shape[1:], generator=generator, dtype=torch.float64) * scale
    return rewards.to(dtype), values.to(dtype), dones, last_value.to(dtype)


def _expect_pair(result, expected, dtype, hints=("", "")):
    """A gae result: a tuple (advantages, returns), each compared with the oracle in the inputs' dtype."""
    got = result.unwrap()
    expect(isinstance(got, tuple) and len(got) == 2,
           f"{result.call} returned {type(got).__name__}; gae returns a tuple (advantages, returns)")
    rtol, atol = _tolerances(dtype)
    for name, value, want, why in zip(("advantages", "returns"), got, expected, hints, strict=True):
        expect_close(value, want.to(dtype), call=result, rtol=rtol, atol=atol, what=name, hint=why)


# ---------------------------------------------------------------------------------------------------- gae

HAND = {  # one environment, four steps; the episode ends at step 1, the rollout is cut after step 3
    "rewards": [1.0, 0.0, 2.0, 1.0],
    "values": [0.5, 1.0, 1.0, 2.0],
    "dones": [False, True, False, False],
    "last_value": 4.0,
}


@check("gae.hand_example", "Hand example: four steps, an episode ending at step 1, gamma = lam = 0.5",
       clauses=["gae.td_error", "gae.recursion", "gae.terminal", "gae.returns"])
def gae_hand_example(sub, ref):
    # delta = [1 + 0.5 * 1 - 0.5, 0 - 1 (done: no bootstrap), 2 + 0.5 * 2 - 1, 1 + 0.5 * 4 - 2] = [1, -1, 2, 1]
    # A_3 = 1, A_2 = 2 + 0.25 * 1 = 2.25, A_1 = -1 (done: nothing carried), A_0 = 1 + 0.25 * (-1) = 0.75
    rewards, values = _f64(HAND["rewards"]), _f64(HAND["values"])
    dones, last_value = _flags(HAND["dones"]), _f64(HAND["last_value"])
    # The same episode as column 0 of a [4, 2] rollout, beside an environment with no episode end.
    rewards2 = torch.stack([rewards, _f64([0.0, 1.0, 0.0, 1.0])], dim=1)
    values2 = torch.stack([values, _f64([1.0, 1.0, 1.0, 1.0])], dim=1)
    dones2 = torch.stack([dones, _flags([False] * 4)], dim=1)
    last2 = _f64([4.0, 2.0])
    one, two = sub.gae.map([((rewards, values, dones, last_value), {"gamma": 0.5, "lam": 0.5}),
                            ((rewards2, values2, dones2, last2), {"gamma": 0.5, "lam": 0.5})])
    hints = ("(delta = [1, -1, 2, 1]: step 1 ended its episode, so delta_1 = r_1 - V_1 and nothing is carried "
             "back into A_1; A = [0.75, -1, 2.25, 1])",
             "(returns = advantages + values = [1.25, 0, 3.25, 3])")
    _expect_pair(one, (_f64([0.75, -1.0, 2.25, 1.0]), _f64([1.25, 0.0, 3.25, 3.0])), torch.float64, hints)
    _expect_pair(two, _oracle(rewards2, values2, dones2, last2, 0.5, 0.5), torch.float64,
                 ("(column 0 is the hand example; column 1 never ends and bootstraps from last_value = 2)", ""))


@check("gae.terminal_flags", "dones[t] ends the episode at step t: no bootstrap and no carry across it",
       clauses=["gae.terminal", "gae.td_error", "gae.recursion"])
def gae_terminal_flags(sub, ref):
    # Values of 100 sit right after every episode end (the first state of the next episode) and last_value is
    # 1000, so anything that crosses a done flag is off by tens.
    cases = [
        ([1.0, 2.0, 3.0], [0.5, 0.5, 0.5], [False, False, True], 1000.0,
         "(the last step is done: its TD error is r - V and last_value is not used)"),
        ([1.0, 0.0, 0.0, 1.0], [0.5, 0.5, 100.0, 0.5], [False, True, False, False], 0.0,
         "(step 1 ends the episode: values[2] = 100 belongs to the next episode and must not enter delta_1, and "
         "A_2 must not be carried into A_1)"),
        ([1.0, 1.0, 1.0, 1.0], [100.0, 100.0, 100.0, 0.5], [True, True, True, False], 2.0,
         "(three one-step episodes, then one cut by the rollout's end: A_t = r_t - V_t for the first three)"),
        ([0.0, 1.0, 0.0, 0.0, 2.0], [1.0, 2.0, 100.0, 1.0, 1.0], [False, True, False, True, False], 3.0,
         "(the flag of step t is dones[t], not dones[t + 1]: it is the flag that came back with r_t)"),
    ]
    calls, wanted = [], []
    for r, v, d, last, _ in cases:
        args = (_f64(r), _f64(v), _flags(d), _f64(last))
        calls.append((args, {"gamma": 0.9, "lam": 0.8}))
        wanted.append(_oracle(*args, 0.9, 0.8))
    for result, want, case in zip(sub.gae.map(calls), wanted, cases, strict=True):
        _expect_pair(result, want, torch.float64, (case[-1], case[-1]))


@check("gae.limits", "lam = 0 gives TD errors, lam = 1 discounted returns minus values, gamma = 0 gives r - V",
       clauses=["gae.limits", "gae.returns"])
def gae_limits(sub, ref):
    rewards, values, dones, last_value = _rollout(3, 6, 3)
    next_values = torch.cat([values[1:], last_value[None]])
    deltas = rewards + 0.9 * (~dones).double() * next_values - values
    monte_carlo = _oracle_returns(rewards, dones, last_value, 0.9)
    mc_undiscounted = _oracle_returns(rewards, dones, last_value, 1.0)
    cases = [
        ({"gamma": 0.9, "lam": 0.0}, (deltas, deltas + values),
         "(lam = 0: each advantage is its own one-step TD error r_t + gamma (1 - done_t) V_{t+1} - V_t)"),
        ({"gamma": 0.9, "lam": 1.0}, (monte_carlo - values, monte_carlo),
         "(lam = 1: the TD errors telescope to the discounted return minus the value)"),
        ({"gamma": 0.0, "lam": 0.7}, (rewards - values, rewards),
         "(gamma = 0: nothing of the future counts, A = r - V and returns = r)"),
        ({"gamma": 1, "lam": 1}, (mc_undiscounted - values, mc_undiscounted),
         "(gamma = lam = 1 as ints: undiscounted sums of the rest of each episode, plus last_value if it is cut)"),
    ]
    results = sub.gae.map([((rewards, values, dones, last_value), options) for options, _, _ in cases])
    for result, (_, want, why), in zip(results, cases, strict=True):
        _expect_pair(result, want, torch.float64, (why, why))


@check("gae.random_rollouts", "Random rollouts in float32 and float64: advantages, and returns = advantages + values",
       clauses=["gae.td_error", "gae.recursion", "gae.terminal", "gae.returns"])
def gae_random_rollouts(sub, ref):
    cases = []
    for seed, (steps, envs), gamma, lam, dtype in [
        (11, (7, 5), 0.99, 0.95, torch.float64),
        (12, (8, None), 0.9, 0.5, torch.float64),
        (13, (6, 4), 0.8, 0.9, torch.float32),
        (14, (5, None), 0.97, 0.3, torch.float32),
    ]:
        args = _rollout(seed, steps, envs, dtype)
        cases.append((args, {"gamma": gamma, "lam": lam}, dtype))
    results = sub.gae.map([(args, options) for args, options, _ in cases])
    for result, (args, options, dtype) in zip(results, cases, strict=True):
        want = _oracle(*args, options["gamma"], options["lam"])
        _expect_pair(result, want, dtype,
                     ("(A_t = delta_t + gamma lam (1 - done_t) A_{t+1}, walking back from the last step)",
                      "(returns = advantages + values: the lambda-return, not the discounted sum of rewards)"))
        advantages, returns = result.unwrap()
        rtol, atol = _tolerances(dtype)
        expect_close(returns, advantages + args[1], call=result, rtol=rtol, atol=atol,
                     what="returns - (advantages + values)",
                     hint="(the second result is exactly the first plus values)")


@check("gae.time_axis", "Time runs along dimension 0; each column is its own environment",
       clauses=["gae.columns"])
def gae_time_axis(sub, ref):
    rewards, values, dones, last_value = _rollout(21, 5, 3, p_done=0.25)
    calls = [((rewards, values, dones, last_value), {"gamma": 0.95, "lam": 0.9})]
    calls += [((rewards[:, j], values[:, j], dones[:, j], last_value[j]), {"gamma": 0.95, "lam": 0.9})
              for j in range(3)]
    batch, *columns = sub.gae.map(calls)
    _expect_pair(batch, _oracle(rewards, values, dones, last_value, 0.95, 0.9), torch.float64,
                 ("(rows are time steps, columns environments: recurse along dimension 0, each column with its "
                  "own dones and its own entry of last_value)", ""))
    advantages = batch.unwrap()[0]
    for j, column in enumerate(columns):
        expect_close(advantages[:, j], column.unwrap()[0], call=column, rtol=FLOAT64_RTOL, atol=FLOAT64_ATOL,
                     what=f"column {j} of the [5, 3] rollout against the same column alone",
                     hint="(environments never mix: a column gives the same advantages alone or in a batch)")


@check("gae.empty_rollout", "T = 0: empty advantages and returns, [0] or [0, N], in rewards' dtype",
       clauses=["gae.recursion", "gae.columns"])
def gae_empty_rollout(sub, ref):
    cases = [(torch.float64, (0,), ()), (torch.float32, (0, 3), (3,)), (torch.float64, (0, 0), (0,))]
    calls = []
    for dtype, shape, step in cases:
        calls.append(((torch.zeros(shape, dtype=dtype), torch.zeros(shape, dtype=dtype),
                       torch.zeros(shape, dtype=torch.bool), torch.ones(step, dtype=dtype)), {}))
    for result, (dtype, shape, _) in zip(sub.gae.map(calls), cases, strict=True):
        got = result.unwrap()
        expect(isinstance(got, tuple) and len(got) == 2,
               f"{result.call} returned {type(got).__name__}; gae returns a tuple (advantages, returns)")
        with hint("(an empty rollout has nothing to estimate: two empty tensors shaped like rewards)"):
            for name, value in zip(("advantages", "returns"), got, strict=True):
                expect_tensor(value, shape=shape, dtype=dtype, what=name, call=result)


@check("gae.float64_long_horizon", "float64 stays float64: 300 steps at gamma = 0.999, lam = 0.98, values near 1e3",
       clauses=["gae.precision"])
def gae_float64_long_horizon(sub, ref):
    rewards, values, dones, last_value = _rollout(31, 300, 2, p_done=0.01, scale=1.0)
    values, last_value = values + 1000.0, last_value + 1000.0
    result = sub.gae.call(rewards, values, dones, last_value, gamma=0.999, lam=0.98)
    _expect_pair(result, _oracle(rewards, values, dones, last_value, 0.999, 0.98), torch.float64,
                 ("(every intermediate of a float64 rollout must be float64: a buffer created without a dtype is "
                  "float32 and rounds each advantage to 7 digits)", ""))


# ------------------------------------------------------------------------------------------------ returns


@check("returns.hand_example", "discounted_returns on the hand example: G = [1, 0, 3.5, 3] at gamma = 0.5",
       clauses=["returns.formula"])
def returns_hand_example(sub, ref):
    # G_3 = 1 + 0.5 * 4 = 3, G_2 = 2 + 0.5 * 3 = 3.5, G_1 = 0 (done: nothing after it), G_0 = 1 + 0.5 * 0 = 1
    rewards, dones = _f64(HAND["rewards"]), _flags(HAND["dones"])
    cases = [
        ((rewards, dones, _f64(4.0)), {"gamma": 0.5}, _f64([1.0, 0.0, 3.5, 3.0]),
         "(walk back from G_T = last_value = 4; step 1 ended its episode, so G_1 = r_1 = 0)"),
        ((rewards, _flags([False, False, False, True]), _f64(1000.0)), {"gamma": 0.5}, _f64([1.625, 1.25, 2.5, 1.0]),
         "(the last step is done: last_value is not used)"),
        ((rewards, dones, _f64(4.0)), {"gamma": 0}, rewards, "(gamma = 0: G = r)"),
    ]
    results = sub.discounted_returns.map([(args, options) for args, options, _, _ in cases])
    for result, (_, _, want, why) in zip(results, cases, strict=True):
        expect_close(result.unwrap(), want, call=result, rtol=FLOAT64_RTOL, atol=FLOAT64_ATOL, hint=why)


@check("returns.random_and_gae", "discounted_returns on random rollouts, and equal to gae's returns at lam = 1",
       clauses=["returns.formula", "gae.limits"])
def returns_random_and_gae(sub, ref):
    cases = [(_rollout(41, 7, 4), 0.97, torch.float64), (_rollout(42, 6, None, torch.float32), 0.9, torch.float32)]
    results = sub.discounted_returns.map([((r, d, last), {"gamma": gamma}) for (r, _, d, last), gamma, _ in cases])
    via_gae = sub.gae.map([(args, {"gamma": gamma, "lam": 1.0}) for args, gamma, _ in cases])
    for result, lam_one, ((r, _, d, last), gamma, dtype) in zip(results, via_gae, cases, strict=True):
        rtol, atol = _tolerances(dtype)
        want = _oracle_returns(r, d, last, gamma).to(dtype)
        expect_close(result.unwrap(), want, call=result, rtol=rtol, atol=atol,
                     hint="(G_t = r_t + gamma (1 - done_t) G_{t+1}, starting from G_T = last_value)")
        expect_close(lam_one.unwrap()[1], want, call=lam_one, rtol=rtol, atol=atol, what="the returns at lam = 1",
                     hint="(at lam = 1 the lambda-return is the discounted return bootstrapped from last_value)")


# -------------------------------------------------------------------------------------------- experiment

WALK_STATES, WALK_ENVS, WALK_STEPS, WALK_GAMMA = 5, 64, 256, 0.95
LAMBDAS_X100 = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 100]


def _random_walk_values(gamma):
    """True values of the random walk under the uniform random policy: states 1..5 between two terminal ends,
    +1 for stepping off the right end. Solves V = P (r + gamma V) exactly."""
    n = WALK_STATES
    transition = torch.zeros(n, n, dtype=torch.float64)
    expected_reward = torch.zeros(n, dtype=torch.float64)
    for s in range(n):
        if s > 0:
            transition[s, s - 1] = 0.5
        if s < n - 1:
            transition[s, s + 1] = 0.5
        else:
            expected_reward[s] = 0.5
    return torch.linalg.solve(torch.eye(n, dtype=torch.float64) - gamma * transition, expected_reward)


def _random_walk_rollout(seed):
    """64 walks started in the middle, 256 steps each, reset after every episode end: states [T, N], actions
    (+1 right / -1 left), rewards, dones, and the state after the last step."""
    generator = torch.Generator().manual_seed(seed)
    moves = torch.where(torch.rand(WALK_STEPS, WALK_ENVS, generator=generator) < 0.5, 1, -1)
    state = torch.full((WALK_ENVS,), WALK_STATES // 2)
    states, rewards, dones = [], [], []
    for t in range(WALK_STEPS):
        states.append(state)
        following = state + moves[t]
        ended = (following < 0) | (following >= WALK_STATES)
        rewards.append((following >= WALK_STATES).double())
        dones.append(ended)
        state = torch.where(ended, WALK_STATES // 2, following)
    return torch.stack(states), moves, torch.stack(rewards), torch.stack(dones), state


@check("experiment.bias_variance", "Your GAE on a random walk with known values: error against lambda",
       group="experiment", required=False)
def experiment_bias_variance(sub, ref, ctx):
    true_values = _random_walk_values(WALK_GAMMA)  # [5]
    padded = torch.cat([torch.zeros(1, dtype=torch.float64), true_values, torch.zeros(1, dtype=torch.float64)])
    # A critic that has learned only the average value of the walk, the same for every state: its TD errors are
    # biased, while the sampled rewards are not.
    critic = true_values.mean().expand(WALK_STATES)
    states, moves, rewards, dones, final = _random_walk_rollout(7)
    # What the advantage estimates: Q(s, a) - V_critic(s), the true value of the move (its reward plus the
    # discounted true value of where it lands; a terminal end is worth 0) minus the critic's baseline. The baseline
    # is the same for both moves of a state and cancels in the policy gradient; only Q(s, a) has to be estimated.
    target = rewards + WALK_GAMMA * padded[states + moves + 1] - critic[states]
    args = (rewards, critic[states], dones, critic[final])
    results = sub.gae.map([(args, {"gamma": WALK_GAMMA, "lam": x / 100}) for x in LAMBDAS_X100])
    measured = slice(0, WALK_STEPS // 2)  # far from the rollout's end, where the bootstrap would add its own bias
    groups = (states * 2 + (moves > 0)).reshape(-1)[: (WALK_STEPS // 2) * WALK_ENVS]  # (state, action) pairs
    bias2, variance, mse = [], [], []
    for result in results:
        advantages = result.unwrap()[0]
        expect(isinstance(advantages, torch.Tensor) and advantages.shape == rewards.shape,
               f"{result.call} did not return advantages of shape {tuple(rewards.shape)}")
        error = (advantages.double() - target)[measured].reshape(-1)
        counts = torch.bincount(groups, minlength=2 * WALK_STATES).double().clamp_min(1)
        mean_error = torch.bincount(groups, weights=error, minlength=2 * WALK_STATES) / counts
        spread = error - mean_error[groups]
        bias2.append(float((mean_error[groups] ** 2).mean()))
        variance.append(float((spread ** 2).mean()))
        mse.append(float((error ** 2).mean()))
    ctx.record_experiment(steps=LAMBDAS_X100, x_label="100 x lambda",
                          series={"squared_bias": bias2, "variance": variance, "mean_squared_error": mse})
