// "Try it": a second, smaller editor for a script that calls the learner's functions on their own tensors.
// POST /api/problems/{slug}/runs runs the code then the script in the sandbox and answers with what was
// printed and, when it raised, where (in the code or in the script). Nothing is graded or recorded.
// Output is untrusted: it goes in as textContent.
import { createEditor } from "./editor.js";
import { RunError, parseRetryAfter } from "./run.js";
import { formatDuration } from "./verdicts.js";
import { el } from "./dom.js";

export function initScratch({ root, slug, getCode, goToCodeLine }) {
  if (!root) return;
  const mount = root.querySelector("#scratch-editor");
  const button = root.querySelector("#run-script");
  const output = root.querySelector("#scratch-output");
  const status = root.querySelector("#scratch-status");
  const example = root.querySelector("#scratch-example")?.value ?? "";
  const key = `paperlab:scratch:${slug}`;
  let running = false;

  const editor = createEditor(mount, {
    code: readSaved(key) ?? example,
    labelledBy: "scratch-label",
    describedBy: "scratch-help",
    onRun: () => runScript(),
    onChange: (script) => save(key, script),
  });
  button.addEventListener("click", () => runScript());

  async function runScript() {
    if (running) return;
    running = true;
    button.setAttribute("aria-disabled", "true");
    button.setAttribute("aria-busy", "true");
    status.textContent = "Running your script…";
    try {
      show(await post(slug, getCode(), editor.getCode()));
    } catch (error) {
      output.replaceChildren();
      status.textContent = error instanceof RunError ? error.message : "Something went wrong running your script.";
    } finally {
      running = false;
      button.setAttribute("aria-disabled", "false");
      button.setAttribute("aria-busy", "false");
    }
  }

  function show(result) {
    const parts = [];
    parts.push(el("p", { class: "scratch__label", text: "Printed" }));
    parts.push(el("pre", { class: "scratch__stdout", text: result.stdout || "(nothing)" }));
    const error = result.error;
    if (error) {
      const where = error.line ? ` on line ${error.line} of your ${error.where === "script" ? "script" : "code"}` : "";
      const title = error.kind === "exception" ? `${error.type}${where}` : error.kind === "limit" ? "Limit reached" : "Sandbox error";
      const box = el("div", { class: "notice notice--error scratch__error" }, el("p", { class: "notice__title", text: title }));
      box.append(el("pre", { class: "notice__message", text: result.stderr || error.message }));
      if (error.line) {
        const go = el("button", { type: "button", class: "btn btn--small", text: `Go to line ${error.line}` });
        go.addEventListener("click", () => (error.where === "script" ? editor.goToLine(error.line) : goToCodeLine(error.line)));
        box.append(go);
      }
      parts.push(box);
      status.textContent = `Your script stopped: ${title}, after ${formatDuration(result.duration_ms)}.`;
    } else {
      status.textContent = `Your script finished in ${formatDuration(result.duration_ms)}.`;
    }
    output.replaceChildren(...parts);
  }
}

async function post(slug, code, script) {
  let response;
  try {
    response = await fetch(`/api/problems/${encodeURIComponent(slug)}/runs`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ code, script }),
      credentials: "same-origin",
    });
  } catch {
    throw new RunError("Could not reach the server. Check your connection and try again.");
  }
  const body = await response.json().catch(() => ({}));
  if (response.ok) return body;
  const detail = typeof body.detail === "string" ? body.detail : `The server refused the script (HTTP ${response.status}).`;
  throw new RunError(detail, { status: response.status, retryAfter: parseRetryAfter(response.headers.get("Retry-After")) });
}

function readSaved(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function save(key, script) {
  try {
    localStorage.setItem(key, script);
  } catch {
    // storage disabled: the script lives as long as the page
  }
}
