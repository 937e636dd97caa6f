"""This is what you get when only z2 is detached: the second term still sends gradient into z1.

Overrides: simsiam_loss
"""


def simsiam_loss(p1, p2, z1, z2):
    check_views(p1, p2, z1, z2)
    first = -(_unit_rows(p1) * _unit_rows(z2.detach())).sum(dim=1).mean()
    second = -(_unit_rows(p2) * _unit_rows(z1)).sum(dim=1).mean()
    return first / 2 + second / 2
