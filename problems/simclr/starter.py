"""SimCLR's NT-Xent loss. Implement nt_xent_loss below; the two helpers of helpers.py (shown read-only under the
editor) check the contract for you."""

import torch

from helpers import check_temperature, check_views


def nt_xent_loss(z1, z2, temperature):
    """NT-Xent loss of a batch of N pairs of views.

    z1, z2: [N, D] projections of two augmentations of the same N examples (row i of z1 pairs with row i of z2).
    temperature: positive Python float or int.
    Returns a 0-d tensor of z1's dtype: the mean over all 2N anchors of
        logsumexp over the 2N - 1 other views of (cosine / temperature)  -  (partner's cosine / temperature).
    """
    check_views(z1, z2)
    check_temperature(temperature)
    # 1. stack both views into one [2N, D] batch and divide each row by max(its L2 norm, 1e-12)
    # 2. all pairwise cosine similarities divided by the temperature: a [2N, 2N] matrix
    # 3. remove each view's similarity with itself, then a stable logsumexp over each row
    # 4. subtract the partner's logit (row i pairs with i + N, modulo 2N) and average over the 2N rows
    raise NotImplementedError("nt_xent_loss: follow steps 1-4 above")
