// Light or dark: the system's choice (prefers-color-scheme) unless the learner picked one with the toggle,
// which is stored in this browser. The choice is html[data-theme]; styles.css does the rest. Charts redraw
// on the "paperlab:theme" event, since canvas colours are read once per drawing.
const KEY = "paperlab:theme";

function stored() {
  try {
    const value = localStorage.getItem(KEY);
    return value === "light" || value === "dark" ? value : null;
  } catch {
    return null;
  }
}

export function currentTheme() {
  const chosen = document.documentElement.dataset.theme;
  if (chosen === "light" || chosen === "dark") return chosen;
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

export function initThemeToggle() {
  const choice = stored();
  if (choice) document.documentElement.dataset.theme = choice;
  const button = document.getElementById("theme-toggle");
  if (!button) return;
  const label = () => {
    // One fixed name, its state in aria-pressed: "Dark theme, pressed" reads right; a name that flips does not.
    button.setAttribute("aria-pressed", String(currentTheme() === "dark"));
  };
  button.hidden = false;
  label();
  button.addEventListener("click", () => {
    const next = currentTheme() === "dark" ? "light" : "dark";
    document.documentElement.dataset.theme = next;
    try {
      localStorage.setItem(KEY, next);
    } catch {
      // storage disabled: the choice lasts as long as the page
    }
    label();
    dispatchEvent(new Event("paperlab:theme"));
  });
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
    label();
    dispatchEvent(new Event("paperlab:theme"));
  });
}
