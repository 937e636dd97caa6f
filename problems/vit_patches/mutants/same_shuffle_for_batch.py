"""This is what you get when the first sample's noise shuffles every sample, instead of each sample being shuffled by its own row of noise.

Overrides: _shuffle
"""


def _shuffle(noise):
    if noise.shape[0] == 0:
        return torch.argsort(noise, dim=1, stable=True)
    return torch.argsort(noise[:1], dim=1, stable=True).expand(noise.shape[0], -1).clone()
