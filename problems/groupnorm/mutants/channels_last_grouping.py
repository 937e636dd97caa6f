"""This is what you get when the channels are moved last before the reshape into groups, so each group is a run of the [*spatial, C] layout: a few positions of every channel instead of a few channels at every position.

Source: tensorflow/addons issue #751 ("tfa GroupNorm Incorrectly Reshapes": [N, H, W, C] reshaped to
[N, G, H, W, C // G] without a transpose mixes channels with positions); titu1994/Keras-Group-Normalization issue
#6 (the same reshape without permuting first).

Overrides: group_norm
"""


def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    check_input(x)
    check_num_groups(num_groups, x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    order = (0, *range(2, x.dim()), 1)  # [N, *S, C]
    last = x.permute(order)
    n = x.shape[0]
    rows = last.reshape(n, num_groups, x[0].numel() // num_groups)
    centred, var = _statistics(rows)
    y = (centred / torch.sqrt(var + eps)).reshape(last.shape)
    y = y.permute(0, x.dim() - 1, *range(1, x.dim() - 1))  # back to [N, C, *S]
    if weight is not None:
        y = y * _per_channel(weight, x)
    if bias is not None:
        y = y + _per_channel(bias, x)
    return y.contiguous()
