"""Check battery for the sampling problem (Holtzman et al., 2020): sampling_probs and sample.

Groups `probs`, `sample` and `stability` are required; `experiment` is advisory (it records the chart of the
notes). The declared contract in problem.toml covers shapes, dtypes, layouts, inputs left unchanged, new
storage, requires_grad and every refused argument; the checks here hold what a declaration cannot say: the hand
example, the boundary of the nucleus, ties, the order of the filters, greedy decoding, the exact inverse CDF,
and the extremes. Every random input comes from a seeded generator, so two runs give identical verdicts.

No decision sits on a rounding boundary: nucleus thresholds are at least 1e-3 away from every prefix mass, and
probed uniforms 1e-9 away from every cumulative sum of a float64 row (correct implementations differ by about
1e-16 there), so every correct order of operations gives the same tokens. The one exception is
probs.nucleus_exact_boundary, whose rows are equal logits: each probability is exactly 1/2 or 1/4 (exp(0) is 1 on
every machine), so every prefix mass is exact in any order of summation, and a top_p placed exactly on one, or one
float away, has a single right answer.
"""

import math

import torch

from grader.checks import check, expect, expect_close, expect_equal, legal_inputs, seeded_randn

HAND = [0.15, 0.5, 0.05, 0.2, 0.1]  # token probabilities at T = 1; ranking 1, 3, 0, 4, 2
PROBE = 1e-9  # distance of a probed uniform from a cumulative sum (float64 rows)
NUCLEUS_GAP = 1e-3  # distance of a drawn top_p from every prefix mass
UNIFORM_GAP = 1e-5  # distance of a drawn uniform from every cumulative sum


def _logits(probs, dtype=torch.float64):
    """Logits whose softmax at T = 1 is `probs` (to rounding)."""
    return torch.tensor(probs, dtype=torch.float64).log().to(dtype)


def _tensor(values, dtype=torch.float64):
    return torch.tensor(values, dtype=dtype)


def _tokens(values):
    return torch.tensor(values, dtype=torch.int64)


# ------------------------------------------------------------------ an independent float64 oracle for inputs


def _ranked_distribution(logits, temperature, top_k):
    """(ranked probabilities after temperature and top-k, ranking) in float64, one row per row."""
    z = logits.detach().double()
    scaled = (z - z.amax(dim=-1, keepdim=True)) / temperature
    ranked, order = scaled.sort(dim=-1, descending=True, stable=True)
    if top_k > 0:
        ranked = ranked.clone()
        ranked[..., top_k:] = float("-inf")
    return torch.softmax(ranked, dim=-1), order


def _away_from(value, boundaries, gap, low, high):
    """`value`, or the midpoint of the widest gap between sorted boundaries when it lies within `gap` of one."""
    points = sorted({low, high, *[b for b in boundaries if low < b < high]})
    if all(abs(value - b) >= gap for b in points[1:-1]):
        return value
    widest = max(zip(points, points[1:], strict=False), key=lambda pair: pair[1] - pair[0])
    return (widest[0] + widest[1]) / 2


@legal_inputs("sampling_probs")
def _nucleus_off_the_boundary(args, sizes):
    """A top_p within 1e-3 of a prefix mass (of any row) would let float32 and float64 disagree on the nucleus:
    it is moved into the widest gap between prefix masses."""
    top_p, temperature = args.get("top_p", 1.0), args.get("temperature", 1.0)
    if 0 < top_p < 1 and temperature > 0 and args["logits"].numel():
        ranked, _ = _ranked_distribution(args["logits"], temperature, args.get("top_k", 0))
        before = (ranked.cumsum(dim=-1) - ranked).reshape(-1).tolist()
        args["top_p"] = _away_from(top_p, before, NUCLEUS_GAP, 0.0, 1.0)
    return args


@legal_inputs("sample")
def _uniform_off_the_boundary(args, sizes):
    """As above for top_p; then every uniform within 1e-5 of its row's cumulative sums is moved into the
    widest interval of that row."""
    args = _nucleus_off_the_boundary(args, sizes)
    logits, uniform = args["logits"], args["uniform"]
    if logits.numel() == 0:
        return args
    rows = logits.detach().double().reshape(-1, logits.shape[-1])
    probs = _oracle(rows, args.get("temperature", 1.0), args.get("top_k", 0), args.get("top_p", 1.0))
    flat = uniform.reshape(-1).tolist()
    for index, row in enumerate(probs.cumsum(dim=-1).tolist()):
        flat[index] = _away_from(flat[index], row, UNIFORM_GAP, 0.0, 1.0)
    args["uniform"] = torch.tensor(flat, dtype=uniform.dtype).reshape(uniform.shape)
    return args


