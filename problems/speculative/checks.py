"""Check battery for the speculative sampling problem (Leviathan et al., 2023; Chen et al., 2023).

Groups `residual`, `step` and `exact` are required; `experiment` is advisory (it records the chart of the
notes). The declared contract in problem.toml covers shapes, dtypes, layouts, inputs left unchanged, new
storage, requires_grad and the refusals of declared ranges; the checks here hold what a declaration cannot say:
the hand example, the acceptance threshold probed from both sides, the first rejection, the bonus token, the
residual's special row, rows that must sum to one, and the exact output distribution.

The exact check enumerates every drafted token (weighted by the draft's probability) and a grid of uniforms
whose counts below each threshold are exactly the thresholds (dyadic and thirds probabilities, grid midpoints),
so the distribution of the first emitted token is computed from your function as an exact fraction.
"""

import math
import random
from fractions import Fraction
from functools import cache

import torch

from grader.checks import check, expect, expect_close, expect_equal, expect_rejected, fail, legal_inputs

Q_HAND = [[0.125, 0.5, 0.25, 0.125]]
P_HAND = [[0.375, 0.125, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25]]
GAP = 1e-4  # drawn uniforms are kept this far from every threshold they are compared with


def _t(values, dtype=torch.float64):
    return torch.tensor(values, dtype=dtype)


def _tokens(values):
    return torch.tensor(values, dtype=torch.int64)


def _pair_of_ints(result):
    value = result.unwrap()
    if not (isinstance(value, tuple) and len(value) == 2 and all(type(v) is int for v in value)):
        fail(f"{result.call} returned {value!r}; expected a tuple (n, token) of two Python ints (int(...) of a "
             "tensor element)")
    return value


def _residual(p, q):
    excess = (p.double() - q.double()).clamp_min(0)
    total = float(excess.sum())
    return excess / total if total > 0 else p.double()


# ------------------------------------------------------------------ legal inputs for the generic battery


def _normalised_rows(x):
    """Drawn entries in [0, 1] made into probability rows (each row divided by its sum). A row that already sums to
    1 (within 1e-5) is kept as it is, so the rows are legal as they are: the generic battery's layouts check runs
    only on inputs that its @legal_inputs function leaves alone (p and q may have any strides)."""
    values = x.double()
    positive = values + 1e-3
    already = (values.sum(dim=-1, keepdim=True) - 1).abs() <= 1e-5
    return torch.where(already, values, positive / positive.sum(dim=-1, keepdim=True)).to(x.dtype)


@legal_inputs("residual_distribution")
def _rows_of_probabilities(args, sizes):
    """p and q must be probability rows: the drawn values are normalised."""
    args["p"], args["q"] = _normalised_rows(args["p"]), _normalised_rows(args["q"])
    return args


def _away(value, thresholds):
    """value moved to the middle of the widest gap between thresholds in [0, 1) when it lies within GAP of one."""
    points = sorted({0.0, 1.0, *[t for t in thresholds if 0 < t < 1]})
    if all(abs(value - t) >= GAP for t in points[1:-1]):
        return value
    low, high = max(zip(points, points[1:], strict=False), key=lambda pair: pair[1] - pair[0])
    return (low + high) / 2


@legal_inputs("speculative_step")
def _a_step_off_every_threshold(args, sizes):
    """Probability rows; then each accept_u away from its ratio p/q, and sample_u away from every cumulative sum
    of the row the step draws from (so float32 and float64 solutions decide alike)."""
    p, q = _normalised_rows(args["p"]), _normalised_rows(args["q"])
    args["p"], args["q"] = p, q
    p64, q64 = p.double(), q.double()
    accept = args["accept_u"].double().tolist()
    drafts = args["draft_tokens"].tolist()
    row = p64[-1]
    for i, x in enumerate(drafts):
        accept[i] = _away(accept[i], [float(p64[i, x] / q64[i, x])])
        if accept[i] * float(q64[i, x]) >= float(p64[i, x]):
            row = _residual(p64[i], q64[i])
            break
    args["accept_u"] = torch.tensor(accept, dtype=args["accept_u"].dtype)
    args["sample_u"] = _away(float(args["sample_u"]), row.cumsum(0).tolist())
    return args


