"""Check battery for the mixture-of-experts router problem (Shazeer et al., 2017; Fedus et al., 2021).

Groups `gating`, `capacity` and `loss` are required; `experiment` is advisory (it records the chart of the
notes). The declared contract in problem.toml covers shapes, dtypes, layouts, inputs left unchanged, new
storage, requires_grad, autograd against the reference and finite differences, and the refusals of declared
rules; the checks here hold what a declaration cannot say: the hand example, ties, renormalisation, which logits
the gradient reaches, the serving order of capacity, the loss's value at balance and its gradient through P
only, and stability at large logits.
"""

import torch

from grader.checks import check, expect, expect_close, expect_equal, expect_grad_close

HAND_PROBS = [[0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.7, 0.2, 0.1], [0.5, 0.25, 0.25]]
HAND_GATES = [[0.625, 0.375, 0.0], [0.0, 2 / 3, 1 / 3], [7 / 9, 2 / 9, 0.0], [2 / 3, 1 / 3, 0.0]]
HAND_EXPERTS = [[0, 1], [1, 2], [0, 1], [0, 1]]


def _t(values, dtype=torch.float64):
    return torch.tensor(values, dtype=dtype)


def _hand_logits(dtype=torch.float64):
    return torch.tensor(HAND_PROBS, dtype=torch.float64).log().to(dtype)


def _experts(values):
    return torch.tensor(values, dtype=torch.int64).reshape(-1, len(values[0]) if values else 1)


def _mask(values):
    return torch.tensor(values, dtype=torch.bool)


def _gates_vjp(logits, k, cotangent):
    """The exact gradient of sum(cotangent * gates) with respect to logits, from the softmax Jacobian over each
    token's selected experts: g_j (w_j - sum_i w_i g_i) for a selected j, 0 otherwise."""
    order = torch.sort(logits, dim=1, descending=True, stable=True).indices[:, :k]
    selected = torch.zeros_like(logits, dtype=torch.bool).scatter(1, order, True)
    gates = torch.softmax(logits.masked_fill(~selected, float("-inf")), dim=1)
    inner = (cotangent * gates).sum(dim=1, keepdim=True)
    return torch.where(selected, gates * (cotangent - inner), torch.zeros_like(logits))


def _shares(logits, k):
    """f: each expert's share of the N k top-k choices, counted from the indices of a stable sort (equal logits in
    increasing expert order), in float64."""
    N, E = logits.shape
    order = torch.sort(logits, dim=1, descending=True, stable=True).indices[:, :k]
    return torch.bincount(order.reshape(-1), minlength=E).double() / (N * k)


def _loss_value(logits, k):
    """E sum_e f_e P_e in float64, from the shares and the full softmax of the logits given (in their dtype's
    values), cast back to the logits' dtype."""
    probs = torch.softmax(logits.double(), dim=1)
    return (logits.shape[1] * (_shares(logits, k) * probs.mean(dim=0)).sum()).to(logits.dtype)


def _loss_gradient(logits, k):
    """(E / N) sum_e f_e p_{n,e} (1[e = j] - p_{n,j}): the gradient through P only."""
    N, E = logits.shape
    fraction = _shares(logits, k)
    probs = torch.softmax(logits.double(), dim=1)
    weighted = probs * fraction  # [N, E]: f_e p_{n,e}
    return (E / N) * (weighted - probs * weighted.sum(dim=1, keepdim=True))


# ------------------------------------------------------------------------------------------------ gating


@check("gating.hand_example", "Hand example: four tokens, three experts, k = 2, a tie for the second place",
       clauses=["gating.top_k", "gating.renormalised"])
def gating_hand_example(sub, ref):
    result = sub.top_k_gating.call(_hand_logits(), 2)
    expect_close(result.unwrap(), _t(HAND_GATES), call=result,
                 hint="(each token's two largest router probabilities divided by their sum, e.g. 0.5 / 0.8 and "
                      "0.3 / 0.8; token 3 has 0.25 twice after 0.5: expert 1, the smaller index, wins the tie)")


@check("gating.k_bounds", "k = 1 gives a gate of exactly 1 on the first largest logit; k = E gives the full softmax",
       clauses=["gating.renormalised", "gating.top_k"])