def _oracle(rows, temperature, top_k, top_p):
    """The distribution of the statement, float64, rows [N, V]; independent of the reference's code."""
    if temperature == 0:
        return torch.nn.functional.one_hot(rows.argmax(dim=-1), rows.shape[-1]).double()
    ranked, order = _ranked_distribution(rows, temperature, top_k)
    if top_p < 1:
        before = ranked.cumsum(dim=-1) - ranked
        drop = before >= top_p
        drop[..., 0] = False
        ranked = ranked.masked_fill(drop, 0.0)
        ranked = ranked / ranked.sum(dim=-1, keepdim=True)
    return torch.zeros_like(ranked).scatter(-1, order, ranked)


# ------------------------------------------------------------------------------------------------- probs


@check("probs.hand_example", "Hand example: ln[0.15, 0.5, 0.05, 0.2, 0.1] at T = 1, top-k 2, top-p 0.75, T = 2",
       clauses=["probs.temperature", "probs.top_k", "probs.top_p", "probs.removed_exactly_zero"])
def probs_hand_example(sub, ref):
    logits = _logits(HAND)
    cases = [
        ({}, HAND, "(no filter at T = 1: softmax(ln p) = p)"),
        ({"top_k": 2}, [0, 5 / 7, 0, 2 / 7, 0], "(top-k 2 keeps tokens 1 and 3, renormalised: 0.5/0.7 and 0.2/0.7)"),
        ({"top_p": 0.75}, [0.15 / 0.85, 0.5 / 0.85, 0, 0.2 / 0.85, 0],
         "(masses before the ranked tokens 1, 3, 0, 4, 2 are 0, 0.5, 0.7, 0.85, 0.95: below 0.75 for tokens 1, "
         "3 and 0, so token 0 crosses p and is kept)"),
        ({"temperature": 2}, [v / sum(x ** 0.5 for x in HAND) for v in (x ** 0.5 for x in HAND)],
         "(T = 2 gives softmax(ln p / 2), proportional to sqrt(p))"),
        ({"temperature": 0.5}, [v / sum(x ** 2 for x in HAND) for v in (x ** 2 for x in HAND)],
         "(T = 0.5 gives softmax(2 ln p), proportional to p squared)"),
    ]
    results = sub.sampling_probs.map([((logits,), options) for options, _, _ in cases])
    for result, (_, expected, why) in zip(results, cases, strict=True):
        expect_close(result.unwrap(), _tensor(expected), call=result, hint=why)


@check("probs.nucleus_boundary", "The token that carries the running mass past p is kept; p = 0 and p = 1",
       clauses=["probs.top_p", "probs.removed_exactly_zero"])
def probs_nucleus_boundary(sub, ref):
    logits = _logits([0.5, 0.3, 0.2])
    cases = [
        (0.6, [0.5 / 0.8, 0.3 / 0.8, 0], "(token 0 has mass 0.5 < 0.6, so token 1, which crosses 0.6, is kept too)"),
        (0.45, [1, 0, 0], "(the first token alone already reaches 0.45)"),
        (0.81, [0.5, 0.3, 0.2], "(0.5 + 0.3 = 0.8 is still below 0.81: token 2 crosses it and is kept)"),
        (0.0, [1, 0, 0], "(top_p = 0 keeps only the first-ranked token: it is always kept)"),
        (1.0, [0.5, 0.3, 0.2], "(top_p = 1 keeps every token)"),
        (1e-12, [1, 0, 0], "(a tiny top_p keeps the first-ranked token, never nothing)"),
    ]
    results = sub.sampling_probs.map([((logits,), {"top_p": p}) for p, _, _ in cases])
    for result, (p, expected, why) in zip(results, cases, strict=True):
        got = result.unwrap()
        expect_close(got, _tensor(expected), call=result, hint=why)
        kept = int((got > 0).sum())
        expect(kept == sum(1 for v in expected if v > 0),
               f"{result.call} kept {kept} token(s) at top_p = {p}; expected {sum(1 for v in expected if v > 0)}")


def _kept(probs):
    """The indices of a row's tokens with nonzero probability."""
    return (probs.reshape(-1) > 0).nonzero().reshape(-1).tolist()


