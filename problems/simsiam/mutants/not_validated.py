"""This is what you get when simsiam_loss skips the supplied validation: mismatched, empty or non-finite inputs get through.

Overrides: simsiam_loss
"""


def simsiam_loss(p1, p2, z1, z2):
    return _negative_cosine(p1, z2) / 2 + _negative_cosine(p2, z1) / 2
