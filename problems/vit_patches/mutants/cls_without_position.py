"""This is what you get when the class token is prepended without its position embedding pos_embed[0].

Overrides: patch_embed
"""


def patch_embed(images, weight, bias, cls_token, pos_embed, patch_size):
    check_embed_inputs(images, weight, bias, cls_token, pos_embed, patch_size)
    tokens = _patches(images, patch_size) @ weight.T + bias + pos_embed[1:]
    cls = cls_token.expand(images.shape[0], 1, -1)
    return torch.cat([cls, tokens], dim=1)
