"""This is what you get when the class token is shuffled with the patches, given noise 0 so that it is usually kept but not always first, instead of being set aside and put back in front.

Overrides: random_masking
"""


def random_masking(tokens, mask_ratio, noise):
    check_masking_inputs(tokens, mask_ratio, noise)
    batch, length, dim = tokens.shape[0], tokens.shape[1] - 1, tokens.shape[2]
    len_keep = _len_keep(length, mask_ratio)
    full_noise = torch.cat([torch.zeros(batch, 1, dtype=noise.dtype, device=noise.device), noise], dim=1)
    ids_shuffle = _shuffle(full_noise)
    ids_keep = ids_shuffle[:, : 1 + len_keep]
    kept = torch.gather(tokens, 1, ids_keep.unsqueeze(-1).expand(batch, 1 + len_keep, dim))
    patch_shuffle = _shuffle(noise)
    ids_restore = torch.argsort(patch_shuffle, dim=1)
    mask = torch.ones(batch, length, dtype=tokens.dtype, device=tokens.device)
    mask[:, :len_keep] = 0
    mask = torch.gather(mask, 1, ids_restore)
    return kept, mask, ids_restore
