"""Resource limits for one submission. Defaults are generous for a CPU exercise; problem.toml may override.

Time limits count the learner's own time: wall time less the time spent waiting for a CPU that other processes
held (docs/engine.md, "Time is the learner's own"), so the verdict does not depend on how busy the machine is."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    call_timeout_s: float = Field(
        10.0, gt=0, le=600, description="Time for one call of a learner function, not counting time spent waiting "
        "for a CPU another process held (so a busy machine changes no verdict).")
    load_timeout_s: float = Field(10.0, gt=0, le=600, description="Time to import the submission, counted as "
                                  "call_timeout_s counts it.")
    total_timeout_s: float = Field(
        60.0, gt=0, le=3600, description="Time the learner's calls may take over the required checks, counted as "
        "call_timeout_s counts it; advisory checks never use it.")
    advisory_budget_s: float = Field(
        10.0, ge=0, le=3600, description="Time the learner's calls may take over the advisory checks, which run "
        "after every required one; an advisory check it cuts short is reported as not run.")
    wall_ceiling_factor: float = Field(
        8.0, ge=1, le=100, description="How many times its limit a call, or a budget, may last in wall time "
        "before it is cut whatever the reason (code holding the interpreter lock, a machine loaded past it).")
    cpu_time_s: int = Field(60, gt=0, le=3600, description="CPU seconds for one worker process (RLIMIT_CPU).")
    memory_mb: int = Field(1024, ge=64, le=65536, description="Memory one worker may allocate beyond torch.")
    max_processes: int = Field(16, ge=2, le=4096, description="Processes and threads in one worker's tree.")
    file_size_mb: int = Field(16, ge=1, le=4096, description="Largest file a worker may write (RLIMIT_FSIZE).")
    open_files: int = Field(256, ge=64, le=65536, description="Open file descriptors (RLIMIT_NOFILE).")
    output_kb: int = Field(64, ge=1, le=65536, description="Captured stdout+stderr per call; the rest is dropped.")
    message_mb: int = Field(64, ge=1, le=4096, description="Largest message the worker may send the judge.")

    def as_report(self) -> dict[str, float | int]:
        return self.model_dump()
