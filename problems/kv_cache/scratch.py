# Try it: the statement's hand example, then your decode_step timed against recomputing attention every step.
# Runs after your code; nothing is graded.
import math
import time

import torch

q = torch.tensor([[1.0, 0.0, 0.0, 0.0]] * 3)[None, None]  # [1, 1, 3, 4]
k = torch.tensor([[0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0], [2 * math.log(2), 0.0, 0.0, 0.0]])[None, None]
v = torch.tensor([[3.0, 1.0], [0.0, 1.0], [6.0, 1.0]])[None, None]
print("decode  ", cached_attention(q[:, :, 2:], k, v))  # [[3.75, 1]]
print("chunk   ", cached_attention(q[:, :, 1:], k, v))  # [[1.5, 1], [3.75, 1]]
print("prefill ", cached_attention(q, k, v))  # [[3, 1], [1.5, 1], [3.75, 1]]

# A prefill of 2 tokens, then one token at a time: every step equals full causal attention over the prefix.
cache_k, cache_v = k[:, :, :0], v[:, :, :0]
out, cache_k, cache_v = decode_step(cache_k, cache_v, q[:, :, :2], k[:, :, :2], v[:, :, :2])
out, cache_k, cache_v = decode_step(cache_k, cache_v, q[:, :, 2:], k[:, :, 2:], v[:, :, 2:])
print("step 2  ", out, "cache", tuple(cache_k.shape))  # [[3.75, 1]], (1, 1, 3, 4)

# Time per new token at cache length T: one decode step, against recomputing attention over all T + 1 positions.
threads = torch.get_num_threads()
torch.set_num_threads(1)  # one thread: the comparison is about work, not about how it is split
generator = torch.Generator().manual_seed(0)
heads, d = 4, 32
print(f"{'T':>6} {'cache KiB':>10} {'step ms':>9} {'recompute ms':>13}")


def per_call_ms(function, *args, repeats=5):
    function(*args)  # warm up
    start = time.perf_counter()
    for _ in range(repeats):
        function(*args)
    return (time.perf_counter() - start) / repeats * 1e3


for length in (32, 128, 512):
    q, k, v = (torch.randn(1, heads, length + 1, d, generator=generator) for _ in range(3))
    cache_k, cache_v = k[:, :, :length].clone(), v[:, :, :length].clone()
    step = per_call_ms(decode_step, cache_k, cache_v, q[:, :, length:], k[:, :, length:], v[:, :, length:])
    full = per_call_ms(cached_attention, q, k, v)  # the whole prefix again, as without a cache
    kib = (cache_k.numel() + cache_v.numel()) * cache_k.element_size() / 1024
    print(f"{length:>6} {kib:>10.0f} {step:>9.3f} {full:>13.3f}")
torch.set_num_threads(threads)
