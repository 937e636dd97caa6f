"""This is what you get when the views must be a list: a tuple of views, which the contract accepts as well
(torch.chunk and tensor.split return tuples), raises TypeError.

Overrides: check_views
"""

_reference_check_views = check_views


def check_views(name, views, *, exactly=None, at_least=None):
    if not isinstance(views, list):
        raise TypeError(f"{name} must be a list of tensors, got {type(views).__name__}")
    return _reference_check_views(name, views, exactly=exactly, at_least=at_least)
