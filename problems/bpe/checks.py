"""Check battery for the byte-pair encoding problem (Sennrich et al., 2016): learn_bpe, encode and decode.

Groups `learn`, `encode`, `decode` and `contract` are required; `experiment` is advisory (it records the chart of
the notes). These functions take and return strings and lists, which the contract schema of problem.toml cannot
declare, so the contract (result types, refusals) is checked here too. Whether a list argument was changed in
place cannot be observed: the sandbox works on its own copy of every list, so the statement promises nothing
about it. Expected merges
and ids are derived in the comments; every text is fixed, so two runs give identical verdicts.
"""

from grader.checks import check, expect, expect_equal, expect_rejected

HUG = "hug pug pun bun hugs"
HUG_MERGES = [(117, 103), (32, 112), (104, 256), (117, 110)]


# ------------------------------------------------------------------------------------------------- learn


@check("learn.hand_example", "Hand example: 'hug pug pun bun hugs' gives four merges, then no pair occurs twice",
       clauses=["learn.most_frequent", "learn.ties", "learn.stop", "learn.result", "learn.bytes"])
def learn_hand_example(sub, ref):
    everything, two = sub.learn_bpe.map([((HUG, 10), {}), ((HUG, 2), {})])
    expect_equal(everything.unwrap(), HUG_MERGES, call=everything,
                 hint="((u, g) occurs 3 times and becomes 256; then ( , p), (h, ug) and (u, n) tie at 2 and the "
                      "smallest pair, (32, 112), goes first, then (104, 256), then (117, 110); after that every pair "
                      "occurs once, so learning stops at 4 merges; each merge is a tuple of two ints)")
    expect_equal(two.unwrap(), HUG_MERGES[:2], call=two, hint="(num_merges = 2: the first two merges)")


@check("learn.ties", "Equally frequent pairs: the smallest (a, b) wins, wherever it first occurs",
       clauses=["learn.ties"])
def learn_ties(sub, ref):
    cases = [
        # 'dd', ' bb', ' dd', ' bb': (100, 100), (98, 98) and (32, 98) occur twice; the smallest is (32, 98),
        # though (100, 100) comes first in the text and is the largest.
        ("dd bb dd bb", 1, [(32, 98)]),
        # 'bb', ' dd', ' bb', ' dd': now (98, 98), (100, 100) and (32, 100) tie, and (32, 100) is the smallest.
        ("bb dd bb dd", 1, [(32, 100)]),
        # 'xy', 'yx' twice each ('xy yx xy yx' has words 'xy', ' yx', ' xy', ' yx'): (120, 121) occurs 2 times,
        # (121, 120) 2, (32, 121) 2, (32, 120) 1: the smallest of the three tied pairs is (32, 121).
        ("xy yx xy yx", 1, [(32, 121)]),
    ]
    results = sub.learn_bpe.map([((text, n), {}) for text, n, _ in cases])
    for result, (text, _, expected) in zip(results, cases, strict=True):
        expect_equal(result.unwrap(), expected, call=result,
                     hint=f"(several pairs of {text!r} occur equally often; the contract takes the smallest pair as a "
                          "tuple of ids, not the first one seen and not the largest)")


@check("learn.counting", "Pairs are counted at every position, weighted by word frequency, and merged left to right",
       clauses=["learn.most_frequent", "learn.replace", "learn.stop"])
def learn_counting(sub, ref):
    cases = [
        ("aaa bb", 5, [(97, 97)], "(the word 'aaa' holds (a, a) at two positions: it counts twice, reaches the "
                                  "minimum of 2 and is merged; ' bb' has (b, b) once)"),
        ("aaaa aaaa", 5, [(97, 97), (256, 256)], "((a, a) occurs 3 times in each word; merged left to right 'aaaa' "
                                                 "becomes 'aa aa', whose pair (256, 256) occurs twice and is merged "
                                                 "next)"),
        ("ab ab ab cd", 5, [(97, 98), (32, 256)], "(the word ' ab' occurs twice: weighted by frequency, (32, 97) "
                                                  "and later (32, 256) count 2; (c, d) occurs once and is never "
                                                  "merged)"),
        ("abc abd", 0, [], "(num_merges = 0: no merges)"),
        ("", 3, [], "(an empty text has no pairs)"),
        ("abcdefg", 3, [], "(every pair occurs once: a single occurrence is never merged)"),
    ]
    results = sub.learn_bpe.map([((text, n), {}) for text, n, _, _ in cases])
    for result, (_, _, expected, why) in zip(results, cases, strict=True):
        expect_equal(result.unwrap(), expected, call=result, hint=why)


