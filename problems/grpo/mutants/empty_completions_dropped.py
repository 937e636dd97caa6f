"""This is what you get when completions with no token are left out of the mean over completions instead of counting 0.

Overrides: _per_sequence_mean
"""


def _per_sequence_mean(values, mask):
    kept = torch.where(mask, values, torch.zeros_like(values))
    lengths = mask.sum(dim=1)
    per_sequence = kept.sum(dim=1) / lengths.clamp(min=1).to(values.dtype)
    return per_sequence.sum() / (lengths > 0).sum().clamp(min=1).to(values.dtype)
