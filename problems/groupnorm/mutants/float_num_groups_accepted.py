"""This is what you get when num_groups is converted with int() instead of checked, so 2.0, True or a tensor are accepted instead of raising TypeError.

Overrides: group_norm
"""

_reference_group_norm = group_norm


def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    return _reference_group_norm(x, int(num_groups), weight, bias, eps)
