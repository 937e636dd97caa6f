"""Encoding as GPT-2 does it: repeatedly merge the adjacent pair of lowest rank; learning with sorted pair
counts; decoding through a vocabulary of bytes objects."""

from collections import Counter

from helpers import check_count, check_ids, check_merges, check_text, split_words


def _replace(tokens, pair, new):
    out, i = [], 0
    while i < len(tokens):
        if tokens[i:i + 2] == list(pair):
            out.append(new)
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return out


def learn_bpe(text, num_merges):
    check_text(text)
    check_count(num_merges)
    words = Counter(tuple(word.encode("utf-8")) for word in split_words(text))
    sequences = {word: list(word) for word in words}
    merges = []
    for rank in range(num_merges):
        counts = Counter()
        for word, tokens in sequences.items():
            for a, b in zip(tokens, tokens[1:], strict=False):
                counts[(a, b)] += words[word]
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        if not ranked or ranked[0][1] < 2:
            break
        pair = ranked[0][0]
        merges.append(pair)
        sequences = {word: _replace(tokens, pair, 256 + rank) for word, tokens in sequences.items()}
    return merges


def encode(text, merges):
    check_text(text)
    merges = check_merges(merges)
    rank_of = {pair: rank for rank, pair in reversed(list(enumerate(merges)))}
    ids = []
    for word in split_words(text):
        tokens = list(word.encode("utf-8"))
        while len(tokens) > 1:
            ranks = [rank_of.get(pair, len(merges)) for pair in zip(tokens, tokens[1:], strict=False)]
            best = min(ranks)
            if best == len(merges):
                break
            tokens = _replace(tokens, merges[best], 256 + best)
        ids.extend(tokens)
    return ids


def decode(ids, merges):
    merges = check_merges(merges)
    check_ids(ids, merges)
    vocabulary = {value: bytes([value]) for value in range(256)}
    for rank, (a, b) in enumerate(merges):
        vocabulary[256 + rank] = vocabulary[a] + vocabulary[b]
    return b"".join(vocabulary[token] for token in ids).decode("utf-8", errors="replace")
