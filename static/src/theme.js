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
  // The button names what a press does ("Light theme" while the page is dark), whether the page is dark by the
  // learner's choice or by the system's: a fixed "Dark theme" with a pressed state read, on a dark system with no
  // choice stored, as an offer to turn dark, and its first press turned the page light.
  const label = () => {
    const dark = currentTheme() === "dark";
    const next = dark ? "light" : "dark";
    button.dataset.current = dark ? "dark" : "light";
    const icon = document.createElement("span");
    icon.className = "theme-toggle__icon";
    icon.textContent = dark ? "☀" : "☾";
    icon.setAttribute("aria-hidden", "true");
    button.replaceChildren(icon, ` ${dark ? "Light" : "Dark"} theme`);
    button.setAttribute("aria-label", `Switch to the ${next} theme`);
    button.title = stored() ? `You chose the ${dark ? "dark" : "light"} theme` : `The ${dark ? "dark" : "light"} theme follows your system`;
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
