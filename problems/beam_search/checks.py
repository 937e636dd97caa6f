"""Check battery for the beam search problem (Graves, 2012; Wu et al., 2016): beam_search over a bigram table.

Groups `search`, `finish` and `length_penalty` are required; `experiment` is advisory (it records the chart of
the notes). The declared contract in problem.toml covers shapes, dtypes, layouts, inputs left unchanged, new
storage, requires_grad and every refused argument; the checks here hold what a declaration cannot say: the hand
example, the tie rules, the shrinking beam, finished and unfinished hypotheses, the length penalty, and the
search against an exhaustive one. Every random input comes from a seeded generator.

Tables are multiples of 1/64 between -8 and 0 wherever ties matter or results are compared with the reference:
sums of a few such numbers are exact in float32 and float64, so every correct order of additions ranks the
candidates identically and the tie rules, not rounding, decide. The exhaustive comparison uses continuous tables
and checks that the best hypothesis wins by a clear margin.
"""

import itertools

import torch

from grader.checks import check, expect, expect_close, expect_equal, expect_tensor, fail, legal_inputs

B = -8.0  # a transition the examples never want
HAND = [[B, -0.5, -1.0, -2.0],  # <s>, a, b, </s>: rows are the previous token, columns the next
        [B, -2.0, -1.5, -1.75],
        [B, -1.0, -2.0, -0.25],
        [B, B, B, B]]
STEP = 1 / 64  # the grid of the tables compared with the reference
MARGIN = 1e-3  # the exhaustive check's best hypothesis beats the second by at least this much


def _table(rows, dtype=torch.float64):
    return torch.tensor(rows, dtype=dtype)


def _padded(tokens, max_len):
    return torch.tensor(list(tokens) + [-1] * (max_len - len(tokens)), dtype=torch.int64)


def _pair(result):
    """The (tokens, score) tuple of a call, checked for its form before its values."""
    value = result.unwrap()
    if not isinstance(value, tuple) or len(value) != 2:
        fail(f"{result.call} returned {type(value).__name__}; expected a tuple (tokens, score)")
    tokens, score = value
    expect_tensor(tokens, dtype=torch.int64, what="tokens", call=result)
    expect_tensor(score, shape=(), what="score (a 0-d tensor)", call=result)
    return tokens, score


def _expect_answer(result, tokens, score, max_len, hint, dtype=torch.float64):
    got_tokens, got_score = _pair(result)
    expect_equal(got_tokens, _padded(tokens, max_len), what="tokens", call=result, hint=hint)
    expect_close(got_score, torch.tensor(score, dtype=dtype), what="score", call=result, hint=hint)


def _penalty(length, alpha):
    return ((5 + length) / 6) ** alpha


def _total(table, bos, tokens):
    """log P(tokens) under the table, in float64 (exact for the tables on the 1/64 grid)."""
    previous, total = bos, 0.0
    for token in tokens:
        total += float(table[previous, token])
        previous = token
    return total


def _grid_table(generator, V, eos, eos_bias=0.0):
    """A random table on the 1/64 grid in [-4, 0]; eos_bias shifts the eos column (towards -inf when negative)."""
    table = -torch.randint(0, 257, (V, V), generator=generator).double() * STEP
    table[:, eos] = (table[:, eos] + eos_bias).clamp(-8.0, 0.0)
    return table


@legal_inputs("beam_search")
def _on_the_grid(args, sizes):
    """Drawn tables are rounded to multiples of 1/64 in [-8, 0], so float32 and float64 sum them exactly and the
    contract's tie rules, not rounding, decide between equal totals."""
    table = args["log_probs"]
    args["log_probs"] = (table.double().clamp(-8.0, 0.0) / STEP).round().mul(STEP).to(table.dtype)
    return args


def _exhaustive_best(table, bos, eos, max_len, alpha):
    """Every hypothesis the search could return (ending with eos, or max_len tokens without it), best first,
    by normalised score in float64."""
    V = table.shape[0]
    pool = []
    for length in range(1, max_len + 1):
        for tokens in itertools.product(range(V), repeat=length):
            if eos in tokens[:-1] or (tokens[-1] != eos and length < max_len):
                continue
            pool.append((_total(table, bos, tokens) / _penalty(length, alpha), tokens))
    return sorted(pool, key=lambda item: -item[0])


