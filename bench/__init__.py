"""PaperLab's benchmark: in-process floor, cold CLI path, warm HTTP path (`make bench`)."""
