"""This is what you get when pairs are counted without overlap (as they would be merged): 'aaa' holds (a, a) once instead of twice.

Overrides: _pair_counts
"""

from collections import Counter


def _pair_counts(words, frequency):
    pairs = Counter()
    for word, tokens in words.items():
        i = 0
        while i + 1 < len(tokens):
            pair = (tokens[i], tokens[i + 1])
            pairs[pair] += frequency[word]
            i += 2 if i + 2 < len(tokens) and (tokens[i + 1], tokens[i + 2]) == pair else 1
    return pairs
