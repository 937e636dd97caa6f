"""Reference solution for the byte-pair encoding problem. Trusted: imported only in the judge's process."""

from collections import Counter

from helpers import BYTE_VALUES, check_count, check_ids, check_merges, check_text, split_words


def learn_bpe(text, num_merges):
    """Up to num_merges merges, most frequent adjacent pair first (ties: the smallest pair); stops early when no
    pair occurs twice. Merge r creates token 256 + r."""
    check_text(text)
    check_count(num_merges)
    frequency = Counter(split_words(text))  # word -> how often it occurs
    words = {word: list(word.encode("utf-8")) for word in frequency}  # word -> its current tokens
    merges = []
    while len(merges) < num_merges:
        pairs = _pair_counts(words, frequency)
        if not pairs or max(pairs.values()) < 2:
            break
        best = max(pairs.values())
        pair = min(candidate for candidate, count in pairs.items() if count == best)  # ties: the smallest pair
        token = BYTE_VALUES + len(merges)
        merges.append(pair)
        words = {word: _merge(tokens, pair, token) for word, tokens in words.items()}
    return merges


def _pair_counts(words, frequency):
    """Every adjacent position of every word, weighted by the word's frequency (overlaps included: 'aaa' has the
    pair (a, a) twice)."""
    pairs = Counter()
    for word, tokens in words.items():
        for pair in zip(tokens, tokens[1:], strict=False):
            pairs[pair] += frequency[word]
    return pairs


def _merge(tokens, pair, token):
    """Replace every occurrence of pair by token, left to right, without overlap ('aaa' -> 'aa' 'a')."""
    merged, i = [], 0
    while i < len(tokens):
        if i + 1 < len(tokens) and (tokens[i], tokens[i + 1]) == pair:
            merged.append(token)
            i += 2
        else:
            merged.append(tokens[i])
            i += 1
    return merged


def encode(text, merges):
    """The UTF-8 bytes of each word, with the merges applied in the order they were learned."""
    check_text(text)
    merges = check_merges(merges)
    ids = []
    for word in split_words(text):
        tokens = list(word.encode("utf-8"))
        for rank, pair in enumerate(merges):
            tokens = _merge(tokens, pair, BYTE_VALUES + rank)
        ids.extend(tokens)
    return ids


def decode(ids, merges):
    """The bytes every id stands for, joined, then decoded as UTF-8 (invalid sequences become U+FFFD)."""
    merges = check_merges(merges)
    check_ids(ids, merges)
    pieces = [bytes([value]) for value in range(BYTE_VALUES)]
    for left, right in merges:
        pieces.append(pieces[left] + pieces[right])
    return b"".join(pieces[token] for token in ids).decode("utf-8", errors="replace")
