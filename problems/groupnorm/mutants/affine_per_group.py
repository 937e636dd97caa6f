"""This is what you get when the gain and the bias are applied per group (one value for all the channels of a group) instead of per channel.

Source: Oneflow-Inc/oneflow PR #4848 ("Fix groupnorm": gamma and beta were learned per group, the paper has them per
channel); apache/mxnet issue #17139 (GroupNorm's gamma and beta had shape (num_groups,)).

Overrides: group_norm
"""


def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    check_input(x)
    check_num_groups(num_groups, x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    centred, var = _statistics(_grouped(x, num_groups))
    y = centred / torch.sqrt(var + eps)  # [N, G, m]
    if weight is not None:
        y = y * weight[:num_groups].reshape(1, -1, 1)  # one gain per group
    if bias is not None:
        y = y + bias[:num_groups].reshape(1, -1, 1)
    return y.reshape(x.shape)
