"""This is what you get when the heads per group are H // G with no check that G divides H: the remainder is
silently dropped and some query heads read a key/value head that does not exist.

Overrides: check_qkv, _share_kv
Source: fla-org/flash-linear-attention issue #1029 (G = HQ // H computed without requiring HQ % H == 0)
"""

import torch

_reference_check_qkv = check_qkv


def check_qkv(q, k, v):
    if isinstance(q, torch.Tensor) and isinstance(k, torch.Tensor) and q.dim() >= 3 and k.dim() >= 3 \
            and k.shape[-3] >= 1 and q.shape[-3] % k.shape[-3]:
        return  # the divisibility check was never written
    _reference_check_qkv(q, k, v)


def _share_kv(t, num_heads):
    per_group = max(num_heads // t.shape[-3], 1)
    index = torch.arange(num_heads, device=t.device) // per_group
    return t.index_select(-3, index.clamp_max(t.shape[-3] - 1))