# ------------------------------------------------------------------------------------------------ search


@check("search.hand_example", "Hand example: <s> a b </s>, beam 2 finds 'b </s>' where greedy finds 'a b </s>'",
       clauses=["search.model", "search.beam", "search.ties", "finish.eos", "finish.result",
                "finish.unfinished"])
def search_hand_example(sub, ref):
    table = _table(HAND)
    cases = [
        ((2, 3), [2, 3], -1.25, "(step 1 keeps a (-0.5) and b (-1); step 2 ranks b </s> (-1.25), then a b and b a "
                                "(-2, a tie won by a b, whose parent ranked first); b </s> finishes, a b </s> "
                                "(-2.25) finishes at step 3, and b </s> is the better of the two)"),
        ((1, 3), [1, 2, 3], -2.25, "(beam 1 is greedy: a (-0.5), then a b (-2), then a b </s> (-2.25))"),
        ((2, 1), [1], -0.5, "(with max_len 1 nothing reaches </s>: the best unfinished hypothesis, a, is returned)"),
        ((3, 3), [2, 3], -1.25, "(a third slot adds more candidates but nothing better than b </s>)"),
    ]
    results = sub.beam_search.map([((table, 0, 3, beam, max_len), {}) for (beam, max_len), _, _, _ in cases])
    for result, ((_, max_len), tokens, score, why) in zip(results, cases, strict=True):
        _expect_answer(result, tokens, score, max_len, why)


@check("search.ties", "Equal totals: the better parent, then the smaller token; equal final scores: pool order",
       clauses=["search.ties"])
def search_ties(sub, ref):
    tied_tokens = _table([[B, -1.0, -1.0, -3.0], [B, B, B, B], [B, B, B, B], [B, B, B, B]])
    tied_parents = _table([[B, -1.0, -2.0, B], [B, B, -1.5, -3.0], [B, -0.5, B, -2.0], [B, B, B, B]])
    finished_first = _table([[B, -1.0, B, -1.0], [B, B, B, B], [B, B, B, B], [B, B, B, B]])
    cases = [
        ((tied_tokens, 0, 3, 1, 1), [1], -1.0,
         "(a and b both follow <s> at -1: listed parent by parent and token by token, the smaller token a comes "
         "first and takes the only slot)"),
        ((tied_parents, 0, 3, 2, 2), [1, 2], -2.5,
         "(step 2 ranks a b and b a both at -2.5: the candidate of a, the better-ranked parent, comes first; "
         "neither finishes, and of the two equal unfinished hypotheses the first in pool order wins)"),
        ((tied_parents, 0, 3, 3, 2), [1, 2], -2.5,
         "(the same ties with a third slot: a </s> (-4) finishes, a b still beats b a)"),
        ((finished_first, 0, 3, 2, 1), [3], -1.0,
         "(</s> and a both score -1 at step 1: </s> finished, a did not; finished hypotheses come first in the pool, "
         "so </s> wins the tie)"),
    ]
    results = sub.beam_search.map([(args, {}) for args, _, _, _ in cases])
    for result, (args, tokens, score, why) in zip(results, cases, strict=True):
        _expect_answer(result, tokens, score, args[4], why)


@check("search.ties_large_vocabulary", "Equal totals among 17 to 33 tokens, float32 and float64: the listing order "
       "still decides (a stable sort)", clauses=["search.ties", "search.beam"])
