"""This is what you get when the gate is computed from a detached tensor (as for a frozen mask): the values are right, but w_gate never receives a gradient and x only gets the up branch's.

Overrides: swiglu_ffn
"""


def swiglu_ffn(x, w_gate, w_up, w_down):
    check_ffn_inputs(x, w_gate, w_up, w_down)
    gate = (x @ w_gate.T).detach()
    up = x @ w_up.T
    return (_silu(gate) * up) @ w_down.T
