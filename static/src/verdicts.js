// The results pane on the problem page: live per-check rows grouped by function, the groups with failures first
// and the failures first in each group, passed checks folded into a count; progress, the summary (whose first
// failure is a link to it), load/limit/sandbox notices, "changed since the previous attempt" markers, a
// "failures only" filter, next/previous failure, and the notes link once solved.
// Everything that comes from a submission is inserted as text (textContent), never as HTML.
import { attachCheckReports } from "./report-check.js";
import { el } from "./dom.js";

const ICONS = { passed: "✓", failed: "✗", error: "!", skipped: "–" };
const STATUS_WORDS = { passed: "passed", failed: "failed", error: "grader error", skipped: "skipped" };
// What ended a learner's call, as the report states it (check.limit); never guessed from a message's words.
const LIMIT_WORDS = {
  time: "time limit",
  total_time: "total time limit",
  memory: "memory limit",
  output: "output limit",
  processes: "process limit",
  crash: "crashed",
  message_size: "result too large",
  tampering: "interfered",
};
// Limits proper (the others are a crash or interference with the grader, not a resource the code ran out of).
const RESOURCE_LIMITS = new Set(["time", "total_time", "memory", "output", "processes", "message_size"]);

export function limitOf(check) {
  return check?.limit && LIMIT_WORDS[check.limit] ? check.limit : null;
}

export function hitResourceLimit(check) {
  return RESOURCE_LIMITS.has(limitOf(check));
}

export class VerdictPanel {
  constructor({ root, progress, bar, summary, announcer, notesLink, checkCount, onGoToLine, onErrorLine, onReveal,
    onCounts }) {
    Object.assign(this, { root, progress, bar, summary, announcer, notesLink, onGoToLine, onErrorLine });
    this.onReveal = onReveal ?? (() => {}); // makes the pane visible (the Results tab) before a check is focused
    this.onCounts = onCounts ?? (() => {}); // ({done, total, failing, state, solved}) after every change
    this.total = checkCount || 0;
    this.previous = null; // Map check id -> status of the previous attempt
    this.clear();
  }

  /** The checks with something to fix, in the order the pane shows them. */
  failingRows() {
    return [...this.groupsBox.querySelectorAll("li.check--failed, li.check--error")];
  }

  /** Opens the check `id` (its group too), scrolls it into view and puts the focus on it. */
  focusCheck(id) {
    const row = this.rows.get(id);
    if (!row) return false;
    this.onReveal();
    row.closest(".verdict-group").open = true;
    const passed = row.closest(".verdict-passed");
    if (passed) passed.open = true;
    row.querySelector("details").open = true;
    const summary = row.querySelector("summary");
    summary.focus({ preventScroll: true });
    summary.scrollIntoView({ block: "nearest" });
    this.lastFocused = id;
    return true;
  }

  /** Next (+1) or previous (-1) failing check after the one last focused, wrapping around. */
  goToFailure(direction) {
    const rows = this.failingRows();
    if (!rows.length) return false;
    const focused = document.activeElement?.closest?.("li.check")?.dataset.checkId ?? this.lastFocused;
    const at = rows.findIndex((row) => row.dataset.checkId === focused);
    const next = at < 0 ? (direction > 0 ? 0 : rows.length - 1) : (at + direction + rows.length) % rows.length;
    return this.focusCheck(rows[next].dataset.checkId);
  }

  /** The report to compare the next run with ("flipped since the previous attempt"). */
  setPrevious(report) {
    this.previous = report?.checks ? new Map(report.checks.map((c) => [c.id, c.status])) : null;
  }

  clear() {
    this.rows = new Map(); // check id -> <li>
    this.groups = new Map(); // group -> {section, list, passedBox, passedList, count, flips}
    this.results = new Map(); // check id -> CheckResult
    this.lastFocused = null;
    this.early = null; // the summary the required checks' verdict gave while the advisory ones still run
    this.notices = el("div", { class: "verdict-notices" });
    this.groupsBox = el("div", { class: "verdict-groups" });
    this.root.replaceChildren(this.notices, this.groupsBox);
    this.setState("idle");
  }

  setState(state) {
    this.state = state;
    this.root.closest(".verdict-panel")?.setAttribute("data-state", state);
    this.root.setAttribute("aria-busy", state === "queued" || state === "running" ? "true" : "false");
    this.reportCounts();
  }

  reportCounts(solved = this.early !== null) {
    if (!this.results) return;
    const checks = [...this.results.values()];
    const failing = checks.filter((c) => c.status === "failed" || c.status === "error").length;
    this.onCounts({ done: checks.length, total: Math.max(this.total, checks.length), failing, state: this.state,
      solved });
  }

