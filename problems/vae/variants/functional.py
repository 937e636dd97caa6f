"""Variant: library calls: torch.addcmul for the sample, binary_cross_entropy_with_logits for the pixels."""

import torch
import torch.nn.functional as F

from helpers import check_data, check_latent, check_tensors


def reparameterize(mu, logvar, noise):
    check_tensors(("mu", "logvar", "noise"), (mu, logvar, noise))
    if logvar.shape != mu.shape or noise.shape != mu.shape:
        raise ValueError("mu, logvar and noise must have one shape")
    return torch.addcmul(mu, torch.exp(logvar / 2), noise)


def gaussian_kl(mu, logvar):
    check_tensors(("mu", "logvar"), (mu, logvar))
    check_latent(mu, logvar)
    return torch.sum(1 + logvar - mu * mu - logvar.exp(), dim=-1).mul(-0.5).mean()


def elbo_loss(x, recon_logits, mu, logvar):
    check_tensors(("x", "recon_logits", "mu", "logvar"), (x, recon_logits, mu, logvar))
    check_latent(mu, logvar)
    check_data(x, recon_logits, mu)
    n = x.shape[0]
    reconstruction = F.binary_cross_entropy_with_logits(recon_logits, x, reduction="sum")
    kl = torch.sum(1 + logvar - mu * mu - logvar.exp()).mul(-0.5)
    return (reconstruction + kl) / n
