"""This is what you get when the nearest code is taken as the largest dot product z . e_k: it ranks the codes like the distance only when they all have the same length, so longer codes win.

Overrides: _nearest
Source: lucidrains/vector-quantize-pytorch issue #120 (a negated dot product used as the distance for codes of unequal norm)
"""


def _nearest(z, codebook):
    return (z @ codebook.t()).argmax(dim=1)