  /** The one thing a screen reader hears per run: the final summary (the rows stream in silently). */
  announce(text) {
    if (!this.announcer) return;
    // Clearing first makes a repeated sentence ("Not solved yet: ...") count as new.
    this.announcer.textContent = "";
    setTimeout(() => (this.announcer.textContent = text), 50);
  }

  // ----- a run, as it happens -----

  start() {
    this.clear();
    this.setState("queued");
    this.setSummary("Submitting…", "running");
    this.updateProgress();
    this.announce("Running checks…"); // heard wherever the focus is, the editor included
  }

  status({ status, total }) {
    if (total) this.total = total;
    this.setState(status === "running" ? "running" : "queued");
    this.setSummary(status === "running" ? "Running checks…" : "Queued: waiting for a free grader…", "running");
    this.updateProgress();
  }

  check({ check, total }) {
    if (total) this.total = total;
    this.setState("running");
    this.setSummary(...(this.early ?? ["Running checks…", "running"]));
    this.putCheck(check);
    this.updateProgress();
  }

  /** The required checks are done: a solved run says so, and opens the notes, while the optional ones run. */
  verdict({ solved }) {
    if (solved !== true) return; // not solved yet: the failing rows say why, and the report sums them up
    this.early = ["Solved: all required checks pass. The optional checks are still running…", "passed"];
    this.setSummary(...this.early);
    this.notesLink.hidden = false;
    this.announce(this.early[0]);
    this.reportCounts(true);
  }

  /** The run could not start or could not be followed. */
  fail(message) {
    this.setState("idle");
    this.setSummary(message, "error");
  }

  // ----- a finished submission -----

  /** Shows a finished submission (`{status, report}`); `label` prefixes the summary ("Last attempt"). */
  report(submission, { label = null } = {}) {
    const report = submission?.report;
    const toldSolved = this.early !== null; // announced when the required checks were done
    this.setState("done");
    if (!report) {
      this.clear();
      this.setState("done");
      this.setSummary(
        "The grader could not produce a report for this run. This is not your fault; please run the tests again.",
        "error",
        label,
      );
      if (!label) this.announce(this.summary.textContent);
      return;
    }
    // Rebuild from the report itself: it is the source of truth (the stream may have missed or replayed rows).
    const keepGroups = this.results.size === report.checks.length;
    if (!keepGroups) this.clear();
    for (const check of report.checks) this.putCheck(check);
    this.total = report.checks.length || this.total;
    this.setState("done");
    this.updateProgress(true);
    this.showNotices(report);
    const [text, tone] = this.describe(report);
    this.setSummary(text, tone, label);
    // A run just finished, not a page showing the last one; a solve already announced is not heard twice.
    if (!label && !(toldSolved && report.solved)) this.announce(this.summary.textContent);
    if (report.solved) this.notesLink.hidden = false;
    this.foldCleanGroups();
    this.openFirstProblem();
    attachCheckReports(this.root, submission.id);
    this.reportCounts(report.solved);
  }

  describe(report) {
    const checks = report.checks;
    const passed = checks.filter((c) => c.status === "passed").length;
    const failing = checks.filter((c) => c.status === "failed" || c.status === "error");
    const seconds = report.duration_ms ? ` in ${formatDuration(report.duration_ms)}` : "";
    const flips = this.flipCount();
    const flipText = flips ? ` ${flips} ${flips === 1 ? "check" : "checks"} changed since the previous attempt.` : "";
    const error = report.error;
    if (report.solved) {
      const optional = failing.filter((c) => !c.required).length;
      const extra = optional ? ` (${optional} optional ${optional === 1 ? "check" : "checks"} still failing)` : "";
      return [`Solved: all required checks pass${extra}, ${passed} / ${checks.length}${seconds}.${flipText}`, "passed"];
    }
    if (report.stopped) {
      return [`Stopped by you. ${passed} / ${checks.length} checks passed before the stop.`, "stopped"];
    }
    if (error?.kind === "load") {
      const where = error.line ? ` (line ${error.line})` : "";
      return [`Your code did not load${where}, so no check could run. Fix the error below and run again.`, "error"];
    }
    if (error?.kind === "limit" || failing.some(hitResourceLimit)) {
      return [`Stopped by a resource limit. ${passed} / ${checks.length} checks passed.${flipText}`, "limit"];
    }
    if (error?.kind === "sandbox") {
      return ["The sandbox could not start, so your code was not run. Try again in a moment.", "error"];
    }
    if (error?.kind === "grader" || checks.some((c) => c.status === "error")) {
      return ["The grader itself failed on some checks. That is not your fault; try again later.", "error"];
    }
    // The first failure in the pane's order (failures first, by group), as a link that focuses it.
    const firstRow = this.failingRows()[0];
    const first = firstRow ? this.results.get(firstRow.dataset.checkId) : failing[0];
    const text = [`Not solved yet: ${failing.length} of ${checks.length} checks failing.`];
    if (first) text.push(" Start with “", { check: first }, "”.");
    if (flipText) text.push(flipText);
    return [text, "failed"];
  }

