// The DuckDB side of test_fleet_duckdb (run_duckdb_test.sh): exports the tables of the given
// traces, runs every `-- duckdb: NAME` block of docs/FLEET.md in DuckDB, and checks that the
// `ledger` query's rows equal `walltime-analyze ledger --json` of each run, category by
// category (spans, count, self and flat seconds, hits, misses, bytes).
// Usage: node check_tables.mjs ANALYZE_BIN FLEET_MD WORKDIR TRACE...
// Exit: 0 ok, 1 a check failed, 77 skipped (DuckDB not installed).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

let duckdb;
try {
  duckdb = await import('@duckdb/node-api');
} catch (e) {
  console.log('SKIPPED: @duckdb/node-api is not installed (npm ci in tests/fleet): ' + e.message);
  process.exit(77);
}

const [bin, doc, work, ...traces] = process.argv.slice(2);
let failures = 0;
function check(ok, what) {
  if (!ok) {
    failures++;
    console.log('FAIL: ' + what);
  }
}

fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const exp = spawnSync(bin, ['export', '--format', 'table', '-o', path.join(work, 'tables'), ...traces],
                      { encoding: 'utf8' });
check(exp.status === 0, `export exited ${exp.status}: ${exp.stderr}`);

// The doc's DuckDB blocks, in order: "-- duckdb: NAME" then the SQL up to the fence.
const blocks = [];
const re = /```sql\n-- duckdb: (\S+)\n([\s\S]*?)```/g;
for (let m; (m = re.exec(fs.readFileSync(doc, 'utf8')));)
  blocks.push({ name: m[1], sql: m[2] });
check(blocks.length === 6, `FLEET.md has ${blocks.length} duckdb blocks, expected the views and 5 questions`);

process.chdir(work);
const inst = await duckdb.DuckDBInstance.create(':memory:');
const con = await inst.connect();
const results = {};
for (const b of blocks) {
  try {
    const r = await con.runAndReadAll(b.sql);
    results[b.name] = r.getRowObjectsJson();
    console.log(`ok: ${b.name}: ${results[b.name].length} rows`);
  } catch (e) {
    check(false, `query ${b.name}: ${e.message}`);
  }
}

// The ledger of each run, from the analyzer, against the ledger query's rows.
const rows = results.ledger || [];
const byFile = new Map();
for (const r of rows) {
  if (!byFile.has(r.file)) byFile.set(r.file, []);
  byFile.get(r.file).push(r);
}
check(byFile.size === traces.length, `${byFile.size} runs in the tables, ${traces.length} traces exported`);
const near = (a, b) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
for (const [file, got] of byFile) {
  const led = JSON.parse(execFileSync(bin, ['ledger', '--json', file], { encoding: 'utf8' }));
  const cats = new Map(led.categories.map((c) => [c.name, c]));
  check(cats.size === got.length, `${file}: ${got.length} categories in the tables, ${cats.size} in the ledger`);
  for (const g of got) {
    const c = cats.get(g.category);
    if (!c) {
      check(false, `${file}: category ${g.category} is not in the ledger`);
      continue;
    }
    const where = `${file} ${g.category}`;
    check(Number(g.spans) === c.spans, `${where}: spans ${g.spans} vs ${c.spans}`);
    check(Number(g.count) === c.count, `${where}: count ${g.count} vs ${c.count}`);
    check(Number(g.hits) === c.hits, `${where}: hits ${g.hits} vs ${c.hits}`);
    check(Number(g.misses) === c.misses, `${where}: misses ${g.misses} vs ${c.misses}`);
    check(Number(g.bytes) === c.bytes, `${where}: bytes ${g.bytes} vs ${c.bytes}`);
    check(near(Number(g.self_s), c.self_s), `${where}: self ${g.self_s} vs ${c.self_s}`);
    check(near(Number(g.flat_s), c.flat_s), `${where}: flat ${g.flat_s} vs ${c.flat_s}`);
  }
  console.log(`ok: ${file}: ${got.length} categories equal the ledger's`);
}
process.exit(failures ? 1 : 0);
