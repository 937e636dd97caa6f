"""This is what you get when prev_timesteps is t - T // S for every step: after step 0 it is -T // S, not -1.

Overrides: ddim_timesteps
Source: huggingface/diffusers issue #5921 (DDIMScheduler's previous timestep goes 0 -> -200 for 5 of 1000 steps)
"""


def ddim_timesteps(num_train_steps, num_sampling_steps):
    check_step_counts(num_train_steps, num_sampling_steps)
    stride = num_train_steps // num_sampling_steps
    timesteps = (torch.arange(num_sampling_steps, dtype=torch.int64) * stride).flip(0)
    return timesteps, timesteps - stride
