"""This is what you get when each Euler step reads the velocity at the end of its interval, t = (k + 1) / n, instead of at its start, t = k / n.

Overrides: euler_sample
"""


def euler_sample(x0, means, sigma, n_steps):
    check_sampler_inputs(x0, means, sigma, n_steps)
    x, trajectory = x0, [x0.clone()]
    for k in range(n_steps):
        x = x + mixture_velocity(x, (k + 1) / n_steps, means, sigma) / n_steps
        trajectory.append(x)
    return torch.stack(trajectory)
