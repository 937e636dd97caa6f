// Talks to the grading API: creates a submission, then follows its Server-Sent Events until the report.

/** A refused or failed submission, with the message to show and, for 429/503, how long to wait. */
export class RunError extends Error {
  constructor(message, { status = 0, retryAfter = null } = {}) {
    super(message);
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

const REFUSALS = {
  413: "Your code is too large to submit. Remove unused code or long comments and try again.",
  429: "You already have a run in progress or have run very often. Wait a moment, then try again.",
  503: "The graders are busy right now. Your code was not submitted; try again shortly.",
  404: "This problem no longer exists on the server.",
  422: "The server could not read the submission.",
};

/** POST /api/problems/{slug}/submissions -> the new submission's id. Throws RunError. */
export async function submit(slug, code) {
  let response;
  try {
    response = await fetch(`/api/problems/${encodeURIComponent(slug)}/submissions`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ code }),
      credentials: "same-origin",
    });
  } catch {
    throw new RunError("Could not reach the server. Check your connection and try again.");
  }
  const body = await response.json().catch(() => ({}));
  if (response.status === 202 || response.ok) return body.id;
  const retryAfter = parseRetryAfter(response.headers.get("Retry-After"));
  const detail = typeof body.detail === "string" ? body.detail : null;
  // When to retry is shown once, as a countdown beside the button, so it is not added to the message here.
  const message = detail ?? REFUSALS[response.status] ?? `The server refused the submission (HTTP ${response.status}).`;
  throw new RunError(message, { status: response.status, retryAfter });
}

/** Retry-After is either seconds or an HTTP date. */
export function parseRetryAfter(header) {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** This learner's newest queued or running attempt at the problem, or null (none, or it cannot be read). */
export async function findRunInFlight(slug) {
  try {
    const response = await fetch(`/api/problems/${encodeURIComponent(slug)}/submissions`, {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    });
    if (!response.ok) return null;
    const attempts = await response.json();
    const newest = Array.isArray(attempts) ? attempts[0] : null;
    return newest && (newest.status === "queued" || newest.status === "running") ? newest : null;
  } catch {
    return null;
  }
}

/** GET /api/submissions/{id}, or null when it cannot be read (gone, not ours, server down). */
export async function fetchSubmission(id) {
  try {
    const response = await fetch(`/api/submissions/${encodeURIComponent(id)}`, {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

/**
 * POST /api/submissions/{id}/stop: ends the grading at once; its report ("stopped by you") follows on the event
 * stream. Resolves to null when the stop was accepted (or the run had already finished: 409), else to the
 * message to show.
 */
export async function stopRun(id) {
  try {
    const response = await fetch(`/api/submissions/${encodeURIComponent(id)}/stop`, {
      method: "POST",
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    });
    if (response.ok || response.status === 409) return null;
    const body = await response.json().catch(() => ({}));
    return typeof body.detail === "string" ? body.detail : `The run could not be stopped (HTTP ${response.status}).`;
  } catch {
    return "Could not reach the server to stop the run.";
  }
}

const POLL_INTERVAL_MS = 1000;
const MAX_STREAM_FAILURES = 3;

/**
 * Follows a submission until it has a report. Calls onStatus({status, total}), onCheck({check, done, total}),
 * onCall({function, running_s}) while a learner call runs long (function null once it is over),
 * onVerdict({solved}) once the required checks are done (the advisory ones may still run) and finally
 * onReport(submission). The server replays finished checks when the stream reconnects, so
 * handlers must be idempotent per check id. If the stream keeps failing, falls back to polling.
 * Returns a function that stops following.
 */
export function follow(id, { onStatus, onCheck, onCall, onVerdict, onReport, onTrouble }) {
  let stopped = false;
  let failures = 0;
  let pollTimer = null;
  const source = new EventSource(`/api/submissions/${encodeURIComponent(id)}/events`);

  const finish = (submission) => {
    if (stopped) return;
    stop();
    onReport(submission);
  };
  const parse = (event) => {
    try {
      return JSON.parse(event.data);
    } catch {
      return null;
    }
  };

  source.addEventListener("status", (event) => {
    const data = parse(event);
    if (data && !stopped) onStatus(data);
  });
  source.addEventListener("check", (event) => {
    const data = parse(event);
    failures = 0;
    if (data && !stopped) onCheck(data);
  });
  source.addEventListener("call", (event) => {
    const data = parse(event);
    if (data && !stopped) onCall?.(data);
  });
  source.addEventListener("verdict", (event) => {
    const data = parse(event);
    if (data && !stopped) onVerdict?.(data);
  });
  source.addEventListener("report", (event) => {
    const data = parse(event);
    if (data) finish(data);
  });
  source.addEventListener("error", () => {
    if (stopped) return;
    failures += 1;
    // EventSource retries by itself; after repeated failures (or a closed stream) poll the JSON instead.
    if (source.readyState === EventSource.CLOSED || failures >= MAX_STREAM_FAILURES) {
      source.close();
      onTrouble?.("Lost the live connection; checking for the result…");
      poll();
    }
  });

  async function poll() {
    if (stopped) return;
    const submission = await fetchSubmission(id);
    if (submission && (submission.status === "done" || submission.status === "error")) {
      finish(submission);
      return;
    }
    if (submission) onStatus({ status: submission.status });
    pollTimer = setTimeout(poll, POLL_INTERVAL_MS);
  }

  function stop() {
    stopped = true;
    source.close();
    clearTimeout(pollTimer);
  }
  return stop;
}
