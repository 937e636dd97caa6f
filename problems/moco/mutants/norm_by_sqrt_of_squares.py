"""Row norms as sqrt(sum of squares): same values, but the gradient at a zero query row is 0 * inf = nan.

Overrides: _normalise_rows
"""

import torch


def _normalise_rows(x: torch.Tensor) -> torch.Tensor:
    """x / max(||x_row||, 1e-12), computed in at least float32 (1e-12 underflows to 0 in float16)."""
    work = x.to(torch.promote_types(x.dtype, torch.float32))
    if work.numel() and max(float(work.detach().amax()), -float(work.detach().amin())) >= SAFE_MAGNITUDE:
        return _normalise_large_rows(work).to(x.dtype)
    norms = (work * work).sum(dim=1, keepdim=True).sqrt().clamp_min(NORM_FLOOR)  # [N, 1]
    return (work / norms).to(x.dtype)
