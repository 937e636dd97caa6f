"""`python -m paperlab ...`, the same as the `paperlab` command."""

from paperlab.cli import main

raise SystemExit(main())
