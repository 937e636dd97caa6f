"""This is what you get when h_last is the state before the last step instead of after it (y is right, the returned state is not).

Overrides: _last_state
Source: state-spaces/mamba pull request #371 (SelectiveScanFn returned a wrong last_state while its output was right; only a test of the returned state caught it)
"""


def _last_state(hs, h):
    if hs.shape[1] < 2:
        return h.clone() if hs.shape[1] == 0 else hs[:, -1].clone()
    return hs[:, -2].clone()
