"""Variant: one example at a time, every sum in float64, the result cast back to the inputs' dtype."""

import torch

from helpers import check_data, check_latent, check_tensors


def reparameterize(mu, logvar, noise):
    check_tensors(("mu", "logvar", "noise"), (mu, logvar, noise))
    if logvar.shape != mu.shape or noise.shape != mu.shape:
        raise ValueError("mu, logvar and noise must have one shape")
    std = torch.exp(logvar.double() / 2)  # a float32 logvar of 150 has a float64 sigma of 3.7e32: cast back fine
    return (mu.double() + std * noise.double()).to(mu.dtype)


def _kl_one(mu_row, logvar_row):
    total = mu_row.new_zeros(())
    for d in range(mu_row.shape[0]):
        m, lv = mu_row[d], logvar_row[d]
        total = total + 0.5 * (m * m + torch.exp(lv) - 1.0 - lv)
    return total


def gaussian_kl(mu, logvar):
    check_tensors(("mu", "logvar"), (mu, logvar))
    check_latent(mu, logvar)
    mu64, logvar64 = mu.double(), logvar.double()
    total = sum(_kl_one(mu64[i], logvar64[i]) for i in range(mu.shape[0]))
    return (total / mu.shape[0]).to(mu.dtype)


def _bce_one(logit, target):
    # log sigmoid(l) = -softplus(-l) and log(1 - sigmoid(l)) = -softplus(l), each written stably
    softplus_pos = torch.clamp(logit, min=0) + torch.log1p(torch.exp(-torch.abs(logit)))
    return softplus_pos - logit * target


def elbo_loss(x, recon_logits, mu, logvar):
    check_tensors(("x", "recon_logits", "mu", "logvar"), (x, recon_logits, mu, logvar))
    check_latent(mu, logvar)
    check_data(x, recon_logits, mu)
    n = x.shape[0]
    x64, l64 = x.double().reshape(n, -1), recon_logits.double().reshape(n, -1)
    mu64, logvar64 = mu.double(), logvar.double()
    total = x64.new_zeros(())
    for i in range(n):
        total = total + _bce_one(l64[i], x64[i]).sum() + _kl_one(mu64[i], logvar64[i])
    return (total / n).to(x.dtype)
