"""Pair counts updated incrementally after each merge (only the words that contained the pair are recounted);
words kept as tuples; decoding through an explicit table."""

from collections import Counter, defaultdict

from helpers import check_count, check_ids, check_merges, check_text, split_words


def _merge_word(tokens, pair, new):
    out, i = [], 0
    while i < len(tokens):
        if i + 1 < len(tokens) and tokens[i] == pair[0] and tokens[i + 1] == pair[1]:
            out.append(new)
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return tuple(out)


def _pairs(tokens):
    return Counter(zip(tokens, tokens[1:], strict=False))


def learn_bpe(text, num_merges):
    check_text(text)
    check_count(num_merges)
    frequency = Counter(split_words(text))
    words = {word: tuple(word.encode("utf-8")) for word in frequency}
    counts = Counter()
    holders = defaultdict(set)  # pair -> the words that contain it
    for word, tokens in words.items():
        for pair, n in _pairs(tokens).items():
            counts[pair] += n * frequency[word]
            holders[pair].add(word)
    merges = []
    while len(merges) < num_merges:
        live = {pair: n for pair, n in counts.items() if n > 0}
        if not live or max(live.values()) < 2:
            break
        top = max(live.values())
        pair = min(p for p, n in live.items() if n == top)
        new = 256 + len(merges)
        merges.append(pair)
        for word in list(holders[pair]):
            old = words[word]
            for p, n in _pairs(old).items():
                counts[p] -= n * frequency[word]
            words[word] = _merge_word(old, pair, new)
            for p, n in _pairs(words[word]).items():
                counts[p] += n * frequency[word]
                holders[p].add(word)
    return merges


def encode(text, merges):
    check_text(text)
    merges = check_merges(merges)
    out = []
    for word in split_words(text):
        tokens = tuple(word.encode("utf-8"))
        for rank, pair in enumerate(merges):
            tokens = _merge_word(tokens, pair, 256 + rank)
        out += list(tokens)
    return out


def decode(ids, merges):
    merges = check_merges(merges)
    check_ids(ids, merges)
    table = [bytes([b]) for b in range(256)]
    for a, b in merges:
        table.append(table[a] + table[b])
    return bytearray().join(table[t] for t in ids).decode("utf-8", errors="replace")
