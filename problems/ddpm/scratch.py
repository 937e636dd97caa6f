# Try it: a short schedule, one noised sample per step, and the posterior at the first and last step.
# Runs after your code; nothing is graded.
import torch

betas = linear_beta_schedule(4)
print("betas", betas)
alphas_cumprod = torch.cumprod(1 - betas.double(), dim=0)
x0 = torch.ones(4, 2)
t = torch.arange(4)
print(q_sample(x0, t, torch.zeros(4, 2), alphas_cumprod))  # sqrt(alpha_bar_t) * x0 when the noise is zero
mean, variance = posterior_mean_variance(x0, x0.clone(), t, betas)
print("posterior variance per step", variance)  # exactly 0 at t = 0