def gating_k_bounds(sub, ref):
    logits = _hand_logits()
    one, full = sub.top_k_gating.map([((logits, 1), {}), ((logits, 3), {})])
    expect_equal(one.unwrap(), _t([[1, 0, 0], [0, 1, 0], [1, 0, 0], [1, 0, 0]]), call=one,
                 hint="(with k = 1 the softmax over one selected logit is exactly 1, whatever its probability)")
    expect_close(full.unwrap(), _t(HAND_PROBS), call=full,
                 hint="(with k = E every expert is selected and the gates are the router probabilities themselves)")
    ties = sub.top_k_gating.call(_t([[2.0, 5.0, 5.0, 5.0], [1.0, 1.0, 1.0, 1.0]]), 2)
    expect_close(ties.unwrap(), _t([[0, 0.5, 0.5, 0], [0.5, 0.5, 0, 0]]), call=ties,
                 hint="(equal logits rank in increasing expert order: of three tied experts the two smallest indices "
                      "are selected)")


@check("gating.gradient", "The gradient reaches exactly each token's selected logits, through the softmax over them",
       clauses=["gating.gradient", "gating.renormalised"])
def gating_gradient(sub, ref):
    logits = _hand_logits()
    generator = torch.Generator().manual_seed(71)
    cotangent = torch.randn(4, 3, generator=generator, dtype=torch.float64)
    for k in (2, 1, 3):
        result = sub.top_k_gating.call(logits.clone().requires_grad_(True), k, grads=("logits",),
                                       grad_output=cotangent)
        expect_grad_close(result, "logits", _gates_vjp(logits, k, cotangent),
                          source="the softmax Jacobian over the selected experts",
                          hint=f"(with k = {k}: d gate_i / d h_j = g_i (1[i = j] - g_j) for selected i and j, and 0 "
                               f"for an expert that was not selected; with k = 1 the gate is the constant 1)")


@check("gating.stable", "Logits of magnitude 1e4, positive and negative, give finite and correct gates",
       clauses=["gating.stable"])
def gating_stable(sub, ref):
    rows = [[1e4, 9999.0, -1e4, 0.0], [-1e4, -9999.0, -9998.0, -1e4], [5000.0, -5000.0, 4999.0, 5000.0]]
    e = torch.exp(torch.tensor(-1.0, dtype=torch.float64))
    expected = _t([[1 / (1 + e), e / (1 + e), 0, 0], [0, e / (1 + e), 1 / (1 + e), 0],
                   [1 / (2 + e), 0, 0, 1 / (2 + e)]])
    expected[2, 2] = e / (2 + e)
    for dtype in (torch.float32, torch.float64):
        k_values = [2, 2, 3]
        results = sub.top_k_gating.map([((_t([row], dtype), k), {}) for row, k in zip(rows, k_values, strict=True)])
        for result, want in zip(results, expected, strict=True):
            expect_close(result.unwrap(), want[None].to(dtype), call=result,
                         hint="(exp(1e4) overflows and exp(-1e4) underflows: take the softmax of the selected logits "
                              "with their maximum subtracted)")


# ---------------------------------------------------------------------------------------------- capacity


@check("capacity.hand_example", "Hand example: capacity 1 and 2, first choices before second choices",
       clauses=["capacity.order", "capacity.limit"])
def capacity_hand_example(sub, ref):
    experts = _experts(HAND_EXPERTS)
    one, two = sub.capacity_mask.map([((experts, 3, 1), {}), ((experts, 3, 2), {})])
    expect_equal(one.unwrap(), _mask([[True, False], [True, True], [False, False], [False, False]]), call=one,
                 hint="(first choices in token order: 0 -> e0, 1 -> e1, 2 and 3 find e0 full; then second choices: "
                      "token 0's e1 is full, token 1 gets e2; serving token by token would give token 0 both experts)")
    expect_equal(two.unwrap(), _mask([[True, True], [True, True], [True, False], [False, False]]), call=two,
                 hint="(capacity 2: e0 serves tokens 0 and 2, e1 tokens 1 and 0, e2 token 1)")


@check("capacity.order_and_limits", "Choice by choice, tokens in order; capacity 0, large capacity, repeated "
       "choices, no tokens", clauses=["capacity.order", "capacity.limit"])
