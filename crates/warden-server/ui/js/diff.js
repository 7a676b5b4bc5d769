// A line diff with context, for a file edit's approval card: the file as
// it was when approval was asked for against what the edit makes of it,
// so the approver sees the lines lost (-) as well as those added (+).
// The terminal card draws the same diff (crates/warden/src/edit_diff.rs).

const CONTEXT = 3;
const MAX_CELLS = 4000000;

/** Text → lines (a final newline ends the last line, it adds none). */
export function lines(text) {
  const s = String(text ?? '');
  if (s === '') return [];
  return s.replace(/\n$/, '').split('\n');
}

/** The edit script from `a` to `b`: [op, index] with op ' ', '-' or '+'. */
function script(a, b) {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS) {
    return [...a.map((_, i) => ['-', i]), ...b.map((_, j) => ['+', j])];
  }
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j]
        ? lcs[(i + 1) * w + j + 1] + 1
        : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  const ops = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) { ops.push([' ', i]); i++; j++; }
    // Removals first on a tie, as diff(1) prints them.
    else if (j < m && (i === n || lcs[i * w + j + 1] > lcs[(i + 1) * w + j])) { ops.push(['+', j]); j++; }
    else { ops.push(['-', i]); i++; }
  }
  return ops;
}

/** Hunks of [{kind: 'hunk'|'ctx'|'del'|'add', text}] with context lines. */
export function unifiedDiff(oldText, newText) {
  const a = lines(oldText);
  const b = lines(newText);
  const ops = script(a, b);
  const changed = ops.map((op, k) => (op[0] === ' ' ? -1 : k)).filter((k) => k >= 0);
  if (changed.length === 0) return [{ kind: 'hunk', text: '(no change: the file already reads so)' }];
  const hunks = [];
  let start = Math.max(0, changed[0] - CONTEXT);
  let end = changed[0] + 1 + CONTEXT;
  for (const k of changed.slice(1)) {
    if (Math.max(0, k - CONTEXT) <= end) end = k + 1 + CONTEXT;
    else { hunks.push([start, Math.min(end, ops.length)]); start = Math.max(0, k - CONTEXT); end = k + 1 + CONTEXT; }
  }
  hunks.push([start, Math.min(end, ops.length)]);
  const out = [];
  const count = (from, to, skip) => ops.slice(from, to).filter((op) => op[0] !== skip).length;
  for (const [s, e] of hunks) {
    const oldLen = count(s, e, '+');
    const newLen = count(s, e, '-');
    const oldStart = count(0, s, '+') + (oldLen > 0 ? 1 : 0);
    const newStart = count(0, s, '-') + (newLen > 0 ? 1 : 0);
    out.push({ kind: 'hunk', text: `@@ -${oldStart},${oldLen} +${newStart},${newLen} @@` });
    for (const [op, index] of ops.slice(s, e)) {
      if (op === ' ') out.push({ kind: 'ctx', text: ' ' + a[index] });
      else if (op === '-') out.push({ kind: 'del', text: '-' + a[index] });
      else out.push({ kind: 'add', text: '+' + b[index] });
    }
  }
  return out;
}
