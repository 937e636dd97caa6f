"""This is what you get when the steps are a rounded linspace from T - 1 down to 0 instead of the multiples of the integer stride T // S.

Overrides: ddim_timesteps
Source: huggingface/diffusers issue #2585 (asks for linspace-rounded DDIM steps [999, 979, 958, ...]; diffusers' timestep_spacing="linspace")
"""


def ddim_timesteps(num_train_steps, num_sampling_steps):
    check_step_counts(num_train_steps, num_sampling_steps)
    timesteps = torch.linspace(0, num_train_steps - 1, num_sampling_steps, dtype=torch.float64).round().long().flip(0)
    prev_timesteps = torch.cat([timesteps[1:], timesteps.new_full((1,), -1)])
    return timesteps, prev_timesteps
