"""This is what you get when patch n is given pos_embed[n] instead of pos_embed[1 + n]: the patches start at the class token's position.

Overrides: patch_embed
"""


def patch_embed(images, weight, bias, cls_token, pos_embed, patch_size):
    check_embed_inputs(images, weight, bias, cls_token, pos_embed, patch_size)
    n = pos_embed.shape[0] - 1
    tokens = _patches(images, patch_size) @ weight.T + bias + pos_embed[:n]
    cls = (cls_token + pos_embed[0]).expand(images.shape[0], 1, -1)
    return torch.cat([cls, tokens], dim=1)
