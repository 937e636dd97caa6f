"""This is what you get when t is reshaped to [N, 1] whatever the data's rank: right for [N, D] data only.

Overrides: _per_sample
"""


def _per_sample(t, like):
    return t.view(-1, 1)
