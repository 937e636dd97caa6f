"""This is what you get when learning replaces the chosen pair from right to left: 'a a a' becomes 'a aa' instead of 'aa a', so the next merge is (a, aa) where it should be (aa, a) (encode is left to right, as it should be).

Overrides: learn_bpe
"""


def learn_bpe(text, num_merges):
    check_text(text)
    check_count(num_merges)
    frequency = Counter(split_words(text))
    words = {word: list(word.encode("utf-8")) for word in frequency}
    merges = []
    while len(merges) < num_merges:
        pairs = _pair_counts(words, frequency)
        if not pairs or max(pairs.values()) < 2:
            break
        best = max(pairs.values())
        pair = min(candidate for candidate, count in pairs.items() if count == best)
        token = BYTE_VALUES + len(merges)
        merges.append(pair)
        # walk each word from its end: reverse it, merge the reversed pair, reverse back
        words = {word: _merge(tokens[::-1], pair[::-1], token)[::-1] for word, tokens in words.items()}
    return merges
