"""This is what you get when encode splits the text with str.split() instead of split_words: the spaces and newlines vanish and decoding cannot give the text back.

Overrides: encode
"""


def encode(text, merges):
    check_text(text)
    merges = check_merges(merges)
    ids = []
    for word in text.split():
        tokens = list(word.encode("utf-8"))
        for rank, pair in enumerate(merges):
            tokens = _merge(tokens, pair, BYTE_VALUES + rank)
        ids.extend(tokens)
    return ids
