"""The uvicorn server `python -m app serve` runs. Its one addition: a graceful shutdown ends the open event
streams first. Uvicorn waits for every open connection before it runs the app's shutdown, and an event stream
of a submission still waiting only sends heartbeats, so without this a shutdown waited for the whole
`timeout_graceful_shutdown` whenever a learner had a page open."""

from __future__ import annotations

import socket

import uvicorn
from fastapi import FastAPI

# Open event streams end at once; other requests get this long to finish.
GRACEFUL_SHUTDOWN_S = 10


class GracefulServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, application: FastAPI) -> None:
        super().__init__(config)
        self.application = application

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        close_event_streams(self.application)
        await super().shutdown(sockets=sockets)


def close_event_streams(application: FastAPI) -> None:
    state = getattr(application.state, "paperlab", None)  # None until the lifespan has started
    if state is not None:
        state.streams.close_all()


def make_server(
    application: FastAPI, *, host: str, port: int, log_level: str = "info", proxy_headers: bool = False
) -> GracefulServer:
    config = uvicorn.Config(
        application,
        host=host,
        port=port,
        log_level=log_level,
        proxy_headers=proxy_headers,
        # One process: the in-process backend's queue and warm sandboxes live in it.
        workers=1,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
    )
    return GracefulServer(config, application)