@check("learn.words_and_bytes", "Merges stay inside words, and the base tokens are UTF-8 bytes",
       clauses=["learn.words", "learn.bytes"])
def learn_words_and_bytes(sub, ref):
    cases = [
        ("ab cb db eb", 3, [], "(inside the words 'ab', ' cb', ' db', ' eb' every pair occurs once; (b, space) "
                               "occurs 3 times but crosses a word boundary and is never counted)"),
        ("né né", 5, [(110, 195), (256, 169)], "('é' is the two bytes 195 169: (n, 195) and (195, 169) tie at 2 and "
                                               "the smaller goes first, then (256, 169))"),
        ("日本 日本", 2, [(151, 165), (156, 172)],
         "(each CJK character is three UTF-8 bytes, 日 = 230 151 165 and 本 = 230 156 172: all five pairs occur twice "
         "and the smallest, (151, 165), goes first, then (156, 172))"),
    ]
    results = sub.learn_bpe.map([((text, n), {}) for text, n, _, _ in cases])
    for result, (_, _, expected, why) in zip(results, cases, strict=True):
        expect_equal(result.unwrap(), expected, call=result, hint=why)


# ------------------------------------------------------------------------------------------------ encode


@check("encode.hand_example", "Hand example: 'hugs bun' with the four merges is [258, 115, 32, 98, 259]",
       clauses=["encode.order"])
def encode_hand_example(sub, ref):
    result = sub.encode.call("hugs bun", HUG_MERGES)
    expect_equal(result.unwrap(), [258, 115, 32, 98, 259], call=result,
                 hint="('hugs' -> h ug s -> hug s = [258, 115]; ' bun' -> 32 b u n -> 32 b un = [32, 98, 259])")


@check("encode.order_and_words", "Merges apply in order, left to right, inside words only",
       clauses=["encode.order"])
def encode_order_and_words(sub, ref):
    cases = [
        ("abc", [(97, 98), (98, 99)], [256, 99], "(merge 0 turns a b into 256 first; (b, c) is then gone)"),
        ("aaa", [(97, 97)], [256, 97], "(left to right without overlap: a a a -> aa a)"),
        ("aaaaa", [(97, 97), (256, 256)], [257, 97], "(aa aa a, then (aa, aa) -> 257)"),
        ("a b", [(97, 32)], [97, 32, 98], "(the words are 'a' and ' b': the pair (a, space) crosses them and is "
                                         "never merged)"),
        ("", HUG_MERGES, [], "(an empty text has no tokens)"),
        ("héllo  wörld\n", [], list("héllo  wörld\n".encode()), "(no merges: the UTF-8 bytes, every "
                                                                          "space and newline included)"),
        ("ba ab", [(97, 98), (98, 97)], [257, 32, 256], "(merges learned elsewhere still apply in rank order)"),
    ]
    results = sub.encode.map([((text, merges), {}) for text, merges, _, _ in cases])
    for result, (_, _, expected, why) in zip(results, cases, strict=True):
        expect_equal(result.unwrap(), expected, call=result, hint=why)


# ------------------------------------------------------------------------------------------------ decode


@check("decode.bytes_joined", "Decoding joins all the bytes before UTF-8: a split character survives",
       clauses=["decode.whole_bytes"])