# ---------------------------------------------------------------------------------------------- residual


@check("residual.hand_example", "Hand example: p - q = [0.25, -0.375, 0, 0.125] gives [2/3, 0, 0, 1/3]",
       clauses=["residual.formula"])
def residual_hand_example(sub, ref):
    p = _t([P_HAND[0], [0.5, 0.5, 0.0, 0.0], [0.1, 0.2, 0.3, 0.4]])
    q = _t([Q_HAND[0], [0.25, 0.25, 0.25, 0.25], [0.4, 0.3, 0.2, 0.1]])
    result = sub.residual_distribution.call(p, q)
    expected = _t([[2 / 3, 0, 0, 1 / 3], [0.5, 0.5, 0, 0], [0, 0, 0.25, 0.75]])
    expect_close(result.unwrap(), expected, call=result,
                 hint="(row by row: keep max(p - q, 0), the target's excess over the draft, and divide by its sum; "
                      "[0.25, 0, 0, 0.125] / 0.375, [0.25, 0.25, 0, 0] / 0.5, [0, 0, 0.1, 0.3] / 0.4)")


@check("residual.no_excess", "A row where p never exceeds q gives p itself, never nan or q, even where q differs by "
       "rounding; the least excess still gives the formula", clauses=["residual.no_excess", "residual.formula"])
def residual_no_excess(sub, ref):
    # Rows 3 and 4 are legal rows off by rounding (sums 0.99995 and 1, within the contract's 1e-4). Row 3 has
    # p <= q everywhere, p != q: no excess, so p itself, not q. Row 4 is the other way round: the least excess
    # (5e-5 at token 1) is still excess, and the formula puts all the mass there.
    p = _t([[0.25, 0.25, 0.5], [0.0, 1.0, 0.0], [0.5, 0.25, 0.25], [0.5, 0.49995, 0.0], [0.5, 0.5, 0.0]])
    q = _t([[0.25, 0.25, 0.5], [0.0, 1.0, 0.0], [0.25, 0.5, 0.25], [0.5, 0.5, 0.0], [0.5, 0.49995, 0.0]])
    expected = _t([[0.25, 0.25, 0.5], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.5, 0.49995, 0.0], [0.0, 1.0, 0.0]])
    dtypes = (torch.float64, torch.float32)
    results = sub.residual_distribution.map([((p.to(dtype), q.to(dtype)), {}) for dtype in dtypes])
    for result, dtype in zip(results, dtypes, strict=True):
        expect_close(result.unwrap(), expected.to(dtype), call=result,
                     hint="(rows 0 and 1 have p = q: no token has excess probability, the formula is 0/0, and the "
                          "contract gives p itself; row 2 has the excess [0.25, 0, 0] and becomes [1, 0, 0]; row 3 "
                          "has p <= q everywhere but p != q (the rows may be off by up to 1e-4): no excess, so p "
                          "itself, [0.5, 0.49995, 0], not q; row 4 has the excess 5e-5 at token 1 only, so "
                          "[0, 1, 0]: any positive excess, however small, follows the formula)")


# -------------------------------------------------------------------------------------------------- step


@check("step.hand_example", "Hand example: draft token 1 with p/q = 0.25, accepted at u = 0.2, rejected at 0.3",
       clauses=["step.accept", "step.bonus", "step.first_rejection", "step.draw", "step.result"])
