"""Validation for normalize_rows: the contract's boring part, supplied so learners spend their time on the idea.

Every solution may `from helpers import check_matrix`; the learner reads this file, read-only, under the editor.
Put here what the starter, the reference and the variants would otherwise each paste, never any of the solution.
"""

import torch


def check_matrix(x: torch.Tensor) -> None:
    """Raise TypeError unless x is a float32/float64 tensor, ValueError unless it is 2-D with finite values."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"x must be float32 or float64, got {x.dtype}")
    if x.dim() != 2:
        raise ValueError(f"x must be 2-D [N, D], got shape {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError("x must contain only finite values")
