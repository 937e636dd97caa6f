"""This is what you get when the affine step runs only when weight is given (weight * x_hat + bias), so a bias without a weight is ignored.

Overrides: group_norm
"""


def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    check_input(x)
    check_num_groups(num_groups, x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    centred, var = _statistics(_grouped(x, num_groups))
    y = (centred / torch.sqrt(var + eps)).reshape(x.shape)
    if weight is not None:
        y = y * _per_channel(weight, x)
        if bias is not None:
            y = y + _per_channel(bias, x)
    return y
