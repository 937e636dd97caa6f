"""This is what you get when learning goes on while the most frequent pair occurs only once: it memorises whole words instead of stopping.

Overrides: learn_bpe
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
        if not pairs:
            break
        best = max(pairs.values())
        pair = min(candidate for candidate, count in pairs.items() if count == best)
        token = BYTE_VALUES + len(merges)
        merges.append(pair)
        words = {word: _merge(tokens, pair, token) for word, tokens in words.items()}
    return merges
