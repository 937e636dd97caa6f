# Try it: LayerNorm and RMSNorm of the same rows. Runs after your code; nothing is graded.
import torch

x = torch.tensor([[1.0, 2.0, 3.0, 4.0], [10.0, 10.0, 10.0, 14.0]])
weight, bias = torch.ones(4), torch.zeros(4)
print(layer_norm(x, weight, bias))  # each row has mean 0 and variance 1
print(rms_norm(x, weight))          # each row has root mean square 1
