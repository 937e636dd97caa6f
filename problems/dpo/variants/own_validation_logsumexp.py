"""A correct solution that validates on its own and writes the stable formulas by hand: log-softmax as
z - logsumexp(z), the mask by indexing and index_add, and -log sigmoid(m) through logaddexp(0, -m)."""

import math

import torch


def _validate_sequence(logits, labels, mask):
    for name, t in (("logits", logits), ("labels", labels), ("mask", mask)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a tensor")
    if logits.dtype not in (torch.float32, torch.float64) or labels.dtype != torch.int64 or mask.dtype != torch.bool:
        raise TypeError("logits float32/float64, labels int64, mask bool")
    if logits.dim() != 3 or logits.shape[2] < 1 or labels.shape != logits.shape[:2] or mask.shape != logits.shape[:2]:
        raise ValueError("shapes must be [B, T, V], [B, T], [B, T]")
    if labels.device != logits.device or mask.device != logits.device:
        raise ValueError("one device")
    if not bool(torch.isfinite(logits).all()):
        raise ValueError("logits must be finite")
    if labels.numel() and (int(labels.min()) < 0 or int(labels.max()) >= logits.shape[2]):
        raise ValueError("labels out of range")


def sequence_logprob(logits, labels, mask):
    _validate_sequence(logits, labels, mask)
    batch = logits.shape[0]
    logps = logits - torch.logsumexp(logits, dim=-1, keepdim=True)  # [B, T, V]
    picked = torch.take_along_dim(logps, labels[..., None], dim=-1)[..., 0]  # [B, T]
    rows = torch.arange(batch, device=logits.device)[:, None].expand_as(mask)
    out = torch.zeros(batch, dtype=logits.dtype, device=logits.device)
    return out.index_add(0, rows[mask], picked[mask]) + 0 * picked.sum(dim=-1)


def _validate_pairs(tensors, beta):
    for t in tensors:
        if not isinstance(t, torch.Tensor):
            raise TypeError("log-probs must be tensors")
        if t.dtype not in (torch.float32, torch.float64):
            raise TypeError("float32 or float64")
    if any(t.dtype != tensors[0].dtype for t in tensors):
        raise TypeError("one dtype")
    if isinstance(beta, bool) or not isinstance(beta, int | float):
        raise TypeError("beta must be a number")
    if not math.isfinite(beta) or beta <= 0:
        raise ValueError("beta must be > 0")
    if tensors[0].dim() != 1 or tensors[0].shape[0] < 1 or any(t.shape != tensors[0].shape for t in tensors):
        raise ValueError("four [B] tensors, B >= 1")
    if any(t.device != tensors[0].device for t in tensors):
        raise ValueError("one device")
    if not all(bool(torch.isfinite(t).all()) for t in tensors):
        raise ValueError("finite values")


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta=0.1):
    _validate_pairs((policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps), beta)
    chosen = beta * (policy_chosen_logps - ref_chosen_logps.detach())
    rejected = beta * (policy_rejected_logps - ref_rejected_logps.detach())
    margin = chosen - rejected
    loss = torch.logaddexp(torch.zeros_like(margin), -margin).mean()
    return loss, chosen.detach().clone(), rejected.detach().clone()
