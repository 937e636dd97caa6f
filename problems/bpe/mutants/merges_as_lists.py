"""This is what you get when learn_bpe returns each merge as a list [a, b] instead of a tuple (a, b).

Overrides: learn_bpe
"""

_reference_learn = learn_bpe


def learn_bpe(text, num_merges):
    return [list(pair) for pair in _reference_learn(text, num_merges)]
