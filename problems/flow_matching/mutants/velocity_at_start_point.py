"""This is what you get when every step evaluates the velocity at the starting noise x0 instead of at the current state.

Overrides: euler_sample
Source: lucidrains/rectified-flow-pytorch PR #13 (NanoFlow.sample fed the initial noise, not the current `denoised` state, to the model at every step)
"""


def euler_sample(x0, means, sigma, n_steps):
    check_sampler_inputs(x0, means, sigma, n_steps)
    x, trajectory = x0, [x0.clone()]
    for k in range(n_steps):
        x = x + mixture_velocity(x0, k / n_steps, means, sigma) / n_steps
        trajectory.append(x)
    return torch.stack(trajectory)
