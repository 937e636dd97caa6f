# Try it: two gradients with a total norm of 13, clipped to 5. Runs after your code; nothing is graded.
import torch

grads = [torch.tensor([3.0, 4.0]), None, torch.tensor([12.0])]
clipped, total_norm = clip_grad_norm(grads, max_norm=5.0)
print("total norm before clipping:", total_norm)
print(clipped)
