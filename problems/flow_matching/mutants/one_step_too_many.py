"""This is what you get when the loop runs n_steps + 1 times (for k in range(n_steps + 1)), so the sampler overshoots to t = 1 + 1 / n_steps.

Overrides: euler_sample
"""


def euler_sample(x0, means, sigma, n_steps):
    check_sampler_inputs(x0, means, sigma, n_steps)
    x, trajectory = x0, [x0.clone()]
    for k in range(n_steps + 1):
        x = x + mixture_velocity(x, k / n_steps, means, sigma) / n_steps
        trajectory.append(x)
    return torch.stack(trajectory)
