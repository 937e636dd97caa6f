// The results pane's tools: "Failures only" (hides passed and skipped checks and the groups with nothing to fix)
// and next / previous failure: the buttons, F8 / Shift+F8 anywhere on the page (as in code editors), and n / p
// while the focus is in the pane (one-letter keys only there, so typing elsewhere never triggers them).
const ONLY_KEY = "paperlab:failures-only";

export function initResultsTools({ panel, panes, root }) {
  const tools = root.querySelector("#verdict-tools");
  const only = root.querySelector("#failures-only");
  const verdicts = root.querySelector("#verdicts");
  if (!tools || !only || !verdicts) return;
  tools.hidden = false;
  only.checked = readOnly();
  const apply = () => verdicts.classList.toggle("verdicts--failures-only", only.checked);
  apply();
  only.addEventListener("change", () => {
    apply();
    try {
      localStorage.setItem(ONLY_KEY, only.checked ? "1" : "0");
    } catch {
      // storage disabled: the choice lasts as long as the page
    }
  });
  root.querySelector("#next-failure")?.addEventListener("click", () => go(1));
  root.querySelector("#previous-failure")?.addEventListener("click", () => go(-1));

  function go(direction) {
    if (!panel.goToFailure(direction)) panel.summary.focus();
  }

  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "F8") {
      event.preventDefault();
      go(event.shiftKey ? -1 : 1);
      return;
    }
    const inPane = root.contains(document.activeElement) && panes.isShown("results");
    const typing = document.activeElement?.closest?.("textarea, input, select, [contenteditable='true']");
    if (!inPane || typing || event.shiftKey) return;
    if (event.key === "n" || event.key === "p") {
      event.preventDefault();
      go(event.key === "n" ? 1 : -1);
    }
  });
}

function readOnly() {
  try {
    return localStorage.getItem(ONLY_KEY) === "1";
  } catch {
    return false;
  }
}
