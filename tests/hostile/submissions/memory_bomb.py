# add_one grows a list of 50 MiB buffers until the memory limit stops it; scaled_sum asks torch for 80 GB.
import torch


def add_one(x):
    hoard = []
    while True:
        hoard.append(bytearray(50 * 1024 * 1024))


def scaled_sum(x, factor):
    return torch.empty(10**10, dtype=torch.float64).sum()
