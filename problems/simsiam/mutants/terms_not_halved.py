"""This is what you get when the two terms are added without halving: the loss runs from -2 to 2.

Overrides: simsiam_loss
"""


def simsiam_loss(p1, p2, z1, z2):
    check_views(p1, p2, z1, z2)
    return _negative_cosine(p1, z2) + _negative_cosine(p2, z1)
