"""This is what you get when the codes are ranked by the L1 distance (sum of absolute differences) instead of the squared Euclidean one.

Overrides: _nearest
"""


def _nearest(z, codebook):
    return (z[:, None, :] - codebook[None, :, :]).abs().sum(dim=2).argmin(dim=1)
