# Try it: attention over three positions, with and without a mask. Runs after your code; nothing is graded.
import torch

torch.manual_seed(0)
q = torch.randn(1, 3, 4)
k = torch.randn(1, 3, 4)
v = torch.arange(12.0).reshape(1, 3, 4)

print(scaled_dot_product_attention(q, k, v))
causal = torch.tril(torch.ones(3, 3, dtype=torch.bool))
print(scaled_dot_product_attention(q, k, v, mask=causal))  # row 0 can only see position 0: it equals v[0, 0]
