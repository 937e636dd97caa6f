"""What operators scrape at /metrics (Prometheus text format): queue depth, submissions by status, grading
latency, live workers, events published. Counts and durations only: no ids, code, learners or host names.

Everything is read at scrape time from the shared sources of truth (the database, the broker, the workers'
heartbeats), so every web process reports the same site-wide numbers, whichever backend grades, and nothing
resets when a process restarts. The latency histograms are computed by the database over finished submissions
(cumulative, like any Prometheus histogram); a short cache keeps frequent scrapes cheap."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import ColumnElement, case, func, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from app.models import Submission
from app.state import AppState

if TYPE_CHECKING:  # importing Celery is for Celery deployments only
    from app.grading.celery_backend import OperationalMetrics

# Seconds. A warm grading takes a fraction of a second; a queue at a deadline can take minutes.
LATENCY_BUCKETS_S = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
STATUSES = ("queued", "running", "done", "error")
CACHE_S = 5.0


@runtime_checkable
class ReportsOperationalMetrics(Protocol):
    def operational_metrics(self) -> OperationalMetrics: ...


@dataclass(frozen=True)
class Histogram:
    buckets: list[tuple[float, int]]  # (upper bound, cumulative count)
    count: int
    total: float

    def family(self, name: str, documentation: str) -> HistogramMetricFamily:
        buckets = [(_bound(bound), count) for bound, count in self.buckets] + [("+Inf", self.count)]
        return HistogramMetricFamily(name, documentation, buckets=buckets, sum_value=self.total)


@dataclass(frozen=True)
class Snapshot:
    by_status: dict[str, int]
    latency: Histogram
    grading: Histogram
    operational: OperationalMetrics | None
    backend: str
    local_workers: int | None = None


class PaperLabCollector(Collector):
    def __init__(self, state: AppState) -> None:
        self._state = state
        self._lock = threading.Lock()
        self._cached: tuple[float, Snapshot] | None = None

    def collect(self) -> Iterator[Metric]:
        snapshot = self.snapshot()
        submissions = GaugeMetricFamily("paperlab_submissions", "Submissions by status.", labels=["status"])
        for status in STATUSES:
            submissions.add_metric([status], snapshot.by_status.get(status, 0))
        yield submissions
        yield GaugeMetricFamily(
            "paperlab_queue_depth",
            "Submissions stored and waiting for a grader.",
            value=snapshot.by_status.get("queued", 0),
        )
        info = GaugeMetricFamily("paperlab_grading_backend", "The grading backend in use.", labels=["backend"])
        info.add_metric([snapshot.backend], 1)
        yield info
        yield GaugeMetricFamily(
            "paperlab_open_event_streams",
            "Event streams open in this web process (the one number here that is per process).",
            value=self._state.streams.count(),
        )
        yield snapshot.latency.family(
            "paperlab_submission_latency_seconds", "From submitting to the stored verdict, finished submissions."
        )
        yield snapshot.grading.family(
            "paperlab_grading_duration_seconds", "From a grader taking a submission to its stored verdict."
        )
        operational = snapshot.operational
        if operational is None:
            if snapshot.local_workers is not None:
                yield GaugeMetricFamily(
                    "paperlab_grading_workers", "Grading slots ready to grade.", value=snapshot.local_workers
                )
            return
        yield GaugeMetricFamily(
            "paperlab_broker_up", "1 if the grading queue answers.", value=int(operational.broker_up)
        )
        if operational.broker_queue_length is not None:
            yield GaugeMetricFamily(
                "paperlab_broker_queue_length",
                "Grading tasks waiting in the broker.",
                value=operational.broker_queue_length,
            )
        if operational.broker_unacknowledged is not None:
            yield GaugeMetricFamily(
                "paperlab_broker_unacknowledged_tasks",
                "Grading tasks a worker has taken and not yet acknowledged.",
                value=operational.broker_unacknowledged,
            )
        workers = GaugeMetricFamily(
            "paperlab_grading_workers",
            "Grading processes with a live heartbeat, by sandbox.",
            labels=["sandbox"],
        )
        for sandbox in ("bubblewrap", "none"):
            workers.add_metric([sandbox], sum(1 for worker in operational.workers if worker.sandbox == sandbox))
        yield workers
        if operational.events_published is not None:
            yield CounterMetricFamily(
                "paperlab_events_published",
                "Live grading events (status, check, finished) published by workers.",
                value=operational.events_published,
            )

    def snapshot(self) -> Snapshot:
        with self._lock:
            if self._cached is not None and time.monotonic() - self._cached[0] < CACHE_S:
                return self._cached[1]
            snapshot = self._take_snapshot()
            self._cached = (time.monotonic(), snapshot)
            return snapshot

    def _take_snapshot(self) -> Snapshot:
        backend = self._state.backend
        with self._state.session_factory() as session:
            rows = session.execute(select(Submission.status, func.count()).group_by(Submission.status))
            by_status = {status: count for status, count in rows}  # Result.tuples() is deprecated in SQLAlchemy 2.1
            latency = _histogram(session, Submission.created_at)
            grading = _histogram(session, Submission.started_at)
        operational = backend.operational_metrics() if isinstance(backend, ReportsOperationalMetrics) else None
        health = backend.health()
        local_workers = self._state.settings.grading_concurrency if health.available else 0
        return Snapshot(
            by_status=by_status,
            latency=latency,
            grading=grading,
            operational=operational,
            backend=health.backend,
            local_workers=local_workers,
        )


def _seconds_between(session: Session, start: InstrumentedAttribute[Any], end: InstrumentedAttribute[Any]) -> Any:
    if session.get_bind().dialect.name == "postgresql":
        return func.extract("epoch", end - start)
    return (func.julianday(end) - func.julianday(start)) * 86400.0  # SQLite


def _histogram(
    session: Session, start: InstrumentedAttribute[Any], bounds: Sequence[float] = LATENCY_BUCKETS_S
) -> Histogram:
    seconds = _seconds_between(session, start, Submission.finished_at)
    columns: list[ColumnElement[Any]] = [func.count(), func.coalesce(func.sum(seconds), 0.0)]
    columns += [func.coalesce(func.sum(case((seconds <= bound, 1), else_=0)), 0) for bound in bounds]
    row = session.execute(select(*columns).where(Submission.finished_at.is_not(None), start.is_not(None))).one()
    return Histogram(
        buckets=[(bound, int(count)) for bound, count in zip(bounds, row[2:], strict=True)],
        count=int(row[0]),
        total=float(row[1]),
    )


def _bound(bound: float) -> str:
    return repr(float(bound))


def make_registry(collectors: Iterable[Collector]) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    for collector in collectors:
        registry.register(collector)
    return registry
