// MCP Bridge content script, first of its files (manifest.json's `content_scripts` lists
// them in order; each is a classic script in the content script's own world, where their
// top-level names are shared and the page cannot see them). Plain JavaScript on purpose —
// Chromium applies the page's CSP to WebAssembly compiled in a content script, so the Rust
// core in the background decides; these files observe the page (report the newest
// assistant message, the parts found) and obey the core's commands (type text, submit,
// draw the float). This one: the shared state and the small helpers every other file uses.
// A second injection into the same page fails at its first re-declared name: nothing runs
// twice.
'use strict';

// Message names, from contract.js (listed before this file wherever it is injected).
const { tab: TAB, action: ACTION, command: COMMAND, response: RESPONSE, popup: POPUP } = globalThis.MCP_BRIDGE;
const THROTTLE_MS = 150;
let site = null;
// The core's ways to type into each kind of editor, sent with the site.
let typing = null;
let lastReport = '';
let recheckTimer = 0;
let throttleTimer = 0;
let float = null;
let floatState = null;
let lastChange = Date.now();

const send = (msg) => chrome.runtime.sendMessage(msg).catch((e) => ({ type: RESPONSE.ERROR, message: String(e) }));

// ---- selectors ---------------------------------------------------------------------

/** All elements matching the first selector of `chain` that matches anything. */
function queryAll(chain) {
  for (const sel of chain || []) {
    try {
      const found = document.querySelectorAll(sel);
      if (found.length) return [...found];
    } catch { /* an invalid selector in a config: try the next one */ }
  }
  return [];
}
const query = (chain) => queryAll(chain)[0] || null;

const shown = (e) => {
  const r = e.getBoundingClientRect();
  if (!(r.width > 0 && r.height > 0)) return false;
  return e.checkVisibility ? e.checkVisibility({ visibilityProperty: true }) : true;
};
const isField = (e) => e.tagName === 'TEXTAREA' || e.tagName === 'INPUT';
const takesText = (e) => (isField(e) ? !e.disabled && !e.readOnly : e.isContentEditable);
const usableInput = (e) => !!e && e.isConnected && takesText(e) && shown(e);
const ours = (e) => !!float && float.host.contains(e);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const squash = (s) => (s || '').replace(/\s+/g, '');
const readInput = (el) => (el.tagName === 'TEXTAREA' || el.tagName === 'INPUT' ? el.value : el.innerText);
const isDisabled = (btn) => btn.disabled || btn.getAttribute('aria-disabled') === 'true'
  || !!btn.closest('.disabled,[disabled]');

// The words of the float's controls and the picker, in the interface language: the core
// sends them with the page's setup. `{1}`… are the values, in order; a missing label shows as
// its key (tests/locales.rs fails on one).
let labels = {};
const T = (key, subs = []) => [subs].flat()
  .reduce((text, value, i) => text.replaceAll(`{${i + 1}}`, value), labels[key] ?? key);

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'onclick') e.addEventListener('click', v);
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c != null) e.append(c); // strings become text nodes
  return e;
}
// The core marks names and commands `like this`: drawn as code, never as backticks.
const rich = (text) => String(text ?? '').split('`').map((part, i) => (i % 2 ? el('code', {}, part) : part));
const plain = (text) => String(text ?? '').replaceAll('`', '');
