# add_one allocates and fills a 64 MiB tensor on every call and prints how many page faults that took; a child
# whose glibc advises huge pages takes a few dozen (33-54 measured), one without takes 16,384.
import resource

import torch


def add_one(x):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    filled = torch.ones(16 << 20)  # 64 MiB of float32: past glibc's mmap threshold, a mapping of its own
    print("FAULTS", resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before, int(filled[-1]))  # noqa: T201 - the test reads it
    return x + 1


def scaled_sum(x, factor):
    return (x * factor).sum()