def search_ties_large_vocabulary(sub, ref):
    calls, hints = [], []
    for dtype in (torch.float32, torch.float64):
        for V in (17, 20, 33):
            flat = torch.zeros(V, V, dtype=dtype)
            calls += [((flat, 0, V - 1, 1, 1), {}), ((flat, 0, V - 1, 3, 2), {}), ((flat, V - 1, 0, 4, 3), {})]
            hints += [f"(all {V} candidates total 0: listed token by token, token 0 comes first and takes the only "
                      "slot)",
                      f"(every total is 0: step 1 keeps tokens 0, 1, 2 in that order; at step 2 the {3 * V} candidates "
                      "all tie, and the first three listed are [0, 0], [0, 1], [0, 2], children of the best-ranked "
                      "parent, smallest tokens first)",
                      "(every total is 0 and eos is token 0: step 1 finishes [0] (listed first) and keeps 1, 2, 3 "
                      "alive; of equal scores the first in pool order, the earliest finished, wins)"]
            generator = torch.Generator().manual_seed(V)
            two_values = (-torch.randint(0, 2, (V, V), generator=generator).double() * 0.5).to(dtype)
            calls.append(((two_values, 1, V - 1, 5, 3), {}))
            hints.append("(a table of only 0 and -0.5, so most candidates tie: the reference's stable ranking, parent "
                         "by parent and token by token; torch.sort and torch.topk are not stable unless told, "
                         "torch.sort(..., stable=True) is)")
    for result, (args, _), hint in zip(sub.beam_search.map(calls), calls, hints, strict=True):
        want_tokens, want_score = ref.beam_search(*args)
        tokens, score = _pair(result)
        expect_equal(tokens, want_tokens, what="tokens", call=result, hint=hint)
        expect_close(score, want_score, what="score", call=result, hint=hint)


@check("search.second_choices", "One hypothesis may keep several of its continuations: the best candidates are "
       "chosen among all extensions of all hypotheses", clauses=["search.beam"])
def search_second_choices(sub, ref):
    # <s> 0, a 1, b 2, c 3, </s> 4. Step 1 keeps a (-0.5) and c (-1). Both continuations of a, a a (-1.5) and
    # a b (-1.75), beat everything after c (-4): they take both slots. Step 3: a b </s> (-2) finishes, a a a
    # (-2.5) stays alive; a b </s> wins. Were each hypothesis to propose only its own best token, a b would be
    # lost at step 2 and a a a returned.
    table = _table([[B, -0.5, B, -1.0, B], [B, -1.0, -1.25, B, B], [B, B, B, B, -0.25], [-3.0] * 5, [B] * 5])
    result = sub.beam_search.call(table, 0, 4, 2, 3)
    _expect_answer(result, [1, 2, 4], -2.0, 3,
                   "(both continuations of a, a a at -1.5 and a b at -1.75, beat everything that follows c (-4), so "
                   "they take both slots of step 2; a b </s> (-2) then beats a a a (-2.5))")


@check("search.bos_and_eos_shared", "bos may be eos (one token for both): bos is only the first step's row",
       clauses=["search.model", "finish.eos"])
def search_bos_and_eos_shared(sub, ref):
    # Token 2 is both: the first step reads row 2; emitting 2 later ends a hypothesis. Tokens 0, 1 are words.
    table = _table([[-2.0, -0.25, -0.5], [-1.0, -2.0, -1.5], [-0.5, -1.0, -3.0]])
    result = sub.beam_search.call(table, 2, 2, 2, 4)
    # step 1 (row 2): [0] (-0.5), [1] (-1) alive. step 2: [0 1] (-0.75), [0 2] (-1.0, finished), ... keep both.
    # step 3 (1 slot): from [0 1]: [0 1 0] (-1.75), [0 1 2] (-2.25), [0 1 1] (-2.75): [0 1 0] stays alive.
    # step 4 (1 slot): [0 1 0 1] (-2.0) alive; pool: [0 2] (-1.0), [0 1 0 1] (-2.0).
    _expect_answer(result, [0, 2], -1.0, 4,
                   "(bos = eos = 2: the first step reads row 2, bos is not part of the result, and a later 2 ends a "
                   "hypothesis: [0, 2] at -0.5 - 0.5 = -1.0 is the best)")


# ------------------------------------------------------------------------------------------------ finish


@check("finish.beam_shrinks", "A finished hypothesis keeps its slot, and candidates ranked beyond the slots are "
       "dropped, whether they end with eos or not", clauses=["finish.eos", "search.beam"])
