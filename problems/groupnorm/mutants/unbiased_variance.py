"""This is what you get when the variance divides by m - 1 (torch.var's default) instead of by the group's size m.

Source: pytorch/pytorch issue #22617 ("Wrong outputs in GroupNorm function": a hand-written GroupNorm with
torch.var's default Bessel correction disagrees with nn.GroupNorm); tong-wu-umn/spike-compression-autoencoder
groupnorm.py (var = x.var(-1, keepdim=True)).

Overrides: _statistics
"""


def _statistics(grouped):
    mean = grouped.mean(dim=-1, keepdim=True)
    centred = grouped - mean
    var = (centred * centred).sum(dim=-1, keepdim=True) / (grouped.shape[-1] - 1)  # torch.var's m - 1
    return centred, var
