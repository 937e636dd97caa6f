"""This is what you get when the loss averages over every completion token of the batch at once (DAPO's token mean) instead of over each completion's tokens, then over completions.

Overrides: _per_sequence_mean
Source: verl-project/verl issue #593 (GRPO's per-sequence mean replaced by one masked mean over all tokens of the batch)
"""


def _per_sequence_mean(values, mask):
    kept = torch.where(mask, values, torch.zeros_like(values))
    return kept.sum() / mask.sum().clamp(min=1).to(values.dtype)
