"""LayerNorm (Ba et al., 2016) and RMSNorm (Zhang and Sennrich, 2019) over the last dimension. Implement the two
functions below; the helpers check the contract and pick the dtype to compute in."""

import math

import torch

INPUT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def _check_x(x):
    """Raise TypeError / ValueError unless x is a finite [..., D] tensor (D >= 1) of a supported dtype."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in INPUT_DTYPES:
        raise TypeError(f"x must be float16, bfloat16, float32 or float64, got {x.dtype}")
    if x.dim() < 1 or x.shape[-1] < 1:
        raise ValueError(f"x must have a last dimension of size D >= 1, got shape {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError("x must contain only finite values")


def _check_affine(name, p, x):
    """weight and bias are None or a [D] tensor of x's dtype and device."""
    if p is None:
        return
    if not isinstance(p, torch.Tensor):
        raise TypeError(f"{name} must be None or a torch.Tensor, got {type(p).__name__}")
    if p.dtype != x.dtype:
        raise TypeError(f"{name} must have x's dtype {x.dtype}, got {p.dtype}")
    if p.device != x.device:
        raise ValueError(f"{name} must be on x's device {x.device}, got {p.device}")
    if tuple(p.shape) != (x.shape[-1],):
        raise ValueError(f"{name} must have shape [D] = [{x.shape[-1]}], got {tuple(p.shape)}")
    if not torch.isfinite(p).all():
        raise ValueError(f"{name} must contain only finite values")


def _check_eps(eps):
    """Raise TypeError unless eps is a Python int/float (not bool), ValueError unless finite and > 0."""
    if isinstance(eps, bool) or not isinstance(eps, int | float):
        raise TypeError(f"eps must be a Python float or int, got {type(eps).__name__}")
    if not math.isfinite(eps) or eps <= 0:
        raise ValueError(f"eps must be finite and > 0, got {eps}")


def _compute_dtype(dtype):
    """float16 and bfloat16 are computed in float32: their squares overflow (65504 is float16's largest)."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def layer_norm(x, weight, bias, eps=1e-5):
    """(x - mean) / sqrt(var + eps) * weight + bias over the last dimension (biased variance: divide by D).

    x: [..., D]; weight, bias: None or [D] (x's dtype). Returns a new tensor shaped and typed like x.
    """
    _check_x(x)
    _check_affine("weight", weight, x)
    _check_affine("bias", bias, x)
    _check_eps(eps)
    compute_dtype = _compute_dtype(x.dtype)  # float32, or float64 for float64 inputs
    # 1. convert x to compute_dtype; mean and biased variance over the last dimension (keep it, size 1)
    # 2. centre, divide by sqrt(variance + eps)
    # 3. multiply by weight and add bias where they are not None (in compute_dtype), convert back to x.dtype
    raise NotImplementedError(f"layer_norm: follow steps 1-3 above (compute in {compute_dtype})")


def rms_norm(x, weight, eps=1e-6):
    """x / sqrt(mean(x^2) + eps) * weight over the last dimension; no centring and no bias.

    x: [..., D]; weight: None or [D] (x's dtype). Returns a new tensor shaped and typed like x.
    """
    _check_x(x)
    _check_affine("weight", weight, x)
    _check_eps(eps)
    compute_dtype = _compute_dtype(x.dtype)
    # 1. convert x to compute_dtype; mean of the squares over the last dimension (keep it, size 1)
    # 2. divide by sqrt(mean square + eps), multiply by weight if given, convert back to x.dtype
    raise NotImplementedError(f"rms_norm: follow steps 1-2 above (compute in {compute_dtype})")