def finish_beam_shrinks(sub, ref):
    shrinks = _table([[B, -0.25, -3.0, -2.0], [B, -1.0, -0.5, B], [B, B, B, B], [B, B, B, B]])
    # Step 1 (3 slots): a (-0.25), b (-0.5), </s> (-1, finishes). Step 2 (2 slots): a a (-0.3125) stays alive,
    # a </s> (-0.5) finishes, b </s> (-1.25) is third: dropped. Steps 3 and 4 (1 slot): a a a, then a a a a
    # (-0.4375, length 4: -0.2917 with alpha = 1), which beats a </s> (-0.5 / (7/6) = -0.4286). Had b </s>
    # finished, it would have taken the last slot and a a would have ended there.
    eos_beyond = _table([[B, -0.25, -0.5, -1.0], [B, -0.0625, B, -0.25], [B, B, -1.0, -0.75], [B, B, B, B]])
    # Step 1 (2 slots): </s> (-1) finishes, a (-1.0625) stays alive, b (-1.125) is third: dropped. Step 2 (1 slot):
    # a </s> (-2.0625) finishes and nothing is alive. Kept, b would have grown into b b b b (-1.3125, length 4),
    # whose score with alpha = 1 (-0.875) beats </s> (-1).
    word_beyond = _table([[B, -1.0625, -1.125, -1.0], [B, B, B, -1.0], [B, B, -0.0625, -0.5], [B, B, B, B]])
    cases = [
        ((shrinks, 0, 3, 2, 3), [3], -2.0,
         "(step 1 keeps a (-0.25) and </s> (-2), which finishes; only one slot is left, so step 2 keeps a b "
         "(-0.75) and drops a a (-1.25); every continuation of a b costs -8, and </s> (-2) is the answer. "
         "A beam that keeps two alive hypotheses after one finished also keeps a a and returns a a b)"),
        ((eos_beyond, 0, 3, 3, 4, 1.0), [1, 1, 1, 1], -0.4375 / 1.5,
         "(step 2 has two slots: a a (-0.3125) stays alive and a </s> (-0.5) finishes; b </s> (-1.25), ranked "
         "third, is dropped although it ends with eos, so one slot is left for a a a and then a a a a (-0.4375 / "
         "(9/6) = -0.2917 with alpha = 1, better than a </s> at -0.5 / (7/6) = -0.4286). Finishing b </s> too "
         "would take that last slot, and a a would end at step 2)"),
        ((word_beyond, 0, 3, 2, 4, 1.0), [3], -1.0,
         "(step 1 ranks </s> (-1), a (-1.0625), b (-1.125): </s> finishes and a stays alive in the two slots, and "
         "b, ranked third, is dropped even though a slot went to </s>; step 2 (one slot) finishes a </s> "
         "(-2.0625) and the search stops. Refilling the alive list with b, ranked beyond the slots, would let it "
         "grow into b b b b (-1.3125 / (9/6) = -0.875 with alpha = 1))"),
    ]
    results = sub.beam_search.map([(args, {}) for args, _, _, _ in cases])
    for result, (args, tokens, score, why) in zip(results, cases, strict=True):
        _expect_answer(result, tokens, score, args[4], why)


@check("finish.unfinished", "When time runs out, unfinished hypotheses compete with the finished ones (and may win)",
       clauses=["finish.unfinished", "finish.stop", "finish.result"])
def finish_unfinished(sub, ref):
    never_ends = _table([[B, -0.5, -1.0, -6.0], [B, -0.25, -1.0, -7.0], [B, -0.5, -0.75, -7.0], [B, B, B, B]])
    rarely_ends = _table([[B, -0.25, B, -3.0], [B, -0.25, B, -4.0], [B, B, B, B], [B, B, B, B]])
    cases = [
        ((never_ends, 0, 3, 2, 3), [1, 1, 1], -1.0,
         "(</s> is never among the best candidates: after 3 steps the best unfinished hypothesis, a a a at -1.0, is "
         "the answer, filling all max_len positions)"),
        ((rarely_ends, 0, 3, 2, 2), [1, 1], -0.5,
         "(</s> finishes at step 1 with -3; a a is still alive after max_len = 2 steps at -0.5 and wins: unfinished "
         "hypotheses compete too)"),
        ((rarely_ends, 0, 3, 1, 4), [1, 1, 1, 1], -1.0,
         "(greedy with max_len 4: a a a a, unfinished, at -1.0)"),
    ]
    results = sub.beam_search.map([(args, {}) for args, _, _, _ in cases])
    for result, (args, tokens, score, why) in zip(results, cases, strict=True):
        _expect_answer(result, tokens, score, args[4], why)


