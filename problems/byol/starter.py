"""BYOL (Grill et al., 2020): the regression loss and the target network's moving average. Implement byol_loss
and target_update below; the helpers check the contract for you."""

import math

import torch

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_tensor(name, t):
    """Raise TypeError unless t is a float32 or float64 tensor."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")


def _check_pair(first_name, first, second_name, second):
    """Raise TypeError / ValueError unless both tensors share a float dtype, a device and a shape, all finite."""
    _check_tensor(first_name, first)
    _check_tensor(second_name, second)
    if first.dtype != second.dtype:
        raise TypeError(f"{first_name} and {second_name} must share a dtype, got {first.dtype} and {second.dtype}")
    if first.device != second.device:
        raise ValueError(f"{first_name} and {second_name} must be on one device, got {first.device} and "
                         f"{second.device}")
    if first.shape != second.shape:
        raise ValueError(f"{first_name} and {second_name} must have the same shape (no broadcasting), got "
                         f"{tuple(first.shape)} and {tuple(second.shape)}")
    if not (torch.isfinite(first).all() and torch.isfinite(second).all()):
        raise ValueError(f"{first_name} and {second_name} must contain only finite values")


def _check_batches(online_prediction, target_projection):
    """Raise TypeError / ValueError unless both are matching finite float32/float64 [N, D] tensors, N, D >= 1."""
    _check_pair("online_prediction", online_prediction, "target_projection", target_projection)
    if online_prediction.dim() != 2 or online_prediction.shape[0] < 1 or online_prediction.shape[1] < 1:
        raise ValueError(f"online_prediction and target_projection must be [N, D] with N >= 1 and D >= 1, got "
                         f"shape {tuple(online_prediction.shape)}")


def _check_tau(tau):
    """Raise TypeError unless tau is a Python int or float (not bool), ValueError unless it is in [0, 1]."""
    if isinstance(tau, bool) or not isinstance(tau, int | float):
        raise TypeError(f"tau must be a Python int or float, got {type(tau).__name__}")
    if not math.isfinite(tau) or not 0 <= tau <= 1:
        raise ValueError(f"tau must be a finite number in [0, 1], got {tau}")


def byol_loss(online_prediction, target_projection):
    """BYOL's loss for one direction: the mean over the batch of 2 - 2 cos(p_i, z_i).

    online_prediction: [N, D], the online network's prediction q(z) for one view (receives the gradient).
    target_projection: [N, D], the target network's projection of the other view (a constant: no gradient).
    Returns a 0-d tensor of the inputs' dtype.
    """
    _check_batches(online_prediction, target_projection)
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
    _check_tau(tau)
    _check_pair("online_params", online_params, "target_params", target_params)
    # 1. outside autograd (torch.no_grad() or detached tensors), weight the target by tau and the online by 1 - tau
    # 2. return new storage, never one of the inputs
    raise NotImplementedError("target_update: follow steps 1-2 above")
