"""Variant: softplus for the cross-entropy and the KL written as 1/2 (mu^2 + sigma^2 - 1 - log sigma^2)."""

import torch
import torch.nn.functional as F

from helpers import check_data, check_latent, check_tensors


def reparameterize(mu, logvar, noise):
    check_tensors(("mu", "logvar", "noise"), (mu, logvar, noise))
    if logvar.shape != mu.shape or noise.shape != mu.shape:
        raise ValueError("mu, logvar and noise must have one shape")
    std = torch.exp(logvar * 0.5)
    return noise * std + mu


def _kl_rows(mu, logvar):
    std = torch.exp(logvar * 0.5)
    return 0.5 * (mu.square() + std * std - 1 - logvar).sum(dim=1)


def gaussian_kl(mu, logvar):
    check_tensors(("mu", "logvar"), (mu, logvar))
    check_latent(mu, logvar)
    return _kl_rows(mu, logvar).sum() / mu.shape[0]


def elbo_loss(x, recon_logits, mu, logvar):
    check_tensors(("x", "recon_logits", "mu", "logvar"), (x, recon_logits, mu, logvar))
    check_latent(mu, logvar)
    check_data(x, recon_logits, mu)
    # -[x log s + (1 - x) log(1 - s)] = softplus(l) - x l; torch's softplus switches to l itself above l = 20
    per_pixel = F.softplus(recon_logits) - x * recon_logits
    per_example = per_pixel.reshape(x.shape[0], -1).sum(dim=1) + _kl_rows(mu, logvar)
    return per_example.mean()
