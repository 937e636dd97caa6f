"""This is what you get when the mask is returned in the shuffled order (zeros first) instead of being unshuffled with ids_restore into the patches' own order.

Overrides: random_masking
"""


def random_masking(tokens, mask_ratio, noise):
    check_masking_inputs(tokens, mask_ratio, noise)
    cls, patches = tokens[:, :1], tokens[:, 1:]
    batch, length, dim = patches.shape
    len_keep = int(length * (1 - mask_ratio))
    ids_shuffle = torch.argsort(noise, dim=1, stable=True)
    ids_restore = torch.argsort(ids_shuffle, dim=1)
    ids_keep = ids_shuffle[:, :len_keep]
    kept = torch.gather(patches, 1, ids_keep.unsqueeze(-1).expand(batch, len_keep, dim))
    mask = torch.ones(batch, length, dtype=tokens.dtype, device=tokens.device)
    mask[:, :len_keep] = 0
    return torch.cat([cls, kept], dim=1), mask, ids_restore
