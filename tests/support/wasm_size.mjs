// Prints what each crate (and each module of the core) adds to the wasm code, from the
// function names rustc leaves in the module before wasm-bindgen and wasm-opt. Generic code
// is counted for the crate that defines the function (serde's deserializer for one of our
// types counts as serde). Sizes are before wasm-opt; the shares carry over.
//
//   node tests/support/wasm_size.mjs target/core.wasm
import fs from 'node:fs';

const file = process.argv[2];
const d = fs.readFileSync(file);

function leb(i) {
  let r = 0, s = 0, b;
  do { b = d[i++]; r += (b & 0x7f) * 2 ** s; s += 7; } while (b & 0x80);
  return [r, i];
}

// Sections: id → [start, end]; custom sections by name.
const sections = {};
for (let i = 8; i < d.length;) {
  const id = d[i++];
  let n; [n, i] = leb(i);
  if (id === 0) {
    const [len, j] = leb(i);
    sections[d.subarray(j, j + len).toString()] = [j + len, i + n];
  } else sections[id] = [i, i + n];
  i += n;
}

// Imported functions come first in the function index space.
let importedFns = 0;
{
  let [i, end] = sections[2] || [0, 0];
  let count; [count, i] = leb(i);
  for (let k = 0; k < count && i < end; k++) {
    let len;
    [len, i] = leb(i); i += len;
    [len, i] = leb(i); i += len;
    const kind = d[i++];
    if (kind === 0) { [, i] = leb(i); importedFns++; }
    else if (kind === 1) { i++; let f; [f, i] = leb(i); [, i] = leb(i); if (f & 1) [, i] = leb(i); }
    else if (kind === 2) { let f; [f, i] = leb(i); [, i] = leb(i); if (f & 1) [, i] = leb(i); }
    else if (kind === 3) i += 2;
  }
}

const names = new Map();
if (sections.name) {
  let [i, end] = sections.name;
  while (i < end) {
    const sub = d[i++];
    let n; [n, i] = leb(i);
    if (sub === 1) {
      let j = i, count;
      [count, j] = leb(j);
      for (let k = 0; k < count; k++) {
        let idx, len;
        [idx, j] = leb(j); [len, j] = leb(j);
        names.set(idx, d.subarray(j, j + len).toString()); j += len;
      }
    }
    i += n;
  }
} else {
  console.error(`${file} has no name section; build it without stripping`);
  process.exit(1);
}

/** The crate (and for our crate, the module) a symbol belongs to. */
function owner(sym) {
  let m = sym.match(/^_ZN((?:\d+[^\d]\S*?)+)E?$/) || sym.match(/^_ZN(.*)$/);
  const parts = [];
  if (m) {
    let t = m[1];
    while (t.length && /^\d/.test(t)) {
      const n = parseInt(t, 10);
      const digits = String(n).length;
      parts.push(t.slice(digits, digits + n));
      t = t.slice(digits + n);
    }
  }
  let first = parts[0] || '';
  if (first.startsWith('_$LT$')) first = first.slice(5).replace(/^(\$RF\$(mut\$u20\$)?)+/, '').split('..')[0];
  if (!first && sym.startsWith('_R')) {
    // v0 mangling: the crate root is `C s<hash> _ <len><name>`.
    m = sym.match(/C(?:s[0-9a-zA-Z]*_)?(\d+)/);
    if (m) {
      const at = m.index + m[0].length;
      first = sym.slice(at, at + parseInt(m[1], 10));
    }
  }
  if (!first) first = sym;
  if (first === 'mcp_bridge_core') {
    let module = parts[1] || '';
    if (module.startsWith('_$LT$')) module = module.slice(5).split('..')[0];
    return `mcp_bridge_core::${module}`;
  }
  if (['core', 'alloc', 'std', 'dlmalloc', 'hashbrown', 'compiler_builtins'].includes(first)) return 'std (core, alloc, …)';
  return first.replace(/^serde_core$/, 'serde');
}

const bySize = new Map();
let total = 0;
{
  let [i] = sections[10];
  let count; [count, i] = leb(i);
  for (let k = 0; k < count; k++) {
    let size; [size, i] = leb(i);
    const key = owner(names.get(importedFns + k) || '?');
    bySize.set(key, (bySize.get(key) || 0) + size);
    total += size;
    i += size;
  }
}
const data = sections[11] ? sections[11][1] - sections[11][0] : 0;
console.log(`wasm code by crate (before wasm-opt): ${(total / 1024).toFixed(0)} KB code, ${(data / 1024).toFixed(0)} KB data`);
for (const [k, v] of [...bySize].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
  console.log(`${(v / 1024).toFixed(1).padStart(8)} KB ${(100 * v / total).toFixed(1).padStart(5)} %  ${k}`);
}
