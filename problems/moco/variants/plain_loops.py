# VARIANT (correct): Python loops over the batch rows, a hand-written stable log-sum-exp, element loops for the EMA.
import math

import torch

# ----------------------------------------------------------------------------------- supplied helpers


def check_scalar(name, value):
    """A Python int or float, but not a bool (True is an int in Python) and not a Tensor. Returns a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return float(value)


def check_tensors(names, tensors, allowed_dtypes=None):
    """Tensors with one shared dtype and device and only finite entries.
    allowed_dtypes=None accepts any floating dtype (float16, bfloat16, float32, float64)."""
    for name, tensor in zip(names, tensors):
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
        if allowed_dtypes is None and not tensor.is_floating_point():
            raise TypeError(f"{name} must have a floating dtype, got {tensor.dtype}")
        if allowed_dtypes is not None and tensor.dtype not in allowed_dtypes:
            raise TypeError(f"{name} has dtype {tensor.dtype}; allowed: {allowed_dtypes}")
    for name, tensor in zip(names, tensors):
        if tensor.dtype != tensors[0].dtype:
            raise TypeError(f"{name} has dtype {tensor.dtype} but {names[0]} has {tensors[0].dtype}")
        if tensor.device != tensors[0].device:
            raise ValueError(f"{name} is on {tensor.device} but {names[0]} is on {tensors[0].device}")
        if not bool(torch.isfinite(tensor.detach()).all()):
            raise ValueError(f"{name} contains nan or inf")


def check_matrix(name, tensor, allow_empty_rows=False):
    """A 2-D tensor [N, D] with D >= 1 and N >= 1 (or N >= 0 when allow_empty_rows)."""
    if tensor.dim() != 2:
        raise ValueError(f"{name} must be 2-D, got shape {tuple(tensor.shape)}")
    rows, columns = tensor.shape
    if columns < 1 or (rows < 1 and not allow_empty_rows):
        raise ValueError(f"{name} has shape {tuple(tensor.shape)}; its sizes must be at least 1")


def validate_loss_inputs(query, key, queue, temperature):
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


def validate_momentum_inputs(query, key, momentum):
    """Two float32/float64 tensors of exactly the same shape (no broadcasting); momentum in [0, 1]."""
    if not 0.0 <= check_scalar("momentum", momentum) <= 1.0:
        raise ValueError(f"momentum must lie in [0, 1], got {momentum}")
    check_tensors(("query", "key"), (query, key), (torch.float32, torch.float64))
    if query.shape != key.shape:
        raise ValueError(f"query has shape {tuple(query.shape)} but key has {tuple(key.shape)}")


def validate_enqueue_inputs(queue, keys, pointer):
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



def unit(row):
    return row / max(float(torch.sqrt((row * row).sum())), 1e-12)


def moco_loss(query, key, queue, temperature):
    validate_loss_inputs(query, key, queue, temperature)
    negatives = queue.detach() / queue.detach().norm(dim=1, keepdim=True).clamp(min=1e-12)  # [K, D]
    total = None
    for i in range(query.shape[0]):
        q = query[i] / torch.clamp(torch.linalg.vector_norm(query[i]), min=1e-12)  # finite gradient at 0
        positive = (q * unit(key[i].detach())).sum() / temperature
        logits = torch.cat([positive.reshape(1), negatives @ q / temperature])
        top = logits.max().detach()
        row_loss = top + torch.log(torch.exp(logits - top).sum()) - positive
        total = row_loss if total is None else total + row_loss
    return total / query.shape[0]


def momentum_update(query, key, momentum=0.999):
    validate_momentum_inputs(query, key, momentum)
    flat_query = query.detach().reshape(-1)
    flat_key = key.detach().reshape(-1)
    out = torch.zeros_like(flat_key)
    for index in range(flat_key.numel()):
        out[index] = momentum * flat_key[index] + (1 - momentum) * flat_query[index]
    return out.reshape(key.shape)


def enqueue(queue, keys, pointer):
    validate_enqueue_inputs(queue, keys, pointer)
    size = queue.shape[0]
    out = queue.detach().clone()
    for j in range(keys.shape[0]):
        row = keys[j].detach().double()
        out[pointer] = (row / max(float(torch.sqrt((row * row).sum())), 1e-12)).to(queue.dtype)
        pointer = (pointer + 1) % size
    return out, pointer
