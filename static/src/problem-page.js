// The problem page: editor + Run tests + live verdicts + charts, glued together.
import { Draft, createEditor } from "./editor.js";
import { RunError, fetchSubmission, findRunInFlight, follow, stopRun, submit } from "./run.js";
import { VerdictPanel } from "./verdicts.js";
import { formatTime } from "./times.js";
import { initHints } from "./hints.js";
import { initScratch } from "./scratch.js";
import { Panes } from "./panes.js";
import { initResultsTools } from "./results-tools.js";
import { restoreAttemptIfAsked } from "./restore.js";

export async function initProblemPage() {
  const mount = document.getElementById("editor");
  if (!mount) return;
  const slug = mount.dataset.slug;
  const lastSubmissionId = mount.dataset.lastSubmission || null;
  const runButton = document.getElementById("run-tests");
  const resetButton = document.getElementById("reset-code");
  const stopButton = document.getElementById("stop-run");
  const callStatus = document.getElementById("run-call");
  const runMessage = document.getElementById("run-message");
  const runWait = document.getElementById("run-wait");
  const saveStatus = document.getElementById("save-status");
  const chartsBox = document.getElementById("charts");
  const starterCode = document.getElementById("starter-code")?.value ?? "";
  let serverCode = document.getElementById("initial-code")?.value ?? starterCode;

  const hints = initHints(document.getElementById("hints"));
  const panes = new Panes(document.getElementById("problem-layout"), { returning: Boolean(lastSubmissionId) });
  const outcome = document.getElementById("run-outcome");
  const draft = new Draft(slug);
  const opening = draft.choose(serverCode);
  let running = false;
  let heldUntil = 0; // Date.now() before which a refused run waits (Retry-After)
  let following = null; // the id of the submission this page follows
  // Tabs of one browser share the learner: one that starts a run tells the others, which then follow it.
  const tabs = typeof BroadcastChannel === "function" ? new BroadcastChannel("paperlab-runs") : null;

  const editor = createEditor(mount, {
    code: opening.code,
    labelledBy: "editor-label",
    describedBy: "editor-help",
    onRun: () => run(),
    onChange: (code) => {
      draft.saveSoon(code, serverCode);
      saveStatus.textContent = code === serverCode ? "" : "Draft saved in this browser";
    },
    modeStatus: document.getElementById("editor-mode"),
    editStatus: document.getElementById("edit-status"),
    wrapToggle: document.getElementById("wrap-toggle"),
    // What "edited since the last run" compares with: the code of the last run (else what the page opened with).
    base: lastSubmissionId ? serverCode : opening.code,
  });
  addEventListener("pagehide", () => draft.flush());
  initScratch({
    root: document.getElementById("scratch"),
    slug,
    getCode: () => editor.getCode(),
    goToCodeLine: (line) => editor.goToLine(line),
  });
  if (opening.restored) {
    saveStatus.textContent = `Restored your unsubmitted draft from ${formatTime(new Date(opening.restored.savedAt).toISOString())}`;
  }

  const panel = new VerdictPanel({
    root: document.getElementById("verdicts"),
    progress: document.getElementById("progress"),
    bar: {
      passed: document.getElementById("progress-passed"),
      failed: document.getElementById("progress-failed"),
    },
    summary: document.getElementById("summary"),
    announcer: document.getElementById("run-announcer"),
    notesLink: document.getElementById("notes-link"),
    checkCount: Number(mount.dataset.checkCount) || 0,
    onGoToLine: (line) => {
      panes.show("code");
      editor.goToLine(line);
    },
    onErrorLine: (line) => editor.markErrorLine(line),
    onReveal: () => panes.show("results"),
    onCounts: (counts) => showCounts(counts),
  });
  initResultsTools({ panel, panes, root: document.getElementById("results-panel") });

  // Ctrl/Cmd+Enter anywhere on the page runs the tests (inside the editor CodeMirror's keymap handles it).
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.defaultPrevented) {
      event.preventDefault();
      run();
    }
  });
  runButton.addEventListener("click", () => run());
  const callClock = new CallClock(callStatus);
  stopButton?.addEventListener("click", async () => {
    if (!following || stopButton.getAttribute("aria-disabled") === "true") return;
    stopButton.setAttribute("aria-disabled", "true");
    stopButton.textContent = "Stopping…";
    const problem = await stopRun(following);
    if (problem) {
      runMessage.textContent = problem;
      resetStopButton();
    }
  });
  resetButton.addEventListener("click", () => {
    if (editor.getCode() === starterCode) return;
    if (!confirm("Replace your code with the starter code? Your current code will be lost (unless you submitted it).")) {
      return;
    }
    editor.setCode(starterCode);
    editor.focus();
  });

  // Show the last attempt (and remember it, to mark what changes in the next run).
  if (lastSubmissionId) {
    const last = await fetchSubmission(lastSubmissionId);
    if (last?.report && !running) {
      panel.report(last, { label: `Last attempt (${formatTime(last.created_at)})` });
      panel.setPrevious(last.report);
      drawCharts(last.report);
    } else if (last && (last.status === "queued" || last.status === "running") && !running) {
      watch(last.id); // a run from before the reload is still going: pick it up
    }
    // The server's code changed since the draft began (another tab submitted): the later one wins.
    const later = last && draft.choose(serverCode, Date.parse(last.created_at));
    if (later?.restored && !opening.restored && editor.getCode() === serverCode) {
      editor.setCode(later.code);
      saveStatus.textContent = "Restored your newer unsubmitted draft";
    }
  }

  await restoreAttemptIfAsked({ editor, slug, serverCode, saveStatus, showCode: () => panes.show("code") });

  tabs?.addEventListener("message", ({ data }) => {
    if (data?.slug === slug && data.id && !running) {
      panel.start();
      showRunStarted();
      watch(data.id);
    }
  });

  // The verdicts are what to watch now: on a wide screen the left column turns to them (the editor stays beside
  // it); on a narrow one the Code tab keeps the editor, and the outcome under Run leads to them.
  function showRunStarted() {
    if (panes.isNarrow()) return;
    panes.show("results");
    document.getElementById("summary").scrollIntoView({ block: "nearest" });
  }

  async function run() {
    if (running || Date.now() < heldUntil) return;
    const code = editor.getCode();
    setRunning(true);
    runMessage.textContent = "";
    // Marked at once (the rows stay until the server accepts the run): a refusal restores the state.
    const shownBefore = panel.state;
    panel.setState("submitting");
    let id;
    try {
      id = await submit(slug, code);
    } catch (error) {
      panel.setState(shownBefore);
      // A run of this learner still being graded (another tab, or one from before a reload): follow it.
      const inFlight = error instanceof RunError && error.status === 429 ? await findRunInFlight(slug) : null;
      if (inFlight) {
        panel.start();
        showRunStarted();
        runMessage.textContent = "Your earlier run is still being graded; showing its verdict here.";
        watch(inFlight.id);
        return;
      }
      // Refused: the last verdicts stay on screen; the reason is said once, the wait counts down beside it.
      setRunning(false);
      runMessage.textContent = error instanceof RunError ? error.message : "Something went wrong submitting your code.";
      if (error instanceof RunError && error.retryAfter) holdRunButton(error.retryAfter);
      return;
    }
    panel.start();
    showRunStarted();
    serverCode = code;
    draft.rebase(code);
    editor.setBase(code);
    saveStatus.textContent = "";
    tabs?.postMessage({ slug, id });
    watch(id);
  }

  function watch(id) {
    if (following === id) return;
    following = id;
    setRunning(true);
    if (stopButton) stopButton.hidden = false;
    follow(id, {
      onStatus: (data) => panel.status(data),
      onCheck: (data) => panel.check(data),
      onCall: (data) => callClock.show(data),
      onVerdict: (data) => panel.verdict(data),
      onTrouble: (message) => (runMessage.textContent = message),
      onReport: (submission) => {
        following = null;
        callClock.show({ function: null });
        if (stopButton) stopButton.hidden = true;
        resetStopButton();
        panel.report(submission);
        if (submission.report) panel.setPrevious(submission.report);
        drawCharts(submission.report);
        runMessage.textContent = "";
        setRunning(false);
        hints.refresh(); // a failed attempt may have unlocked the next hint
      },
    });
  }

  // The Results tab's label and, on a narrow screen, the line under the Run button.
  function showCounts({ done, total, failing, state, solved }) {
    let short = "";
    if (state === "queued" || state === "running") short = `${done} / ${total}`;
    else if (state === "done" && solved) short = "solved";
    else if (state === "done" && failing) short = `${failing} failing`;
    else if (state === "done") short = `${done - failing} / ${total}`;
    panes.setResultsCount(short);
    if (!outcome) return;
    outcome.hidden = state === "idle";
    if (state === "idle") return;
    const text = state === "done" ? document.getElementById("summary").textContent : `Running checks: ${done} / ${total}`;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "btn btn--small";
    button.textContent = "Show the results";
    button.addEventListener("click", () => {
      panes.show("results", { focusTab: false });
      panel.goToFailure(1) || document.getElementById("summary").focus();
    });
    outcome.replaceChildren(`${text} `, button);
  }

  function resetStopButton() {
    stopButton?.setAttribute("aria-disabled", "false");
    if (stopButton) stopButton.textContent = "Stop";
  }

  // aria-disabled, not disabled: a disabled button drops the keyboard focus onto <body>.
  function setRunning(value) {
    running = value;
    updateRunButton();
  }

  function updateRunButton() {
    const waitLeft = Math.ceil((heldUntil - Date.now()) / 1000);
    runButton.setAttribute("aria-disabled", String(running || waitLeft > 0));
    runButton.setAttribute("aria-busy", String(running));
    runButton.firstChild.textContent = running ? "Running… " : "Run tests ";
    runWait.textContent = !running && waitLeft > 0 ? `You can run again in ${waitLeft} s.` : "";
  }

  // After a 429/503: the button waits until Retry-After has passed, counting down beside it (not announced).
  function holdRunButton(seconds) {
    heldUntil = Date.now() + Math.min(seconds, 120) * 1000;
    const tick = () => {
      updateRunButton();
      if (Date.now() < heldUntil) {
        setTimeout(tick, 250);
      } else {
        runMessage.textContent = "";
      }
    };
    tick();
  }

  async function drawCharts(report) {
    if (!chartsBox) return;
    if (!report?.experiment) {
      chartsBox.hidden = true;
      chartsBox.replaceChildren();
      return;
    }
    const { drawExperiment } = await import("./charts.js");
    drawExperiment(chartsBox, report.experiment);
  }
}

/**
 * "momentum_update has been running for 6 s" beside the Stop button, from the stream's `call` events: the server
 * says how long the call had run when it sent the event, and the page counts on from there, once a second.
 */
export class CallClock {
  constructor(element) {
    this.element = element;
    this.timer = null;
  }

  show(data) {
    clearInterval(this.timer);
    this.timer = null;
    if (!this.element) return;
    if (typeof data?.function !== "string") {
      this.element.textContent = "";
      return;
    }
    const since = Date.now() - (Number(data.running_s) || 0) * 1000;
    const name = data.function;
    const tick = () => {
      const seconds = Math.floor((Date.now() - since) / 1000);
      this.element.textContent = name
        ? `${name} has been running for ${seconds} s`
        : `Your code has been loading for ${seconds} s`;
    };
    tick();
    this.timer = setInterval(tick, 1000);
  }
}
