"""This is what you get when the merges are only checked to be pairs of ints: a merge using an id that does not exist yet gets through, and fails later with an IndexError (or silently builds a wrong vocabulary).

Overrides: check_merges
"""


def check_merges(merges):
    if not isinstance(merges, list | tuple):
        raise TypeError(f"merges must be a list of (int, int) pairs, got {type(merges).__name__}")
    pairs = []
    for rank, pair in enumerate(merges):
        if not isinstance(pair, list | tuple) or not all(isinstance(t, int) and not isinstance(t, bool) for t in pair):
            raise TypeError(f"merges[{rank}] must be a pair of ints, got {pair!r}")
        if len(pair) != 2:
            raise ValueError(f"merges[{rank}] must hold exactly two ids")
        pairs.append((pair[0], pair[1]))
    return pairs
