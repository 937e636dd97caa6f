"""This is what you get when the state is updated in place (x = x0; x += dt * v), which overwrites the caller's noise x0 (and fails outright when x0 requires grad).

Overrides: euler_sample
"""


def euler_sample(x0, means, sigma, n_steps):
    check_sampler_inputs(x0, means, sigma, n_steps)
    x = x0
    trajectory = [x0.clone()]
    for k in range(n_steps):
        x += mixture_velocity(x, k / n_steps, means, sigma) / n_steps
        trajectory.append(x.clone())
    return torch.stack(trajectory)