def _short(indices, limit=12):
    return str(indices) if len(indices) <= limit else f"{str(indices[:limit])[:-1]}, ... ({len(indices)} tokens)]"


@check("probs.nucleus_exact_boundary", "A top_p exactly equal to the mass ranked before a token removes that token "
       "(strictly below p); one float above p keeps it", clauses=["probs.top_p", "probs.ties",
                                                                  "probs.removed_exactly_zero"])
def probs_nucleus_exact_boundary(sub, ref):
    above, below = (lambda p: math.nextafter(p, 2.0)), (lambda p: math.nextafter(p, -1.0))
    # Equal logits only: unequal ones whose probabilities are binary fractions need exp to round one way, which
    # differs between machines' vector libraries by an ulp.
    rows = {"two": _tensor([0.0, 0.0]), "four32": _tensor([0.0] * 4, torch.float32),
            "four64": _tensor([0.0] * 4)}
    cases = [  # (row, top_p, kept tokens, why)
        ("two", 0.5, [0], "the mass before token 1 is exactly 0.5, not below p = 0.5"),
        ("two", below(0.5), [0], "the mass before token 1 is 0.5, above p"),
        ("two", above(0.5), [0, 1], "the mass before token 1 is 0.5, just below p"),
        ("four32", 0.25, [0], "four equal tokens of 1/4: the mass before token 1 is exactly 0.25"),
        ("four32", 0.5, [0, 1], "the mass before token 2 is exactly 0.5"),
        ("four32", 0.5 - 2 ** -20, [0, 1], "the mass before token 1 is 0.25 < p, before token 2 0.5 > p"),
        ("four32", 0.75, [0, 1, 2], "the mass before token 3 is exactly 0.75"),
        ("four32", 0.75 + 2 ** -20, [0, 1, 2, 3], "the mass before token 3 is 0.75 < p"),
        ("four64", 0.75, [0, 1, 2], "four equal float64 tokens: the mass before token 3 is exactly 0.75"),
        ("four64", above(0.75), [0, 1, 2, 3], "the mass before token 3 is 0.75, just below p"),
        ("four64", below(0.25), [0], "the mass before token 1 is 0.25, just above p"),
    ]
    results = sub.sampling_probs.map([((rows[name],), {"top_p": p}) for name, p, _, _ in cases])
    for result, (name, p, kept, why) in zip(results, cases, strict=True):
        row = rows[name]
        probs = torch.softmax(row.double(), dim=-1)
        expected = torch.zeros_like(probs)
        expected[kept] = probs[kept] / probs[kept].sum()
        got = result.unwrap()
        expect(isinstance(got, torch.Tensor) and _kept(got) == kept,
               f"{result.call} with top_p = {p!r} kept tokens "
               f"{_kept(got) if isinstance(got, torch.Tensor) else got}; expected {kept} ({why}: a token is kept "
               "only when the mass ranked strictly before it is below p, so a mass equal to p removes it)")
        expect_close(got, expected.to(row.dtype), call=result, hint=f"({why}; the kept tokens renormalised)")


@check("probs.top_p_one_keeps_all", "top_p = 1 turns the nucleus off: tokens of tiny but positive probability are "
       "kept, as in the plain softmax", clauses=["probs.top_p", "probs.top_k", "probs.temperature"])
def probs_top_p_one_keeps_all(sub, ref):
    cases = [  # (logits, options, why)
        (_tensor([0.0, -200.0]), {}, "the default top_p = 1: token 1 has probability e^-200 = 1.4e-87"),
        (_tensor([0.0, -200.0]), {"top_p": 1}, "top_p = 1 as a Python int"),
        (_tensor([-100.0, 0.0, -300.0, -700.0, -30.0]), {"top_p": 1.0, "top_k": 4},
         "top-k 4 removes token 3 only; top_p = 1 must keep e^-30, e^-100 and e^-300"),
        (_tensor([0.0, -100.0, -250.0]), {"temperature": 0.5}, "T = 0.5 doubles the gaps: e^-200 and e^-500"),
        (_tensor([0.0, -20.0, -40.0, -80.0], torch.float32), {}, "float32: e^-80 = 1.8e-35 is still a normal float"),
        (seeded_randn(41, 2, 1000, dtype=torch.float32) * 5, {"top_p": 1.0},
         "float32, two rows of 1000 logits with spread 5: the tail sums to less than one float32 step of 1"),
    ]
    results = sub.sampling_probs.map([((z,), options) for z, options, _ in cases])
    for result, (z, options, why) in zip(results, cases, strict=True):
        expected = _oracle(z.double().reshape(-1, z.shape[-1]), options.get("temperature", 1.0),
                           options.get("top_k", 0), 1.0).reshape(z.shape).to(z.dtype)
        got = result.unwrap()
        if isinstance(got, torch.Tensor) and got.shape == expected.shape:
            lost = ((expected > 0) & (got == 0)).reshape(-1).nonzero().reshape(-1).tolist()
            expect(not lost, f"{result.call} gave probability 0 to {len(lost)} token(s) whose softmax is positive "
                             f"(flat indices {_short(lost)}; {why}). top_p = 1 keeps every token: skip the nucleus "
                             "filter, since rounding in a cumulative sum can reach 1 before the last token")
        expect_close(got, expected, call=result, atol=0.0,
                     hint=f"(the plain softmax of z / T over the top-k tokens; {why})")


