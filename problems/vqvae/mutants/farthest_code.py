"""This is what you get when argmax is taken over the distances instead of argmin: every row picks the farthest code.

Overrides: _nearest
"""


def _nearest(z, codebook):
    return ((z[:, None, :] - codebook[None, :, :]) ** 2).sum(dim=2).argmax(dim=1)
