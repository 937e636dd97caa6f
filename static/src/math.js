// Renders the LaTeX the server left in statements and notes: <span class="math inline">TeX</span> and
// <div class="math display">TeX</div> (TeX HTML-escaped, so textContent is the source).
import katex from "katex";

// A displayed equation wider than its column scrolls sideways; a keyboard user can scroll it only if it takes the
// focus, so it does while (and only while) it is wider: on a phone most are, on a desktop few.
const scrollables = typeof ResizeObserver === "function"
  ? new ResizeObserver((entries) => entries.forEach((entry) => markScrollable(entry.target)))
  : null;

function markScrollable(element) {
  if (element.scrollWidth > element.clientWidth + 1) {
    element.tabIndex = 0;
    element.setAttribute("role", "region");
    element.setAttribute("aria-label", "Equation (scrolls sideways)");
  } else {
    element.removeAttribute("tabindex");
    element.removeAttribute("role");
    element.removeAttribute("aria-label");
  }
}

export function renderMath(root) {
  for (const element of root.querySelectorAll(".math.inline, .math.display")) {
    if (element.dataset.rendered) continue;
    const tex = element.textContent;
    try {
      katex.render(tex, element, {
        displayMode: element.classList.contains("display"),
        throwOnError: false, // a typo in a statement shows red TeX instead of breaking the page
        output: "htmlAndMathml", // MathML keeps formulas readable by screen readers
      });
    } catch (error) {
      // Not a parse error (those become .katex-error): keep the TeX readable and remember why.
      element.textContent = tex;
      element.dataset.mathError = String(error?.message ?? error);
    }
    element.dataset.rendered = "true";
    element.dataset.tex = tex;
    if (element.classList.contains("display")) scrollables?.observe(element);
  }
}

// What an author should fix in the rendered math under `root` (the author banner lists it): TeX KaTeX could
// not render, and displayed equations wider than their column (they scroll sideways on a narrow screen, or are
// cut off when printed). Call it after layout: widths are only known once the fonts are in.
export function mathIssues(root) {
  const issues = [];
  for (const element of root.querySelectorAll(".math.inline, .math.display")) {
    const tex = element.dataset.tex ?? element.textContent;
    const failed = element.querySelector(".katex-error");
    if (failed || element.dataset.mathError) {
      issues.push({ kind: "error", element, tex, message: failed?.getAttribute("title") || element.dataset.mathError });
    } else if (element.classList.contains("display") && element.scrollWidth > element.clientWidth + 1) {
      issues.push({ kind: "overflow", element, tex, message: `${element.scrollWidth} px wide in a ${element.clientWidth} px column` });
    }
  }
  return issues;
}
