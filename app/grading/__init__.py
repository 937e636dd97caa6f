"""Grading behind one interface: `make_backend` picks the in-process backend, or Celery when
CELERY_BROKER_URL is set; `make_event_bus` picks the matching event bus."""

from __future__ import annotations

from collections.abc import Mapping

from app.db import SessionFactory
from app.grading.base import AddressQueueFull, BackendHealth, BackendUnavailable, GradingBackend, QueueFull, Submitter
from app.grading.event_bus import EventBus, GradingEvent, InMemoryEventBus
from app.settings import Settings
from grader import Problem

__all__ = [
    "AddressQueueFull",
    "BackendHealth",
    "BackendUnavailable",
    "EventBus",
    "GradingBackend",
    "GradingEvent",
    "QueueFull",
    "Submitter",
    "make_backend",
    "make_event_bus",
]


def make_event_bus(settings: Settings) -> EventBus:
    if settings.celery_broker_url:
        from app.grading import celery_backend

        bus: EventBus = celery_backend.make_event_bus(settings)
        return bus
    return InMemoryEventBus()


def make_backend(
    *, settings: Settings, session_factory: SessionFactory, problems: Mapping[str, Problem], bus: EventBus
) -> GradingBackend:
    if settings.celery_broker_url:
        from app.grading import celery_backend

        backend: GradingBackend = celery_backend.make_backend(
            settings=settings, session_factory=session_factory, problems=problems, bus=bus
        )
        return backend
    from app.grading.inprocess import InProcessBackend

    return InProcessBackend(
        session_factory=session_factory,
        problems=problems,
        bus=bus,
        concurrency=settings.grading_concurrency,
        queue_limit=settings.queue_limit,
        queue_limit_per_address=settings.queue_limit_per_address,
        unsafe_no_sandbox=settings.unsafe_no_sandbox,
        slow_call_s=settings.slow_call_s,
        prepare_problems=settings.prepare_problems,
    )
