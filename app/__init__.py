"""PaperLab's web app: pages, JSON API, persistence and the grading queue, built on `grader`."""
