// The author banner (author mode only; templates/base.html): the problem's self-test, kept current by the server
// (GET /api/author/selftest/SLUG reruns it when the folder's files change), and the TeX problems of this page.
import { el } from "./dom.js";
import { formatTime } from "./times.js";

const POLL_BUSY_MS = 1500; // while a run is under way or due
const POLL_IDLE_MS = 4000; // otherwise: a save starts a run the banner should show soon

/**
 * Reloads the page within a second of a save in the problem's folder (GET /api/author/events/SLUG sends
 * `changed` once the server has reloaded the problem), so an edit to the statement shows without a reload key.
 */
export function initLiveReload(banner) {
  const url = banner.dataset.eventsUrl;
  if (!url || typeof EventSource !== "function") return null;
  const source = new EventSource(url);
  source.addEventListener("changed", () => {
    source.close();
    banner.dataset.reloading = "true";
    location.reload();
  });
  addEventListener("pagehide", () => source.close());
  return source;
}

export function initAuthorBanner(banner) {
  initLiveReload(banner);
  const url = banner.dataset.selftestUrl;
  const box = banner.querySelector(".author-banner__selftest");
  if (!url || !box) return;
  let shownRuns = -1;
  let shownBusy = null;
  const poll = async () => {
    let status = null;
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" } });
      if (response.ok) status = await response.json();
    } catch {
      // the server is restarting: try again at the next tick
    }
    if (status) {
      const busy = status.running || status.queued;
      if (status.runs !== shownRuns || busy !== shownBusy) {
        box.replaceChildren(...renderSelftest(status));
        banner.dataset.selftest = status.result ? (status.result.sound ? "sound" : "unsound") : "none";
        banner.dataset.selftestBusy = String(busy);
        shownRuns = status.runs;
        shownBusy = busy;
      }
    }
    setTimeout(poll, status && (status.running || status.queued) ? POLL_BUSY_MS : POLL_IDLE_MS);
  };
  poll();
}

function renderSelftest(status) {
  const { result } = status;
  const when = status.finished_at ? ` (${formatTime(status.finished_at)})` : "";
  const busy = status.running ? "running…" : status.queued ? "about to run…" : "";
  const head = el("p", { class: "author-selftest__head" }, el("strong", { text: `Self-test of ${status.slug}: ` }));
  if (result) {
    head.append(el("span", { class: `author-selftest__verdict author-selftest__verdict--${result.sound ? "sound" : "unsound"}`,
      text: result.sound ? "sound" : "NOT sound" }), `, last result${when}`);
    if (busy) head.append(` · ${busy}`);
  } else {
    head.append(busy || "no result yet");
  }
  const parts = [head];
  if (status.error) parts.push(el("pre", { class: "author-selftest__error", text: status.error }));
  if (!result) return parts;
  if (result.failures.length) {
    parts.push(el("ul", { class: "author-selftest__failures" },
      result.failures.map((failure) => el("li", { text: failure.split("\n")[0] }))));
  }
  parts.push(clauseTable(result), mutantTable(result));
  return parts;
}

function clauseTable(result) {
  const tested = result.clauses.filter((clause) => clause.required.length).length;
  const summary = result.clauses.length
    ? `Contract: ${tested}/${result.clauses.length} clauses tested by a required check`
    : "Contract: no [[clauses]] in problem.toml";
  return el("details", { class: "author-selftest__clauses", open: tested < result.clauses.length },
    el("summary", { text: summary }),
    el("table", {},
      el("thead", {}, el("tr", {}, ["clause", "required checks", "advisory checks"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, result.clauses.map((clause) => el("tr", { class: clause.required.length ? "" : "author-selftest__bad" },
        el("td", { title: clause.text }, el("code", { text: clause.id })),
        el("td", { text: clause.required.join(", ") || "NONE" }),
        el("td", { text: clause.advisory.join(", ") || "-" }))))));
}

function mutantTable(result) {
  const caught = result.mutants.filter((mutant) => mutant.caught).length;
  return el("details", { class: "author-selftest__mutants", open: caught < result.mutants.length },
    el("summary", { text: `Mutants: ${caught}/${result.mutants.length} caught` }),
    el("table", {},
      el("thead", {}, el("tr", {}, ["mutant", "first required check to catch it", "checks failed"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, result.mutants.map((mutant) => el("tr", { class: mutant.caught ? "" : "author-selftest__bad" },
        el("td", {}, el("code", { text: mutant.name })),
        el("td", { text: mutant.caught ? mutant.caught_by : `NOT CAUGHT${mutant.trouble ? `: ${mutant.trouble.split(";")[0]}` : ""}` }),
        el("td", { text: String(mutant.failed_checks) }))))));
}

// issues: from math.js's mathIssues(); each gets an anchor on its equation and a link in the banner.
export function showMathIssues(banner, issues) {
  const box = banner.querySelector(".author-banner__math");
  if (!box) return;
  if (!issues.length) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const items = issues.map((issue, index) => {
    const id = `author-math-${index + 1}`;
    issue.element.id ||= id;
    issue.element.classList.add("author-math-flag", `author-math-flag--${issue.kind}`);
    const what = issue.kind === "error" ? "TeX error" : "equation wider than its column";
    const tex = issue.tex.length > 60 ? `${issue.tex.slice(0, 57)}…` : issue.tex;
    const link = el("a", { href: `#${issue.element.id}`, class: "author-math__link" }, `${what}: `, el("code", { text: tex.trim() }));
    link.addEventListener("click", (event) => {
      event.preventDefault();
      issue.element.scrollIntoView({ block: "center" });
      issue.element.focus?.({ preventScroll: true });
    });
    return el("li", { dataset: { mathIssue: issue.kind } }, link, issue.message ? ` (${issue.message})` : "");
  });
  box.replaceChildren(el("p", { text: `${issues.length} math problem(s) on this page:` }), el("ul", {}, items));
  box.hidden = false;
}
