#!/usr/bin/env node
// Runs every client scenario of the MCP conformance suite (the npm package
// @modelcontextprotocol/conformance, pinned in package.json) against the bridge, through
// tests/conformance/client.mjs, one scenario at a time: run side by side, two dozen bridges
// on two cores made timing checks (SSE retry delays) and sign-ins miss their limits.
//
// A scenario passes when its checks hold no FAILURE and no WARNING. One that fails must be
// named in tests/conformance/expected-failures.yml (with why, in docs/SECURITY.md), and one
// named there must fail: a fixed scenario left in the file fails the run too, so the file
// only shrinks. Prints each scenario's checks, the totals, and a closing
// `N passed, N failed` line; exits 1 on any unexpected result.
//
// The suite needs Node 22 or later (it imports `fs.globSync`): CONFORMANCE_NODE names it
// (`./build.sh setup` installs one into .tools/node22), else the `node` on PATH.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const NODE = process.env.CONFORMANCE_NODE || 'node';
const CLI = process.env.CONFORMANCE_CLI || join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const EXPECTED = join(HERE, 'expected-failures.yml');

function cli(args, options = {}) {
  return spawnSync(NODE, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', ...options });
}

/** The scenario names `conformance list --client` prints (`  - NAME [versions]`). */
function scenarios() {
  const listed = cli(['list', '--client']);
  if (listed.status !== 0) throw new Error(`conformance list failed: ${listed.stderr}`);
  return [...listed.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
}

/** The `client:` list of the expected-failures file (the suite's own YAML form). */
function expectedFailures() {
  const names = new Set();
  let inClient = false;
  for (const line of readFileSync(EXPECTED, 'utf8').split('\n')) {
    if (/^\S/.test(line)) inClient = /^client:\s*(\[\s*\])?\s*$/.test(line);
    const item = /^\s+-\s+(\S+)/.exec(line);
    if (inClient && item) names.add(item[1]);
  }
  return names;
}

/** Every checks.json under `dir` (the suite nests `auth/NAME-TIME/`). */
function checkFiles(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...checkFiles(path));
    else if (name === 'checks.json') found.push(path);
  }
  return found;
}

function runScenario(name) {
  const out = mkdtempSync(join(tmpdir(), 'conformance-results-'));
  try {
    const run = cli(
      ['client', '--command', `${JSON.stringify(process.execPath)} ${join(HERE, 'client.mjs')}`, '--scenario', name, '-o', out],
      { timeout: 120_000 },
    );
    const files = checkFiles(out);
    if (files.length === 0) {
      return { name, passed: 0, failed: 1, warnings: 0, problems: [`no checks.json (exit ${run.status}): ${(run.stderr || run.stdout).slice(-500)}`] };
    }
    const checks = files.flatMap((f) => JSON.parse(readFileSync(f, 'utf8')));
    const count = (status) => checks.filter((c) => c.status === status).length;
    const problems = checks
      .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
      .map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
    return { name, passed: count('SUCCESS'), failed: count('FAILURE'), warnings: count('WARNING'), problems };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

if (!existsSync(CLI)) {
  console.error(`${CLI} is missing: run ./build.sh setup (npm ci installs the pinned suite)`);
  process.exit(1);
}
const expected = expectedFailures();
const only = process.argv.slice(2);
const names = only.length ? only : scenarios();
const totals = { passed: 0, failed: 0, warnings: 0 };
const unexpected = [];
let scenariosPassed = 0;
for (const name of names) {
  const started = Date.now();
  const result = runScenario(name);
  const ok = result.failed === 0 && result.warnings === 0;
  totals.passed += result.passed;
  totals.failed += result.failed;
  totals.warnings += result.warnings;
  if (ok) scenariosPassed++;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const mark = ok ? (expected.has(name) ? 'STALE' : 'ok') : expected.has(name) ? 'expected failure' : 'FAIL';
  console.log(`${mark.padEnd(16)} ${name}: ${result.passed} passed, ${result.failed} failed, ${result.warnings} warnings (${seconds} s)`);
  for (const problem of result.problems) console.log(`    ${problem}`);
  if (ok === expected.has(name)) unexpected.push(name);
}
for (const name of expected) {
  if (!names.includes(name) && !only.length) {
    console.log(`STALE            ${name}: in expected-failures.yml but not a scenario of this suite`);
    unexpected.push(name);
  }
}
console.log(
  `\nconformance: ${scenariosPassed} of ${names.length} scenarios passed; checks: ${totals.passed} passed, ${totals.failed} failed, ${totals.warnings} warnings`,
);
if (unexpected.length) {
  console.log(`unexpected: ${unexpected.join(', ')} (a FAIL is a regression; a STALE entry is fixed: take it out of expected-failures.yml)`);
}
console.log(`scenarios: ${names.length - unexpected.length} passed, ${unexpected.length} failed`);
process.exit(unexpected.length ? 1 : 0);
