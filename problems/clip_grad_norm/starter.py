"""Global gradient-norm clipping. Implement clip_grad_norm below; the helpers of helpers.py (read-only under the
editor) validate the inputs for you."""

import math

import torch

from helpers import check_grads, check_settings


def clip_grad_norm(grads, max_norm, eps=1e-6):
    """Scale a list of gradients so that their global L2 norm is at most max_norm.

    grads: list or tuple of tensors (one dtype) or None. Returns (clipped, total_norm): a new list with None
    where grads has None, and total_norm, the norm before clipping, a 0-d tensor of the gradients' dtype.
    """
    tensors = check_grads(grads)  # the non-None entries, validated
    check_settings(max_norm, eps)
    # 1. no tensors at all: every entry None, and a float32 zero norm
    # 2. the global norm over every element of every tensor, without overflow or underflow: divide by the
    #    largest magnitude before squaring; a non-finite norm raises ValueError
    # 3. only if the norm exceeds max_norm, multiply every tensor by max_norm / (norm + eps)
    # 4. return new tensors (copies when nothing is clipped) that do not require grad
    raise NotImplementedError(f"clip_grad_norm: follow steps 1-4 above ({len(tensors)} tensors to clip)")
