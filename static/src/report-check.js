// "Report this check": under every failed check of a finished attempt, a small form that sends the learner's
// note to the instructor (POST /api/submissions/{id}/check-reports). The reply shows on the attempt's page.
import { el } from "./dom.js";

const MAX_CHARS = 1000;

/**
 * Adds the form to each failed check row under `root` (once per row), for the attempt `submissionId`; not to
 * the checks in `reported` (ids this learner already reported on this attempt).
 */
export function attachCheckReports(root, submissionId, reported = new Set()) {
  if (!root || !submissionId) return 0;
  let added = 0;
  for (const row of root.querySelectorAll("li.check--failed[data-check-id], li.check--error[data-check-id]")) {
    const body = row.querySelector(".check__body");
    if (!body || body.querySelector(".report-check") || reported.has(row.dataset.checkId)) continue;
    body.append(reportForm(submissionId, row.dataset.checkId));
    added += 1;
  }
  return added;
}

function reportForm(submissionId, checkId) {
  const text = el("textarea", { name: "text", rows: "2", maxlength: String(MAX_CHARS), required: true,
    "aria-label": `What seems wrong with ${checkId}` });
  const status = el("p", { class: "report-check__status", role: "status" });
  const button = el("button", { class: "btn btn--small", type: "submit", text: "Send to the instructor" });
  const form = el("form", {}, text, button, status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    status.textContent = "Sending…";
    try {
      const response = await fetch(`/api/submissions/${encodeURIComponent(submissionId)}/check-reports`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ check_id: checkId, text: text.value }),
      });
      if (response.ok) {
        form.replaceChildren(el("p", { class: "report-check__status", role: "status",
          text: "Sent. Your instructor's reply will show on this attempt's page." }));
        return;
      }
      const body = await response.json().catch(() => ({}));
      status.textContent = typeof body.detail === "string" ? body.detail : `Not sent (HTTP ${response.status}).`;
    } catch {
      status.textContent = "Not sent: the server could not be reached.";
    }
    button.disabled = false;
  });
  // A button that reveals the form, not a nested <details>: a check row is one <details> already.
  const panel = el("div", { class: "report-check__panel", hidden: true },
    el("p", { class: "report-check__status", text: "Is this check wrong or its message unclear? Tell your instructor." }),
    form);
  const toggle = el("button", { class: "report-check__toggle", type: "button", "aria-expanded": "false",
    text: "Report this check" });
  toggle.addEventListener("click", () => {
    panel.hidden = !panel.hidden;
    toggle.setAttribute("aria-expanded", String(!panel.hidden));
    if (!panel.hidden) text.focus();
  });
  return el("div", { class: "report-check" }, toggle, panel);
}
