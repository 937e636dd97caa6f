"""This is what you get when the velocity is called with the step index k instead of the time k / n_steps.

Overrides: euler_sample
"""


def euler_sample(x0, means, sigma, n_steps):
    check_sampler_inputs(x0, means, sigma, n_steps)
    x, trajectory = x0, [x0.clone()]
    for k in range(n_steps):
        x = x + mixture_velocity(x, float(k), means, sigma) / n_steps
        trajectory.append(x)
    return torch.stack(trajectory)
