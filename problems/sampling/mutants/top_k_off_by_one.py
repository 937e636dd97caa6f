"""This is what you get when top-k removes only the ranks beyond k + 1: it keeps k + 1 tokens.

Overrides: _top_k_keep
Source: kingoflolz/mesh-transformer-jax issue #164 (top-k sampling off by one: `indices_range > top_k` keeps one token too many)
"""

import torch


def _top_k_keep(ranked, top_k):
    keep = torch.ones_like(ranked, dtype=torch.bool)
    if top_k > 0:
        keep[..., top_k + 1 :] = False
    return keep
