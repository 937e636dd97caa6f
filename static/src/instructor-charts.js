// Bar charts (uPlot) on the instructor's problem page. Each chart draws the table below it: every row carries
// data-check (the bar's label) and data-share (its height), so the numbers a chart shows are the table's.
// Colours come from the theme (read again when it changes); the bars can be read with the arrow keys as well
// as by hovering: the plot is a slider over the bars, its value the bar's label and number.
import uPlot from "uplot";
import { el } from "./dom.js";

const HEIGHT = 200;
// Rank ticks: whole numbers, and fewer of them when twenty bars do not leave room for each (with only [1], uPlot
// found no spacing that fit and drew no tick labels at all on the first, fullest chart).
const RANK_INCREMENTS = [1, 2, 5, 10, 20];
const IDLE = "hover a bar, or focus the chart and use the arrow keys";
const MOST_BARS = 20; // the worst twenty; the table holds the rest
const CHARTS = {
  checks: { table: "check-table", title: "Share of attempts failing each check", percent: true, colour: "#b42318" },
  first: { table: "first-table", title: "First failing check, share of attempts", percent: true, colour: "#3446c9" },
  diagnoses: { table: "diagnosis-table", title: "Times each known mistake was diagnosed", percent: false, colour: "#8a4b00" },
};

/** Rows of `table` as {label, value}, in table order (worst first), at most MOST_BARS. */
export function readBars(table) {
  return [...(table?.querySelectorAll("tbody tr[data-share]") ?? [])]
    .slice(0, MOST_BARS)
    .map((row) => ({ label: row.dataset.check, value: Number(row.dataset.share) }))
    .filter((bar) => Number.isFinite(bar.value));
}

export function initInstructorCharts() {
  let drawn = 0;
  for (const slot of document.querySelectorAll(".bar-chart[data-chart]")) {
    const spec = CHARTS[slot.dataset.chart];
    const bars = spec ? readBars(document.getElementById(spec.table)) : [];
    if (!bars.length) {
      slot.remove(); // the table says "nothing yet"; an empty chart would only repeat it
      continue;
    }
    drawBars(slot, spec, bars);
    drawn += 1;
  }
  return drawn;
}

function drawBars(slot, spec, bars) {
  const format = (v) => (spec.percent ? `${(100 * v).toFixed(1)}%` : String(v));
  const readout = el("span", { class: "chart__readout", text: IDLE });
  const plotBox = el("div", { class: "chart__plot chart__plot--bars", tabindex: "0", role: "slider",
    "aria-label": `${spec.title}, bar by bar`, "aria-valuemin": "1", "aria-valuemax": String(bars.length),
    "aria-valuenow": "1", "aria-valuetext": `${bars[0].label}: ${format(bars[0].value)}` });
  slot.replaceChildren(
    el("figure", { class: "chart__figure" },
      el("figcaption", { class: "chart__caption" }, el("span", { class: "chart__title", text: spec.title }), readout),
      plotBox),
  );
  const xs = bars.map((_, i) => i + 1);
  const width = () => Math.max(240, Math.floor(plotBox.clientWidth || slot.clientWidth || 480));
  const plot = new uPlot(
    {
      width: width(),
      height: HEIGHT,
      legend: { show: false },
      scales: { x: { time: false, range: [0.4, bars.length + 0.6] }, y: { range: (u, min, max) => [0, spec.percent ? Math.max(max, 0.05) * 1.1 : max * 1.1 + 1] } },
      axes: [
        { label: "rank in the table below", stroke: () => cssColour("--chart-axis"), grid: { show: false },
          ticks: { stroke: () => cssColour("--chart-tick") }, incrs: RANK_INCREMENTS,
          values: (u, splits) => splits.map((v) => (Number.isInteger(v) ? String(v) : "")) },
        { stroke: () => cssColour("--chart-axis"), grid: { stroke: () => cssColour("--chart-grid") },
          ticks: { stroke: () => cssColour("--chart-tick") }, size: 60, values: (u, splits) => splits.map(format) },
      ],
      hooks: {
        setCursor: [
          (u) => {
            const i = u.cursor.idx;
            if (i === null || i === undefined) {
              readout.textContent = IDLE;
              return;
            }
            readout.textContent = `${i + 1}. ${bars[i].label}: ${format(bars[i].value)}`;
            plotBox.setAttribute("aria-valuenow", String(i + 1));
            plotBox.setAttribute("aria-valuetext", `${bars[i].label}: ${format(bars[i].value)}`);
          },
        ],
      },
      series: [
        {},
        { label: spec.title, fill: spec.colour, stroke: spec.colour, paths: uPlot.paths.bars({ size: [0.7, 48] }), points: { show: false } },
      ],
    },
    [xs, bars.map((bar) => bar.value)],
    plotBox,
  );
  new ResizeObserver(() => {
    const next = width();
    if (Math.abs(next - plot.width) > 2) plot.setSize({ width: next, height: HEIGHT });
  }).observe(plotBox);
  slot.paperlabChart = plot; // for tests (and curious people): the uPlot instance
  addEventListener("paperlab:theme", () => plot.redraw(false, true));
  let current = 0;
  const point = (i) => {
    current = Math.max(0, Math.min(bars.length - 1, i));
    plot.setCursor({ left: plot.valToPos(current + 1, "x"), top: plot.valToPos(bars[current].value, "y") });
  };
  plotBox.addEventListener("focus", () => point(current));
  plotBox.addEventListener("blur", () => plot.setCursor({ left: -10, top: -10 }));
  plotBox.addEventListener("keydown", (event) => {
    const to = { ArrowRight: current + 1, ArrowDown: current + 1, ArrowLeft: current - 1, ArrowUp: current - 1,
      Home: 0, End: bars.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    point(to);
  });
}

function cssColour(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#4b5563";
}
