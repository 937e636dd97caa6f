// The problem page's panes as tabs. Wide screens: the editor is always on the right, and the left column shows
// the statement or the results. Narrow screens (one column): Statement / Code / Results, one at a time, so the
// editor is one tap away instead of under the whole statement. Tabs follow the ARIA pattern: arrow keys move
// between them, the selected one alone is in the tab order.
const NARROW = "(max-width: 1100px)";

export class Panes {
  /** `returning`: the learner has attempts here, so the page opens on their results (wide) or the editor
   * (narrow) rather than on the statement they have read. */
  constructor(layout, { returning = false } = {}) {
    this.layout = layout;
    this.tablist = layout.querySelector("#pane-tabs");
    this.tabs = [...this.tablist.querySelectorAll("[role='tab']")];
    this.panels = {
      statement: document.getElementById("statement-panel"),
      code: document.getElementById("workbench"),
      results: document.getElementById("results-panel"),
    };
    this.narrow = matchMedia(NARROW);
    this.current = returning ? "code" : "statement";
    this.left = returning ? "results" : "statement"; // what the left column shows on a wide screen
    this.tablist.hidden = false;
    layout.dataset.tabs = "on";
    for (const tab of this.tabs) tab.addEventListener("click", () => this.show(tab.dataset.pane, { focusTab: true }));
    this.tablist.addEventListener("keydown", (event) => this.onKey(event));
    this.narrow.addEventListener("change", () => this.apply());
    // "Skip the statement: go to the editor" leads to the Code tab on a narrow screen.
    layout.querySelector(".jump-to-editor")?.addEventListener("click", (event) => {
      if (!this.isNarrow()) return;
      event.preventDefault();
      this.show("code");
      document.querySelector("#editor .cm-content")?.focus();
    });
    this.panels.statement.setAttribute("role", "tabpanel");
    this.panels.results.setAttribute("role", "tabpanel");
    this.apply();
  }

  isNarrow() {
    return this.narrow.matches;
  }

  /** Shows a pane: "statement", "code" or "results" (on a wide screen "code" is always shown already). */
  show(name, { focusTab = false } = {}) {
    if (!this.panels[name]) return;
    this.current = name;
    if (name !== "code") this.left = name;
    this.apply();
    if (focusTab) this.tabFor(this.visiblePane())?.focus();
  }

  /** The pane the tabs show as selected. */
  visiblePane() {
    return this.isNarrow() ? this.current : this.left;
  }

  isShown(name) {
    return name === "code" ? this.isNarrow() ? this.current === "code" : true : this.visiblePane() === name;
  }

  tabFor(name) {
    return this.tabs.find((tab) => tab.dataset.pane === name);
  }

  apply() {
    const narrow = this.isNarrow();
    const pane = this.visiblePane();
    this.layout.dataset.pane = pane;
    this.layout.dataset.narrow = String(narrow);
    for (const tab of this.tabs) {
      const selected = tab.dataset.pane === pane;
      tab.setAttribute("aria-selected", String(selected));
      tab.tabIndex = selected ? 0 : -1;
    }
    // The editor's column is a tab's panel only where it is one of the tabs.
    if (narrow) {
      this.panels.code.setAttribute("role", "tabpanel");
      this.panels.code.setAttribute("aria-labelledby", "tab-code");
    } else {
      this.panels.code.removeAttribute("role");
      this.panels.code.removeAttribute("aria-labelledby");
    }
    dispatchEvent(new CustomEvent("paperlab:pane", { detail: { pane } }));
  }

  onKey(event) {
    const visible = this.tabs.filter((tab) => tab.offsetParent !== null);
    const index = visible.indexOf(document.activeElement);
    if (index < 0) return;
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: visible.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const tab = visible[(next + visible.length) % visible.length];
    this.show(tab.dataset.pane, { focusTab: true });
  }

  /** The Results tab's label: "Results · 3 failing" (on a phone "Results · 3", the word for screen readers). */
  setResultsCount(text) {
    const count = document.getElementById("results-count");
    if (!count) return;
    const [number, ...words] = (text || "").split(" ");
    const word = document.createElement("span");
    word.className = "pane-tabs__count-word";
    word.textContent = words.length ? ` ${words.join(" ")}` : "";
    count.replaceChildren(text ? ` · ${number}` : "", ...(words.length ? [word] : []));
  }
}
