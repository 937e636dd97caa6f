"""This is what you get when SiLU is written x / (1 + exp(-x)): for very negative x, exp(-x) overflows; the value x / inf = -0 still looks right, but the gradient through it is inf / inf = nan.

Source: trymirai/lalamo pull request #328 (its SiLU produced NaN gradients for large inputs although the value was finite; fixed with a stable sigmoid); antirez/ds4 pull request #498 (the naive gate / (1 + exp(-gate)) in the ROCm kernels)

Overrides: _silu
"""

import torch


def _silu(x):
    return x / (1 + torch.exp(-x))
