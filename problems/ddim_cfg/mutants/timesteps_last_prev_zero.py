"""This is what you get when the last step jumps to step 0 again instead of -1 (alpha-bar 1): the final sample keeps step 0's noise.

Overrides: ddim_timesteps
Source: Stability-AI/stablediffusion pull request #345 (the DDIM sampler's alphas_prev started with alphacums[0] instead of 1)
"""


def ddim_timesteps(num_train_steps, num_sampling_steps):
    check_step_counts(num_train_steps, num_sampling_steps)
    stride = num_train_steps // num_sampling_steps
    timesteps = (torch.arange(num_sampling_steps, dtype=torch.int64) * stride).flip(0)
    prev_timesteps = torch.cat([timesteps[1:], timesteps.new_zeros(1)])
    return timesteps, prev_timesteps
