"""This is what you get when each distinct word counts once, however often it occurs in the corpus.

Overrides: _pair_counts
"""

from collections import Counter


def _pair_counts(words, frequency):
    pairs = Counter()
    for tokens in words.values():
        for pair in zip(tokens, tokens[1:], strict=False):
            pairs[pair] += 1
    return pairs
