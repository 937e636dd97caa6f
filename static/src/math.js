// Renders the LaTeX the server left in statements and notes: <span class="math inline">TeX</span> and
// <div class="math display">TeX</div> (TeX HTML-escaped, so textContent is the source).
import katex from "katex";

export function renderMath(root) {
  for (const element of root.querySelectorAll(".math.inline, .math.display")) {
    if (element.dataset.rendered) continue;
    const tex = element.textContent;
    katex.render(tex, element, {
      displayMode: element.classList.contains("display"),
      throwOnError: false, // a typo in a statement shows red TeX instead of breaking the page
      output: "htmlAndMathml", // MathML keeps formulas readable by screen readers
    });
    element.dataset.rendered = "true";
    element.dataset.tex = tex;
  }
}