  showNotices(report) {
    this.notices.replaceChildren();
    if (report.sandbox === "none") {
      this.notices.append(
        notice("warn", "Graded without a sandbox", "This server runs submissions unsandboxed (development mode)."),
      );
    }
    const error = report.error;
    if (error?.kind === "load") {
      const box = notice("error", error.line ? `Load error on line ${error.line}` : "Load error", null);
      box.append(el("pre", { class: "notice__message", text: error.message }));
      if (error.line && this.onGoToLine) {
        const button = el("button", { type: "button", class: "btn btn--small", text: `Go to line ${error.line}` });
        button.addEventListener("click", () => this.onGoToLine(error.line));
        box.append(button);
      }
      box.dataset.kind = "load";
      this.notices.append(box);
      if (error.line) this.onErrorLine?.(error.line);
    } else if (error?.kind === "limit" || report.checks.some(hitResourceLimit)) {
      const message = error?.message || report.checks.find(hitResourceLimit)?.message || "";
      const box = notice(
        "limit",
        "Time or memory limit reached",
        "PaperLab stopped your code. Look for an endless loop, a very large tensor, or a Python loop that should be a tensor operation.",
      );
      if (message) box.append(el("pre", { class: "notice__message", text: message }));
      box.dataset.kind = "limit";
      this.notices.append(box);
    } else if (error) {
      const box = notice("error", error.kind === "sandbox" ? "Sandbox error" : "Grader error", null);
      box.append(el("pre", { class: "notice__message", text: error.message }));
      box.dataset.kind = error.kind;
      this.notices.append(box);
    }
  }

  // ----- rows -----

  putCheck(check) {
    this.results.set(check.id, check);
    const row = checkRow(check, this.previous?.get(check.id));
    const old = this.rows.get(check.id);
    if (old) {
      row.querySelector("details").open = old.querySelector("details").open;
      old.remove();
    }
    this.rows.set(check.id, row);
    this.placeRow(row, check);
    this.updateGroupCount(check.group);
  }

  /** Failures first in their group (in arrival order), then the skipped, then the passed, folded into a count. */
  placeRow(row, check) {
    const group = this.groupFor(check.group);
    if (check.status === "passed") {
      group.passedList.append(row);
      return;
    }
    const problem = check.status === "failed" || check.status === "error";
    const firstSkipped = problem ? group.list.querySelector(":scope > li.check--skipped") : null;
    group.list.insertBefore(row, firstSkipped);
  }

  groupFor(name) {
    let group = this.groups.get(name);
    if (!group) {
      // A <details> per group: the final report folds away the groups with nothing to fix.
      const count = el("span", { class: "verdict-group__count" });
      const flips = el("span", { class: "verdict-group__flips" });
      const list = el("ul", { class: "verdict-list verdict-list--to-fix" });
      const passedList = el("ul", { class: "verdict-list" });
      const passedCount = el("span", { class: "verdict-passed__count" });
      const passedBox = el("details", { class: "verdict-passed", hidden: true },
        el("summary", { class: "verdict-passed__title" }, passedCount), passedList);
      const section = el(
        "details",
        { class: "verdict-group", open: true, dataset: { group: name } },
        el("summary", { class: "verdict-group__title" }, el("code", { text: name }), flips, count),
        list,
        passedBox,
      );
      this.groupsBox.append(section);
      group = { section, list, passedBox, passedList, passedCount, count, flips };
      this.groups.set(name, group);
    }
    return group;
  }

  updateGroupCount(name) {
    const group = this.groups.get(name);
    const checks = [...this.results.values()].filter((c) => c.group === name);
    const passed = checks.filter((c) => c.status === "passed").length;
    const failing = checks.filter((c) => c.status === "failed" || c.status === "error").length;
    group.count.textContent = `${passed} / ${checks.length}`;
    group.section.classList.toggle("verdict-group--clean", passed === checks.length);
    group.section.classList.toggle("verdict-group--failing", failing > 0);
    group.passedBox.hidden = passed === 0;
    group.passedCount.textContent = `${passed} passed`;
    // A group with nothing but passed checks shows them directly when opened: no second fold inside the first.
    group.passedBox.classList.toggle("verdict-passed--alone", passed === checks.length);
    if (passed === checks.length) group.passedBox.open = true;
    const rows = [...group.section.querySelectorAll("li.check")];
    const fixed = rows.filter((row) => row.dataset.flip === "fixed").length;
    const broke = rows.filter((row) => row.dataset.flip === "broke").length;
    group.flips.textContent = [fixed && `▲ ${fixed} newly passing`, broke && `▼ ${broke} newly failing`]
      .filter(Boolean)
      .join(" · ");
    this.orderGroups();
  }

