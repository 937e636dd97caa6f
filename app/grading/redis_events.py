"""Live grading events across machines: the EventBus protocol of app.grading.event_bus on Redis.

A worker publishes each event with one Lua script that appends it to the submission's replay log (a short-lived
list), stamps it with (generation, sequence number) and PUBLISHes it on the submission's channel. Each web process
runs one listener thread on a pattern subscription and hands events to its local SSE subscriptions. A subscription
replays the log first and re-reads it whenever the stream is idle or a sequence number is skipped, so neither a
late subscriber nor a listener that was reconnecting misses a check; pub/sub only makes delivery immediate.

A grading that (re)starts (`status: running`) begins a new generation: the log is reset, as the in-memory bus
does. `finished` stays in the log for a little while, so a subscriber that arrives just after it still ends."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections import defaultdict
from dataclasses import dataclass
from typing import Self

import redis

from app.grading.event_bus import GradingEvent

logger = logging.getLogger(__name__)

# A grading writes a few dozen events; its log outlives any grading (the total time limit is at most an hour).
LOG_TTL_S = 3600
# After `finished` the report is in the database; the log only serves subscribers racing the end.
FINISHED_LOG_TTL_S = 120
# An idle subscription re-reads the log this often, covering events pub/sub dropped (listener reconnecting).
CATCH_UP_S = 2.0
LISTENER_RECONNECT_S = 1.0

# KEYS: log list, generation counter, published counter. ARGV: channel, kind, data JSON, reset flag, log TTL.
_PUBLISH_SCRIPT = """
if ARGV[4] == '1' then
  redis.call('DEL', KEYS[1])
  redis.call('INCR', KEYS[2])
