"""This is what you get when the best hypothesis is chosen by its plain log-probability and only the reported score is divided by the length penalty: alpha no longer changes which sequence wins.

Overrides: _best
"""


def _best(pool, alpha):
    tokens, total = max(pool, key=lambda hypothesis: hypothesis[1])
    return tokens, total / _length_penalty(len(tokens), alpha)
