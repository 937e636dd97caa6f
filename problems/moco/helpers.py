"""MoCo's validation helpers: the input contract of the statement (types, dtypes, shapes, finite values).

Supplied and read-only: `from helpers import validate_loss_inputs` (or any other name here) in your solution.
Each function of the starter already calls its validate_* helper; keep that call.
"""

import math
from typing import Any

import torch

FloatDtypes = tuple[torch.dtype, ...]


def check_scalar(name: str, value: object) -> float:
    """A Python int or float, but not a bool (True is an int in Python) and not a Tensor. Returns a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return float(value)


def check_tensors(
    names: tuple[str, ...], tensors: tuple[torch.Tensor, ...], allowed_dtypes: FloatDtypes | None = None
) -> None:
    """Tensors with one shared dtype and device and only finite entries (anything else raises).
    allowed_dtypes=None accepts any floating dtype (float16, bfloat16, float32, float64)."""
    for name, tensor in zip(names, tensors, strict=True):
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
        if allowed_dtypes is None and not tensor.is_floating_point():
            raise TypeError(f"{name} must have a floating dtype, got {tensor.dtype}")
        if allowed_dtypes is not None and tensor.dtype not in allowed_dtypes:
            raise TypeError(f"{name} has dtype {tensor.dtype}; allowed: {allowed_dtypes}")
    for name, tensor in zip(names, tensors, strict=True):
        if tensor.dtype != tensors[0].dtype:
            raise TypeError(f"{name} has dtype {tensor.dtype} but {names[0]} has {tensors[0].dtype}")
        if tensor.device != tensors[0].device:
            raise ValueError(f"{name} is on {tensor.device} but {names[0]} is on {tensors[0].device}")
        if not all_finite(tensor):
            raise ValueError(f"{name} contains nan or inf")


def all_finite(tensor: torch.Tensor) -> bool:
    """No nan or inf anywhere. nan survives max and min, and inf is their extreme, so two reductions decide
    it without building a boolean mask as big as the tensor (20x faster on a 65,536 x 128 queue)."""
    if tensor.numel() == 0:
        return True
    values = tensor.detach()
    return bool(torch.isfinite(values.amax())) and bool(torch.isfinite(values.amin()))


def check_matrix(name: str, tensor: torch.Tensor, allow_empty_rows: bool = False) -> None:
    """A 2-D tensor [N, D] with D >= 1 and N >= 1 (or N >= 0 when allow_empty_rows)."""
    if tensor.dim() != 2:
        raise ValueError(f"{name} must be 2-D, got shape {tuple(tensor.shape)}")
    rows, columns = tensor.shape
    if columns < 1 or (rows < 1 and not allow_empty_rows):
        raise ValueError(f"{name} has shape {tuple(tensor.shape)}; its sizes must be at least 1")


def validate_loss_inputs(query: torch.Tensor, key: torch.Tensor, queue: torch.Tensor, temperature: float) -> None:
    """query and key [B, D], queue [K, D], float32 or float64; temperature a finite number > 0."""
    if check_scalar("temperature", temperature) <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    check_tensors(("query", "key", "queue"), (query, key, queue), (torch.float32, torch.float64))
    for name, tensor in (("query", query), ("key", key), ("queue", queue)):
        check_matrix(name, tensor)
    if key.shape != query.shape:
        raise ValueError(f"key has shape {tuple(key.shape)} but query has {tuple(query.shape)}")
    if queue.shape[1] != query.shape[1]:
        raise ValueError(f"queue rows have {queue.shape[1]} entries, query rows have {query.shape[1]}")


def validate_momentum_inputs(query: torch.Tensor, key: torch.Tensor, momentum: float) -> None:
    """Two float32/float64 tensors of exactly the same shape (no broadcasting); momentum in [0, 1]."""
    if not 0.0 <= check_scalar("momentum", momentum) <= 1.0:
        raise ValueError(f"momentum must lie in [0, 1], got {momentum}")
    check_tensors(("query", "key"), (query, key), (torch.float32, torch.float64))
    if query.shape != key.shape:
        raise ValueError(f"query has shape {tuple(query.shape)} but key has {tuple(key.shape)}")


def validate_enqueue_inputs(queue: torch.Tensor, keys: torch.Tensor, pointer: int) -> None:
    """queue [K, D] and keys [B, D] (B may be 0) of one floating dtype; pointer a Python int in [0, K)."""
    check_tensors(("queue", "keys"), (queue, keys))
    check_matrix("queue", queue)
    check_matrix("keys", keys, allow_empty_rows=True)
    if keys.shape[1] != queue.shape[1]:
        raise ValueError(f"keys rows have {keys.shape[1]} entries, queue rows have {queue.shape[1]}")
    if isinstance(pointer, bool) or not isinstance(pointer, int):
        raise TypeError(f"pointer must be a Python int, got {type(pointer).__name__}")
    if not 0 <= pointer < queue.shape[0]:
        raise ValueError(f"pointer must lie in [0, {queue.shape[0]}), got {pointer}")


# --- the experiment's run ------------------------------------------------------------------------------------
# The grader runs your three functions for the notes' experiment through `experiment_run`: one request to the
# sandbox for the whole run instead of one per call. It checks every number it returns, so you never call it.


def experiment_rows(step: int, batch: int, views: int) -> list[int]:
    """The rows of the views a step (1-based) trains on: (0, 1), (2, 3), (4, 5), (0, 1), ... for a batch of 2."""
    first = (step - 1) * batch % views
    return list(range(first, first + batch))


def experiment_loss_arguments(
    query_views: torch.Tensor, key_views: torch.Tensor, query_encoder: torch.Tensor, key_encoder: torch.Tensor,
    rows: list[int],
) -> tuple[torch.Tensor, torch.Tensor]:
    """The step's query (a leaf that requires grad) and key: the batch's views through each encoder."""
    query = query_views[rows] @ query_encoder
    key = key_views[rows] @ key_encoder
    return query.requires_grad_(True), key


def experiment_sgd_step(
    query_views: torch.Tensor, query_encoder: torch.Tensor, gradient: torch.Tensor, rows: list[int], lr: float,
) -> torch.Tensor:
    """W_q - lr dL/dW_q, with dL/dW_q = x_q^T dL/dq because q = x_q W_q."""
    return query_encoder - lr * (query_views[rows].T @ gradient)


def experiment_run(
    functions: dict[str, Any], query_views: torch.Tensor, key_views: torch.Tensor, query_encoder: torch.Tensor,
    key_encoder: torch.Tensor, dictionary: torch.Tensor, pointer: int, steps: int, batch: int, lr: float,
    momentum: float, temperature: float,
) -> list[tuple[Any, ...]]:
    """Train for `steps` steps, each from the states the last one produced, calling your three functions in turn
    (the loss, then the key encoder's update, then enqueue). Returns, for each step: the loss and its gradient in
    query, then your new key encoder and what your enqueue returned; and one more loss and gradient, from the final
    state. Each call gets its own copy of its inputs, so a function that writes to one changes nothing the run goes
    on from."""
    moco_loss, momentum_update, enqueue = (functions["moco_loss"], functions["momentum_update"],
                                           functions["enqueue"])
    records: list[tuple[Any, ...]] = []
    for step in range(1, steps + 2):
        rows = experiment_rows(step, batch, query_views.shape[0])
        query, key = experiment_loss_arguments(query_views, key_views, query_encoder, key_encoder, rows)
        loss = moco_loss(query, key.clone(), dictionary.clone(), temperature)
        (gradient,) = torch.autograd.grad(loss, query)
        if step > steps:
            records.append((loss.detach(), gradient))
            return records
        query_encoder = experiment_sgd_step(query_views, query_encoder, gradient, rows, lr)
        key_encoder = momentum_update(query_encoder.clone(), key_encoder.clone(), momentum)
        enqueued = enqueue(dictionary.clone(), key.clone(), pointer)
        records.append((loss.detach(), gradient, key_encoder, enqueued))
        dictionary, pointer = enqueued
    return records
