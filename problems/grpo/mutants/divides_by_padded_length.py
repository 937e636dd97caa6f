"""This is what you get when the mask zeroes the padding but each completion is still divided by the padded length T instead of its own number of tokens.

Overrides: _per_sequence_mean
"""


def _per_sequence_mean(values, mask):
    kept = torch.where(mask, values, torch.zeros_like(values))
    return kept.mean(dim=1).mean()
