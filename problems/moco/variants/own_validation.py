# VARIANT (correct): its own validation instead of the supplied helpers, F.normalize, scatter through a slot list.
import math

import torch
import torch.nn.functional as F


def _number(name, value, low, high, low_open):
    if type(value) not in (int, float):
        raise TypeError(f"{name} must be an int or a float")
    if not math.isfinite(value) or value > high or value < low or (low_open and value == low):
        raise ValueError(f"{name} out of range: {value}")


def _tensors(names, tensors, dtypes):
    for name, t in zip(names, tensors):
        if type(t) not in (torch.Tensor, torch.nn.Parameter):
            raise TypeError(f"{name} is not a tensor")
        if t.dtype not in dtypes or t.dtype != tensors[0].dtype:
            raise TypeError(f"{name}: wrong dtype")
        if t.device != tensors[0].device:
            raise ValueError(f"{name} is on another device")
        if not torch.isfinite(t).all():
            raise ValueError(f"{name} is not finite")


def moco_loss(query, key, queue, temperature):
    _number("temperature", temperature, 0.0, math.inf, True)
    _tensors(("query", "key", "queue"), (query, key, queue), (torch.float32, torch.float64))
    if query.dim() != 2 or query.shape != key.shape or queue.dim() != 2 or queue.shape[1] != query.shape[1]:
        raise ValueError("shapes must be query [B, D], key [B, D], queue [K, D]")
    if 0 in query.shape or queue.shape[0] == 0:
        raise ValueError("B, K and D must be at least 1")
    q = F.normalize(query, dim=1)
    k = F.normalize(key.detach(), dim=1)
    n = F.normalize(queue.detach(), dim=1)
    logits = torch.cat([torch.einsum("bd,bd->b", q, k)[:, None], torch.einsum("bd,kd->bk", q, n)], 1)
    return torch.logsumexp(logits / temperature, 1).mean() - (logits[:, 0] / temperature).mean()


def momentum_update(query, key, momentum=0.999):
    _number("momentum", momentum, 0.0, 1.0, False)
    _tensors(("query", "key"), (query, key), (torch.float32, torch.float64))
    if query.shape != key.shape:
        raise ValueError("query and key must have the same shape")
    return torch.add(key.detach() * momentum, query.detach() * (1.0 - momentum))


def enqueue(queue, keys, pointer):
    _tensors(("queue", "keys"), (queue, keys), (torch.float16, torch.bfloat16, torch.float32, torch.float64))
    if queue.dim() != 2 or keys.dim() != 2 or keys.shape[1] != queue.shape[1] or 0 in queue.shape:
        raise ValueError("queue must be [K, D] and keys [B, D] with K, D >= 1")
    if type(pointer) is not int:
        raise TypeError("pointer must be an int")
    if not 0 <= pointer < queue.shape[0]:
        raise ValueError("pointer out of range")
    size, batch = queue.shape[0], keys.shape[0]
    out = queue.detach().clone()
    rows = F.normalize(keys.detach().double(), dim=1).to(queue.dtype)
    for j, slot in enumerate((pointer + j) % size for j in range(batch)):
        out[slot] = rows[j]
    return out, (pointer + batch) % size
