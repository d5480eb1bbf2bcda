// MCP Bridge background (Chromium: module service worker; Firefox: module event page).
// Listeners are registered synchronously at top level so a restarted worker never misses
// the message that woke it; each one awaits the single `ready` promise and hands the
// message to the Rust core. No decisions are made here.
import init, * as core from './core/mcp_bridge_core.js';
import './contract.js'; // defines globalThis.MCP_BRIDGE (message names)

const ready = init({ module_or_path: new URL('./core/mcp_bridge_core_bg.wasm', import.meta.url) });

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  ready
    .then(() => core.handleMessage(JSON.stringify(message ?? null), sender))
    .then(sendResponse, (err) => sendResponse({ type: MCP_BRIDGE.response.ERROR, message: String(err) }));
  return true; // the answer is sent asynchronously
});
