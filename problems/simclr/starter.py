"""SimCLR's NT-Xent loss. Implement nt_xent_loss below; the two helpers check the contract for you."""

import math

import torch


def _check_views(z1, z2):
    """Raise TypeError / ValueError unless z1 and z2 are matching finite float32/float64 [N, D] tensors."""
    for name, z in (("z1", z1), ("z2", z2)):
        if not isinstance(z, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(z).__name__}")
        if z.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"{name} must be float32 or float64, got {z.dtype}")
        if z.dim() != 2:
            raise ValueError(f"{name} must be 2-D [N, D], got shape {tuple(z.shape)}")
    if z1.dtype != z2.dtype:
        raise TypeError(f"z1 and z2 must share a dtype, got {z1.dtype} and {z2.dtype}")
    if z1.device != z2.device:
        raise ValueError(f"z1 and z2 must be on the same device, got {z1.device} and {z2.device}")
    if z1.shape != z2.shape:
        raise ValueError(f"z1 and z2 must have the same shape, got {tuple(z1.shape)} and {tuple(z2.shape)}")
    if z1.shape[0] < 1 or z1.shape[1] < 1:
        raise ValueError(f"need N >= 1 pairs and D >= 1 features, got shape {tuple(z1.shape)}")
    if not (torch.isfinite(z1).all() and torch.isfinite(z2).all()):
        raise ValueError("z1 and z2 must contain only finite values")


def _check_temperature(temperature):
    """Raise TypeError unless temperature is a Python int/float (not bool), ValueError unless finite and > 0."""
    if isinstance(temperature, bool) or not isinstance(temperature, int | float):
        raise TypeError(f"temperature must be a Python int or float, got {type(temperature).__name__}")
    if not math.isfinite(temperature) or temperature <= 0:
        raise ValueError(f"temperature must be finite and > 0, got {temperature}")


def nt_xent_loss(z1, z2, temperature):
    """NT-Xent loss of a batch of N pairs of views.

    z1, z2: [N, D] projections of two augmentations of the same N examples (row i of z1 pairs with row i of z2).
    temperature: positive Python float or int.
    Returns a 0-d tensor of z1's dtype: the mean over all 2N anchors of
        logsumexp over the 2N - 1 other views of (cosine / temperature)  -  (partner's cosine / temperature).
    """
    _check_views(z1, z2)
    _check_temperature(temperature)
    # 1. stack both views into one [2N, D] batch and divide each row by max(its L2 norm, 1e-12)
    # 2. all pairwise cosine similarities divided by the temperature: a [2N, 2N] matrix
    # 3. remove each view's similarity with itself, then a stable logsumexp over each row
    # 4. subtract the partner's logit (row i pairs with i + N, modulo 2N) and average over the 2N rows
    raise NotImplementedError("nt_xent_loss: follow steps 1-4 above")
