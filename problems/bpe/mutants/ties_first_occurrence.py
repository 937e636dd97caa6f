"""This is what you get when ties between equally frequent pairs go to the pair seen first in the text instead of the smallest pair: the merges depend on the order of the corpus.

Overrides: learn_bpe
Source: karpathy/minbpe pull request #90 (max(stats, key=stats.get) breaks ties by first occurrence, so reordering the text changes the merges)
"""

from collections import Counter


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
        pair = max(pairs, key=pairs.get)  # the first of equal counts in insertion order
        token = BYTE_VALUES + len(merges)
        merges.append(pair)
        words = {word: _merge(tokens, pair, token) for word, tokens in words.items()}
    return merges
