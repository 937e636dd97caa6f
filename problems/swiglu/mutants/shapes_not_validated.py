"""This is what you get when the weights' shapes are not validated: mismatched weights fail deep inside a matrix product with a RuntimeError (or, for some shapes, are silently accepted) instead of a ValueError that names the weight.

Overrides: check_ffn_inputs
"""

import torch


def check_ffn_inputs(x, w_gate, w_up, w_down):
    for name, t in (("x", x), ("w_gate", w_gate), ("w_up", w_up), ("w_down", w_down)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor")
        if t.dtype not in (torch.float32, torch.float64) or t.dtype != x.dtype:
            raise TypeError(f"{name} must be float32 or float64, with x's dtype")
        if t.device != x.device:
            raise ValueError(f"{name} must be on x's device")
        if t.device.type != "meta" and not bool(torch.isfinite(t.detach()).all()):
            raise ValueError(f"{name} has non-finite entries")
