"""Validation helpers for the VQ-VAE problem, supplied to every solution (`from helpers import ...`). They raise
exactly the errors the contract promises; call them first, then compute."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def check_latents(z_e, codebook):
    """z_e is [N, D] and codebook [K, D] (N, K, D >= 1), float32 or float64, one dtype, one device, finite."""
    for name, tensor in (("z_e", z_e), ("codebook", codebook)):
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
        if tensor.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float32 or float64, got {tensor.dtype}")
    if codebook.dtype != z_e.dtype:
        raise TypeError(f"codebook has dtype {codebook.dtype} but z_e has {z_e.dtype}")
    if codebook.device != z_e.device:
        raise ValueError(f"codebook is on {codebook.device} but z_e is on {z_e.device}")
    for name, tensor in (("z_e", z_e), ("codebook", codebook)):
        if tensor.dim() != 2 or tensor.shape[0] < 1 or tensor.shape[1] < 1:
            raise ValueError(f"{name} must be a 2-D tensor with at least one row and column, "
                             f"got shape {tuple(tensor.shape)}")
    if codebook.shape[1] != z_e.shape[1]:
        raise ValueError(f"codebook rows have {codebook.shape[1]} entries but z_e rows have {z_e.shape[1]}")
    for name, tensor in (("z_e", z_e), ("codebook", codebook)):
        if tensor.device.type != "meta" and not bool(torch.isfinite(tensor.detach()).all()):
            raise ValueError(f"{name} has non-finite entries (nan or inf)")


def check_indices(indices, z_e, codebook):
    """indices is an int64 tensor [N] on z_e's device with every entry in [0, K)."""
    if not isinstance(indices, torch.Tensor):
        raise TypeError(f"indices must be a torch.Tensor, got {type(indices).__name__}")
    if indices.dtype != torch.int64:
        raise TypeError(f"indices must be int64, got {indices.dtype}")
    if indices.device != z_e.device:
        raise ValueError(f"indices is on {indices.device} but z_e is on {z_e.device}")
    if indices.shape != (z_e.shape[0],):
        raise ValueError(f"indices must have shape ({z_e.shape[0]},), one per row of z_e, "
                         f"got {tuple(indices.shape)}")
    if indices.device.type != "meta" and bool(((indices < 0) | (indices >= codebook.shape[0])).any()):
        raise ValueError(f"indices must lie in [0, {codebook.shape[0]}), the rows of the codebook")


def check_beta(beta):
    """beta is a Python int or float (not bool), finite and >= 0; returned as a float."""
    if isinstance(beta, bool) or not isinstance(beta, int | float):
        raise TypeError(f"beta must be a Python int or float, got {type(beta).__name__}")
    if not math.isfinite(beta) or beta < 0:
        raise ValueError(f"beta must be finite and >= 0, got {beta}")
    return float(beta)


# --- the experiment's run ------------------------------------------------------------------------------------
# The grader fits the notes' toy codebook with your two functions through `experiment_fit`: one request to the
# sandbox for the whole fit instead of two per step. It checks every number it returns, so you never call it.


def experiment_fit(functions, points, codebook, steps, lr, beta):
    """Fit the codebook to the points: each step quantizes them with your quantize, then takes a gradient step of
    your codebook loss alone (the cotangent (1, 0) on your vq_loss's two results). Returns, for each step, what
    your two functions returned and the gradient in the codebook (None where none reached it). Each call gets its
    own copy of its inputs."""
    quantize, vq_loss = functions["quantize"], functions["vq_loss"]
    cotangents = (torch.tensor(1.0, dtype=torch.float64), torch.tensor(0.0, dtype=torch.float64))
    records = []
    for _ in range(steps):
        quantized = quantize(points.clone(), codebook.clone())
        leaf = codebook.clone().requires_grad_(True)
        losses = vq_loss(points.clone(), leaf, quantized[1].clone(), beta)
        pairs = [(t, c) for t, c in zip(losses, cotangents, strict=True) if t.requires_grad]
        (grad,) = torch.autograd.grad([t for t, _ in pairs], (leaf,), grad_outputs=[c for _, c in pairs],
                                      allow_unused=True)
        records.append((tuple(quantized), tuple(t.detach() for t in losses), grad))
        codebook = codebook - lr * (torch.zeros_like(codebook) if grad is None else grad)
    return records
