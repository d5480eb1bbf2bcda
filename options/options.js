// Options page glue: loads the Rust core for this page, asks the background (where the
// core talks to the bridge) and writes the answers into the page as text.
import init, * as core from '../core/mcp_bridge_core.js';

const $ = (id) => document.getElementById(id);

for (const el of document.querySelectorAll('[data-i18n]')) {
  const text = chrome.i18n.getMessage(el.dataset.i18n);
  if (text) el.textContent = text;
}

await init({ module_or_path: new URL('../core/mcp_bridge_core_bg.wasm', import.meta.url) });
$('core-version').textContent = core.version();

const health = await chrome.runtime.sendMessage({ type: 'get-health' });
const out = $('bridge-health');
if (health?.type === 'data') {
  out.dataset.state = 'ok';
  out.textContent = chrome.i18n.getMessage('bridgeOk', [String(health.data.version ?? '?')]);
} else {
  out.dataset.state = 'down';
  out.textContent = `${chrome.i18n.getMessage('bridgeDown')}: ${health?.message ?? ''}`;
}
