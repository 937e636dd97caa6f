"""Sennrich's way: each word as a string of space-separated ids, merges done with a regular expression that only
matches whole symbols ((?<!\S) and (?!\S)); decoding by expanding ids recursively."""

import re
from collections import Counter

from helpers import check_count, check_ids, check_merges, check_text, split_words


def _as_string(word):
    return " ".join(str(b) for b in word.encode("utf-8"))


def _apply(symbols, pair, new):
    pattern = re.compile(r"(?<!\S)" + re.escape(f"{pair[0]} {pair[1]}") + r"(?!\S)")
    return pattern.sub(str(new), symbols)


def learn_bpe(text, num_merges):
    check_text(text)
    check_count(num_merges)
    vocabulary = Counter(_as_string(word) for word in split_words(text))
    merges = []
    while len(merges) < num_merges:
        stats = Counter()
        for symbols, count in vocabulary.items():
            parts = [int(p) for p in symbols.split()]
            for pair in zip(parts, parts[1:], strict=False):
                stats[pair] += count
        if not stats:
            break
        top = max(stats.values())
        if top < 2:
            break
        pair = min(p for p, c in stats.items() if c == top)
        new = 256 + len(merges)
        merges.append(pair)
        merged = Counter()
        for symbols, count in vocabulary.items():
            merged[_apply(symbols, pair, new)] += count
        vocabulary = merged
    return merges


def encode(text, merges):
    check_text(text)
    merges = check_merges(merges)
    ids = []
    for word in split_words(text):
        symbols = _as_string(word)
        for rank, pair in enumerate(merges):
            symbols = _apply(symbols, pair, 256 + rank)
        ids.extend(int(p) for p in symbols.split())
    return ids


def decode(ids, merges):
    merges = check_merges(merges)
    check_ids(ids, merges)

    def expand(token):
        if token < 256:
            return [token]
        a, b = merges[token - 256]
        return expand(a) + expand(b)

    raw = bytes(byte for token in ids for byte in expand(token))
    return raw.decode("utf-8", errors="replace")