  /** Groups with something to fix first (in the battery's order), then the others. */
  orderGroups() {
    const sections = [...this.groups.values()].map((group) => group.section);
    const ordered = [...sections.filter((s) => s.matches(".verdict-group--failing")),
      ...sections.filter((s) => !s.matches(".verdict-group--failing"))];
    const current = [...this.groupsBox.children];
    if (ordered.every((section, i) => current[i] === section)) return;
    const focused = document.activeElement;
    this.groupsBox.append(...ordered); // moving a node that holds the focus drops it in some browsers
    if (focused && focused !== document.activeElement && this.groupsBox.contains(focused)) focused.focus();
  }

  /** After the report: open the groups that have something to fix, fold the rest. */
  foldCleanGroups() {
    for (const group of this.groups.values()) {
      group.section.open = group.section.matches(".verdict-group--failing");
    }
  }

  openFirstProblem() {
    const first = this.failingRows()[0];
    if (first) first.querySelector("details").open = true;
  }

  flipCount() {
    if (!this.previous) return 0;
    return [...this.rows.values()].filter((row) => row.dataset.flip).length;
  }

  // ----- progress + summary -----

  updateProgress(final = false) {
    const checks = [...this.results.values()];
    const done = checks.length;
    const passed = checks.filter((c) => c.status === "passed").length;
    const failed = checks.filter((c) => c.status === "failed" || c.status === "error").length;
    const total = Math.max(this.total, done);
    this.progress.textContent = final ? `${passed} / ${total} checks passed` : `${done} / ${total} checks`;
    if (this.bar) {
      const share = (n) => (total ? `${((n / total) * 100).toFixed(2)}%` : "0%");
      this.bar.passed.style.width = share(passed);
      this.bar.failed.style.width = share(failed);
    }
  }

  /** `text`: a string, or a list of strings and `{check}` parts (a link that focuses that check). */
  setSummary(text, tone, label = null) {
    const parts = Array.isArray(text) ? text : [text];
    const nodes = parts.map((part) => (typeof part === "string" ? part : this.checkLink(part.check)));
    this.summary.replaceChildren(...(label ? [`${label}: `] : []), ...nodes);
    this.summary.dataset.tone = tone;
  }

  checkLink(check) {
    const link = el("a", { href: `#check-${check.id}`, class: "summary__check", text: check.title || check.id });
    link.addEventListener("click", (event) => {
      event.preventDefault();
      this.focusCheck(check.id);
    });
    return link;
  }
}

function checkRow(check, previousStatus) {
  const flip = flipOf(previousStatus, check.status);
  const summary = el(
    "summary",
    {},
    el("span", { class: "check__icon", "aria-hidden": "true", text: ICONS[check.status] ?? "?" }),
    el("span", { class: "check__title", text: check.title || check.id }),
    check.required ? null : el("span", { class: "badge badge--optional", text: "optional" }),
    limitOf(check) ? el("span", { class: "badge badge--limit", text: LIMIT_WORDS[limitOf(check)] }) : null,
    // Output is only visible when the row is open; say on the closed row that there is some.
    check.output ? el("span", { class: "badge badge--output", text: "printed output" }) : null,
    flip
      ? el("span", {
          class: `check__flip check__flip--${flip}`,
          title: `Was ${previousStatus} in the previous attempt`,
          text: flip === "fixed" ? "▲ newly passing" : "▼ newly failing",
        })
      : null,
    el("span", { class: "check__status", text: STATUS_WORDS[check.status] ?? check.status }),
  );
  const body = el(
    "div",
    { class: "check__body" },
    el("p", { class: "check__id" }, el("code", { text: check.id }), ` · ${formatDuration(check.duration_ms)}`),
    check.message ? el("pre", { class: "check__message", text: check.message }) : null,
    check.output ? el("p", { class: "check__label", text: "Your code printed:" }) : null,
    check.output ? el("pre", { class: "check__output", text: check.output }) : null,
    !check.message && !check.output ? el("p", { class: "check__empty", text: "No message." }) : null,
  );
  return el(
    "li",
    { class: `check check--${check.status}`, id: `check-${check.id}`,
      dataset: { checkId: check.id, ...(flip ? { flip } : {}) } },
    el("details", {}, summary, body),
  );
}

function flipOf(before, now) {
  if (!before || before === now) return null;
  if (now === "passed") return "fixed";
  if (before === "passed") return "broke";
  return null;
}

function notice(tone, title, text) {
  return el(
    "div",
    // No role="alert": the run's summary is its one announcement, and it already names the problem.
    { class: `notice notice--${tone}` },
    el("p", { class: "notice__title", text: title }),
    text ? el("p", { class: "notice__text", text }) : null,
  );
}

export function formatDuration(ms) {
  if (!Number.isFinite(ms)) return "";
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}