@check("finish.stops_and_pads", "The search stops when nothing is alive (every slot has finished), not before; "
       "unused positions are -1", clauses=["finish.stop", "finish.result", "finish.eos"])
def finish_stops_and_pads(sub, ref):
    all_finished = _table([[B, -1.0, B, -0.5], [B, -0.25, B, -0.25], [B, B, B, B], [-0.125, -0.125, -0.125, -0.125]])
    # Step 1 (3 slots): a (-0.5), </s> (-0.75, finishes), b (-1). Step 2 (2 slots): a </s> (-0.8125) is ranked
    # first and finishes, a b (-0.875) stays alive. Step 3 (1 slot): a b </s> (-0.875) finishes and nothing is alive.
    # With alpha = 1: </s> -0.75, a </s> -0.8125 / (7/6) = -0.6964, a b </s> -0.875 / (8/6) = -0.65625, the best.
    best_finishes_first = _table([[B, -0.5, -1.0, -0.75], [B, -0.4375, -0.375, -0.3125], [B, B, B, 0.0], [B, B, B, B]])
    cases = [
        ((all_finished, 0, 3, 2, 6), [3], -0.5,
         "(</s> (-0.5) and a (-1) fill both slots at step 1 and </s> finishes; from step 2 on the one slot left "
         "goes to a a, a a a, ... (a a beats a </s> at -1.25 on the smaller token), unfinished at max_len with "
         "-2.25: </s> is the answer and the other five positions are -1. A hypothesis that ends with eos must not "
         "grow any further)"),
        ((best_finishes_first, 0, 3, 3, 4, 1.0), [1, 2, 3], -0.875 / (8 / 6),
         "(step 2 ranks a </s> (-0.8125) first: it finishes, but a b (-0.875) is still alive, so the search goes "
         "on, and a b </s> (-0.875, length 3) finishes at step 3 with -0.875 / (8/6) = -0.65625 (alpha = 1), "
         "better than a </s> (-0.8125 / (7/6) = -0.6964) and </s> (-0.75). The search stops only after max_len "
         "steps or when nothing is alive, not when the best-ranked candidate ends with eos)"),
    ]
    results = sub.beam_search.map([(args, {}) for args, _, _, _ in cases])
    for result, (args, tokens, score, why) in zip(results, cases, strict=True):
        _expect_answer(result, tokens, score, args[4], why)


# ----------------------------------------------------------------------------------------- length penalty

SHORT_OR_LONG = [[B, -0.25, B, -1.0], [B, B, -0.5, B], [B, B, B, -0.5], [B, B, B, B]]


@check("length_penalty.hand_example", "</s> (-1, length 1) against a b </s> (-1.25, length 3) as alpha grows",
       clauses=["length_penalty.formula"])
def length_penalty_hand_example(sub, ref):
    table = _table(SHORT_OR_LONG)
    cases = [
        (0.0, [3], -1.0, "(alpha = 0: plain log-probabilities, -1 beats -1.25)"),
        (0.5, [3], -1.0, "(alpha = 0.5: lp(</s>) = 1 and lp(a b </s>) = (8/6)^0.5 = 1.155, so -1 against -1.083: "
                         "</s> still wins; lengths count eos, and lp is ((5 + |y|) / 6)^alpha, not |y|^alpha)"),
        (1.0, [1, 2, 3], -1.25 / (8 / 6), "(alpha = 1: -1.25 / (8/6) = -0.9375 beats -1 / 1: the longer hypothesis "
                                          "wins, and the score is the normalised one)"),
        (2, [1, 2, 3], -1.25 / (8 / 6) ** 2, "(alpha = 2, an int: -1.25 / (8/6)^2 = -0.703)"),
    ]
    results = sub.beam_search.map([((table, 0, 3, 2, 4, alpha), {}) for alpha, _, _, _ in cases])
    for result, (_, tokens, score, why) in zip(results, cases, strict=True):
        _expect_answer(result, tokens, score, 4, why)


