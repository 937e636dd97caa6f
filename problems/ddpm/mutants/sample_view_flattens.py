"""This is what you get when the data are flattened with .view(-1) and each example's coefficient repeated over its elements: a transposed or sliced x0 (a crop, channels-last images) cannot be viewed as one flat row without a copy, so the call raises; coefficients of shape [N, 1, ..., 1] need no flattening at all.

Overrides: q_sample
"""


def q_sample(x0, t, noise, alphas_cumprod):
    check_pair(("x0", "noise"), x0, noise)
    check_table("alphas_cumprod", alphas_cumprod, x0.device, one_allowed=True)
    check_steps(t, x0.shape[0], alphas_cumprod.shape[0], x0.device)
    alpha_bar = alphas_cumprod.double()[t]
    per_example = x0[0].numel() if x0.shape[0] else 0
    signal = alpha_bar.sqrt().to(x0.dtype).repeat_interleave(per_example)  # (N * elements,)
    noise_scale = (1 - alpha_bar).sqrt().to(x0.dtype).repeat_interleave(per_example)
    return (signal * x0.view(-1) + noise_scale * noise.view(-1)).view(x0.shape)
