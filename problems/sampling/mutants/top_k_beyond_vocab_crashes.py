"""This is what you get when top_k goes straight to torch.topk: a top_k larger than the vocabulary raises 'selected index k out of range' instead of keeping every token.

Overrides: _top_k_keep
Source: TransformerLensOrg/TransformerLens pull request #1347 (sample_logits passes top_k straight to .topk() and crashes when it exceeds the vocabulary)
"""

import torch


def _top_k_keep(ranked, top_k):
    keep = torch.ones_like(ranked, dtype=torch.bool)
    if top_k > 0:
        kth_largest = torch.topk(ranked, top_k, dim=-1).values[..., -1:]
        keep = ranked >= kth_largest
        keep[..., top_k:] = False
    return keep
