"""This is what you get when the noise is detached before it is scaled (it is drawn at random in training, so it seems to need no gradient): x_t is then cut off from noise, and whatever produces the noise (a learned or reparameterised proposal, a guidance term) gets no gradient through the sample.

Overrides: q_sample
"""


def q_sample(x0, t, noise, alphas_cumprod):
    check_pair(("x0", "noise"), x0, noise)
    check_table("alphas_cumprod", alphas_cumprod, x0.device, one_allowed=True)
    check_steps(t, x0.shape[0], alphas_cumprod.shape[0], x0.device)
    alpha_bar = alphas_cumprod.double()
    signal = _per_example(alpha_bar.sqrt(), t, x0).to(x0.dtype)
    noise_scale = _per_example((1 - alpha_bar).sqrt(), t, x0).to(x0.dtype)
    return signal * x0 + noise_scale * noise.detach()
