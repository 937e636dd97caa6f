"""{{title}}: implement normalize_rows. The helper below checks the contract; keep calling it."""

import torch


def _check_matrix(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"x must be float32 or float64, got {x.dtype}")
    if x.dim() != 2:
        raise ValueError(f"x must be 2-D [N, D], got shape {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError("x must contain only finite values")


def normalize_rows(x):
    """Return x with every row divided by max(its L2 norm, 1e-12)."""
    _check_matrix(x)
    raise NotImplementedError("normalize_rows: divide each row by max(its L2 norm, 1e-12)")
