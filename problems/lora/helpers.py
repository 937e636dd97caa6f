"""LoRA: the validation helpers, supplied and read-only.

`from helpers import check_adapter, check_alpha, check_x_bias` in your solution (the starter does)."""

import math

import torch


def check_tensor(name, t, *, dims=None, finite=True):
    """Raise TypeError / ValueError unless t is a float32/float64 tensor (with `dims` dimensions), finite unless
    `finite` is False (the caller then checks the values itself, once the devices are known to agree)."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
    if dims is not None and t.dim() != dims:
        raise ValueError(f"{name} must have {dims} dimensions, got shape {tuple(t.shape)}")
    if finite and not torch.isfinite(t).all():
        raise ValueError(f"{name} must contain only finite values")


def check_adapter(weight, lora_a, lora_b):
    """weight [out, in], lora_a [r, in], lora_b [out, r] with r >= 1, one dtype and device."""
    for name, t in (("weight", weight), ("lora_a", lora_a), ("lora_b", lora_b)):
        check_tensor(name, t, dims=2, finite=False)
    if not (weight.dtype == lora_a.dtype == lora_b.dtype):
        raise TypeError(f"weight, lora_a and lora_b must share a dtype, got {weight.dtype}, {lora_a.dtype} "
                        f"and {lora_b.dtype}")
    if not (weight.device == lora_a.device == lora_b.device):
        raise ValueError("weight, lora_a and lora_b must be on one device")
    out_features, in_features = weight.shape
    rank = lora_a.shape[0]
    if rank < 1 or out_features < 1 or in_features < 1:
        raise ValueError(f"need r >= 1 and non-empty weight, got weight {tuple(weight.shape)}, lora_a "
                         f"{tuple(lora_a.shape)}")
    if tuple(lora_a.shape) != (rank, in_features):
        raise ValueError(f"lora_a must be [r, in] = [{rank}, {in_features}], got {tuple(lora_a.shape)}")
    if tuple(lora_b.shape) != (out_features, rank):
        raise ValueError(f"lora_b must be [out, r] = [{out_features}, {rank}], got {tuple(lora_b.shape)}")
    for name, t in (("weight", weight), ("lora_a", lora_a), ("lora_b", lora_b)):
        if not torch.isfinite(t).all():
            raise ValueError(f"{name} must contain only finite values")


def check_alpha(alpha):
    """Raise TypeError unless alpha is a Python int/float (not bool), ValueError unless finite and > 0."""
    if isinstance(alpha, bool) or not isinstance(alpha, int | float):
        raise TypeError(f"alpha must be a Python float or int, got {type(alpha).__name__}")
    if not math.isfinite(alpha) or alpha <= 0:
        raise ValueError(f"alpha must be finite and > 0, got {alpha}")


def check_x_bias(x, bias, weight):
    """Raise TypeError / ValueError unless x is [..., in] and bias None or [out], matching weight."""
    check_tensor("x", x)
    if x.dim() < 1 or x.shape[-1] != weight.shape[1]:
        raise ValueError(f"x must be [..., in] with in = {weight.shape[1]}, got shape {tuple(x.shape)}")
    if x.dtype != weight.dtype or x.device != weight.device:
        raise TypeError(f"x must have weight's dtype {weight.dtype} and device, got {x.dtype} on {x.device}")
    if bias is not None:
        check_tensor("bias", bias, dims=1)
        if bias.dtype != weight.dtype:
            raise TypeError(f"bias must have weight's dtype {weight.dtype}, got {bias.dtype}")
        if bias.shape[0] != weight.shape[0]:
            raise ValueError(f"bias must be [out] = [{weight.shape[0]}], got {tuple(bias.shape)}")
