// Entry point: finds out which page this is (body[data-page]) and wires up only what that page needs.
// Heavy modules (CodeMirror, KaTeX, uPlot) are imported lazily, so esbuild splits them into chunks
// that only the pages using them download.
import { localiseTimes } from "./times.js";
import { initThemeToggle } from "./theme.js";

initThemeToggle(); // first, before anything draws: the stored choice overrides the system's

const pages = {
  problem: async () => (await import("./problem-page.js")).initProblemPage(),
  notes: () => drawExperimentFromPage(document.getElementById("notes-charts"), { placeholders: true }),
  submission: async () => {
    const id = document.getElementById("submission-extras")?.dataset.submissionId;
    if (id && !location.pathname.startsWith("/instructor")) {
      const reported = new Set([...document.querySelectorAll(".check-report[data-check-id]")].map((n) => n.dataset.checkId));
      (await import("./report-check.js")).attachCheckReports(document.querySelector(".submission__verdict"), id, reported);
    }
    await drawExperimentFromPage(document.getElementById("charts"), { placeholders: false });
  },
  history: async () => (await import("./history.js")).initHistoryPage(),
  index: async () => (await import("./catalogue.js")).initCataloguePage(),
  continue: async () => (await import("./device-links.js")).initDeviceLinks(),
  "instructor-problem": async () => (await import("./instructor-charts.js")).initInstructorCharts(),
  courses: async () => (await import("./courses.js")).initCoursePages(document),
};

async function renderMathIfAny() {
  if (!document.querySelector(".math")) return;
  const { renderMath } = await import("./math.js");
  renderMath(document);
}

// Author mode only: the banner's self-test, and the page's TeX errors and too-wide equations, measured once the
// math is laid out in its final fonts.
async function initAuthorBannerIfAny(mathRendered) {
  const banner = document.getElementById("author-banner");
  if (!banner) return;
  const { initAuthorBanner, showMathIssues } = await import("./author.js");
  initAuthorBanner(banner);
  await mathRendered;
  if (!document.querySelector(".math")) return;
  await document.fonts?.ready;
  await new Promise((resolve) => requestAnimationFrame(() => resolve()));
  const { mathIssues } = await import("./math.js");
  showMathIssues(banner, mathIssues(document));
}

async function drawExperimentFromPage(container, options) {
  const data = document.getElementById("experiment-data");
  if (!container || !data) return;
  const { drawExperiment, readExperimentJson } = await import("./charts.js");
  drawExperiment(container, readExperimentJson(data), options);
}

async function start() {
  localiseTimes(document);
  const page = document.body.dataset.page;
  const mathRendered = renderMathIfAny();
  await Promise.all([mathRendered, pages[page]?.(), initAuthorBannerIfAny(mathRendered)]);
  document.documentElement.dataset.ready = "true"; // lets tests (and curious people) know the page is wired
}

start().catch((error) => {
  document.documentElement.dataset.ready = "error";
  console.error("PaperLab: page set-up failed", error);
});
