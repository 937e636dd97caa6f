"""DPO: the validation helpers, supplied and read-only.

`from helpers import check_sequence_inputs, check_dpo_inputs` in your solution. Each raises exactly the errors
the contract promises (TypeError for the wrong kind of value, ValueError for a value out of range); call it
first, then compute."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_tensor(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")


def _check_finite(name, t):
    if t.device.type != "meta" and not bool(torch.isfinite(t.detach()).all()):
        raise ValueError(f"{name} has non-finite entries (nan or inf)")


def check_sequence_inputs(logits, labels, mask):
    """logits: float32/float64 [B, T, V] with V >= 1 and finite values; labels: int64 [B, T] with every value in
    [0, V), masked positions included; mask: bool [B, T]. B and T may be 0. All on one device."""
    _check_tensor("logits", logits)
    if logits.dtype not in FLOAT_DTYPES:
        raise TypeError(f"logits must be float32 or float64, got {logits.dtype}")
    _check_tensor("labels", labels)
    if labels.dtype != torch.int64:
        raise TypeError(f"labels must be an int64 tensor of token ids, got {labels.dtype}")
    _check_tensor("mask", mask)
    if mask.dtype != torch.bool:
        raise TypeError(f"mask must be a bool tensor (True = a completion token that counts), got {mask.dtype}")
    if logits.dim() != 3 or logits.shape[2] < 1:
        raise ValueError(f"logits must be [B, T, V] with V >= 1, got shape {tuple(logits.shape)}")
    batch, length, vocab = logits.shape
    if tuple(labels.shape) != (batch, length):
        raise ValueError(f"labels must be [B, T] = [{batch}, {length}] like logits, got {tuple(labels.shape)}")
    if tuple(mask.shape) != (batch, length):
        raise ValueError(f"mask must be [B, T] = [{batch}, {length}] like logits, got {tuple(mask.shape)}")
    for name, t in (("labels", labels), ("mask", mask)):
        if t.device != logits.device:
            raise ValueError(f"{name} must be on logits' device {logits.device}, got {t.device}")
    _check_finite("logits", logits)
    if labels.numel() and bool(((labels < 0) | (labels >= vocab)).any()):
        raise ValueError(f"labels must be token ids in [0, V) = [0, {vocab}) at every position, masked ones "
                         "included (replace a -100 padding label by any valid id, e.g. 0, and mask it out)")


def check_beta(beta):
    """beta: a finite Python int or float > 0 (a bool or a tensor is not a number here)."""
    if isinstance(beta, bool) or not isinstance(beta, int | float):
        raise TypeError(f"beta must be a Python float, got {type(beta).__name__}")
    if not math.isfinite(beta) or beta <= 0:
        raise ValueError(f"beta must be a finite number > 0, got {beta}")


def check_dpo_inputs(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta):
    """Four float32/float64 tensors of one dtype, one shape [B] with B >= 1, one device, finite values; and beta a
    finite Python number > 0."""
    tensors = (("policy_chosen_logps", policy_chosen_logps), ("policy_rejected_logps", policy_rejected_logps),
               ("ref_chosen_logps", ref_chosen_logps), ("ref_rejected_logps", ref_rejected_logps))
    for name, t in tensors:
        _check_tensor(name, t)
        if t.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
    dtype = policy_chosen_logps.dtype
    for name, t in tensors[1:]:
        if t.dtype != dtype:
            raise TypeError(f"{name} must have policy_chosen_logps' dtype {dtype}, got {t.dtype}")
    check_beta(beta)
    if policy_chosen_logps.dim() != 1 or policy_chosen_logps.shape[0] < 1:
        raise ValueError("policy_chosen_logps must be [B] with B >= 1 pairs (the loss is a mean over pairs), got "
                         f"shape {tuple(policy_chosen_logps.shape)}")
    shape = tuple(policy_chosen_logps.shape)
    for name, t in tensors[1:]:
        if tuple(t.shape) != shape:
            raise ValueError(f"{name} must have shape {list(shape)} like policy_chosen_logps, got {tuple(t.shape)}")
        if t.device != policy_chosen_logps.device:
            raise ValueError(f"{name} must be on policy_chosen_logps' device {policy_chosen_logps.device}")
    for name, t in tensors:
        _check_finite(name, t)


# ---------------------------------------------------------------------------------------------- the experiment
# The toy training of the notes' chart: the grader steps it with your functions' answers, one request a step,
# and these show what each step does with them.


def training_logits(contexts, unembedding):
    """A toy language model's logits: a trainable context vector per (prompt, position) [P, T, d] against a fixed
    unembedding [V, d] -> [P, T, V]."""
    return contexts @ unembedding.T


def training_step(contexts, unembedding, d_chosen, jacobian_chosen, d_rejected, jacobian_rejected, lr):
    """The context vectors after one gradient step, by the chain rule: the loss's gradients in the chosen and
    rejected log-probs [P], each times the Jacobian of those log-probs in the logits [P, T, V], then through the
    unembedding."""
    d_logits = (d_chosen.to(torch.float64)[:, None, None] * jacobian_chosen.to(torch.float64)
                + d_rejected.to(torch.float64)[:, None, None] * jacobian_rejected.to(torch.float64))
    return contexts - lr * d_logits @ unembedding