end
local generation = tonumber(redis.call('GET', KEYS[2]) or '0')
local sequence = redis.call('LLEN', KEYS[1]) + 1
local envelope = '{"g":' .. generation .. ',"s":' .. sequence .. ',"k":"' .. ARGV[2] .. '","d":' .. ARGV[3] .. '}'
redis.call('RPUSH', KEYS[1], envelope)
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('EXPIRE', KEYS[2], ARGV[5])
redis.call('INCR', KEYS[3])
redis.call('PUBLISH', ARGV[1], envelope)
return sequence
"""


@dataclass(frozen=True)
class Envelope:
    generation: int
    sequence: int
    event: GradingEvent

    @classmethod
    def parse(cls, raw: str | bytes) -> Envelope:
        data = json.loads(raw)
        return cls(int(data["g"]), int(data["s"]), GradingEvent(kind=data["k"], data=data["d"]))


def make_redis(url: str) -> redis.Redis:
    # Short timeouts: a Redis that went away must not hold a grading or a request for long.
    return redis.Redis.from_url(url, socket_connect_timeout=2.0, socket_timeout=5.0, health_check_interval=30)


class RedisEventBus:
    def __init__(self, client: redis.Redis, *, prefix: str) -> None:
        self._redis = client
        self._prefix = prefix
        self._publish = client.register_script(_PUBLISH_SCRIPT)
        self._lock = threading.Lock()
        self._subscribers: defaultdict[str, set[_RedisSubscription]] = defaultdict(set)
        self._listener: threading.Thread | None = None
        self._stopping = threading.Event()

    # -- keys
    def channel(self, submission_id: str) -> str:
        return f"{self._prefix}events:{submission_id}"

    def _log_key(self, submission_id: str) -> str:
        return f"{self._prefix}events-log:{submission_id}"

    def _generation_key(self, submission_id: str) -> str:
        return f"{self._prefix}events-generation:{submission_id}"

    @property
    def published_counter_key(self) -> str:
        return f"{self._prefix}stats:events-published"

    # -- publishing (workers)
    def publish(self, submission_id: str, event: GradingEvent) -> None:
        """Never raises: events are for the live view; the report always reaches the database."""
        reset = event.kind == "status" and event.data.get("status") == "running"
        ttl = FINISHED_LOG_TTL_S if event.kind == "finished" else LOG_TTL_S
        try:
            self._publish(
                keys=[
                    self._log_key(submission_id),
                    self._generation_key(submission_id),
                    self.published_counter_key,
                ],
                args=[
                    self.channel(submission_id),
                    event.kind,
                    json.dumps(event.data, separators=(",", ":")),
                    "1" if reset else "0",
                    ttl,
                ],
            )
        except redis.RedisError as exc:
            logger.warning("could not publish a %s event of submission %s: %s", event.kind, submission_id, exc)

    def events_published(self) -> int:
        return int(self._redis.get(self.published_counter_key) or 0)

    # -- subscribing (web)
    def subscribe(self, submission_id: str) -> _RedisSubscription:
        self.start_listener()
        subscription = _RedisSubscription(self, submission_id, asyncio.get_running_loop())
        with self._lock:
            self._subscribers[submission_id].add(subscription)
        return subscription

    def unsubscribe(self, subscription: _RedisSubscription) -> None:
        with self._lock:
            subscribers = self._subscribers.get(subscription.submission_id)
            if subscribers is not None:
                subscribers.discard(subscription)
                if not subscribers:
                    del self._subscribers[subscription.submission_id]

    def read_log(self, submission_id: str) -> list[Envelope]:
        return [Envelope.parse(raw) for raw in self._redis.lrange(self._log_key(submission_id), 0, -1)]

    def start_listener(self) -> None:
        with self._lock:
            if self._listener is not None:
                return
            self._stopping.clear()
            self._listener = threading.Thread(target=self._listen, name="paperlab-events-listener", daemon=True)
            self._listener.start()

    def close(self) -> None:
        self._stopping.set()
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.join(timeout=5)
        self._redis.close()

    def _listen(self) -> None:
        pattern = f"{self._prefix}events:*"
        channel_prefix = len(f"{self._prefix}events:")
        while not self._stopping.is_set():
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call, unused-ignore]  # untyped before redis-py 8.2
            try:
                pubsub.psubscribe(pattern)
                while not self._stopping.is_set():
                    message = pubsub.get_message(timeout=1.0)
                    if message is None or message.get("type") != "pmessage":
                        continue
                    channel = message["channel"]
                    submission_id = (channel.decode() if isinstance(channel, bytes) else channel)[channel_prefix:]
                    with self._lock:
                        subscribers = list(self._subscribers.get(submission_id, ()))
                    if subscribers:
                        envelope = Envelope.parse(message["data"])
                        for subscriber in subscribers:
                            subscriber.deliver(envelope)
            except (redis.RedisError, OSError, ValueError) as exc:
                # Subscriptions catch up from the replay log; only latency is lost while reconnecting.
                logger.warning("event listener lost Redis (%s); reconnecting", exc)
                self._stopping.wait(LISTENER_RECONNECT_S)
            finally:
                try:
                    pubsub.close()
                except (redis.RedisError, OSError):
                    pass


class _RedisSubscription:
    def __init__(self, bus: RedisEventBus, submission_id: str, loop: asyncio.AbstractEventLoop) -> None:
        self.bus = bus
        self.submission_id = submission_id
        self.loop = loop
        self.live: asyncio.Queue[Envelope] = asyncio.Queue()
        self.ready: list[GradingEvent] = []
        self.generation = 0
        self.sequence = 0
        self.caught_up = False
        self.finished = False

    def deliver(self, envelope: Envelope) -> None:
        try:
            self.loop.call_soon_threadsafe(self.live.put_nowait, envelope)
        except RuntimeError:  # the subscriber's loop has closed
            self.bus.unsubscribe(self)

    def _offer(self, envelope: Envelope) -> bool:
        """Queue the event if it is the next one; False when one was skipped (then read the log)."""
        generation, sequence = envelope.generation, envelope.sequence
        if generation > self.generation:
            if sequence != 1:
                return False  # a new grading began and its first events went by
            self.generation, self.sequence = generation, 0
        elif generation < self.generation or sequence <= self.sequence:
            return True  # already delivered, or from a grading that has since restarted
        if sequence != self.sequence + 1:
            return False
        self.sequence = sequence
        self.ready.append(envelope.event)
        return True

    async def _catch_up(self) -> None:
        try:
            envelopes = await asyncio.to_thread(self.bus.read_log, self.submission_id)
        except redis.RedisError as exc:
            logger.warning("could not read the event log of submission %s: %s", self.submission_id, exc)
            return
        for envelope in envelopes:
            self._offer(envelope)
        self.caught_up = True

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> GradingEvent:
        while not self.ready:
            if self.finished:
                raise StopAsyncIteration
            if not self.caught_up:
                await self._catch_up()
                continue
            try:
                envelope = await asyncio.wait_for(self.live.get(), timeout=CATCH_UP_S)
            except TimeoutError:
                await self._catch_up()
                continue
            if not self._offer(envelope):
                await self._catch_up()
        return self._pop()

    def take_ready(self) -> list[GradingEvent]:
        while self.caught_up and not self.live.empty():
            if not self._offer(self.live.get_nowait()):
                self.caught_up = False  # one went by: the next __anext__ reads the log first
        taken: list[GradingEvent] = []
        while self.ready and not self.finished:
            taken.append(self._pop())
        return taken

    def _pop(self) -> GradingEvent:
        event = self.ready.pop(0)
        if event.kind == "finished":
            self.finished = True
            self.ready.clear()
            self.bus.unsubscribe(self)
        return event

    async def aclose(self) -> None:
        self.finished = True
        self.bus.unsubscribe(self)