@check("probs.ties", "Equal logits rank by index: top-k and top-p keep the smaller indices, greedy the first maximum",
       clauses=["probs.ties", "probs.greedy"])
def probs_ties(sub, ref):
    cases = [
        (_tensor([1.0, 2.0, 2.0, 2.0, 0.0]), {"top_k": 2}, [0, 0.5, 0.5, 0, 0],
         "(three tokens share the largest logit: top-k 2 keeps the two smallest indices, 1 and 2)"),
        (_tensor([0.0, 0.0, 0.0, 0.0]), {"top_p": 0.3}, [0.5, 0.5, 0, 0],
         "(four equal tokens of 0.25: the masses before them are 0, 0.25, 0.5, 0.75, so the first two in index "
         "order are kept)"),
        (_tensor([1.0, 3.0, 3.0]), {"temperature": 0}, [0, 1, 0],
         "(greedy: the first of the equal maxima, as torch.argmax)"),
        (_tensor([3.0, 1.0, 3.0, 3.0]), {"top_k": 1}, [1, 0, 0, 0],
         "(top-k 1 among three equal maxima keeps index 0)"),
        (_tensor([0.0, 5.0, 0.0, 0.0, 0.0]), {"top_p": 0.9, "temperature": 10.0},
         None, "(after the largest token, four equal tokens: the nucleus takes them in index order)"),
    ]
    results = sub.sampling_probs.map([((z,), options) for z, options, _, _ in cases])
    for result, (z, options, expected, why) in zip(results, cases, strict=True):
        want = _tensor(expected) if expected is not None else _oracle(z[None], options.get("temperature", 1.0),
                                                                      0, options.get("top_p", 1.0))[0]
        expect_close(result.unwrap(), want, call=result, hint=why)


@check("probs.ties_large_vocab", "In vocabularies of 100 to 300 tokens, equal logits still rank by index: top-k and "
       "top-p keep the smallest indices", clauses=["probs.ties", "probs.top_k", "probs.top_p"])
def probs_ties_large_vocab(sub, ref):
    head = torch.full((150,), -1.0, dtype=torch.float64)
    head[70] = 2.0  # one larger token, then 149 equal ones
    rows = torch.zeros(3, 200, dtype=torch.float32)
    rows[1, 150:] = 1.0  # row 1: fifty equal maxima at the end of the vocabulary
    rows[2, ::2] = -1.0  # row 2: the odd tokens tie for the maximum
    cases = [  # (logits, options, why)
        (torch.zeros(100, dtype=torch.float64), {"top_k": 3}, "100 equal logits: top-k 3 keeps tokens 0, 1, 2"),
        (torch.zeros(100, dtype=torch.float64), {"top_p": 0.255},
         "100 equal tokens of 0.01: the mass before token r is r / 100, below 0.255 for tokens 0 to 25"),
        (torch.zeros(128, dtype=torch.float32), {"top_k": 5}, "128 equal float32 logits: tokens 0 to 4"),
        (torch.zeros(300, dtype=torch.float32), {"temperature": 0.5, "top_p": 0.105},
         "300 equal tokens of 1/300: the mass before token r is r / 300, below 0.105 for tokens 0 to 31"),
        (head, {"top_k": 4}, "token 70 first, then the equal tokens 0, 1, 2"),
        (head, {"top_p": 0.9, "temperature": 3.0}, "token 70 first, then the equal tokens in index order"),
        (rows, {"top_k": 6}, "each row on its own: row 0 keeps 0 to 5, row 1 150 to 155, row 2 the odd 1 to 11"),
    ]
    results = sub.sampling_probs.map([((z,), options) for z, options, _ in cases])
    for result, (z, options, why) in zip(results, cases, strict=True):
        expected = _oracle(z.double().reshape(-1, z.shape[-1]), options.get("temperature", 1.0),
                           options.get("top_k", 0), options.get("top_p", 1.0)).reshape(z.shape).to(z.dtype)
        got = result.unwrap()
        if isinstance(got, torch.Tensor) and got.shape == expected.shape:
            for row, (mine, theirs) in enumerate(zip(got.reshape(-1, z.shape[-1]),
                                                     expected.reshape(-1, z.shape[-1]), strict=True)):
                where = f" in row {row}" if z.dim() > 1 else ""
                expect(_kept(mine) == _kept(theirs),
                       f"{result.call} kept tokens {_short(_kept(mine))}{where}; expected {_short(_kept(theirs))} "
                       f"({why}). Rank with a stable sort (torch.sort(..., descending=True, stable=True)): "
                       "torch.argsort and torch.sort without stable=True may put equal values in any order "
                       "once the vocabulary is large")
        expect_close(got, expected, call=result, hint=f"({why}, renormalised)")


