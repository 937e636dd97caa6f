"""SimSiam (Chen and He, 2021): the symmetric negative-cosine loss with a stop-gradient. Implement simsiam_loss
below; check_views of helpers.py (read-only under the editor) checks the contract for you."""

import torch

from helpers import check_views

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
def simsiam_loss(p1, p2, z1, z2):
    """SimSiam's loss: D(p1, stopgrad(z2)) / 2 + D(p2, stopgrad(z1)) / 2, with D(p, z) = -mean_i cos(p_i, z_i).

    p1, p2: [N, D], the predictor's outputs for views 1 and 2 (they receive the gradient).
    z1, z2: [N, D], the encoder's projections of views 1 and 2 (constants here: no gradient through them).
    Returns a 0-d tensor of the inputs' dtype, between -1 and 1.
    """
    check_views(p1, p2, z1, z2)
    # 1. divide every row by max(its L2 norm, 1e-12)
    # 2. D(p, z) = minus the mean over the rows of the dot product of the unit rows, with z detached
    # 3. pair each view's prediction with the OTHER view's projection, and average the two terms
    raise NotImplementedError("simsiam_loss: follow steps 1-3 above")
