"""This is what you get when the computation runs in float64 and the result is not converted back: a float32 x gives a float64 result.

Overrides: group_norm
"""

_reference_group_norm = group_norm


def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    check_input(x)
    check_affine("weight", weight, x)
    check_affine("bias", bias, x)
    wide = [None if t is None else t.double() for t in (weight, bias)]
    return _reference_group_norm(x.double(), num_groups, *wide, eps)
