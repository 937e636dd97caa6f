"""This is what you get when the stop-gradient is applied with z.requires_grad_(False) on the caller's
projections instead of z.detach() inside the loss: no gradient reaches z1 or z2, but the caller's tensors are
changed (and a projection computed by an encoder, not a leaf, makes the call raise).

Overrides: _negative_cosine
"""


def _negative_cosine(p, z):
    z.requires_grad_(False)
    return -(_unit_rows(p) * _unit_rows(z)).sum(dim=1).mean()