@check("length_penalty.score_of_the_tokens", "The score is log P(tokens) / ((5 + |tokens|) / 6)^alpha of the tokens "
       "returned", clauses=["length_penalty.formula", "finish.result"])
def length_penalty_score_of_the_tokens(sub, ref):
    generator = torch.Generator().manual_seed(47)
    calls = []
    for index in range(12):
        V = 3 + index % 3
        table = _grid_table(generator, V, V - 1, eos_bias=1.0)
        calls.append(((table, 0, V - 1, 2 + index % 3, 3 + index % 4, [0.6, 1.0, 2.5, 0.0][index % 4]), {}))
    for result, ((table, bos, _, _, max_len, alpha), _) in zip(sub.beam_search.map(calls), calls, strict=True):
        tokens, score = _pair(result)
        expect(tokens.shape == (max_len,), f"{result.call}: tokens must have shape ({max_len},), got "
                                           f"{tuple(tokens.shape)}")
        hypothesis = [int(t) for t in tokens if int(t) != -1]
        expect(all(0 <= t < table.shape[0] for t in hypothesis),
               f"{result.call}: tokens {tokens.tolist()} holds an id outside the vocabulary")
        expected = _total(table, bos, hypothesis) / _penalty(len(hypothesis), alpha)
        expect_close(score, torch.tensor(expected, dtype=torch.float64), what="score", call=result,
                     hint=f"(for the tokens you returned, {hypothesis}, log P is {_total(table, bos, hypothesis):g} "
                          f"and the length, eos included, is {len(hypothesis)}: the score is log P / ((5 + "
                          f"{len(hypothesis)}) / 6)^{alpha:g})")


# ------------------------------------------------------------------------------ against exhaustive search


@check("search.exhaustive", "With a beam wider than every candidate list, the result is the best of all "
       "hypotheses (continuous random tables, clear winners)", clauses=["search.model", "search.beam",
                                                                        "finish.unfinished", "finish.eos"])
def search_exhaustive(sub, ref):
    generator = torch.Generator().manual_seed(41)
    calls, wanted = [], []
    for V, max_len, alpha, eos_shift in ((3, 4, 0.0, 0.0), (4, 3, 1.0, 0.0), (3, 5, 0.6, -1.5), (4, 4, 0.0, -3.0),
                                         (2, 6, 2.0, 0.0), (5, 2, 0.0, 0.0)):
        for _ in range(20):  # draw until the best hypothesis wins clearly
            table = torch.log_softmax(torch.randn(V, V, generator=generator, dtype=torch.float64) * 1.5, dim=-1)
            table[:, V - 1] += eos_shift
            ranked = _exhaustive_best(table, 0, V - 1, max_len, alpha)
            if len(ranked) < 2 or ranked[0][0] - ranked[1][0] > MARGIN:
                break
        else:
            raise AssertionError("no random table with a clear winner: change the seed")
        calls.append(((table, 0, V - 1, V ** max_len + 1, max_len, alpha), {}))
        wanted.append(ranked[0])
    for result, (args, _), (score, tokens) in zip(sub.beam_search.map(calls), calls, wanted, strict=True):
        max_len, alpha = args[4], args[5]
        _expect_answer(result, tokens, score, max_len,
                       f"(no candidate is ever dropped with this beam, so the answer is the best of all hypotheses "
                       f"that end with eos or reach max_len = {max_len}, by log P / ((5 + length) / 6)^{alpha:g})")


@check("search.random_tables", "Random tables on a 1/64 grid, beams 1 to 4, max_len 1 to 6, float32 and float64",
       clauses=["search.beam", "search.ties", "finish.eos", "finish.stop", "finish.unfinished",
                "length_penalty.formula"])
