"""This is what you get when ids_shuffle itself is returned as ids_restore (and used to unshuffle the mask) instead of its inverse permutation argsort(ids_shuffle).

Overrides: random_masking
"""


def random_masking(tokens, mask_ratio, noise):
    check_masking_inputs(tokens, mask_ratio, noise)
    cls, patches = tokens[:, :1], tokens[:, 1:]
    batch, length, dim = patches.shape
    len_keep = int(length * (1 - mask_ratio))
    ids_shuffle = torch.argsort(noise, dim=1, stable=True)
    ids_keep = ids_shuffle[:, :len_keep]
    kept = torch.gather(patches, 1, ids_keep.unsqueeze(-1).expand(batch, len_keep, dim))
    mask = torch.ones(batch, length, dtype=tokens.dtype, device=tokens.device)
    mask[:, :len_keep] = 0
    mask = torch.gather(mask, 1, ids_shuffle)
    return torch.cat([cls, kept], dim=1), mask, ids_shuffle.clone()
