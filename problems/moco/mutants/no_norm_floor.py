"""divides by the bare norm, so zero rows become nan.

Overrides: _normalise_rows
"""

import torch


def _normalise_rows(x):
    work = x.to(torch.promote_types(x.dtype, torch.float32))
    if work.numel() and max(float(work.detach().amax()), -float(work.detach().amin())) >= SAFE_MAGNITUDE:
        return _normalise_large_rows(work).to(x.dtype)
    norms = torch.linalg.vector_norm(work, dim=1, keepdim=True)  # [N, 1]
    return (work / norms).to(x.dtype)
