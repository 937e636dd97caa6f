"""This is what you get when the mask is read the other way round: True taken to mean "forbidden", as in
nn.MultiheadAttention's masks.

Overrides: _weights
"""


_reference_weights = _weights


def _weights(scores, mask):
    return _reference_weights(scores, None if mask is None else ~mask)
