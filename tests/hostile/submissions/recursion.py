# Unbounded recursion, at Python's default recursion limit.
def add_one(x):
    return add_one(x)


def scaled_sum(x, factor):
    if isinstance(factor, bool):
        raise TypeError("factor must be a number")
    return x.sum() * factor
