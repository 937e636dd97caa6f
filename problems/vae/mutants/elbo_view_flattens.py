"""This is what you get when the pixels are flattened with .view(N, -1): it works on a freshly made batch, but a transposed or sliced one (an image batch in channels-last memory, a crop) raises, because .view cannot merge axes whose strides do not line up; .flatten(1) or .reshape copies when it must.

Overrides: elbo_loss
Source: lucmos/relreps, src/rae/losses/vae_loss.py (recon_x.view(-1, 784) and x.view(-1, 784) before the cross-entropy)
"""

import torch.nn.functional as F


def elbo_loss(x, recon_logits, mu, logvar):
    check_tensors(("x", "recon_logits", "mu", "logvar"), (x, recon_logits, mu, logvar))
    check_latent(mu, logvar)
    check_data(x, recon_logits, mu)
    n = x.shape[0]
    bce = F.binary_cross_entropy_with_logits(recon_logits.view(n, -1), x.view(n, -1), reduction="none")
    return (bce.sum(dim=1) + _kl_per_example(mu, logvar)).mean()
