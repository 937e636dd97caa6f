"""This is what you get when the base tokens are the characters' code points instead of their UTF-8 bytes: 'é' becomes 233 instead of 195 169, and characters above 255 collide with merged tokens.

Overrides: learn_bpe, encode
"""

from collections import Counter


def learn_bpe(text, num_merges):
    check_text(text)
    check_count(num_merges)
    frequency = Counter(split_words(text))
    words = {word: [ord(character) for character in word] for word in frequency}
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


def encode(text, merges):
    check_text(text)
    merges = check_merges(merges)
    ids = []
    for word in split_words(text):
        tokens = [ord(character) for character in word]
        for rank, pair in enumerate(merges):
            tokens = _merge(tokens, pair, BYTE_VALUES + rank)
        ids.extend(tokens)
    return ids
