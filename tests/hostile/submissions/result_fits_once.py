# add_one returns a tensor over the message limit (64 MiB) that fits in the memory limit once but not twice: the
# worker must refuse to send it before copying it, so the verdict names the message limit, not the memory the copy
# would have run out of. scaled_sum is correct.
import torch


def add_one(x):
    return torch.ones(40 * 1024 * 1024)  # float32: 160 MiB of the 256 MiB limit


def scaled_sum(x, factor):
    if isinstance(factor, bool) or not isinstance(factor, int | float):
        raise TypeError("factor must be a Python number")
    return x.sum() * factor