def decode_bytes_joined(sub, ref):
    accents = [(110, 195), (256, 169)]
    cases = [
        ([258, 115, 32, 98, 259], HUG_MERGES, "hugs bun", "(hug s space b un)"),
        ([256, 169], accents, "né", "(256 is 'n' with the first byte of 'é', 169 its second byte: joined, they "
                                    "decode to 'né'; decoded one token at a time they give two replacement "
                                    "characters)"),
        ([256], accents, "n\ufffd", "(alone, the first byte of 'é' is invalid UTF-8 and becomes U+FFFD)"),
        ([195], [], "\ufffd", "(a lone lead byte becomes U+FFFD)"),
        ([240, 159, 152, 128], [], "\U0001f600", "(four bytes, one emoji)"),
        ([], HUG_MERGES, "", "(no ids: the empty string)"),
    ]
    results = sub.decode.map([((ids, merges), {}) for ids, merges, _, _ in cases])
    for result, (_, _, expected, why) in zip(results, cases, strict=True):
        expect_equal(result.unwrap(), expected, call=result, hint=why)


ROUND_TRIP_TEXTS = ["hug pug pun bun hugs", "  leading and trailing spaces  ", "tabs\tand\nnew lines\n\n",
                    "naïve café, Ærø", "日本語のテキスト 日本", "emoji 😀😀 and 👍🏽", "", " ", "aaaaaaaaaa"]


@check("decode.round_trip", "decode(encode(text)) gives the text back, for merges learned on it and on another text",
       clauses=["decode.round_trip", "encode.order", "decode.whole_bytes"])
def decode_round_trip(sub, ref):
    corpus = " ".join(ROUND_TRIP_TEXTS * 2)
    merges = ref.learn_bpe(corpus, 60)
    encoded = sub.encode.map([((text, merges), {}) for text in ROUND_TRIP_TEXTS])
    ids = [result.unwrap() for result in encoded]
    for result, text, got in zip(encoded, ROUND_TRIP_TEXTS, ids, strict=True):
        expect_equal(got, ref.encode(text, merges), call=result,
                     hint="(the bytes of each word of split_words, with the 60 merges applied in order)")
    decoded = sub.decode.map([((tokens, merges), {}) for tokens in ids])
    for result, text in zip(decoded, ROUND_TRIP_TEXTS, strict=True):
        expect_equal(result.unwrap(), text, call=result, hint="(decoding the encoding must give the text back)")


# ---------------------------------------------------------------------------------------------- contract


@check("contract.types", "Wrong kinds of text, num_merges, merges and ids raise TypeError",
       clauses=["contract.types"])
def contract_types(sub, ref):
    expect_rejected("TypeError", sub.learn_bpe, [
        ((b"hug pug", 2), {}, "text is bytes, not a str"),
        ((["hug"], 2), {}, "text is a list"),
        (("hug", 2.0), {}, "num_merges is a float"),
        (("hug", True), {}, "num_merges is a bool"),
        (("hug", "2"), {}, "num_merges is a str"),
    ])
    expect_rejected("TypeError", sub.encode, [
        ((b"hug", HUG_MERGES), {}, "text is bytes"),
        (("hug", "ug"), {}, "merges is a str"),
        (("hug", [117103]), {}, "a merge is an int, not a pair"),
        (("hug", [(117.0, 103)]), {}, "a merge holds a float"),
        (("hug", [(True, 103)]), {}, "a merge holds a bool"),
    ])
    expect_rejected("TypeError", sub.decode, [
        (("hug", HUG_MERGES), {}, "ids is a str"),
        (([104, 117.0], HUG_MERGES), {}, "an id is a float"),
        (([104, False], HUG_MERGES), {}, "an id is a bool"),
        (([104], {"a": 1}), {}, "merges is a dict"),
    ])


@check("contract.values", "Negative counts, unencodable text, bad merges and ids out of range raise ValueError",
       clauses=["contract.values"])
def contract_values(sub, ref):
    expect_rejected("ValueError", sub.learn_bpe, [
        (("hug", -1), {}, "num_merges is negative"),
        (("hug \ud800 pug", 2), {}, "the text holds a lone surrogate, which UTF-8 cannot encode"),
    ])
    expect_rejected("ValueError", sub.encode, [
        (("hug \udfff", HUG_MERGES), {}, "the text holds a lone surrogate"),
        (("hug", [(117, 103, 104)]), {}, "a merge of three ids"),
        (("hug", [(117,)]), {}, "a merge of one id"),
        (("hug", [(256, 103)]), {}, "merge 0 uses id 256, which only merge 0 itself creates"),
        (("hug", [(117, -1)]), {}, "a merge uses a negative id"),
    ])
    expect_rejected("ValueError", sub.decode, [
        (([104, 260], HUG_MERGES), {}, "id 260 is outside the vocabulary of 256 + 4 tokens"),
        (([-1], HUG_MERGES), {}, "a negative id"),
        (([104], [(300, 1)]), {}, "merge 0 uses id 300"),
    ])