def step_hand_example(sub, ref):
    p, q = _t(P_HAND), _t(Q_HAND)
    cases = [
        (1, 0.2, 0.6, (1, 2), "(0.2 * 0.5 < 0.125: accepted; the bonus comes from p[1], cumulative sums 0.25, 0.5, "
                              "0.75, 1, and 0.6 falls in token 2)"),
        (1, 0.3, 0.6, (0, 0), "(0.3 * 0.5 >= 0.125: rejected; the residual [2/3, 0, 0, 1/3] draws token 0 at 0.6)"),
        (1, 0.3, 0.7, (0, 3), "(rejected; the residual's cumulative sums are 2/3, 2/3, 2/3, 1: 0.7 draws token 3)"),
        (0, 0.999, 0.1, (1, 0), "(p(0) = 0.375 >= q(0) = 0.125: token 0 is accepted whatever u is; bonus token 0)"),
        (3, 0.95, 0.9, (1, 3), "(p(3) = 0.25 >= q(3) = 0.125: accepted; bonus token 3 at 0.9)"),
    ]
    calls = [((p, q, _tokens([x]), _t([u]), s), {}) for x, u, s, _, _ in cases]
    for result, (_, _, _, expected, why) in zip(sub.speculative_step.map(calls), cases, strict=True):
        expect_equal(_pair_of_ints(result), expected, call=result, hint=why)


@check("step.acceptance_threshold", "Accepted exactly when u * q(x) < p(x): probed just below and above p/q",
       clauses=["step.accept"])
def step_acceptance_threshold(sub, ref):
    # p rows and q rows with chosen probabilities of the drafted token 0; the bonus row is one-hot on token 2
    # and the residual never puts mass on token 2 here, so the token tells acceptance and rejection apart.
    cases = [  # (p(x), q(x), u, accepted?, why)
        (0.3, 0.6, 0.5 - 1e-6, True, "p/q = 0.5: u just below it is accepted"),
        (0.3, 0.6, 0.5 + 1e-6, False, "p/q = 0.5: u just above it is rejected"),
        (0.0, 0.6, 0.0, False, "p(x) = 0: never accepted, not even at u = 0 (u * q < p is 0 < 0, false)"),
        (0.0, 0.0, 0.0, False, "p(x) = q(x) = 0: never accepted, not even at u = 0 (u * q < p is 0 < 0, false; "
                               "a quotient p/q is 0/0 here, and an infinite ratio for q = 0 would accept it)"),
        (0.3, 0.0, 0.999, True, "q(x) = 0 < p(x): accepted for every u (u * 0 < 0.3)"),
        (0.6, 0.3, 0.999, True, "p > q: accepted for every u"),
        (0.45, 0.45, 0.999, True, "p = q: accepted for every u < 1"),
    ]
    calls = []
    for p_x, q_x, u, _, _ in cases:
        p_row = [p_x, (1 - p_x) / 2, 0.0, (1 - p_x) / 2]
        q_row = [q_x, 1 - q_x, 0.0, 0.0]
        calls.append(((_t([p_row, [0.0, 0.0, 1.0, 0.0]]), _t([q_row]), _tokens([0]), _t([u]), 0.5), {}))
    for result, (p_x, q_x, u, accepted, why) in zip(sub.speculative_step.map(calls), cases, strict=True):
        n, token = _pair_of_ints(result)
        expect(n == (1 if accepted else 0),
               f"{result.call} returned n = {n}: with p(x) = {p_x}, q(x) = {q_x} and u = {u!r} the draft must be "
               f"{'accepted' if accepted else 'rejected'} ({why})")
        if accepted:
            expect(token == 2, f"{result.call} accepted the draft but returned token {token}: the bonus row is "
                               "one-hot on token 2")


def _quotient_misses(dtype, count, seed):
    """`count` triples (u, p(x), q(x)) of `dtype` values, found by a seeded search, where u * q(x) < p(x) holds
    exactly, in `dtype` arithmetic and in float64 (every way of computing the statement's product accepts), while
    the quotient p(x) / q(x) rounded to `dtype` equals u, so u < p(x) / q(x) computed in `dtype` rejects."""
    generator, found = random.Random(seed), []

    def one(value):
        return torch.tensor(value, dtype=dtype)

    while len(found) < count:  # about 1 try in 10 (float32) or 50 (float64) qualifies
        q_x = float(one(generator.uniform(0.05, 0.95)))
        p_x = float(one(generator.uniform(0.01, q_x)))
        u = float(one(p_x) / one(q_x))  # the rounded quotient, taken as the uniform
        exact = Fraction(u) * Fraction(q_x) < Fraction(p_x)
        if 0 <= u < 1 and exact and float(one(u) * one(q_x)) < p_x and u * q_x < p_x:
            found.append((u, p_x, q_x))
    return found


