"""This is what you get when the sampler runs time from 1 down to 0 (x <- x - v(x, t) / n from t = 1), the diffusers habit, on a field whose noise end is t = 0.

Overrides: euler_sample
"""


def euler_sample(x0, means, sigma, n_steps):
    check_sampler_inputs(x0, means, sigma, n_steps)
    x, trajectory = x0, [x0.clone()]
    for k in range(n_steps):
        x = x - mixture_velocity(x, 1 - k / n_steps, means, sigma) / n_steps
        trajectory.append(x)
    return torch.stack(trajectory)
