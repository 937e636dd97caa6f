"""LayerNorm (Ba et al., 2016) and RMSNorm (Zhang and Sennrich, 2019) over the last dimension. Implement the two
functions below; the helpers of helpers.py (read-only under the editor) check the contract, and _compute_dtype
picks the dtype to compute in."""

import math

import torch

from helpers import check_affine, check_eps, check_x


def _compute_dtype(dtype):
    """float16 and bfloat16 are computed in float32: their squares overflow (65504 is float16's largest)."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def layer_norm(x, weight, bias, eps=1e-5):
    """(x - mean) / sqrt(var + eps) * weight + bias over the last dimension (biased variance: divide by D).

    x: [..., D]; weight, bias: None or [D] (x's dtype). Returns a new tensor shaped and typed like x.
    """
    check_x(x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    compute_dtype = _compute_dtype(x.dtype)  # float32, or float64 for float64 inputs
    # 1. convert x to compute_dtype; mean and biased variance over the last dimension (keep it, size 1)
    # 2. centre, divide by sqrt(variance + eps)
    # 3. multiply by weight and add bias where they are not None (in compute_dtype), convert back to x.dtype
    raise NotImplementedError(f"layer_norm: follow steps 1-3 above (compute in {compute_dtype})")


def rms_norm(x, weight, eps=1e-6):
    """x / sqrt(mean(x^2) + eps) * weight over the last dimension; no centring and no bias.

    x: [..., D]; weight: None or [D] (x's dtype). Returns a new tensor shaped and typed like x.
    """
    check_x(x)
    check_affine("weight", weight, x)
    check_eps(eps)
    compute_dtype = _compute_dtype(x.dtype)
    # 1. convert x to compute_dtype; mean of the squares over the last dimension (keep it, size 1)
    # 2. divide by sqrt(mean square + eps), multiply by weight if given, convert back to x.dtype
    raise NotImplementedError(f"rms_norm: follow steps 1-2 above (compute in {compute_dtype})")
