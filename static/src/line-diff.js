// Which lines of `current` differ from `base`: the editor marks them ("edited since the last run"). Common
// lines at both ends are skipped first; the middle is matched by a longest common subsequence of lines, which a
// learner's file (a few hundred lines) keeps small. A middle too large to match is marked changed whole.
const MAX_CELLS = 4_000_000;

/**
 * Returns {changed: Set of 1-based line numbers in `current` that are new or edited, removedBefore: Set of
 * 1-based line numbers in `current` before which base lines were removed (current.length + 1: at the end)}.
 */
export function changedLines(base, current) {
  const a = base.split("\n");
  const b = current.split("\n");
  const changed = new Set();
  const removedBefore = new Set();
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const n = endA - start;
  const m = endB - start;
  if (n === 0 && m === 0) return { changed, removedBefore };
  if (n * m > MAX_CELLS || n === 0 || m === 0) {
    for (let j = start; j < endB; j += 1) changed.add(j + 1);
    if (n > 0 && m === 0) removedBefore.add(start + 1);
    return { changed, removedBefore };
  }
  // lengths[i][j]: LCS of a[start+i..endA) and b[start+j..endB)
  const lengths = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      lengths[i][j] = a[start + i] === b[start + j] ? lengths[i + 1][j + 1] + 1
        : Math.max(lengths[i + 1][j], lengths[i][j + 1]);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[start + i] === b[start + j]) {
      i += 1;
      j += 1;
    } else if (j < m && (i === n || lengths[i][j + 1] >= lengths[i + 1][j])) {
      changed.add(start + j + 1);
      j += 1;
    } else {
      removedBefore.add(start + j + 1);
      i += 1;
    }
  }
  return { changed, removedBefore };
}
