# VARIANT (correct): momentum update with torch.add(..., alpha=1 - m), enqueue rows through F.normalize in float32.
import torch

from helpers import validate_enqueue_inputs, validate_loss_inputs, validate_momentum_inputs

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, 1e-12): zero rows stay zero


# ---------------------------------------------------------------------------------------- normalisation


SAFE_MAGNITUDE = 1e18  # below this, D squares sum to well under float32's 3.4e38 for any D up to ~1e2


def _normalise_rows(x: torch.Tensor) -> torch.Tensor:
    """x / max(||x_row||, 1e-12), computed in at least float32 (1e-12 underflows to 0 in float16)."""
    work = x.to(torch.promote_types(x.dtype, torch.float32))
    if work.numel() and max(float(work.detach().amax()), -float(work.detach().amin())) >= SAFE_MAGNITUDE:
        return _normalise_large_rows(work).to(x.dtype)
    norms = torch.linalg.vector_norm(work, dim=1, keepdim=True).clamp_min(NORM_FLOOR)  # [N, 1]
    return (work / norms).to(x.dtype)


def _normalise_large_rows(work: torch.Tensor) -> torch.Tensor:
    """The same rows when squares could overflow (entries near the dtype's maximum): divide each row by its
    largest magnitude s first, since x / max(||x||, f) = (x / s) / max(||x / s||, f / s). s is a constant for
    autograd, so the gradient is that of the plain formula."""
    scale = work.detach().abs().amax(dim=1, keepdim=True).clamp_min(1.0)  # [N, 1]; 1 for ordinary rows
    scaled = work / scale
    norms = torch.maximum(torch.linalg.vector_norm(scaled, dim=1, keepdim=True), NORM_FLOOR / scale)
    return scaled / norms


# ------------------------------------------------------------------------------------------ the functions


def moco_loss(query: torch.Tensor, key: torch.Tensor, queue: torch.Tensor, temperature: float) -> torch.Tensor:
    """InfoNCE with one positive (key i for query i) and the K queue rows as negatives; batch mean."""
    validate_loss_inputs(query, key, queue, temperature)
    q = _normalise_rows(query)  # [B, D], gradients flow through the norm
    k = _normalise_rows(key.detach())  # [B, D]
    negatives = _normalise_rows(queue.detach())  # [K, D]
    positive = (q * k).sum(dim=1, keepdim=True) / temperature  # [B, 1]
    negative = q @ negatives.T / temperature  # [B, D] x [D, K] -> [B, K]
    logits = torch.cat([positive, negative], dim=1)  # [B, 1 + K]
    return (torch.logsumexp(logits, dim=1) - positive[:, 0]).mean()


def momentum_update(query: torch.Tensor, key: torch.Tensor, momentum: float = 0.999) -> torch.Tensor:
    """theta_k_new = m * theta_k + (1 - m) * theta_q, in new storage that does not require grad."""
    validate_momentum_inputs(query, key, momentum)
    m = float(momentum)
    with torch.no_grad():  # the key encoder is never trained by gradient; the result is new storage
        return torch.add(key.detach() * m, query.detach(), alpha=1.0 - m)


def enqueue(queue: torch.Tensor, keys: torch.Tensor, pointer: int) -> tuple[torch.Tensor, int]:
    """Write the normalised keys into a copy of the ring buffer from `pointer` on; return it, new pointer."""
    validate_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[0], keys.shape[0]
    new_queue = queue.detach().clone()  # [K, D]
    work = keys.detach().to(torch.promote_types(keys.dtype, torch.float32))  # float16 rounds 1e-12 to 0
    incoming = torch.nn.functional.normalize(work, dim=1).to(keys.dtype)  # [B, D]
    start = pointer
    if batch > size:  # only the last K sequential writes survive; they start where write B-K would land
        start = (pointer + batch - size) % size
        incoming = incoming[batch - size :]
    slots = (start + torch.arange(incoming.shape[0], device=queue.device)) % size  # [min(B, K)]
    new_queue[slots] = incoming
    return new_queue, (pointer + batch) % size
