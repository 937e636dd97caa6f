# Try it: the statement's hand examples. Runs after your code; nothing is graded.
import torch

print(ddim_timesteps(10, 3))  # ([6, 3, 0], [3, 0, -1])

x_t = torch.tensor([1.4, -0.2], dtype=torch.float64)
eps = torch.tensor([1.0, 0.5], dtype=torch.float64)
noise = torch.tensor([1.0, -1.0], dtype=torch.float64)
print(ddim_step(x_t, eps, 0.36, 0.64))  # eta = 0: [1.4, -0.5]
print(ddim_step(x_t, eps, 0.36, 0.64, 1.0, noise))  # eta = 1: [1.633578, -1.127328]
print(ddim_step(x_t, eps, 0.36, 1.0, 1.0, noise))  # the last step: x0_hat = [1, -1]

cond = torch.tensor([1.0, 0.0])
uncond = torch.tensor([0.5, 2.0])
print(classifier_free_guidance(cond, uncond, 2))  # [2, -4]
print(classifier_free_guidance(cond, uncond, 0))  # w = 0: eps_cond, [1, 0]
