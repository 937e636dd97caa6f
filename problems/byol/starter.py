"""BYOL (Grill et al., 2020): the regression loss and the target network's moving average. Implement byol_loss and
target_update below; the helpers of helpers.py (read-only under the editor) check the contract for you."""

import math

import torch

from helpers import check_batches, check_pair, check_tau

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
def byol_loss(online_prediction, target_projection):
    """BYOL's loss for one direction: the mean over the batch of 2 - 2 cos(p_i, z_i).

    online_prediction: [N, D], the online network's prediction q(z) for one view (receives the gradient).
    target_projection: [N, D], the target network's projection of the other view (a constant: no gradient).
    Returns a 0-d tensor of the inputs' dtype.
    """
    check_batches(online_prediction, target_projection)
    # 1. divide every row of both inputs by max(its L2 norm, 1e-12)
    # 2. cut the target out of the autograd graph
    # 3. per row, 2 - 2 * (dot product of the two unit rows); then the mean over the N rows
    raise NotImplementedError("byol_loss: follow steps 1-3 above")


def target_update(online_params, target_params, tau):
    """The target network's new parameters: tau * target_params + (1 - tau) * online_params.

    online_params: the online network's parameter tensor theta (any shape).
    target_params: the target network's parameter tensor xi, the same shape and dtype.
    tau: Python int or float in [0, 1]; tau = 1 keeps the target, tau = 0 copies the online parameters.
    Returns a new tensor that does not require grad; neither input is modified.
    """
    check_tau(tau)
    check_pair("online_params", online_params, "target_params", target_params)
    # 1. outside autograd (torch.no_grad() or detached tensors), weight the target by tau and the online by 1 - tau
    # 2. return new storage, never one of the inputs
    raise NotImplementedError("target_update: follow steps 1-2 above")
