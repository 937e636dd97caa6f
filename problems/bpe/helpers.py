"""Validation and the word splitter for the byte-pair encoding problem, supplied to every solution
(`from helpers import ...`). The validators raise exactly the errors the contract promises; call them first."""

import re

BYTE_VALUES = 256  # the first merged token gets id 256
_WORDS = re.compile(r"\s*\S+|\s+")  # a run of non-space characters with the whitespace before it


def split_words(text):
    """The pieces merges never cross: each run of non-whitespace characters together with the whitespace before
    it, and trailing whitespace as a piece of its own. ''.join(split_words(text)) == text.

    >>> split_words("the cat  sat ")
    ['the', ' cat', '  sat', ' ']
    """
    return _WORDS.findall(text)


def check_text(text):
    """text is a str that UTF-8 can encode (no lone surrogates)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(f"text cannot be encoded as UTF-8: {error.reason} at index {error.start}") from None


def check_count(num_merges):
    """num_merges is a Python int >= 0."""
    if isinstance(num_merges, bool) or not isinstance(num_merges, int):
        raise TypeError(f"num_merges must be a Python int, got {type(num_merges).__name__}")
    if num_merges < 0:
        raise ValueError(f"num_merges must be >= 0, got {num_merges}")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def check_merges(merges):
    """merges is a list or tuple of pairs (tuples or lists of two ints); merge r may use only ids below 256 + r
    (the bytes and the tokens made before it). Returns the merges as a list of tuples."""
    if not isinstance(merges, list | tuple):
        raise TypeError(f"merges must be a list of (int, int) pairs, got {type(merges).__name__}")
    pairs = []
    for rank, pair in enumerate(merges):
        if not isinstance(pair, list | tuple):
            raise TypeError(f"merges[{rank}] must be a pair of ints, got {type(pair).__name__}")
        if len(pair) != 2:
            raise ValueError(f"merges[{rank}] must hold exactly two ids, got {len(pair)}")
        if not all(_is_int(token) for token in pair):
            raise TypeError(f"merges[{rank}] must hold two Python ints, got {pair!r}")
        if not all(0 <= token < BYTE_VALUES + rank for token in pair):
            raise ValueError(f"merges[{rank}] = {tuple(pair)} uses an id outside [0, {BYTE_VALUES + rank}): a merge "
                             "may use only bytes and the tokens of earlier merges")
        pairs.append((pair[0], pair[1]))
    return pairs


def check_ids(ids, merges):
    """ids is a list or tuple of ints in [0, 256 + len(merges))."""
    if not isinstance(ids, list | tuple):
        raise TypeError(f"ids must be a list of ints, got {type(ids).__name__}")
    vocabulary = BYTE_VALUES + len(merges)
    for position, token in enumerate(ids):
        if not _is_int(token):
            raise TypeError(f"ids[{position}] must be a Python int, got {type(token).__name__}")
        if not 0 <= token < vocabulary:
            raise ValueError(f"ids[{position}] = {token} is outside the vocabulary [0, {vocabulary})")
