"""Byte-pair encoding (Sennrich et al., 2016), at the byte level: learn merges, encode, decode.

Implement the three functions below. The validators and the word splitter are supplied in helpers.py (shown
read-only under the editor): each function already calls the validators; keep those calls.
"""

from helpers import BYTE_VALUES, check_count, check_ids, check_merges, check_text, split_words


def learn_bpe(text, num_merges):
    """A list of at most num_merges merges, each a tuple (a, b) of ids; merge r creates token 256 + r.

    Words come from split_words(text) and start as their UTF-8 bytes. Each step counts every adjacent pair in
    every word (weighted by how often the word occurs), stops if no pair occurs twice, takes the most frequent
    pair (ties: the smallest tuple) and replaces it left to right in every word.
    """
    check_text(text)
    check_count(num_merges)
    raise NotImplementedError("learn_bpe: count pairs inside words, merge the most frequent, repeat")


def encode(text, merges):
    """A list of token ids: the UTF-8 bytes of each word of split_words(text), with the merges applied in order."""
    check_text(text)
    merges = check_merges(merges)
    raise NotImplementedError("encode: bytes of each word, then every merge in the order it was learned")


def decode(ids, merges):
    """The string the ids stand for: the bytes of all ids joined, decoded as UTF-8 with errors='replace'."""
    merges = check_merges(merges)
    check_ids(ids, merges)
    raise NotImplementedError("decode: the bytes of every token, joined, then one UTF-8 decode")