def search_random_tables(sub, ref):
    generator = torch.Generator().manual_seed(43)
    calls = []
    for index in range(24):
        V = 2 + index % 4
        table = _grid_table(generator, V, V - 1, eos_bias=[0.0, -1.0, 1.0][index % 3])
        beam, max_len, alpha = 1 + index % 4, 1 + (index * 5) % 6, [0.0, 0.7, 1.5, 3][index % 4]
        dtype = torch.float32 if index % 2 else torch.float64
        bos = index % V
        calls.append(((table.to(dtype), bos, V - 1, beam, max_len, alpha), {}))
    for result, (args, _) in zip(sub.beam_search.map(calls), calls, strict=True):
        want_tokens, want_score = ref.beam_search(*args)
        tokens, score = _pair(result)
        expect_equal(tokens, want_tokens, what="tokens", call=result,
                     hint="(the reference's search on the same table: compare its steps with yours)")
        expect_close(score, want_score.double().to(args[0].dtype), what="score", call=result)


# --------------------------------------------------------------------------------------------- experiment

EXPERIMENT_V, EXPERIMENT_LEN, EXPERIMENT_TABLES, BEAMS = 5, 5, 12, [1, 2, 4, 8]


def _exact_best_score(table, bos, eos, max_len, alpha):
    """The best normalised score over every hypothesis, by dynamic programming over (length, last token)."""
    best = table[bos].clone()  # [V] best total of a length-1 hypothesis ending in each token
    scores = [float(best[eos]) / _penalty(1, alpha)]
    for length in range(2, max_len + 1):
        alive = best.clone()
        alive[eos] = float("-inf")  # a hypothesis that ended cannot be extended
        best = (alive[:, None] + table).amax(dim=0)  # [V]
        scores.append(float(best[eos]) / _penalty(length, alpha))
    unfinished = best.clone()
    unfinished[eos] = float("-inf")
    scores.append(float(unfinished.max()) / _penalty(max_len, alpha))
    return max(scores)


@check("experiment.beam_width", "Your search against the exact best, for beams of 1 to 8, on 12 random models",
       group="experiment", required=False)
def experiment(sub, ref, ctx):
    generator = torch.Generator().manual_seed(53)
    eos = EXPERIMENT_V - 1
    tables = [torch.log_softmax(torch.randn(EXPERIMENT_V, EXPERIMENT_V, generator=generator, dtype=torch.float64)
                                * 2, dim=-1) for _ in range(EXPERIMENT_TABLES)]
    calls = [((table, 0, eos, beam, EXPERIMENT_LEN, alpha), {}) for alpha in (0.0, 1.0) for beam in BEAMS
             for table in tables]
    results = sub.beam_search.map(calls)
    exact = {alpha: [_exact_best_score(t, 0, eos, EXPERIMENT_LEN, alpha) for t in tables] for alpha in (0.0, 1.0)}
    series = {"exact_rate_alpha_0": [], "mean_gap_alpha_0": [], "mean_length_alpha_0": [], "mean_length_alpha_1": []}
    for block, alpha in enumerate(a for a in (0.0, 1.0) for _ in BEAMS):
        found, lengths = [], []
        for result in results[block * EXPERIMENT_TABLES:(block + 1) * EXPERIMENT_TABLES]:
            tokens, score = _pair(result)
            found.append(float(score))
            lengths.append(int((tokens != -1).sum()))
        gaps = [best - got for best, got in zip(exact[alpha], found, strict=True)]
        if alpha == 0.0:
            series["exact_rate_alpha_0"].append(sum(gap < 1e-9 for gap in gaps) / EXPERIMENT_TABLES)
            series["mean_gap_alpha_0"].append(sum(gaps) / EXPERIMENT_TABLES)
            series["mean_length_alpha_0"].append(sum(lengths) / EXPERIMENT_TABLES)
        else:
            series["mean_length_alpha_1"].append(sum(lengths) / EXPERIMENT_TABLES)
    ctx.record_experiment(steps=BEAMS, series=series, x_label="beam size")
