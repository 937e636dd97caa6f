"""This is what you get when the whole text is treated as one sequence: pairs across word boundaries, like the last letter and the following space, are counted and merged.

Overrides: learn_bpe
"""

from collections import Counter


def learn_bpe(text, num_merges):
    check_text(text)
    check_count(num_merges)
    frequency = Counter([text])
    words = {text: list(text.encode("utf-8"))}
    merges = []
    while len(merges) < num_merges:
        pairs = _pair_counts(words, frequency)
        if not pairs or max(pairs.values()) < 2:
            break
        best = max(pairs.values())
        pair = min(candidate for candidate, count in pairs.items() if count == best)
        token = BYTE_VALUES + len(merges)
        merges.append(pair)
        words = {word: _merge(tokens, pair, token) for word, tokens in words.items()}
    return merges