@cache
def _product_form_cases():
    return [(dtype, *triple) for dtype in (torch.float32, torch.float64) for triple in _quotient_misses(dtype, 3, 7)]


@check("step.acceptance_product_form", "Acceptance compares u * q(x) < p(x), as the statement says, not a rounded "
       "quotient u < p(x) / q(x): probes where the two disagree, in float32 and float64", clauses=["step.accept"])
def step_acceptance_product_form(sub, ref):
    # Same layout as step.acceptance_threshold: drafted token 0, a bonus row one-hot on token 2, and a residual with
    # no mass on token 2, so n and the token tell acceptance from rejection.
    cases = _product_form_cases()
    calls = []
    for dtype, u, p_x, q_x in cases:
        p = torch.tensor([[p_x, (1 - p_x) / 2, 0.0, (1 - p_x) / 2], [0.0, 0.0, 1.0, 0.0]], dtype=dtype)
        q = torch.tensor([[q_x, 1 - q_x, 0.0, 0.0]], dtype=dtype)
        calls.append(((p, q, _tokens([0]), torch.tensor([u], dtype=dtype), 0.5), {}))
    for result, (dtype, u, p_x, q_x) in zip(sub.speculative_step.map(calls), cases, strict=True):
        n, token = _pair_of_ints(result)
        product = Fraction(u) * Fraction(q_x)
        expect(n == 1 and token == 2,
               f"{result.call} returned ({n}, {token}): with u = {u!r}, q(x) = {q_x!r} and p(x) = {p_x!r} "
               f"({str(dtype).removeprefix('torch.')}), u * q(x) = {float(product)!r} < p(x) (exactly, and in "
               f"float32 or float64 arithmetic alike), so the draft must be accepted and the bonus (token 2) follow; "
               f"the quotient p(x) / q(x) rounds to u itself here, so u < p / q comes out false. Compare as "
               f"u * q(x) < p(x), the statement's form, which needs no division")


@check("step.first_rejection", "The first rejection ends the step: later drafts are discarded, the residual of "
       "that position is drawn", clauses=["step.first_rejection", "step.draw", "step.accept"])
def step_first_rejection(sub, ref):
    # Three drafted positions with different rows, so the row the residual comes from shows in the token.
    q = _t([[0.5, 0.5, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25], [0.0, 0.0, 0.5, 0.5]])
    p = _t([[0.5, 0.25, 0.25, 0.0],  # residual of position 0: [0, 0, 1, 0]
            [0.0, 0.125, 0.125, 0.75],  # residual of position 1: [0, 0, 0, 1]
            [0.75, 0.0, 0.25, 0.0],  # residual of position 2: [1, 0, 0, 0]
            [0.0, 1.0, 0.0, 0.0]])  # the bonus row: token 1
    cases = [
        ([0, 1, 2], [0.1, 0.9, 0.1], (1, 3), "(draft 0 is accepted (p = q); draft 1 has p/q = 0.5 and u = 0.9: "
                                             "rejected, so n = 1 and the token comes from the residual of position "
                                             "1, [0, 0, 0, 1]; draft 2 is never looked at)"),
        ([1, 1, 2], [0.6, 0.0, 0.0], (0, 2), "(draft 0 has p/q = 0.5 and u = 0.6: rejected at once, the residual of "
                                             "position 0 is [0, 0, 1, 0]; the later u = 0 would have accepted, but "
                                             "the step has ended)"),
        ([0, 3, 2], [0.5, 0.1, 0.7], (2, 0), "(drafts 0 and 1 are accepted (p >= q), draft 2 has p/q = 0.5 and "
                                             "u = 0.7: rejected at position 2, whose residual is [1, 0, 0, 0])"),
        ([0, 3, 2], [0.5, 0.1, 0.2], (3, 1), "(all three accepted: n = 3 and the bonus comes from the last row, "
                                             "one-hot on token 1)"),
    ]
    calls = [((p, q, _tokens(drafts), _t(u), 0.5), {}) for drafts, u, _, _ in cases]
    for result, (_, _, expected, why) in zip(sub.speculative_step.map(calls), cases, strict=True):
        expect_equal(_pair_of_ints(result), expected, call=result, hint=why)