@check("probs.filter_order", "Temperature, then top-k, then top-p on the renormalised top-k distribution",
       clauses=["probs.order"])
def probs_filter_order(sub, ref):
    logits = _logits([0.4, 0.3, 0.2, 0.1])
    cases = [
        # At T = 1 the nucleus of 0.65 is tokens 0, 1. At T = 3 the row flattens to about [0.30, 0.27, 0.24,
        # 0.19]: masses before are 0, 0.30, 0.57, 0.81, so tokens 0, 1, 2 are kept. Deciding the nucleus before
        # the temperature keeps two.
        ({"temperature": 3.0, "top_p": 0.65}, "(the temperature comes first: at T = 3 the nucleus of 0.65 has "
                                              "three tokens, at T = 1 only two)"),
        # Top-k 2 leaves [0.4, 0.3] / 0.7 = [0.571, 0.429]; top-p 0.55 on that keeps only token 0. On the full
        # distribution the mass before token 1 is 0.4 < 0.55 and both would stay.
        ({"top_k": 2, "top_p": 0.55}, "(top-p runs on the top-k tokens renormalised: 0.4 / 0.7 = 0.571 already "
                                      "reaches 0.55, so token 1 goes)"),
        # Top-k 3 then top-p 0.8: [0.4, 0.3, 0.2] / 0.9; masses before are 0, 0.444, 0.778: all three stay.
        ({"top_k": 3, "top_p": 0.8}, "(renormalised over three tokens, the mass before token 2 is 0.778 < 0.8)"),
        ({"temperature": 0.5, "top_k": 3}, "(temperature, then top-k: p squared over the three largest tokens)"),
    ]
    results = sub.sampling_probs.map([((logits,), options) for options, _ in cases])
    for result, (options, why) in zip(results, cases, strict=True):
        want = _oracle(logits[None], options.get("temperature", 1.0), options.get("top_k", 0),
                       options.get("top_p", 1.0))[0]
        expect_close(result.unwrap(), want, call=result, hint=why)


@check("probs.top_k_bounds", "top_k = 0 and top_k >= V keep every token; top_k = V - 1 removes the last",
       clauses=["probs.top_k"])
def probs_top_k_bounds(sub, ref):
    logits = _logits([0.1, 0.2, 0.3, 0.4])
    cases = [
        (0, [0.1, 0.2, 0.3, 0.4], "(top_k = 0 turns the filter off)"),
        (4, [0.1, 0.2, 0.3, 0.4], "(top_k = V keeps every token)"),
        (50, [0.1, 0.2, 0.3, 0.4], "(a top_k larger than the vocabulary keeps every token; it is not an error)"),
        (3, [0, 0.2 / 0.9, 0.3 / 0.9, 0.4 / 0.9], "(top_k = 3 removes the smallest, token 0)"),
        (1, [0, 0, 0, 1], "(top_k = 1 is greedy on the scaled logits)"),
    ]
    results = sub.sampling_probs.map([((logits,), {"top_k": k}) for k, _, _ in cases])
    for result, (_, expected, why) in zip(results, cases, strict=True):
        expect_close(result.unwrap(), _tensor(expected), call=result, hint=why)


