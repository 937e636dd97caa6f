"""This is what you get when the eps argument is ignored and 1e-5 is always used.

Overrides: group_norm
"""

_reference_group_norm = group_norm


def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    check_eps(eps)
    return _reference_group_norm(x, num_groups, weight, bias, 1e-5)
