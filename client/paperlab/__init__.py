"""PaperLab from a learner's own editor or notebook: the `paperlab` command (paperlab.cli) and the Jupyter
extension (`%load_ext paperlab`, paperlab.magic), both over a PaperLab server's JSON API with a personal API
token. Nothing here needs torch or the server's code: it installs alone (client/pyproject.toml)."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext paperlab`: registers `%%paperlab SLUG`, `%paperlab SLUG` and `%paperlab_login URL`."""
    from paperlab.magic import register  # IPython is needed only here

    register(ipython)
