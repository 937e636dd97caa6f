"""Check battery for the byte-pair encoding problem (Sennrich et al., 2016): learn_bpe, encode and decode.

Groups `learn`, `encode`, `decode` and `contract` are required; `experiment` is advisory (it records the chart of
the notes). problem.toml declares each function's contract (a str, lists of ints and of pairs), from which the
generic battery checks the result kinds, the refusals, the edges, a property search and that no list argument is
changed in place; the checks here test the algorithm on hand-derived examples, and the one rule the declaration
cannot say (merge r uses only ids below 256 + r). Expected merges and ids are derived in the comments; every text
is fixed, so two runs give identical verdicts.
"""

from grader.checks import check, expect, expect_equal, expect_rejected, legal_inputs

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


@check("learn.counting", "Pairs are counted at every position, weighted by word frequency, and merged left to right "
       "(runs of even and odd length)",
       clauses=["learn.most_frequent", "learn.replace", "learn.stop"])
def learn_counting(sub, ref):
    cases = [
        ("aaa bb", 5, [(97, 97)], "(the word 'aaa' holds (a, a) at two positions: it counts twice, reaches the "
                                  "minimum of 2 and is merged; ' bb' has (b, b) once)"),
        ("aaaa aaaa", 5, [(97, 97), (256, 256)], "((a, a) occurs 3 times in each word; merged left to right 'aaaa' "
                                                 "becomes 'aa aa', whose pair (256, 256) occurs twice and is merged "
                                                 "next)"),
        ("aaa aaa", 5, [(97, 97), (256, 97)], "(each word's run a a a holds (a, a) twice; replaced left to right "
                                              "without overlap it becomes aa a, so (256, 97) occurs twice and is "
                                              "merged next; replaced from the right, a aa would give (97, 256))"),
        ("aaaaa aaaaa", 5, [(97, 97), (256, 97), (256, 257)],
         "(a a a a a becomes aa aa a left to right; (256, 256) and (256, 97) then occur twice each and the smaller, "
         "(256, 97), becomes 257, leaving aa aaa = (256, 257); from the right, a aa aa would give (97, 256) "
         "instead)"),
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
# The generic battery (problem.toml's contract) checks the result kinds, the refusals of every argument of the
# wrong kind, length or range, empty texts and lists, tuples for lists, and that no list argument is changed in
# place. What no range can say is that merge r may use only the ids below 256 + r: the functions below make every
# drawn input hold to it, and contract.merge_ranks tests its refusal.


def _legal_merges(merges, text=""):
    """Drawn merges made legal: merge r keeps an id below 256 + r and folds a larger one into that range. With a
    text, a merge of two bytes becomes a pair of adjacent bytes of the text, so that encoding it merges something."""
    data = text.encode("utf-8")
    legal = []
    for rank, pair in enumerate(merges):
        ids = list(pair)
        if len(data) >= 2 and all(token < 256 for token in ids):
            start = ids[0] % (len(data) - 1)
            ids = [data[start], data[start + 1]]
        ids = [token if token < 256 + rank else (256 + (token - 256) % rank if rank else token % 256)
               for token in ids]
        legal.append(type(pair)(ids))
    return type(merges)(legal)


@legal_inputs("encode")
def _encode_merges(args, sizes):
    args["merges"] = _legal_merges(args["merges"], args["text"] if isinstance(args["text"], str) else "")
    return args


@legal_inputs("decode")
def _decode_merges(args, sizes):
    args["merges"] = _legal_merges(args["merges"])
    return args


@check("contract.merge_ranks", "A merge using an id no earlier merge made, or not of two ids, raises ValueError",
       clauses=["contract.values"])
def contract_merge_ranks(sub, ref):
    expect_rejected("ValueError", sub.encode, [
        (("hug", [(256, 103)]), {}, "merge 0 uses id 256, which only merge 0 itself creates"),
        (("hug", [(117, 103), (104, 257)]), {}, "merge 1 uses id 257, which only merge 1 itself creates"),
        (("hug", [(117,)]), {}, "a merge of one id"),
    ])
    expect_rejected("ValueError", sub.decode, [
        (([104], [(300, 1)]), {}, "merge 0 uses id 300"),
        (([104], [(97, 98), (256, 258)]), {}, "merge 1 uses id 258"),
    ])


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
