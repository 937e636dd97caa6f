// Attempts table: draw each row's "checks passed" meter (widths come from data-fraction, not inline styles).
export function initHistoryPage() {
  for (const bar of document.querySelectorAll(".meter__bar[data-fraction]")) {
    const fraction = Math.min(1, Math.max(0, Number(bar.dataset.fraction) || 0));
    bar.style.width = `${(fraction * 100).toFixed(1)}%`;
    if (fraction >= 1) bar.classList.add("meter__bar--full");
  }
}
