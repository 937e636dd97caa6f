"""This is what you get when the mean is subtracted in place from a reshaped view of x (grouped -= mean), which changes the caller's tensor.

Overrides: _statistics
"""


def _statistics(grouped):
    mean = grouped.mean(dim=-1, keepdim=True)
    grouped -= mean  # grouped is a view of x whenever x is contiguous
    var = (grouped * grouped).mean(dim=-1, keepdim=True)
    return grouped, var
