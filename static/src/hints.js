// Progressive hints under the statement: the server renders what is unlocked; this opens a locked hint on
// request (after the learner confirms) and refreshes the list after every run, since failed attempts
// unlock hints too. The text comes from the server only once unlocked, and goes in as textContent.
import { el } from "./dom.js";

export function initHints(section) {
  if (!section) return { refresh: async () => {} };
  const slug = section.dataset.slug;
  const list = section.querySelector(".hints__list");
  const base = `/api/problems/${encodeURIComponent(slug)}/hints`;

  section.addEventListener("click", async (event) => {
    const button = event.target.closest(".hint__open");
    if (!button) return;
    const number = Number(button.dataset.index) + 1;
    if (!confirm(`Show hint ${number} now? It is recorded that you opened it before your attempts unlocked it.`)) {
      return;
    }
    button.setAttribute("aria-disabled", "true");
    const hints = await request(`${base}/${button.dataset.index}/unlock`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ confirm: true }),
    });
    if (hints) {
      render(hints);
      list.querySelector(`.hint[data-index="${button.dataset.index}"] .hint__text`)?.focus();
    } else {
      button.removeAttribute("aria-disabled");
    }
  });

  function render(hints) {
    list.replaceChildren(...hints.map((hint, i) => item(hint, i === 0 || hints[i - 1].unlocked)));
  }

  return {
    async refresh() {
      const hints = await request(base, { headers: { Accept: "application/json" } });
      if (hints) render(hints);
    },
  };
}

async function request(url, options) {
  try {
    const response = await fetch(url, { credentials: "same-origin", ...options });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

function item(hint, canOpen) {
  const label = `Hint ${hint.index + 1}`;
  const body = hint.unlocked
    ? el("p", { class: "hint__text", tabindex: "-1" }, el("span", { class: "hint__label", text: `${label}.` }), ` ${hint.text}`)
    : el(
        "p",
        { class: "hint__locked" },
        el("span", { class: "hint__label", text: label }),
        ` opens after ${hint.unlocks_after} failed ${hint.unlocks_after === 1 ? "attempt" : "attempts"}.`,
        canOpen
          ? el("button", {
              type: "button",
              class: "btn btn--small btn--quiet hint__open",
              dataset: { index: String(hint.index) },
              text: `Show hint ${hint.index + 1} now`,
            })
          : null,
      );
  return el("li", { class: `hint hint--${hint.unlocked ? "open" : "locked"}`, dataset: { index: String(hint.index) } }, body);
}