def capacity_order_and_limits(sub, ref):
    three = _experts([[2, 0, 1], [0, 2, 1], [0, 1, 2], [1, 0, 2]])
    cases = [
        ((three, 3, 2), [[True, False, False], [True, True, False], [True, True, False], [True, False, False]],
         "(round 1: e2 <- token 0, e0 <- 1, e0 <- 2, e1 <- 3; round 2: e0 is full for token 0, e2 <- token 1, "
         "e1 <- token 2, e0 is full for token 3; round 3: every expert is full. Token by token, token 0 would get all "
         "three of its experts)"),
        ((three, 3, 0), [[False] * 3] * 4, "(capacity 0 drops every slot)"),
        ((three, 3, 12), [[True] * 3] * 4, "(a capacity no expert reaches keeps every slot)"),
        ((_experts([[1, 1], [1, 0]]), 2, 2), [[True, False], [True, True]],
         "(token 0 chose expert 1 twice: each choice is a slot; round 1 gives e1 to tokens 0 and 1, so token 0's "
         "second choice of e1 finds it full, while token 1's second choice gets e0)"),
    ]
    results = sub.capacity_mask.map([(args, {}) for args, _, _ in cases])
    for result, (_, expected, why) in zip(results, cases, strict=True):
        expect_equal(result.unwrap(), _mask(expected), call=result, hint=why)
    empty = sub.capacity_mask.call(torch.zeros(0, 2, dtype=torch.int64), 4, 1)
    expect_equal(empty.unwrap(), torch.zeros(0, 2, dtype=torch.bool), call=empty,
                 hint="(no tokens: an empty [0, K] mask)")


# -------------------------------------------------------------------------------------------------- loss


@check("loss.hand_example", "Hand example (f = [3/8, 1/2, 1/8], loss 1.0921875); tied logits; a selected expert "
       "whose gate rounds to 0", clauses=["loss.formula"])
def loss_hand_example(sub, ref):
    # Ties: every row has equal logits at the k-th place for some k, and the mean probabilities differ between the
    # tied experts, so counting a tie for the larger index changes the loss at k = 1, 2 and 3.
    tied = _t([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1], [1, 0, 0, 1], [2, 1, 1, 0], [0, 2, 2, 2]])
    # Token 0 selects experts 0 and 1 at k = 2, but its gate for expert 1, e^-200 / (1 + e^-200) in float32 or
    # e^-800 / (1 + e^-800) in float64, rounds to 0: the choice still counts, f = [1/2, 1/2, 0].
    vanishing = [_t([[0, -200, -300], [0, -1, -2]], torch.float32), _t([[0, -800, -900], [0, -1, -2]])]
    extra = [(tied, k) for k in (1, 2, 3)] + [(logits, 2) for logits in vanishing]
    two, one, *rest = sub.load_balancing_loss.map([((_hand_logits(), 2), {}), ((_hand_logits(), 1), {})]
                                                  + [(args, {}) for args in extra])
    expect_close(two.unwrap(), _t(1.0921875), call=two,
                 hint="(the 8 routing choices go 3, 4 and 1 times to the experts: f = [3/8, 1/2, 1/8], a share of "
                      "all N k choices; P is the mean of the full softmax, [0.45, 0.3375, 0.2125]; E * sum f P)")
    expect_close(one.unwrap(), _t(1.265625), call=one,
                 hint="(k = 1: the first choices go 3, 1, 0 times to the experts: f = [3/4, 1/4, 0])")
    for result, (logits, k) in zip(rest[:3], extra[:3], strict=True):
        expect_close(result.unwrap(), _loss_value(logits, k), call=result,
                     hint=f"(k = {k}: the routing choices f counts are the gates' top-k selection, so equal logits "
                          f"count for the smaller expert index, e.g. token 0 [1, 1, 0, 0] chooses expert 0 first; a "
                          f"top-k whose order among equal values is unspecified counts them elsewhere)")
    for result, (logits, k) in zip(rest[3:], extra[3:], strict=True):
        expect_close(result.unwrap(), _loss_value(logits, k), call=result,
                     hint="(token 0's second choice is expert 1 although its gate rounds to 0: f counts the k selected "
                          "experts of every token, f = [1/2, 1/2, 0], not the nonzero gates)")


@check("loss.balanced_and_collapsed", "An even load gives exactly 1; everything on one confident expert nears E",
       clauses=["loss.balanced", "loss.formula"])
def loss_balanced_and_collapsed(sub, ref):
    even = torch.eye(4, dtype=torch.float64).repeat(3, 1) * 3.0  # 12 tokens, each expert first for 3 of them
    collapsed = _t([[30.0, -30.0, -30.0, -30.0]]).repeat(5, 1)
    cases = [
        ((even, 1), 1.0, "(every expert gets 3 of the 12 choices: f = 1/4 each, so E * sum f P = sum P = 1)"),
        ((even, 2), 1.0, "(k = 2 on the same tokens: the second choices are ties, taken in expert order; every "
                         "expert still gets 6 of the 24 choices)"),
        ((collapsed, 1), 4.0, "(every token on expert 0 with probability ~1: f = P = [1, 0, 0, 0] and the loss is "
                              "E = 4)"),
        ((collapsed, 2), 2.0, "(k = 2: f = [1/2, 1/2, 0, 0], P ~ [1, 0, 0, 0]: the loss is 4 * 1/2 = 2)"),
    ]
    for result, (_, value, why) in zip(sub.load_balancing_loss.map([(args, {}) for args, _, _ in cases]), cases,
                                       strict=True):
        expect_close(result.unwrap(), _t(value), call=result, rtol=1e-9, atol=1e-9, hint=why)


