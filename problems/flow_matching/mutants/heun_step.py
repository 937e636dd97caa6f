"""This is what you get when each step is Heun's (the average of the velocity at the start and at an Euler-predicted end) instead of a plain Euler step.

Overrides: euler_sample
"""


def euler_sample(x0, means, sigma, n_steps):
    check_sampler_inputs(x0, means, sigma, n_steps)
    dt = 1.0 / n_steps
    x, trajectory = x0, [x0.clone()]
    for k in range(n_steps):
        v = mixture_velocity(x, k * dt, means, sigma)
        v_end = mixture_velocity(x + dt * v, (k + 1) * dt, means, sigma)
        x = x + dt * (v + v_end) / 2
        trajectory.append(x)
    return torch.stack(trajectory)
