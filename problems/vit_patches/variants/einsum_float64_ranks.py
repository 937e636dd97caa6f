"""MAE's einsum patchify, patch_embed computed in float64 and cast back, and the masking from ranks: patch n's
slot in the shuffle is the number of patches with smaller noise, or equal noise and a lower index."""

import torch

from helpers import check_embed_inputs, check_images, check_masking_inputs


def patchify(images, patch_size):
    check_images(images, patch_size)
    b, c, h, w = images.shape
    p = patch_size
    x = images.reshape(b, c, h // p, p, w // p, p)
    x = torch.einsum("nchpwq->nhwpqc", x)
    return x.reshape(b, (h // p) * (w // p), p * p * c).clone()


def patch_embed(images, weight, bias, cls_token, pos_embed, patch_size):
    check_embed_inputs(images, weight, bias, cls_token, pos_embed, patch_size)
    dtype = images.dtype
    x = patchify(images, patch_size).double()
    tokens = torch.einsum("bnk,dk->bnd", x, weight.double()) + bias.double() + pos_embed[1:].double()
    cls = (cls_token.double() + pos_embed[0].double()).expand(images.shape[0], 1, -1)
    return torch.cat([cls, tokens], dim=1).to(dtype)


def random_masking(tokens, mask_ratio, noise):
    check_masking_inputs(tokens, mask_ratio, noise)
    b, length, d = tokens.shape[0], tokens.shape[1] - 1, tokens.shape[2]
    keep = int(length * (1 - mask_ratio))
    z = noise.double()
    index = torch.arange(length, device=noise.device)
    smaller = z.unsqueeze(1) < z.unsqueeze(2)  # [B, n, m]: noise[m] < noise[n]
    tied_before = (z.unsqueeze(1) == z.unsqueeze(2)) & (index.view(1, 1, -1) < index.view(1, -1, 1))
    ids_restore = (smaller | tied_before).sum(dim=2)  # the slot of patch n
    ids_shuffle = torch.argsort(ids_restore, dim=1)  # ranks are distinct: any sort will do
    chosen = ids_shuffle[:, :keep]
    patches = tokens[:, 1:]
    kept = torch.cat([tokens[:, :1], patches.gather(1, chosen.unsqueeze(-1).expand(b, keep, d))], dim=1)
    mask = (ids_restore >= keep).to(tokens.dtype)
    return kept, mask, ids_restore.to(torch.int64)