@check("step.bonus_and_draws", "The bonus row p[G], G = 0, and the draw's rule at the end of the cumulative sums",
       clauses=["step.bonus", "step.draw", "step.result"])
def step_bonus_and_draws(sub, ref):
    no_draft = (torch.empty(0, 4, dtype=torch.float64), _tokens([]), torch.empty(0, dtype=torch.float64))
    bonus_rows = _t([[0.0, 0.2, 0.3, 0.5]])
    short_total = _t([[0.2, 0.3, 0.49999, 0.0]])  # sums to 0.99999, legal: no C_i exceeds u = 0.999995
    cases = [
        ((bonus_rows, *no_draft, 0.0), (0, 1), "(G = 0: the token is drawn from p[0]; u = 0 never picks token 0, "
                                               "whose probability is 0)"),
        ((bonus_rows, *no_draft, 0.45), (0, 2), "(G = 0: cumulative sums 0, 0.2, 0.5, 1: u = 0.45 gives token 2)"),
        ((short_total, *no_draft, 0.999995), (0, 2), "(the sums end at 0.99999 < u: the last token with nonzero "
                                                     "probability, 2, never the empty token 3)"),
        ((_t([[0.5, 0.5, 0.0, 0.0], [0.0, 0.25, 0.25, 0.5]]), _t([[0.5, 0.5, 0.0, 0.0]]), _tokens([1]),
          _t([0.99]), 0.3), (1, 2), "(p = q at the drafted position: accepted; the bonus comes from p[1], the last "
                                    "row, not from p[0]: u = 0.3 gives token 2)"),
    ]
    results = sub.speculative_step.map([(args, {}) for args, _, _ in cases])
    for result, (_, expected, why) in zip(results, cases, strict=True):
        expect_equal(_pair_of_ints(result), expected, call=result, hint=why)


DRAW_PROBES = [  # (target rows, draft rows, draft token, accept_u, dtype, gap): the row drawn from, and the probe gap
    ([[0.1, 0.2, 0.7]], [], None, None, torch.float64, 1e-11),  # G = 0: sums within 1e-16 of exact in float64
    ([[0.25, 0.5, 0.25]], [], None, None, torch.float64, 0.0),  # dyadic: every sum exact; one float64 step below C_i
    ([[0.4, 0.3, 0.1, 0.2], [0.0, 0.0, 1.0, 0.0]], [[0.1, 0.1, 0.6, 0.2]], 2, 0.5, torch.float64, 1e-11),  # rejected
]


def _exact_cumsums(row):
    """The exact cumulative sums of a row's values, as fractions: what the statement's C_i are."""
    total, sums = Fraction(0), []
    for value in row:
        total += Fraction(value)
        sums.append(total)
    return sums


def _exact_draw(row, u, sums=None):
    """The statement's draw on exact sums: the smallest i with C_i > u, else the last nonzero token. `sums`: the
    row's _exact_cumsums, where the caller draws from one row many times."""
    threshold = Fraction(u)
    for i, total in enumerate(_exact_cumsums(row) if sums is None else sums):
        if total > threshold:
            return i
    return max(i for i, value in enumerate(row) if value > 0)


@check("step.draw_at_the_boundaries", "Draws with sample_u just below and just above each cumulative sum of float64 "
       "rows, bonus and residual", clauses=["step.draw", "step.bonus", "step.first_rejection"])