@check("probs.greedy", "temperature = 0 is a one-hot row at the argmax, whatever top_k and top_p say",
       clauses=["probs.greedy", "probs.removed_exactly_zero"])
def probs_greedy(sub, ref):
    logits = _tensor([[0.3, -1.0, 2.5, 2.0], [7.0, 7.5, -3.0, 0.0]])
    expected = _tensor([[0, 0, 1, 0], [0, 1, 0, 0]])
    options = [{}, {"top_k": 3}, {"top_p": 0.5}, {"top_k": 2, "top_p": 0.1}]
    results = sub.sampling_probs.map([((logits, 0), extra) for extra in options])
    for result in results:
        expect_equal(result.unwrap(), expected, call=result,
                     hint="(T = 0 is the limit of a shrinking temperature: all the mass on the largest logit; "
                          "do not divide by 0)")
    for dtype in (torch.float32, torch.float64):
        result = sub.sampling_probs.call(logits.to(dtype), 0.0)
        expect_equal(result.unwrap(), expected.to(dtype), call=result, hint="(greedy rows are exactly one-hot)")


@check("probs.rows_and_shift", "Each row of a batch is filtered on its own; adding a constant to a row changes "
       "nothing", clauses=["probs.rows_independent", "probs.top_p", "probs.top_k"])
def probs_rows_and_shift(sub, ref):
    generator = torch.Generator().manual_seed(11)
    rows = torch.randn(3, 2, 6, generator=generator, dtype=torch.float64) * 2  # [3, 2, 6]: six rows
    options = {"temperature": 0.8, "top_k": 4, "top_p": 0.7}
    options["top_p"] = _nucleus_off_the_boundary({"logits": rows, **options}, {})["top_p"]
    shift = torch.tensor([[[100.0], [-40.0]], [[0.0], [7.5]], [[-1e3], [3.0]]], dtype=torch.float64)
    batch, shifted = sub.sampling_probs.map([((rows,), options), ((rows + shift,), options)])
    want = _oracle(rows.reshape(-1, 6), 0.8, 4, options["top_p"]).reshape(3, 2, 6)
    expect_close(batch.unwrap(), want, call=batch,
                 hint="(every row has its own ranking, its own top-k and its own nucleus)")
    expect_close(shifted.unwrap(), want, call=shifted,
                 hint="(a constant added to a row's logits cancels in the softmax: the same distribution)")


# ------------------------------------------------------------------------------------------------ sample


@check("sample.hand_example", "Hand example: the cumulative sums 0.15, 0.65, 0.70, 0.90, 1.0 in vocabulary order",
       clauses=["sample.inverse_cdf", "sample.never_removed", "sample.filters"])
def sample_hand_example(sub, ref):
    logits = _logits(HAND)
    cases = [
        ([0.1, 0.66, 0.95, 0.0, 0.3], {}, [0, 2, 4, 0, 1],
         "(C = [0.15, 0.65, 0.70, 0.90, 1.0] in vocabulary order, not in ranked order: the token is the first "
         "index with C_i > u)"),
        ([0.0, 0.5, 0.72, 0.9, 0.999], {"top_k": 2}, [1, 1, 3, 3, 3],
         "(with top_k = 2, C = [0, 5/7, 5/7, 1, 1]: u = 0 gives token 1; the removed tokens 0, 2 and 4 have "
         "probability 0 and are never drawn)"),
        ([0.05, 0.2, 0.7, 0.8, 0.9], {"top_p": 0.75}, [0, 1, 1, 3, 3],
         "(top_p = 0.75 keeps tokens 0, 1 and 3: C = [0.176, 0.765, 0.765, 1, 1])"),
        ([0.0, 0.3, 0.99], {"temperature": 0}, [1, 1, 1], "(T = 0 is greedy: token 1 whatever u is)"),
    ]
    calls = [((logits.expand(len(u), 5), _tensor(u)), options) for u, options, _, _ in cases]
    for result, (_, _, expected, why) in zip(sub.sample.map(calls), cases, strict=True):
        expect_equal(result.unwrap(), _tokens(expected), call=result, hint=why)


PROBED = [  # (row of logits, options): float64 rows with removed tokens in the middle of the vocabulary
    ([0.3, -1.2, 2.0, 0.9, -0.4, 1.4], {}),
    ([0.3, -1.2, 2.0, 0.9, -0.4, 1.4], {"temperature": 0.7, "top_k": 3}),
    ([1.0, 0.2, -0.5, 1.6, 0.8, -2.0, 0.0], {"top_p": 0.62}),
    ([1.0, 0.2, -0.5, 1.6, 0.8, -2.0, 0.0], {"temperature": 1.8, "top_k": 5, "top_p": 0.8}),
    ([-3.0, 4.0, 4.0, 1.0], {"top_k": 2}),
]