@check("contract.results", "Results are a list of tuples, a list of ints and a str; merges and ids may be lists or "
       "tuples", clauses=["learn.result", "encode.order", "decode.whole_bytes"])
def contract_results(sub, ref):
    merges = [list(pair) for pair in HUG_MERGES]  # lists are accepted as pairs
    learned = sub.learn_bpe.call(HUG, 4)
    value = learned.unwrap()
    expect(type(value) is list and all(type(pair) is tuple and len(pair) == 2 and all(type(t) is int for t in pair)
                                       for pair in value),
           f"{learned.call} returned {value!r}: the merges must be a list of tuples of two Python ints")
    encoded = sub.encode.call("hugs bun", merges)
    ids = encoded.unwrap()
    expect(type(ids) is list and all(type(t) is int for t in ids),
           f"{encoded.call} returned {ids!r}: the ids must be a list of Python ints")
    decoded = sub.decode.call(tuple(ids), tuple(HUG_MERGES))
    expect_equal(decoded.unwrap(), "hugs bun", call=decoded, hint="(ids and merges may also be tuples)")


# -------------------------------------------------------------------------------------------- experiment

TRAIN = (
    "A tokenizer is trained once and used for years, so the merges it learns from its corpus decide how every later "
    "text is cut. Frequent words such as the, and, of and to become single tokens after a few merges; longer words "
    "are assembled from frequent pieces: training, trained, trainer and retraining share the piece train, and "
    "tokenizer, tokenizers and tokenization share token. The learning loop is short: count the pairs, merge the most "
    "frequent one, and count again. The counting is the expensive part, since every merge changes the neighbours of "
    "the pair it replaced, and real implementations update the counts instead of recounting. A byte-level vocabulary "
    "starts from the two hundred and fifty six byte values, so no text is ever out of vocabulary: a word the corpus "
    "never contained is spelled out in smaller pieces, and in the worst case in single bytes. The price is length: "
    "text the corpus did not resemble needs more tokens, and a model pays for every token it reads and writes."
)
HELD_OUT = (
    "The trained merges are then used on text the tokenizer has never seen. Common words are still single tokens, "
    "rarer ones are split into pieces, and the number of bytes per token measures how well the vocabulary fits."
)
MERGE_COUNTS = [0, 15, 30, 60, 90, 120, 150]


@check("experiment.compression", "Bytes per token on the training text and on held-out text as merges are added",
       group="experiment", required=False)
def experiment(sub, ref, ctx):
    learned = sub.learn_bpe.call(TRAIN, MERGE_COUNTS[-1])
    merges = learned.unwrap()
    expect(isinstance(merges, list), f"{learned.call} did not return a list of merges")
    counts = [m for m in MERGE_COUNTS if m <= len(merges)]
    calls = [((text, merges[:m]), {}) for m in counts for text in (TRAIN, HELD_OUT)]
    results = sub.encode.map(calls)
    train_ratio, held_out_ratio = [], []
    for index, m in enumerate(counts):
        train_ids, held_ids = results[2 * index].unwrap(), results[2 * index + 1].unwrap()
        expect(len(train_ids) > 0 and len(held_ids) > 0, f"encode returned no ids with {m} merges")
        train_ratio.append(len(TRAIN.encode("utf-8")) / len(train_ids))
        held_out_ratio.append(len(HELD_OUT.encode("utf-8")) / len(held_ids))
    ctx.record_experiment(steps=counts, x_label="merges learned",
                          series={"bytes_per_token_training": train_ratio,
                                  "bytes_per_token_held_out": held_out_ratio})
