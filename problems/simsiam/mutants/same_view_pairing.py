"""This is what you get when each prediction is compared with its own view's projection (p1 with z1) instead of the other view's.

Source: lightly-ai/lightly#599 (a SimSiam tutorial whose loss function did not receive its arguments correctly)
Overrides: simsiam_loss
"""


def simsiam_loss(p1, p2, z1, z2):
    check_views(p1, p2, z1, z2)
    return _negative_cosine(p1, z1) / 2 + _negative_cosine(p2, z2) / 2
