// Line charts (uPlot) of an experiment's series over its steps: {steps: [int], series: {name: [float]}}.
import uPlot from "uplot";
import { el } from "./dom.js";

// Known series get a readable title and a colour; any other name is drawn with its own name.
const SERIES = {
  loss: { title: "Contrastive loss", label: "loss", colour: "#3d5afe" },
  param_distance: { title: "Key encoder distance from the query encoder", label: "‖θk − θq‖", colour: "#c2410c" },
  pointer: { title: "Queue pointer", label: "pointer", colour: "#0f766e" },
};
const FALLBACK_COLOURS = ["#7c3aed", "#be123c", "#4d7c0f"];
const HEIGHT = 220;

/** Parses a <script type="application/json"> block; null when empty or malformed. */
export function readExperimentJson(script) {
  try {
    const value = JSON.parse(script.textContent || "null");
    return value && Array.isArray(value.steps) && value.series ? value : null;
  } catch {
    return null;
  }
}

/**
 * Draws the experiment into `container`. With `placeholders`, first fills every
 * <div class="chart" data-series="NAME"> in the document; when there are none, draws all series in
 * `container`. Returns the number of charts drawn.
 */
export function drawExperiment(container, experiment, { placeholders = false } = {}) {
  if (!experiment) {
    if (container?.dataset.emptyMessage) {
      container.replaceChildren(el("p", { class: "charts__empty", text: container.dataset.emptyMessage }));
    }
    return 0;
  }
  const slots = placeholders ? [...document.querySelectorAll(".chart[data-series]")] : [];
  if (slots.length) {
    let drawn = 0;
    for (const slot of slots) drawn += drawChart(slot, experiment, slot.dataset.series) ? 1 : 0;
    container?.remove();
    return drawn;
  }
  if (!container) return 0;
  container.replaceChildren(el("h2", { class: "charts__heading", text: "Your experiment" }));
  container.hidden = false;
  let drawn = 0;
  for (const name of Object.keys(experiment.series)) {
    const slot = el("div", { class: "chart", dataset: { series: name } });
    container.append(slot);
    drawn += drawChart(slot, experiment, name) ? 1 : 0;
  }
  return drawn;
}

// Ticks on a horizontal axis that counts steps: whole numbers only (a phone's narrow chart chose 0.5 steps).
const WHOLE_INCREMENTS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000, 20000, 50000, 100000];

function drawChart(slot, experiment, name) {
  const values = experiment.series[name];
  const known = SERIES[name] ?? {
    title: name.replaceAll("_", " "),
    label: name,
    colour: FALLBACK_COLOURS[name.length % FALLBACK_COLOURS.length],
  };
  const finite = Array.isArray(values) ? values.filter(Number.isFinite) : [];
  const xLabel = experiment.x_label || "step"; // what the horizontal axis counts: a step, a rank, a distance
  if (finite.length < 2) {
    // One point is no curve: a run that failed before its experiment recorded a second step drew a lone dot at
    // step 0 on an axis running to 100. Say what there is instead.
    const only = finite.length === 1 ? ` (only ${formatValue(finite[0])} at ${xLabel} ${experiment.steps[0] ?? 0})` : "";
    slot.replaceChildren(el("p", { class: "charts__empty", dataset: { emptySeries: name },
      text: `${known.title}: not enough data for a curve${only}. The run stopped before the experiment got going.` }));
    return false;
  }
  const steps = experiment.steps.length === values.length ? experiment.steps : values.map((_, i) => i);
  const wholeSteps = steps.every(Number.isInteger);
  const plotBox = el("div", { class: "chart__plot" });
  // A readout instead of uPlot's legend: the final value at rest, the value under the pointer on hover.
  const last = values.length - 1;
  const idle = `final ${formatValue(values[last])} at ${xLabel} ${steps[last]}`;
  const readout = el("span", { class: "chart__readout", text: idle });
  const figure = el(
    "figure",
    { class: "chart__figure" },
    el("figcaption", { class: "chart__caption" }, el("span", { class: "chart__title", text: known.title }), readout),
    plotBox,
  );
  // The canvas is an image with a one-line description; the numbers themselves are in a table below it.
  plotBox.setAttribute("role", "img");
  plotBox.setAttribute("aria-label", `${known.title}: ${describe(values, steps, xLabel)}`);
  figure.append(dataTable(known, steps, values, xLabel));
  slot.replaceChildren(figure);

  const width = () => Math.max(240, Math.floor(plotBox.clientWidth || slot.clientWidth || 480));
  const plot = new uPlot(
    {
      width: width(),
      height: HEIGHT,
      legend: { show: false },
      hooks: {
        setCursor: [
          (u) => {
            const i = u.cursor.idx;
            readout.textContent = i === null || i === undefined ? idle : `${xLabel} ${steps[i]}: ${formatValue(values[i])}`;
          },
        ],
      },
      cursor: { drag: { x: true, y: false } },
      scales: { x: { time: false, range: (u, min, max) => [min, max] }, y: { range: valueRange } },
      // Colours come from the theme's custom properties, read again whenever the chart is redrawn.
      axes: [
        { label: xLabel, stroke: () => cssColour("--chart-axis"), grid: { stroke: () => cssColour("--chart-grid") },
          ticks: { stroke: () => cssColour("--chart-tick") },
          ...(wholeSteps ? { incrs: WHOLE_INCREMENTS, values: (u, splits) => splits.map((v) => (Number.isInteger(v) ? String(v) : "")) } : {}) },
        { stroke: () => cssColour("--chart-axis"), grid: { stroke: () => cssColour("--chart-grid") },
          ticks: { stroke: () => cssColour("--chart-tick") }, size: 56, values: (u, splits) => valueTicks(splits) },
      ],
      series: [
        { label: xLabel },
        { label: known.label, stroke: known.colour, width: 2, points: { show: values.length <= 20 } },
      ],
    },
    [steps, values],
    plotBox,
  );
  slot.paperlabChart = plot; // for tests (and curious people): the uPlot instance
  addEventListener("paperlab:theme", () => plot.setSize({ width: width(), height: HEIGHT }));
  new ResizeObserver(() => {
    const next = width();
    if (Math.abs(next - plot.width) > 2) plot.setSize({ width: next, height: HEIGHT });
  }).observe(plotBox);
  return true;
}

