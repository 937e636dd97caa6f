# Try it: the statement's hand example, then a multi-head checkpoint pooled to fewer heads. Nothing is graded.
import math

import torch

q = torch.tensor([[[2 * math.log(3), 0.0, 0.0, 0.0]], [[0.0] * 4], [[0.0, 2 * math.log(3), 0.0, 0.0]], [[0.0] * 4]])
k = torch.tensor([[[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]] * 2)  # 2 key/value heads, 2 keys each
v = torch.tensor([[[1.0, 0.0], [0.0, 1.0]], [[10.0, 0.0], [0.0, 10.0]]])
print(grouped_query_attention(q, k, v))  # [0.75, 0.25], [0.5, 0.5], [2.5, 7.5], [5, 5]

mask = torch.tensor([[[True, False]], [[False, False]], [[False, True]], [[True, True]]])
print(grouped_query_attention(q, k, v, mask))  # [1, 0], [0, 0], [0, 10], [5, 5]

w = torch.arange(1.0, 9.0)[:, None] * torch.tensor([1.0, 10.0])  # 4 heads of 2 rows
print(mean_pool_kv_heads(w, 4, 2))  # [2, 20], [3, 30], [6, 60], [7, 70]

# A random 8-head layer pooled to G = 2: how far does the output move?
torch.manual_seed(0)
x, w_q, w_k, w_v = torch.randn(10, 32), torch.randn(32, 32) / 6, torch.randn(32, 32) / 6, torch.randn(32, 32) / 6


def heads(t, n):  # (L, n * 4) -> (n, L, 4)
    return t.reshape(10, n, 4).transpose(0, 1)


full = grouped_query_attention(heads(x @ w_q.T, 8), heads(x @ w_k.T, 8), heads(x @ w_v.T, 8))
pooled = grouped_query_attention(heads(x @ w_q.T, 8), heads(x @ mean_pool_kv_heads(w_k, 8, 2).T, 2),
                                 heads(x @ mean_pool_kv_heads(w_v, 8, 2).T, 2))
print("relative change", float((pooled - full).norm() / full.norm()))