@check("sample.exact_distribution", "Probed just inside both ends of every interval [C_(i-1), C_i), the draw is "
       "token i: each token is drawn with exactly its probability", clauses=["sample.inverse_cdf", "sample.filters",
                                                                             "sample.never_removed"])
def sample_exact_distribution(sub, ref):
    calls, wanted = [], []
    for values, options in PROBED:
        row = _tensor(values)
        probs = _oracle(row[None], options.get("temperature", 1.0), options.get("top_k", 0),
                        options.get("top_p", 1.0))[0]
        cdf = probs.cumsum(dim=0).tolist()
        uniforms, tokens = [], []
        for i, p in enumerate(probs.tolist()):
            if p > 0:
                low = cdf[i - 1] if i else 0.0
                uniforms += [low + PROBE if i else 0.0, min(cdf[i] - PROBE, 1 - 2 ** -53)]
                tokens += [i, i]
        calls.append(((row.expand(len(uniforms), row.numel()), _tensor(uniforms)), options))
        wanted.append((tokens, probs))
    for result, (tokens, probs) in zip(sub.sample.map(calls), wanted, strict=True):
        got = result.unwrap()
        expect_equal(got, _tokens(tokens), call=result,
                     hint=f"(token i is drawn exactly for u in [C_(i-1), C_i), with C the cumulative sums of "
                          f"{[round(p, 4) for p in probs.tolist()]} in vocabulary order; each u here lies "
                          f"{PROBE:g} inside one end of such an interval)")


@check("sample.end_of_the_cdf", "Rounding below 1: no C_i exceeds u, so the last token with nonzero probability",
       clauses=["sample.never_removed"])
def sample_end_of_the_cdf(sub, ref):
    # float32 softmax of these logits, top_k = 3, sums to 0.99999988 (1 - 2^-23): u = 0.99999999 exceeds every C_i.
    # The answer is token 2, the last kept one, and not token 3 (removed) nor an index past the vocabulary.
    logits = _tensor([-1.75, -1.75, -0.25, -5.0], torch.float32)
    result = sub.sample.call(logits, _tensor(0.99999999), top_k=3)
    expect_equal(result.unwrap(), torch.tensor(2), call=result,
                 hint="(float32 cumulative sums end at 0.99999988 here, below u: take the last token whose probability "
                      "is not 0, never the removed token 3 or an index past the vocabulary)")
    largest_below_one = 1 - 2 ** -53
    for dtype in (torch.float32, torch.float64):
        result = sub.sample.call(_tensor([0.0, 1.0, 2.0, -30.0], dtype), _tensor(largest_below_one), top_k=3)
        expect_equal(result.unwrap(), torch.tensor(2), call=result,
                     hint="(u = 1 - 2^-53, the largest uniform below 1: the last kept token, 2)")


@check("sample.rows", "Every row draws with its own u from its own distribution", clauses=["sample.filters",
                                                                                          "sample.inverse_cdf"])
def sample_rows(sub, ref):
    generator = torch.Generator().manual_seed(23)
    logits = torch.randn(2, 3, 7, generator=generator, dtype=torch.float64) * 1.5  # six rows
    uniform = torch.rand(2, 3, generator=generator, dtype=torch.float64)
    args = _uniform_off_the_boundary({"logits": logits, "uniform": uniform, "top_k": 5, "top_p": 0.85}, {})
    probs = _oracle(logits.reshape(6, 7), 1.0, 5, args["top_p"])
    cdf = probs.cumsum(dim=-1)
    expected = (cdf <= args["uniform"].reshape(6, 1)).sum(dim=-1).reshape(2, 3)
    result = sub.sample.call(logits, args["uniform"], top_k=5, top_p=args["top_p"])
    expect_equal(result.unwrap(), expected, call=result,
                 hint="(row r uses uniform[r] and its own filtered distribution; the result has the batch's shape)")


# --------------------------------------------------------------------------------------------- stability


@check("stability.extreme_temperatures", "Temperatures from the smallest floats to 1e300: greedy and uniform "
       "rows, never nan", clauses=["stability.extreme_temperatures"])
