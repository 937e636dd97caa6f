// The problem page: editor + Run tests + live verdicts + charts, glued together.
import { Draft, createEditor } from "./editor.js";
import { RunError, fetchSubmission, follow, submit } from "./run.js";
import { VerdictPanel } from "./verdicts.js";
import { formatTime } from "./times.js";

export async function initProblemPage() {
  const mount = document.getElementById("editor");
  if (!mount) return;
  const slug = mount.dataset.slug;
  const lastSubmissionId = mount.dataset.lastSubmission || null;
  const runButton = document.getElementById("run-tests");
  const resetButton = document.getElementById("reset-code");
  const runMessage = document.getElementById("run-message");
  const saveStatus = document.getElementById("save-status");
  const chartsBox = document.getElementById("charts");
  const starterCode = document.getElementById("starter-code")?.value ?? "";
  let serverCode = document.getElementById("initial-code")?.value ?? starterCode;

  const draft = new Draft(slug);
  const opening = draft.choose(serverCode);
  let running = false;

  const editor = createEditor(mount, {
    code: opening.code,
    labelledBy: "editor-label",
    describedBy: "editor-help",
    onRun: () => run(),
    onChange: (code) => {
      draft.saveSoon(code, serverCode);
      saveStatus.textContent = code === serverCode ? "" : "Draft saved in this browser";
    },
  });
  addEventListener("pagehide", () => draft.flush());
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
    notesLink: document.getElementById("notes-link"),
    checkCount: Number(mount.dataset.checkCount) || 0,
    onGoToLine: (line) => editor.goToLine(line),
    onErrorLine: (line) => editor.markErrorLine(line),
  });

  // Ctrl/Cmd+Enter anywhere on the page runs the tests (inside the editor CodeMirror's keymap handles it).
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.defaultPrevented) {
      event.preventDefault();
      run();
    }
  });
  runButton.addEventListener("click", () => run());
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

  async function run() {
    if (running || runButton.disabled) return;
    const code = editor.getCode();
    setRunning(true);
    runMessage.textContent = "";
    panel.start();
    document.getElementById("summary").scrollIntoView({ block: "nearest" }); // the verdicts are what to watch now
    let id;
    try {
      id = await submit(slug, code);
    } catch (error) {
      setRunning(false);
      const message = error instanceof RunError ? error.message : "Something went wrong submitting your code.";
      panel.fail(message);
      if (error instanceof RunError && error.retryAfter) holdRunButton(error.retryAfter);
      return;
    }
    serverCode = code;
    draft.rebase(code);
    saveStatus.textContent = "";
    watch(id);
  }

  function watch(id) {
    setRunning(true);
    follow(id, {
      onStatus: (data) => panel.status(data),
      onCheck: (data) => panel.check(data),
      onTrouble: (message) => (runMessage.textContent = message),
      onReport: (submission) => {
        panel.report(submission);
        if (submission.report) panel.setPrevious(submission.report);
        drawCharts(submission.report);
        runMessage.textContent = "";
        setRunning(false);
      },
    });
  }

  function setRunning(value) {
    running = value;
    runButton.disabled = value;
    runButton.setAttribute("aria-busy", String(value));
    runButton.firstChild.textContent = value ? "Running… " : "Run tests ";
  }

  // After a 429/503: keep the button off until Retry-After has passed, counting down beside it.
  function holdRunButton(seconds) {
    let left = Math.min(seconds, 120);
    runButton.disabled = true;
    const tick = () => {
      if (left <= 0) {
        runButton.disabled = false;
        runMessage.textContent = "";
        return;
      }
      runMessage.textContent = `You can run again in ${left} s.`;
      left -= 1;
      setTimeout(tick, 1000);
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
