"""This is what you get when each view is validated on its own and never against the others: two teacher crops
with different batch sizes are concatenated and averaged as if they were one batch.

Overrides: check_views
"""

_reference_check_views = check_views


def check_views(name, views, *, exactly=None, at_least=None):
    if not isinstance(views, list | tuple):
        return _reference_check_views(name, views, exactly=exactly, at_least=at_least)
    if exactly is not None and len(views) != exactly:
        raise ValueError(f"{name} must hold exactly {exactly} views, got {len(views)}")
    if at_least is not None and len(views) < at_least:
        raise ValueError(f"{name} must hold at least {at_least} views, got {len(views)}")
    for view in views:
        _reference_check_views(name, [view])
    first = views[0]
    for view in views:
        if view.dtype != first.dtype:
            raise TypeError(f"{name} mixes dtypes {first.dtype} and {view.dtype}")
