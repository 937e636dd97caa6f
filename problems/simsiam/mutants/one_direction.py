"""This is what you get when only D(p1, z2) is used: the loss is no longer symmetric and p2 gets no gradient.

Overrides: simsiam_loss
"""


def simsiam_loss(p1, p2, z1, z2):
    check_views(p1, p2, z1, z2)
    return _negative_cosine(p1, z2)
