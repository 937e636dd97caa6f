"""ViT patches and MAE masking with plain loops: every patch and every token assembled with torch.stack, so the
graph to every input stays intact; the shuffle is Python's sorted, which is stable."""

import torch

from helpers import check_embed_inputs, check_images, check_masking_inputs


def _patch_list(images, patch_size):
    b, c, h, w = images.shape
    p = patch_size
    patches = []
    for i in range(h // p):
        for j in range(w // p):
            block = images[:, :, i * p:(i + 1) * p, j * p:(j + 1) * p]  # [B, C, P, P]
            features = [block[:, ch, r, s] for r in range(p) for s in range(p) for ch in range(c)]
            patches.append(torch.stack(features, dim=1))  # [B, P*P*C]
    return patches


def patchify(images, patch_size):
    check_images(images, patch_size)
    return torch.stack(_patch_list(images, patch_size), dim=1)


def patch_embed(images, weight, bias, cls_token, pos_embed, patch_size):
    check_embed_inputs(images, weight, bias, cls_token, pos_embed, patch_size)
    b = images.shape[0]
    rows = [(cls_token + pos_embed[0]).unsqueeze(0).expand(b, -1)]
    for n, patch in enumerate(_patch_list(images, patch_size)):
        rows.append(patch @ weight.T + bias + pos_embed[1 + n])
    return torch.stack(rows, dim=1)


def random_masking(tokens, mask_ratio, noise):
    check_masking_inputs(tokens, mask_ratio, noise)
    b, length, d = tokens.shape[0], tokens.shape[1] - 1, tokens.shape[2]
    keep = int(length * (1 - mask_ratio))
    values = noise.detach().cpu().tolist()
    kept_rows, masks, restores = [], [], []
    for row in range(b):
        order = sorted(range(length), key=lambda n: values[row][n])
        kept_rows.append(torch.stack([tokens[row, 0]] + [tokens[row, 1 + n] for n in order[:keep]]))
        restore = [0] * length
        for slot, n in enumerate(order):
            restore[n] = slot
        restores.append(restore)
        masks.append([0.0 if restore[n] < keep else 1.0 for n in range(length)])
    kept = torch.stack(kept_rows) if b else tokens.new_zeros(0, 1 + keep, d) + tokens.sum() * 0
    mask = torch.tensor(masks, dtype=tokens.dtype, device=tokens.device).reshape(b, length)
    ids_restore = torch.tensor(restores, dtype=torch.int64, device=tokens.device).reshape(b, length)
    return kept, mask, ids_restore
