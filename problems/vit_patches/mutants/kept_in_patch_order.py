"""This is what you get when the kept patches are put back in their original order (ids_keep sorted) instead of the shuffled order of the noise, which ids_restore assumes.

Overrides: random_masking
"""


def random_masking(tokens, mask_ratio, noise):
    check_masking_inputs(tokens, mask_ratio, noise)
    cls, patches = tokens[:, :1], tokens[:, 1:]
    batch, length, dim = patches.shape
    len_keep = _len_keep(length, mask_ratio)
    ids_shuffle = _shuffle(noise)
    ids_restore = torch.argsort(ids_shuffle, dim=1)
    ids_keep = ids_shuffle[:, :len_keep].sort(dim=1).values
    kept = torch.gather(patches, 1, ids_keep.unsqueeze(-1).expand(batch, len_keep, dim))
    mask = torch.ones(batch, length, dtype=tokens.dtype, device=tokens.device)
    mask[:, :len_keep] = 0
    mask = torch.gather(mask, 1, ids_restore)
    return torch.cat([cls, kept], dim=1), mask, ids_restore