@check("loss.gradient", "The gradient flows through the mean probabilities P only, never through the routing "
       "shares f", clauses=["loss.gradient"])
def loss_gradient(sub, ref):
    generator = torch.Generator().manual_seed(73)
    cases = [(_hand_logits(), 2), (_hand_logits(), 1),
             (torch.randn(6, 5, generator=generator, dtype=torch.float64) * 2, 3)]
    for logits, k in cases:
        result = sub.load_balancing_loss.call(logits.clone().requires_grad_(True), k, grads=("logits",))
        expect_grad_close(result, "logits", _loss_gradient(logits, k),
                          source="(E / N) sum_e f_e p_ne (1[e = j] - p_nj)",
                          hint="(f is a count of the top-k choices and carries no gradient; the gradient goes through "
                               "P, the mean of the full softmax over all experts)")


# -------------------------------------------------------------------------------------------- experiment

TOKENS, FEATURES, EXPERTS, TOP_K, STEPS, LEARNING_RATE = 192, 8, 4, 2, 20, 0.75
CAPACITY = int(1.25 * TOKENS * TOP_K / EXPERTS)  # Switch Transformers' capacity with a factor of 1.25


@check("experiment.balancing", "A collapsed router trained on your balancing loss alone: expert load and dropped "
       "choices per step", group="experiment", required=False)
def experiment(sub, ref, ctx):
    generator = torch.Generator().manual_seed(79)
    x = torch.randn(TOKENS, FEATURES, generator=generator, dtype=torch.float64)
    weights = 0.3 * torch.randn(FEATURES, EXPERTS, generator=generator, dtype=torch.float64)
    weights[:, 0] += 0.6 * x.mean(dim=0) / x.mean(dim=0).norm()  # expert 0 starts with most of the tokens
    bias = torch.tensor([2.0, 0.5, 0.0, -0.5], dtype=torch.float64)
    series = {f"load_expert_{e}": [] for e in range(EXPERTS)}
    series["dropped_share"], series["aux_loss"] = [], []
    logits_per_step = []
    for _ in range(STEPS):  # only the loss's gradient feeds the next step: a request a step
        logits = x @ weights + bias  # [N, E]
        loss = sub.load_balancing_loss.call(logits.clone().requires_grad_(True), TOP_K, grads=("logits",))
        series["aux_loss"].append(float(loss.unwrap().detach()))
        logits_per_step.append(logits)
        gradient = loss.grads.get("logits")
        if gradient is None:
            break
        weights = weights - LEARNING_RATE * x.T @ gradient  # the chain rule through logits = x W + b
        bias = bias - LEARNING_RATE * gradient.sum(dim=0)
    # The gates and the capacity masks are measurements the run does not go on from: every step's in one request
    chosen_per_step = []
    for gated in sub.top_k_gating.map([((logits, TOP_K), {}) for logits in logits_per_step]):
        gates = gated.unwrap()
        expect(isinstance(gates, torch.Tensor) and gates.shape == (TOKENS, EXPERTS),
               f"{gated.call} did not return [{TOKENS}, {EXPERTS}] gates")
        chosen_per_step.append(torch.sort(gates.detach(), dim=1, descending=True, stable=True).indices[:, :TOP_K])
    masks = sub.capacity_mask.map([((chosen, EXPERTS, CAPACITY), {}) for chosen in chosen_per_step])
    for chosen, masked in zip(chosen_per_step, masks, strict=True):
        kept = masked.unwrap()
        expect(isinstance(kept, torch.Tensor) and kept.shape == chosen.shape, "capacity_mask returned another shape")
        load = torch.bincount(chosen.reshape(-1), minlength=EXPERTS).double() / (TOKENS * TOP_K)
        for e in range(EXPERTS):
            series[f"load_expert_{e}"].append(float(load[e]))
        series["dropped_share"].append(1.0 - float(kept.double().mean()))
    steps = list(range(len(series["aux_loss"])))
    ctx.record_experiment(steps=steps, series={name: values[: len(steps)] for name, values in series.items()})
