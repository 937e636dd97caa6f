"""This is what you get when the step times come from torch.linspace(0, 1, n_steps), spaced 1 / (n_steps - 1) and ending at t = 1, while each step moves by 1 / n_steps.

Overrides: euler_sample
Source: DavidRuhe/simple-variational-diffusion-models issue #4 (sampling times from torch.linspace(0, 1, T), whose spacing is 1 / (T - 1), not the 1 / T the loop steps by)
"""


def euler_sample(x0, means, sigma, n_steps):
    check_sampler_inputs(x0, means, sigma, n_steps)
    x, trajectory = x0, [x0.clone()]
    for t in torch.linspace(0, 1, n_steps, dtype=torch.float64).tolist():
        x = x + mixture_velocity(x, t, means, sigma) / n_steps
        trajectory.append(x)
    return torch.stack(trajectory)
