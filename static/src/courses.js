// Course pages (learners' and instructors'): due times in the reader's own zone, with the zone named; a countdown
// to each due time; a roster file read into the import form; the course's time zone guessed for a new course;
// and the deep-linking answer posted back to the LMS. Everything also works without JavaScript: times then show
// in the course's zone (or UTC), and the deep-linking page has a button.
const zoned = new Intl.DateTimeFormat(undefined, {
  weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit",
  timeZoneName: "short",
});

export function formatZoned(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : zoned.format(date);
}

// "2 days 4 hours", "3 hours 12 minutes", "12 minutes", "less than a minute": the two largest units.
export function describeSpan(ms) {
  const minutes = Math.floor(Math.abs(ms) / 60000);
  if (minutes < 1) return "less than a minute";
  const units = [["day", Math.floor(minutes / 1440)], ["hour", Math.floor(minutes / 60) % 24], ["minute", minutes % 60]];
  const parts = units.filter(([, n]) => n > 0).slice(0, 2).map(([name, n]) => `${n} ${name}${n === 1 ? "" : "s"}`);
  return parts.join(" ");
}

export function countdownText(dueIso, now = Date.now()) {
  const left = new Date(dueIso).getTime() - now;
  return left >= 0 ? `Due in ${describeSpan(left)}` : `Past due by ${describeSpan(left)}`;
}

function localiseZoned(root) {
  for (const element of root.querySelectorAll("time[data-zoned-time]")) {
    const iso = element.getAttribute("datetime");
    if (!iso) continue;
    element.title = iso;
    element.textContent = formatZoned(iso);
  }
}

function startCountdowns(root) {
  const countdowns = [...root.querySelectorAll("[data-countdown]")];
  if (!countdowns.length) return;
  const tick = () => {
    for (const element of countdowns) {
      const due = element.getAttribute("data-countdown");
      element.textContent = countdownText(due);
      element.classList.toggle("countdown--past", new Date(due).getTime() < Date.now());
    }
  };
  tick();
  setInterval(tick, 30_000); // minutes are the smallest unit shown
}

function readRosterFiles(root) {
  const input = root.querySelector("#roster-file");
  const area = root.querySelector("#roster-text");
  if (!input || !area) return;
  input.addEventListener("change", async () => {
    const file = input.files?.[0];
    if (file) area.value = await file.text();
  });
}

function guessTimeZone(root) {
  const field = root.querySelector("input[name='time_zone'][data-guess]");
  if (field && !field.value) field.value = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

function postBack(root) {
  const form = root.querySelector("form[data-autosubmit]");
  if (form) form.submit();
}

export function initCoursePages(root) {
  localiseZoned(root);
  startCountdowns(root);
  readRosterFiles(root);
  guessTimeZone(root);
  postBack(root);
}
