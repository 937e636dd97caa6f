"""Reference VAE pieces (Kingma & Welling, 2014): the reparameterised sample, the Gaussian KL term and the
negative ELBO with a Bernoulli decoder. The checks compare submissions with it."""

import torch

from helpers import check_data, check_latent, check_tensors


def _std(logvar):
    """sigma = exp(logvar / 2), never sqrt(exp(logvar)): exp(logvar) overflows float32 for logvar > 88.7, while
    its square root is still representable up to logvar ~ 177."""
    return torch.exp(0.5 * logvar)


def reparameterize(mu, logvar, noise):
    check_tensors(("mu", "logvar", "noise"), (mu, logvar, noise))
    if logvar.shape != mu.shape or noise.shape != mu.shape:
        raise ValueError(f"mu, logvar and noise must have one shape, got {tuple(mu.shape)}, "
                         f"{tuple(logvar.shape)} and {tuple(noise.shape)}")
    return mu + _std(logvar) * noise  # z = mu + sigma * eps: differentiable in mu and logvar


def _kl_per_example(mu, logvar):
    """KL(N(mu, diag exp(logvar)) || N(0, I)) of each example: [N, D] -> [N], summed over the latent axis."""
    return -0.5 * (1 + logvar - mu.pow(2) - torch.exp(logvar)).sum(dim=1)


def gaussian_kl(mu, logvar):
    check_tensors(("mu", "logvar"), (mu, logvar))
    check_latent(mu, logvar)
    return _kl_per_example(mu, logvar).mean()  # (N,) -> (): the mean over the batch


def _bce_with_logits(logits, x):
    """-[x log sigmoid(l) + (1 - x) log(1 - sigmoid(l))] elementwise, as max(l, 0) - l x + log(1 + e^-|l|): no
    exp of a large positive number and no log of 0, so logits of any magnitude give the exact value."""
    return logits.clamp_min(0) - logits * x + torch.log1p(torch.exp(-logits.abs()))


def elbo_loss(x, recon_logits, mu, logvar):
    check_tensors(("x", "recon_logits", "mu", "logvar"), (x, recon_logits, mu, logvar))
    check_latent(mu, logvar)
    check_data(x, recon_logits, mu)
    reconstruction = _bce_with_logits(recon_logits, x).flatten(1).sum(dim=1)  # (N, ...) -> (N,): over pixels
    return (reconstruction + _kl_per_example(mu, logvar)).mean()  # (N,) -> (): the mean over the batch
