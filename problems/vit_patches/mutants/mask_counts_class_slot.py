"""This is what you get when the mask is cleared for len_keep + 1 slots, the class token's slot counted among the kept patches: one removed patch is marked as kept.

Source: IcarusWizard/MAE issue #17 ("Suspected minor bug"): the decoder set mask[T:] = 1 where T counted the class token; it should have been mask[T - 1:] = 1.

Overrides: random_masking
"""


def random_masking(tokens, mask_ratio, noise):
    check_masking_inputs(tokens, mask_ratio, noise)
    cls, patches = tokens[:, :1], tokens[:, 1:]
    batch, length, dim = patches.shape
    len_keep = _len_keep(length, mask_ratio)
    ids_shuffle = _shuffle(noise)
    ids_restore = torch.argsort(ids_shuffle, dim=1)
    ids_keep = ids_shuffle[:, :len_keep]
    kept = torch.cat([cls, torch.gather(patches, 1, ids_keep.unsqueeze(-1).expand(batch, len_keep, dim))], dim=1)
    mask = torch.ones(batch, length, dtype=tokens.dtype, device=tokens.device)
    mask[:, : kept.shape[1]] = 0
    mask = torch.gather(mask, 1, ids_restore)
    return kept, mask, ids_restore
