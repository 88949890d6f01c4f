// The size of the built UI (make bench; figures and the budget in
// docs/PERFORMANCE.md): every .js and .css file under frontend/dist (or
// the folder given), raw and gzip (level 9, what a compressing server
// would send; the hub and the window serve them uncompressed from the
// binary, so raw is what the WebView parses), then the totals per kind.
//
//   cd frontend && npx vite build && node e2e/bundle.mjs [dist]
//
// Fails only when there is nothing to measure (no build).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { repo } from './harness.mjs';

const dist = resolve(process.argv[2] ?? join(repo, 'frontend', 'dist'));

/** Every file under dir, recursively. */
function files(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

const rows = files(dist)
  .filter((f) => ['.js', '.css'].includes(extname(f)))
  .map((f) => {
    const b = readFileSync(f);
    return { file: relative(dist, f), kind: extname(f).slice(1), raw: b.length, gzip: gzipSync(b, { level: 9 }).length };
  })
  .sort((a, b) => b.raw - a.raw);
if (!rows.length) {
  console.error(`bundle: no .js or .css under ${dist}: build it first (npx vite build)`);
  process.exit(1);
}

const kb = (n) => (n / 1024).toFixed(1);
const total = (kind) => rows.filter((r) => !kind || r.kind === kind).reduce((t, r) => ({ raw: t.raw + r.raw, gzip: t.gzip + r.gzip }), { raw: 0, gzip: 0 });
console.log(`\nbundle size of ${dist} (KiB)`);
console.log(`${'file'.padEnd(40)} ${'raw'.padStart(8)} ${'gzip'.padStart(8)}`);
for (const r of rows) console.log(`${r.file.padEnd(40)} ${kb(r.raw).padStart(8)} ${kb(r.gzip).padStart(8)}`);
for (const [name, kind] of [
  ['total JS', 'js'],
  ['total CSS', 'css'],
  ['total', ''],
]) {
  const t = total(kind);
  console.log(`${name.padEnd(40)} ${kb(t.raw).padStart(8)} ${kb(t.gzip).padStart(8)}`);
}
