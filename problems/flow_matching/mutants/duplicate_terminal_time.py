"""This is what you get when the time grid is linspace(0, 1, n_steps) with one more 1 appended: n_steps - 1 steps of size 1 / (n_steps - 1), then a last step of size 0.

Overrides: euler_sample
Source: Tencent-Hunyuan/Hunyuan3D-2.1 issue #209 (default sigmas np.linspace(0, 1, n) and the scheduler appending another 1.0, so the last Euler step is a no-op)
"""


def euler_sample(x0, means, sigma, n_steps):
    check_sampler_inputs(x0, means, sigma, n_steps)
    grid = torch.linspace(0, 1, n_steps, dtype=torch.float64).tolist() + [1.0]
    x, trajectory = x0, [x0.clone()]
    for t, t_next in zip(grid[:-1], grid[1:], strict=True):
        x = x + (t_next - t) * mixture_velocity(x, t, means, sigma)
        trajectory.append(x)
    return torch.stack(trajectory)
