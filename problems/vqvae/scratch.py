# Try it: the statement's hand example. Runs after your code; nothing is graded.
import torch

codebook = torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [3.0, 3.0], [-4.0, -4.0]])
z_e = torch.tensor([[0.6, 0.2], [0.4, 0.9]], requires_grad=True)
z_q, indices = quantize(z_e, codebook)
print("indices", indices)  # [0, 1]
print("z_q", z_q)  # the rows [1, 0] and [0, 1]
z_q.sum().backward()
print("straight-through gradient into z_e", z_e.grad)  # all ones
print("losses", vq_loss(z_e.detach(), codebook, indices))  # 0.0925 and 0.023125
