"""This is what you get when top-k keeps every token whose logit is at least the k-th largest: tokens tied with the k-th are all kept, so more than k survive.

Overrides: _top_k_keep
Source: huggingface/transformers src/transformers/generation/logits_process.py (TopKLogitsWarper removes only `scores < topk(...)[-1]`, keeping every tie of the k-th value)
"""

import torch


def _top_k_keep(ranked, top_k):
    keep = torch.ones_like(ranked, dtype=torch.bool)
    if top_k > 0:
        kth = ranked[..., min(top_k, ranked.shape[-1]) - 1 :][..., :1]
        keep = ranked >= kth
    return keep
