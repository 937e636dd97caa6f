"""This is what you get when encode applies the merges from the last learned to the first: a later merge can take bytes an earlier one needed.

Overrides: encode
"""


def encode(text, merges):
    check_text(text)
    merges = check_merges(merges)
    ids = []
    for word in split_words(text):
        tokens = list(word.encode("utf-8"))
        for rank in reversed(range(len(merges))):
            tokens = _merge(tokens, merges[rank], BYTE_VALUES + rank)
        ids.extend(tokens)
    return ids
