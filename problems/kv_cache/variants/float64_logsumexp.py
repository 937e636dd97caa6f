"""float64 inside, einsum for the scores, a large finite fill for the future keys (no query is ever fully masked:
each sees at least key 0) and log-softmax through logsumexp; own validation."""

import math

import torch


def _check(named, extra_queries=None):
    for name, t in named:
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name}: expected a tensor")
        if t.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"{name}: expected float32 or float64")
    if len({t.dtype for _, t in named}) != 1:
        raise TypeError("dtypes differ")
    if any(t.dim() != 4 for _, t in named) or len({t.device for _, t in named}) != 1:
        raise ValueError("expected 4-D tensors on one device")
    if any(not bool(torch.isfinite(t.detach()).all()) for _, t in named):
        raise ValueError("non-finite values")


def _sizes_agree(pairs):
    for a, b in pairs:
        if a != b:
            raise ValueError(f"sizes differ: {a} and {b}")


def _validate_append(cache_k, cache_v, k_new, v_new):
    _check([("cache_k", cache_k), ("cache_v", cache_v), ("k_new", k_new), ("v_new", v_new)])
    shapes = [t.shape for t in (cache_k, cache_v, k_new, v_new)]
    _sizes_agree([(s[:2], shapes[0][:2]) for s in shapes])
    _sizes_agree([(shapes[0][2], shapes[1][2]), (shapes[2][2], shapes[3][2]), (shapes[0][3], shapes[2][3]),
                  (shapes[1][3], shapes[3][3])])
    if min(shapes[0][0], shapes[0][1], shapes[0][3], shapes[1][3]) < 1:
        raise ValueError("B, H, D and Dv must be at least 1")


def append_kv(cache_k, cache_v, k_new, v_new):
    _validate_append(cache_k, cache_v, k_new, v_new)
    return torch.cat((cache_k, k_new), 2), torch.cat((cache_v, v_new), 2)


def _validate_attention(q_new, cache_k, cache_v):
    _check([("q_new", q_new), ("cache_k", cache_k), ("cache_v", cache_v)])
    _sizes_agree([(q_new.shape[:2], cache_k.shape[:2]), (q_new.shape[:2], cache_v.shape[:2]),
                  (q_new.shape[3], cache_k.shape[3]), (cache_k.shape[2], cache_v.shape[2])])
    if min(q_new.shape[0], q_new.shape[1], q_new.shape[3], cache_v.shape[3]) < 1:
        raise ValueError("B, H, D and Dv must be at least 1")
    if q_new.shape[2] > cache_k.shape[2]:
        raise ValueError("more queries than cached positions")


def cached_attention(q_new, cache_k, cache_v):
    _validate_attention(q_new, cache_k, cache_v)
    dtype = q_new.dtype
    q, k, v = q_new.double(), cache_k.double(), cache_v.double()
    count, total = q.shape[2], k.shape[2]
    scores = torch.einsum("bhld,bhtd->bhlt", q, k) / math.sqrt(q.shape[-1])
    offset = total - count
    future = torch.arange(total)[None, :] > (torch.arange(count)[:, None] + offset)
    scores = scores.masked_fill(future, -1e300)
    if total == 0:
        return torch.einsum("bhlt,bhtv->bhlv", scores, v).to(dtype)
    weights = torch.exp(scores - torch.logsumexp(scores, dim=-1, keepdim=True))
    return torch.einsum("bhlt,bhtv->bhlv", weights, v).to(dtype)


def decode_step(cache_k, cache_v, q_new, k_new, v_new):
    _validate_append(cache_k, cache_v, k_new, v_new)
    _sizes_agree([(q_new.shape, k_new.shape)] if isinstance(q_new, torch.Tensor) and q_new.dim() == 4 else [])
    grown_k, grown_v = append_kv(cache_k, cache_v, k_new, v_new)
    return cached_attention(q_new, grown_k, grown_v), grown_k, grown_v
