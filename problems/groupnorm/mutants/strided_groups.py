"""This is what you get when channel c is put in group c % G (every G-th channel) instead of the C/G consecutive channels of group c // (C/G).

Overrides: group_norm
"""


def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    check_input(x)
    check_num_groups(num_groups, x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    check_eps(eps)
    n, c = x.shape[0], x.shape[1]
    interleaved = x.reshape(n, c // num_groups, num_groups, *x.shape[2:]).transpose(1, 2)  # [N, G, C/G, *S]
    centred, var = _statistics(interleaved.reshape(n, num_groups, (c // num_groups) * math.prod(x.shape[2:])))
    y = (centred / torch.sqrt(var + eps)).reshape(interleaved.shape).transpose(1, 2).reshape(x.shape)
    if weight is not None:
        y = y * _per_channel(weight, x)
    if bias is not None:
        y = y + _per_channel(bias, x)
    return y
