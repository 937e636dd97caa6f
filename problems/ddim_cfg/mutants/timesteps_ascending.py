"""This is what you get when the steps are returned in ascending order: sampling must start from the noisiest step.

Overrides: ddim_timesteps
"""


def ddim_timesteps(num_train_steps, num_sampling_steps):
    check_step_counts(num_train_steps, num_sampling_steps)
    stride = num_train_steps // num_sampling_steps
    timesteps = torch.arange(num_sampling_steps, dtype=torch.int64) * stride
    prev_timesteps = torch.cat([timesteps.new_full((1,), -1), timesteps[:-1]])
    return timesteps, prev_timesteps
