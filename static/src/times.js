// Shows <time data-local-time datetime="ISO"> elements in the reader's own time zone and locale.
const format = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

export function formatTime(iso) {
  const date = new Date(normaliseIso(iso));
  return Number.isNaN(date.getTime()) ? iso : format.format(date);
}

export function localiseTimes(root) {
  for (const element of root.querySelectorAll("time[data-local-time]")) {
    const iso = element.getAttribute("datetime");
    if (!iso) continue;
    element.title = iso;
    element.textContent = formatTime(iso);
  }
}

// Python's str(datetime) uses a space between date and time and may carry microseconds; Date wants "T"
// and at most milliseconds. A time without zone is the server's UTC.
function normaliseIso(iso) {
  let value = iso.trim().replace(" ", "T").replace(/(\.\d{3})\d+/, "$1");
  if (/T\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(value)) value += "Z";
  return value;
}
