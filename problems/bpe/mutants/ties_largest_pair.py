"""This is what you get when ties between equally frequent pairs go to the largest pair instead of the smallest.

Overrides: learn_bpe
Source: rsennrich/subword-nmt subword_nmt/learn_bpe.py (max(stats, key=lambda x: (stats[x], x)) takes the largest of equally frequent pairs)
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
        pair = max(pairs, key=lambda candidate: (pairs[candidate], candidate))
        token = BYTE_VALUES + len(merges)
        merges.append(pair)
        words = {word: _merge(tokens, pair, token) for word, tokens in words.items()}
    return merges
