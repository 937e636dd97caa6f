"""Reference solution for the MoCo problem. Trusted: imported only in the judge's process, never shown."""

from __future__ import annotations

import math

import torch

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, 1e-12): zero rows stay zero
LOSS_DTYPES = (torch.float32, torch.float64)


# ------------------------------------------------------------------------------------------- validation


def _check_real_scalar(name: str, value: object) -> float:
    """A Python int or float (not bool, not a Tensor, not a string); returns it as a float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value}")
    return number


def _check_temperature(temperature: object) -> float:
    number = _check_real_scalar("temperature", temperature)
    if number <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    return number


def _check_momentum(momentum: object) -> float:
    number = _check_real_scalar("momentum", momentum)
    if not 0.0 <= number <= 1.0:
        raise ValueError(f"momentum must lie in [0, 1], got {momentum}")
    return number


def _check_pointer(pointer: object, size: int) -> int:
    if isinstance(pointer, bool) or not isinstance(pointer, int):
        raise TypeError(f"pointer must be a Python int, got {type(pointer).__name__}")
    if not 0 <= pointer < size:
        raise ValueError(f"pointer must lie in [0, {size}), got {pointer}")
    return pointer


def _check_tensors(names: tuple[str, ...], tensors: tuple[object, ...], dtypes: tuple[torch.dtype, ...] | None) -> None:
    """Each is a tensor of an allowed dtype with finite entries; all share one dtype and one device."""
    for name, tensor in zip(names, tensors, strict=True):
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
        if dtypes is None and not tensor.is_floating_point():
            raise TypeError(f"{name} must have a floating dtype, got {tensor.dtype}")
        if dtypes is not None and tensor.dtype not in dtypes:
            raise TypeError(f"{name} must be float32 or float64, got {tensor.dtype}")
    first = tensors[0]
    assert isinstance(first, torch.Tensor)
    for name, tensor in zip(names, tensors, strict=True):
        assert isinstance(tensor, torch.Tensor)
        if tensor.dtype != first.dtype:
            raise TypeError(f"{name} has dtype {tensor.dtype} but {names[0]} has {first.dtype}")
        if tensor.device != first.device:
            raise ValueError(f"{name} is on {tensor.device} but {names[0]} is on {first.device}")
    for name, tensor in zip(names, tensors, strict=True):
        assert isinstance(tensor, torch.Tensor)
        if not _all_finite(tensor):
            raise ValueError(f"{name} has non-finite entries (nan or inf)")


def _all_finite(tensor: torch.Tensor) -> bool:
    """nan survives max and min and inf is their extreme: two reductions, no mask as big as the tensor."""
    if tensor.numel() == 0:
        return True
    values = tensor.detach()
    return bool(torch.isfinite(values.amax())) and bool(torch.isfinite(values.amin()))


def _check_matrix(name: str, tensor: torch.Tensor, *, allow_empty_rows: bool = False) -> None:
    if tensor.dim() != 2:
        raise ValueError(f"{name} must be 2-D, got shape {tuple(tensor.shape)}")
    rows, columns = tensor.shape
    if columns < 1 or (rows < 1 and not allow_empty_rows):
        raise ValueError(f"{name} has shape {tuple(tensor.shape)}; its sizes must be at least 1")


# ---------------------------------------------------------------------------------------------- helpers


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
    _check_loss_inputs(query, key, queue, temperature)
    q, k, negatives = _unit_rows(query, key, queue)
    return _infonce(_logits(q, k, negatives, temperature))


def _check_loss_inputs(query: torch.Tensor, key: torch.Tensor, queue: torch.Tensor, temperature: float) -> None:
    _check_temperature(temperature)
    _check_tensors(("query", "key", "queue"), (query, key, queue), LOSS_DTYPES)
    _check_matrix("query", query)
    _check_matrix("key", key)
    _check_matrix("queue", queue)
    if key.shape != query.shape:
        raise ValueError(f"key has shape {tuple(key.shape)} but query has {tuple(query.shape)}")
    if queue.shape[1] != query.shape[1]:
        raise ValueError(f"queue rows have {queue.shape[1]} entries but query rows have {query.shape[1]}")


def _unit_rows(
    query: torch.Tensor, key: torch.Tensor, queue: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The three inputs with unit rows; gradients flow through the query's norm and never into key or queue."""
    q = _normalise_rows(query)  # [B, D]
    k = _normalise_rows(key.detach())  # [B, D]
    negatives = _normalise_rows(queue.detach())  # [K, D]
    return q, k, negatives


def _logits(q: torch.Tensor, k: torch.Tensor, negatives: torch.Tensor, temperature: float) -> torch.Tensor:
    """[B, 1 + K]: column 0 is the positive q_i . k_i / T, then q_i . n_j / T for every queue row."""
    positive = (q * k).sum(dim=1, keepdim=True) / temperature  # [B, 1]
    negative = q @ negatives.T / temperature  # [B, D] x [D, K] -> [B, K]
    return torch.cat([positive, negative], dim=1)


def _infonce(logits: torch.Tensor) -> torch.Tensor:
    """Mean over rows of logsumexp(row) - row[0], as a 0-d tensor; logsumexp subtracts the row's maximum."""
    return (torch.logsumexp(logits, dim=1) - logits[:, 0]).mean()


def momentum_update(query: torch.Tensor, key: torch.Tensor, momentum: float = 0.999) -> torch.Tensor:
    """theta_k_new = m * theta_k + (1 - m) * theta_q, in new storage that does not require grad."""
    m = _check_momentum_inputs(query, key, momentum)
    with torch.no_grad():  # the key encoder is never trained by gradient; the result is new storage
        return m * key.detach() + (1.0 - m) * query.detach()


def _check_momentum_inputs(query: torch.Tensor, key: torch.Tensor, momentum: float) -> float:
    m = _check_momentum(momentum)
    _check_tensors(("query", "key"), (query, key), LOSS_DTYPES)
    if query.shape != key.shape:
        raise ValueError(f"query has shape {tuple(query.shape)} but key has {tuple(key.shape)} (no broadcasting)")
    return m


def enqueue(queue: torch.Tensor, keys: torch.Tensor, pointer: int) -> tuple[torch.Tensor, int]:
    """Write the normalised keys into a copy of the ring buffer from `pointer` on; return it, new pointer."""
    _check_enqueue_inputs(queue, keys, pointer)
    size, batch = queue.shape[0], keys.shape[0]
    new_queue = queue.detach().clone()  # [K, D]
    incoming = _normalise_rows(keys.detach())  # [B, D]
    new_queue[_slots(pointer, batch, size, queue.device)] = incoming[max(0, batch - size) :]  # [min(B, K), D]
    return new_queue, (pointer + batch) % size


def _check_enqueue_inputs(queue: torch.Tensor, keys: torch.Tensor, pointer: int) -> None:
    _check_tensors(("queue", "keys"), (queue, keys), None)
    _check_matrix("queue", queue)
    _check_matrix("keys", keys, allow_empty_rows=True)
    if keys.shape[1] != queue.shape[1]:
        raise ValueError(f"keys rows have {keys.shape[1]} entries but queue rows have {queue.shape[1]}")
    size = queue.shape[0]
    _check_pointer(pointer, size)


def _slots(pointer: int, batch: int, size: int, device: torch.device) -> torch.Tensor:
    """Key j goes to slot (pointer + j) % K; when B > K only the last K writes survive, so only their slots."""
    return (pointer + torch.arange(max(0, batch - size), batch, device=device)) % size
