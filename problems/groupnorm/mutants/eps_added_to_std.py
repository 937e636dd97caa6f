"""This is what you get when eps is added to the standard deviation, sqrt(var) + eps, instead of inside the root.

Source: taokong/group_normalization issue #1 ("eps should be added to variance"; group_norm.py computes
(x - mean) / (std + eps)).

Overrides: group_norm
"""


def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    check_input(x)
    check_num_groups(num_groups, x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    centred, var = _statistics(_grouped(x, num_groups))
    y = (centred / (torch.sqrt(var) + eps)).reshape(x.shape)
    if weight is not None:
        y = y * _per_channel(weight, x)
    if bias is not None:
        y = y + _per_channel(bias, x)
    return y
