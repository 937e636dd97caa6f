"""ViT patches with F.unfold and a strided convolution (the weight permuted from (p1 p2 c) to a conv kernel), MAE's
masking with torch.sort and scatters for the inverse permutation and the mask."""

import torch
import torch.nn.functional as F

from helpers import check_embed_inputs, check_images, check_masking_inputs


def patchify(images, patch_size):
    check_images(images, patch_size)
    b, c, _, _ = images.shape
    p = patch_size
    columns = F.unfold(images, kernel_size=p, stride=p)  # [B, C*P*P, N], features in (c p1 p2) order
    n = columns.shape[2]
    return columns.reshape(b, c, p * p, n).permute(0, 3, 2, 1).reshape(b, n, p * p * c).contiguous().clone()


def patch_embed(images, weight, bias, cls_token, pos_embed, patch_size):
    check_embed_inputs(images, weight, bias, cls_token, pos_embed, patch_size)
    c, p = images.shape[1], patch_size
    d = weight.shape[0]
    kernel = weight.reshape(d, p, p, c).permute(0, 3, 1, 2)  # [D, C, P, P]: a convolution's layout
    grid = F.conv2d(images, kernel, bias, stride=p)  # [B, D, H/P, W/P]
    tokens = grid.flatten(2).transpose(1, 2) + pos_embed[1:]  # row-major over the grid
    cls = (cls_token + pos_embed[0]).reshape(1, 1, d).expand(images.shape[0], 1, d)
    return torch.cat([cls, tokens], dim=1)


def random_masking(tokens, mask_ratio, noise):
    check_masking_inputs(tokens, mask_ratio, noise)
    b, length, d = tokens.shape[0], tokens.shape[1] - 1, tokens.shape[2]
    keep = int(length * (1 - mask_ratio))
    ids_shuffle = torch.sort(noise, dim=1, stable=True).indices
    slots = torch.arange(length, device=noise.device).expand(b, length)
    ids_restore = torch.empty_like(ids_shuffle).scatter_(1, ids_shuffle, slots)
    kept_index = ids_shuffle[:, :keep] + 1  # row 0 is the class token
    index = torch.cat([torch.zeros(b, 1, dtype=torch.int64, device=tokens.device), kept_index], dim=1)
    kept = tokens.gather(1, index.unsqueeze(-1).expand(b, 1 + keep, d))
    removed = (slots >= keep).to(tokens.dtype)  # in shuffled order
    mask = torch.empty(b, length, dtype=tokens.dtype, device=tokens.device).scatter_(1, ids_shuffle, removed)
    return kept, mask, ids_restore
