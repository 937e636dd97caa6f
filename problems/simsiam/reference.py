"""Reference SimSiam loss (Chen and He, 2021). The checks compare submissions with it."""

from helpers import check_views

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
def _unit_rows(x):
    """Each row divided by max(its L2 norm, NORM_FLOOR)."""
    return x / x.norm(dim=1, keepdim=True).clamp_min(NORM_FLOOR)  # (N, D) / (N, 1)


def _negative_cosine(p, z):
    """D(p, stopgrad(z)): minus the mean over the rows of the cosine between p_i and z_i, z a constant."""
    return -(_unit_rows(p) * _unit_rows(z.detach())).sum(dim=1).mean()


def simsiam_loss(p1, p2, z1, z2):
    check_views(p1, p2, z1, z2)
    # each view's prediction is compared with the OTHER view's projection, which is a constant here
    return _negative_cosine(p1, z2) / 2 + _negative_cosine(p2, z1) / 2