def step_draw_at_the_boundaries(sub, ref):
    # sample_u is a Python float: each probe sits `gap` (or, for dyadic rows, one float64 step) from an exact sum
    # C_i of a float64 row, far outside float64 rounding (1e-16) and far inside float32's (1e-8), so a float64 row
    # summed in float32, or sample_u rounded to float32, moves the threshold past it. float32 rows are not probed
    # this close: the statement leaves their sums to their own rounding.
    calls, cases = [], []
    for p_rows, q_rows, draft, u, dtype, gap in DRAW_PROBES:
        p, q = torch.tensor(p_rows, dtype=dtype), torch.tensor(q_rows, dtype=dtype).reshape(len(q_rows), len(p_rows[0]))
        row = (p[-1].double() if draft is None else _residual(p[0], q[0])).tolist()  # the residual in float64
        drafts = _tokens([] if draft is None else [draft])
        accept = torch.tensor([] if u is None else [u], dtype=dtype)
        for c in sorted({float(total) for total in _exact_cumsums(row) if 0 < total < 1 - 2 * gap}):
            for probe in ((c - gap, c + gap) if gap else (math.nextafter(c, 0.0), c)):
                calls.append(((p, q, drafts, accept, probe), {}))
                cases.append((row, c, probe, dtype))
    for result, (row, c, probe, dtype) in zip(sub.speculative_step.map(calls), cases, strict=True):
        got, expected = _pair_of_ints(result), (0, _exact_draw(row, probe))
        relation = "exceeds" if probe < c else "does not exceed"
        expect(got == expected,
               f"{result.call} returned {got}, expected {expected}: the row drawn from is "
               f"{[round(v, 6) for v in row]} ({str(dtype).removeprefix('torch.')}), and its cumulative sum "
               f"C = {c!r} (to float64 precision) {relation} sample_u = {probe!r} (printed in full: it lies "
               f"{abs(c - probe):.3g} from C). The token is the smallest index whose exact cumulative sum exceeds "
               "sample_u: sum a float64 row in float64 and compare with sample_u as given; a float32 sum, or "
               "sample_u rounded to float32, moves every threshold by up to about 1e-8")


@check("step.rows_must_sum_to_one", "p or q rows that do not sum to 1 raise ValueError", clauses=["contract.rows"])
def step_rows_must_sum_to_one(sub, ref):
    p, q = _t(P_HAND), _t(Q_HAND)
    half = _t([[0.25, 0.25, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25]])
    expect_rejected("ValueError", sub.speculative_step, [
        ((half, q, _tokens([1]), _t([0.5]), 0.5), {}, "the first row of p sums to 0.5"),
        ((p, q * 2, _tokens([1]), _t([0.5]), 0.5), {}, "the row of q sums to 2 (entries still in [0, 1])"),
        ((p.exp().softmax(dim=-1) * 0.9, q, _tokens([1]), _t([0.5]), 0.5), {}, "the rows of p sum to 0.9"),
    ])
    expect_rejected("ValueError", sub.residual_distribution, [
        ((half, p), {}, "the first row of p sums to 0.5"),
        ((p, _t([[0.5, 0.5, 0.5, 0.0], [0.25, 0.25, 0.25, 0.25]])), {}, "the first row of q sums to 1.5"),
    ])


# ------------------------------------------------------------------------------------------------- exact

EXACT_CASES = [  # (q_0, p_0, accept grid size, sample grid size): every threshold a multiple of 1/grid
    ([1 / 8, 1 / 2, 1 / 4, 1 / 8], [3 / 8, 1 / 8, 1 / 4, 1 / 4], 4, 3),  # the hand example: residual [2/3, 0, 0, 1/3]
    ([1 / 2, 1 / 4, 1 / 4, 0.0], [1 / 4, 0.0, 1 / 4, 1 / 2], 2, 1),  # p(x) = 0 for a proposed token; q(3) = 0
    ([3 / 4, 1 / 8, 1 / 8], [1 / 4, 1 / 4, 1 / 2], 3, 4),  # an acceptance threshold of 1/3
]


@check("exact.target_distribution", "Over every proposal and a grid of uniforms, the first emitted token follows the "
       "target exactly, and drafts are accepted with probability sum(min(p, q))",
       clauses=["exact.target_distribution", "step.accept", "step.first_rejection"])
