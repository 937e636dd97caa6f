# Try it: two heads over a sequence of three, with and without the causal mask. Runs after your code.
import torch

torch.manual_seed(0)
d = 4
x = torch.randn(1, 3, d)
w_q, w_k, w_v, w_o = (torch.randn(d, d) for _ in range(4))
print(multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads=2))
print(multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads=2, causal=True))