// uPlot pads a flat series of zeros to 0..100, which reads as a scale the data never reached: a flat series gets a
// small span around its value instead (a gap that is exactly 0 at every step shows as a line at 0 of -1..1).
function valueRange(u, min, max) {
  if (min === null || max === null) return [min, max];
  if (min === max) {
    const half = Math.abs(min) > 0 ? Math.abs(min) * 0.1 : 1;
    return [min - half, max + half];
  }
  return uPlot.rangeNum(min, max, 0.1, true);
}

// uPlot's own labels keep a few decimals, so an error curve near 1e-7 read "0" at every tick. Tiny and huge
// ranges get exponents with the fewest digits that still tell the ticks apart; others keep uPlot's format.
export function valueTicks(splits) {
  const largest = Math.max(0, ...splits.map((v) => Math.abs(v)));
  if (largest === 0 || (largest >= 0.01 && largest < 1e6)) return splits.map((v) => uPlot.fmtNum(v));
  for (let digits = 0; digits < 6; digits++) {
    const labels = splits.map((v) => (v === 0 ? "0" : v.toExponential(digits)));
    if (new Set(labels).size === labels.length) return labels;
  }
  return splits.map((v) => (v === 0 ? "0" : v.toExponential(6)));
}

function formatValue(x) {
  if (!Number.isFinite(x)) return String(x);
  if (Number.isInteger(x)) return String(x);
  return Math.abs(x) >= 1e4 || Math.abs(x) < 1e-3 ? x.toExponential(3) : x.toPrecision(4);
}

// A one-line text equivalent for screen readers: range of steps and first/last/min/max values.
function describe(values, steps, xLabel) {
  const fmt = formatValue;
  const finite = values.filter(Number.isFinite);
  if (!finite.length) return "no finite values";
  return (
    `${values.length} points over ${xLabel} ${steps[0]}–${steps[steps.length - 1]}, ` +
    `from ${fmt(values[0])} to ${fmt(values[values.length - 1])}, ` +
    `min ${fmt(Math.min(...finite))}, max ${fmt(Math.max(...finite))}`
  );
}

function cssColour(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#4b5563";
}

// "Show data": every point as a row, for screen readers and for anyone who wants the numbers.
function dataTable(known, steps, values, xLabel) {
  const rows = values.map((value, i) => el("tr", {}, el("td", { text: String(steps[i]) }), el("td", { text: formatValue(value) })));
  const table = el(
    "table",
    { class: "chart__table" },
    el("caption", { class: "visually-hidden", text: `${known.title}, by ${xLabel}` }),
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: xLabel }), el("th", { scope: "col", text: known.label }))),
    el("tbody", {}, rows),
  );
  return el(
    "details",
    { class: "chart__data" },
    el("summary", { text: "Show data" }),
    el("div", { class: "chart__data-wrap", tabindex: "0", role: "region", "aria-label": `${known.title} data` }, table),
  );
}
