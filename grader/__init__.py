"""PaperLab's grading engine: load a problem, run an untrusted submission in a sandbox, judge it."""
