"""This is what you get when the log-sum-exp runs over the negatives only: the positive is missing from the
denominator.

Overrides: _per_anchor
Source: danielward27/flowjax pull request #164 (a contrastive loss that left the true sample out of the normaliser)
"""

import torch


def _per_anchor(logits, partner):
    rows = torch.arange(logits.shape[0], device=logits.device)
    negatives_only = logits.clone()
    negatives_only[rows, partner] = float("-inf")
    return torch.logsumexp(negatives_only, dim=1) - logits[rows, partner]
