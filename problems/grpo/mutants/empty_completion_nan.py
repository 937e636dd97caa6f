"""This is what you get when a completion with no token is divided by its length 0: 0 / 0 = nan.

Overrides: _per_sequence_mean
Source: fla-org/flash-linear-attention pull request #189 (review: guard against zero-length completion masks in completion_mask.sum(dim=1))
"""


def _per_sequence_mean(values, mask):
    kept = torch.where(mask, values, torch.zeros_like(values))
    return (kept.sum(dim=1) / mask.sum(dim=1).to(values.dtype)).mean()