def stability_extreme_temperatures(sub, ref):
    logits = [0.0, 5.0, -5.0, 4.0]
    cases = [  # (dtype, temperature, options, expected, why)
        (torch.float32, 1e-40, {}, [0, 1, 0, 0], "a subnormal float32 temperature: 5 / 1e-40 overflows"),
        (torch.float64, 1e-320, {}, [0, 1, 0, 0], "a subnormal float64 temperature: 5 / 1e-320 overflows"),
        (torch.float64, 1e-320, {"top_p": 0.5}, [0, 1, 0, 0], "the same with a nucleus"),
        (torch.float32, 1e300, {}, [0.25, 0.25, 0.25, 0.25], "a huge temperature flattens the row completely"),
        (torch.float64, 1e300, {"top_k": 2}, [0, 0.5, 0, 0.5], "flat over the two tokens top-k keeps"),
    ]
    calls = [((_tensor(logits, dtype), t), options) for dtype, t, options, _, _ in cases]
    for result, (dtype, _, _, expected, why) in zip(sub.sampling_probs.map(calls), cases, strict=True):
        expect_close(result.unwrap(), _tensor(expected, dtype), call=result,
                     hint=f"({why}: subtract each row's maximum before dividing by T, so the largest scaled logit "
                          "is exactly 0 and the others go to -inf, not inf - inf)")
    drawn = sub.sample.call(_tensor(logits).expand(3, 4), _tensor([0.0, 0.5, 0.999]), 1e-320)
    expect_equal(drawn.unwrap(), _tokens([1, 1, 1]), call=drawn, hint="(a vanishing temperature draws the argmax)")


@check("stability.large_logits", "Logits of magnitude 1e4, positive and negative, in float32 and float64",
       clauses=["stability.large_logits"])
def stability_large_logits(sub, ref):
    rows = [
        ([1e4, -1e4, 9999.0, 0.0], {}),
        ([-1e4, -9999.0, -9998.0], {}),  # every exp() underflows unless the maximum is subtracted first
        ([-1e4, -9999.0, -9998.0], {"top_p": 0.8}),
        ([1e4, 9999.5, -1e4, 9999.0], {"temperature": 2.0, "top_k": 3}),
    ]
    calls, wanted = [], []
    for dtype in (torch.float32, torch.float64):
        for values, options in rows:
            z = _tensor(values, dtype)
            calls.append(((z,), options))
            wanted.append(_oracle(z[None].double(), options.get("temperature", 1.0), options.get("top_k", 0),
                                  options.get("top_p", 1.0))[0].to(dtype))
    for result, expected in zip(sub.sampling_probs.map(calls), wanted, strict=True):
        expect_close(result.unwrap(), expected, call=result,
                     hint="(exp(1e4) overflows and exp(-1e4) underflows: use a softmax that subtracts the maximum)")


# -------------------------------------------------------------------------------------------- experiment

ZIPF_V, DRAWS = 30, 4000


@check("experiment.nucleus_and_draws", "Your filters on a Zipf-like distribution, and 4000 of your draws",
       group="experiment", required=False)
def experiment(sub, ref, ctx):
    ranks = torch.arange(ZIPF_V, dtype=torch.float64)
    logits = -1.1 * torch.log1p(ranks)  # p_r proportional to 1 / (r + 1)^1.1, tokens listed by rank
    generator = torch.Generator().manual_seed(31)
    uniform = torch.rand(DRAWS, generator=generator, dtype=torch.float64)
    full, nucleus, top_k = sub.sampling_probs.map([((logits,), {}), ((logits,), {"top_p": 0.9}),
                                                   ((logits,), {"top_k": 5})])
    drawn = sub.sample.call(logits.expand(DRAWS, ZIPF_V), uniform, top_p=0.9)
    tokens = drawn.unwrap()
    expect(isinstance(tokens, torch.Tensor) and tokens.dtype == torch.int64 and tokens.shape == (DRAWS,),
           f"{drawn.call} did not return {DRAWS} int64 tokens")
    frequency = torch.bincount(tokens.clamp(0, ZIPF_V - 1), minlength=ZIPF_V).double() / DRAWS
    ctx.record_experiment(steps=list(range(ZIPF_V)), x_label="token (by rank)",
                          series={"full_softmax": full.unwrap().tolist(), "nucleus_p_90": nucleus.unwrap().tolist(),
                                  "top_k_5": top_k.unwrap().tolist(), "drawn_frequency": frequency.tolist()})
