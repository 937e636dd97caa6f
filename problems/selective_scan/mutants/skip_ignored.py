"""This is what you get when the skip term D * x_t is left out of y_t.

Overrides: _readout
"""


def _readout(hs, C, x, D):
    return (hs * C.unsqueeze(2)).sum(dim=-1)
