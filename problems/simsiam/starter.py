"""SimSiam (Chen and He, 2021): the symmetric negative-cosine loss with a stop-gradient. Implement simsiam_loss
below; the helper checks the contract for you."""

import torch

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
FLOAT_DTYPES = (torch.float32, torch.float64)
NAMES = ("p1", "p2", "z1", "z2")


def _check_views(p1, p2, z1, z2):
    """Raise TypeError / ValueError unless all four are matching finite float32/float64 [N, D] tensors."""
    tensors = (p1, p2, z1, z2)
    for name, t in zip(NAMES, tensors, strict=True):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
    for name, t in zip(NAMES, tensors, strict=True):
        if t.dtype != p1.dtype:
            raise TypeError(f"{name} has dtype {t.dtype} but p1 has {p1.dtype}; all four must share one")
        if t.device != p1.device:
            raise ValueError(f"{name} is on {t.device} but p1 is on {p1.device}")
        if t.shape != p1.shape:
            raise ValueError(f"{name} has shape {tuple(t.shape)} but p1 has {tuple(p1.shape)} (no broadcasting)")
    if p1.dim() != 2 or p1.shape[0] < 1 or p1.shape[1] < 1:
        raise ValueError(f"p1, p2, z1 and z2 must be [N, D] with N >= 1 and D >= 1, got shape {tuple(p1.shape)}")
    for name, t in zip(NAMES, tensors, strict=True):
        if not torch.isfinite(t).all():
            raise ValueError(f"{name} must contain only finite values")


def simsiam_loss(p1, p2, z1, z2):
    """SimSiam's loss: D(p1, stopgrad(z2)) / 2 + D(p2, stopgrad(z1)) / 2, with D(p, z) = -mean_i cos(p_i, z_i).

    p1, p2: [N, D], the predictor's outputs for views 1 and 2 (they receive the gradient).
    z1, z2: [N, D], the encoder's projections of views 1 and 2 (constants here: no gradient through them).
    Returns a 0-d tensor of the inputs' dtype, between -1 and 1.
    """
    _check_views(p1, p2, z1, z2)
    # 1. divide every row by max(its L2 norm, 1e-12)
    # 2. D(p, z) = minus the mean over the rows of the dot product of the unit rows, with z detached
    # 3. pair each view's prediction with the OTHER view's projection, and average the two terms
    raise NotImplementedError("simsiam_loss: follow steps 1-3 above")
