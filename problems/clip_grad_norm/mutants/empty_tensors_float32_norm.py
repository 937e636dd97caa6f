"""Tensors that hold no elements are treated like no tensors at all: the norm comes back as torch.zeros(()), a
float32 zero, though the gradients are float64 (only an empty list, or only None, gives the float32 zero).

Overrides: _total_norm
"""


def _total_norm(tensors):
    nonempty = [t for t in tensors if t.numel() > 0]
    if not nonempty:
        return torch.zeros(())
    largest = torch.stack([t.abs().amax() for t in nonempty]).amax()
    if largest == 0:
        return largest.clone()
    squares = torch.stack([((t / largest) ** 2).sum() for t in nonempty]).sum()
    return largest * squares.sqrt()