def exact_target_distribution(sub, ref):
    calls, weights, layout = [], [], []
    for case, (q_row, p_row, accept_grid, sample_grid) in enumerate(EXACT_CASES):
        V = len(q_row)
        p = _t([p_row, [1.0 / V] * V])
        q = _t([q_row])
        for x, q_x in enumerate(q_row):
            if q_x == 0:
                continue  # the draft never proposes it
            for a in range(accept_grid):
                for s in range(sample_grid):
                    calls.append(((p, q, _tokens([x]), _t([(a + 0.5) / accept_grid]), (s + 0.5) / sample_grid), {}))
                    weights.append(Fraction(q_x).limit_denominator(64) / (accept_grid * sample_grid))
                    layout.append((case, x))
    results = sub.speculative_step.map(calls)
    first = [[Fraction(0)] * len(q) for q, _, _, _ in EXACT_CASES]
    accepted = [Fraction(0)] * len(EXACT_CASES)
    for result, weight, (case, x) in zip(results, weights, layout, strict=True):
        n, token = _pair_of_ints(result)
        V = len(EXACT_CASES[case][0])
        expect(n in (0, 1) and 0 <= token < V, f"{result.call} returned ({n}, {token}): n must be 0 or 1 and the "
                                               f"token in [0, {V})")
        first[case][x if n == 1 else token] += weight
        accepted[case] += weight * n
    for (q_row, p_row, _, _), got, rate in zip(EXACT_CASES, first, accepted, strict=True):
        target = [Fraction(v).limit_denominator(64) for v in p_row]
        expect(got == target,
               f"with draft q = {q_row} and target p = {p_row}, your speculative_step emits its first token with "
               f"probabilities {[str(g) for g in got]} (computed exactly over every proposal x ~ q and a grid of "
               f"uniforms); speculative sampling must reproduce the target, {[str(t) for t in target]}")
        overlap = sum(min(a, b) for a, b in zip(target, [Fraction(v).limit_denominator(64) for v in q_row],
                                                strict=True))
        expect(rate == overlap,
               f"with draft q = {q_row} and target p = {p_row}, your step accepts the draft with probability {rate}; "
               f"the rule accepts with probability sum(min(p, q)) = {overlap} (resampling every token from the "
               "target is also exact, but wastes every draft)")


# -------------------------------------------------------------------------------------------- experiment

TARGET = [0.30, 0.20, 0.15, 0.12, 0.10, 0.07, 0.04, 0.02]
DRAFT = [0.10, 0.30, 0.25, 0.05, 0.15, 0.05, 0.05, 0.05]
STEPS, DRAFTED = 100, 4


@check("experiment.emitted_tokens", "100 speculative steps of 4 drafts with your function: the emitted tokens "
       "against the target and the draft", group="experiment", required=False)
def experiment(sub, ref, ctx):
    generator = torch.Generator().manual_seed(61)
    p, q = _t([TARGET] * (DRAFTED + 1)), _t([DRAFT] * DRAFTED)
    uniforms = torch.rand(STEPS, 2 * DRAFTED + 1, generator=generator, dtype=torch.float64)
    draft_row = q[0].tolist()
    draft_sums = _exact_cumsums(draft_row)
    drafts = [[_exact_draw(draft_row, float(u), draft_sums) for u in row[:DRAFTED]] for row in uniforms]  # from q
    calls = [((p, q, _tokens(drafted), uniforms[i, DRAFTED:2 * DRAFTED].clone(), float(uniforms[i, -1])), {})
             for i, drafted in enumerate(drafts)]
    emitted = []
    for result, drafted in zip(sub.speculative_step.map(calls), drafts, strict=True):
        n, token = _pair_of_ints(result)
        expect(0 <= n <= DRAFTED and 0 <= token < len(TARGET),
               f"{result.call} returned ({n}, {token}): n must lie in [0, {DRAFTED}] and the token in the vocabulary")
        emitted += [*drafted[:n], token]
    proposed = [x for drafted in drafts for x in drafted]
    ctx.record_experiment(steps=list(range(len(TARGET))), x_label="token",
                          series={"target_p": TARGET, "draft_q": DRAFT,
                                  "emitted_frequency": [emitted.count(v) / len(emitted) for v in range(len(TARGET))],
                                  "proposed_frequency": [proposed.count(v) / len(proposed)
                                                         for v in range(len(TARGET))]})
