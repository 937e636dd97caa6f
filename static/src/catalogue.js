// The home page: track meters, and the filter applied as the learner types (the form still works without
// JavaScript: it is a GET form the server answers). Matching mirrors app.catalogue.CatalogueFilter.
import { initHistoryPage as drawMeters } from "./history.js";

export function initCataloguePage() {
  drawMeters();
  const form = document.getElementById("catalogue-filter");
  if (!form) return;
  const count = document.getElementById("filter-count");
  const fields = ["q", "tag", "difficulty"].map((name) => form.elements.namedItem(name));
  let timer = null;

  function apply() {
    const [q, tag, difficulty] = fields.map((field) => field.value.trim().toLowerCase());
    const words = q.split(/\s+/).filter(Boolean);
    const shown = new Set();
    for (const card of document.querySelectorAll(".problem-card[data-search]")) {
      const tags = card.dataset.tags ? card.dataset.tags.split("|") : [];
      const match =
        (!tag || tags.includes(tag)) &&
        (!difficulty || card.dataset.difficulty === difficulty) &&
        words.every((word) => card.dataset.search.includes(word));
      card.hidden = !match;
      if (match) shown.add(card.querySelector("a").getAttribute("href"));
    }
    const active = Boolean(q || tag || difficulty);
    for (const track of document.querySelectorAll(".track")) {
      const cards = track.querySelectorAll(".problem-card[data-search]");
      track.hidden = active && cards.length > 0 && [...cards].every((card) => card.hidden);
    }
    count.textContent = active ? `${shown.size} ${shown.size === 1 ? "problem matches" : "problems match"}.` : "";
    const query = new URLSearchParams(new FormData(form));
    for (const [name, value] of [...query]) if (!value) query.delete(name);
    history.replaceState(null, "", query.size ? `/?${query}` : "/");
  }

  form.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(apply, 150); // one update (and one announcement) per pause in typing
  });
}
