# Wrong answers, with every comparison torch offers patched to say "equal" and in-place edits of the input.
import torch

torch.allclose = lambda *args, **kwargs: True
torch.equal = lambda *args, **kwargs: True
torch.isclose = lambda a, b, *args, **kwargs: torch.ones_like(a, dtype=torch.bool)
torch.testing.assert_close = lambda *args, **kwargs: None
torch.Tensor.__eq__ = lambda self, other: torch.ones_like(self, dtype=torch.bool)
torch.Tensor.__ne__ = lambda self, other: torch.zeros_like(self, dtype=torch.bool)
torch.Tensor.allclose = lambda *args, **kwargs: True
torch.Tensor.equal = lambda *args, **kwargs: True


def add_one(x):
    x.add_(5)  # wrong value, and in place
    return x


def scaled_sum(x, factor):
    return (x.sum() * factor + 1).detach()  # wrong value, and no gradient
