// MCP Bridge background (Chromium: module service worker; Firefox: module event page).
// Listeners are registered synchronously at top level so a restarted worker never misses
// the message that woke it; each one awaits the single `ready` promise and hands the
// message to the Rust core (`core/`, the same build the extension pages load). No decisions
// are made here.
import init, * as core from './core/mcp_bridge_core.js';
import './contract.js'; // defines globalThis.MCP_BRIDGE (message names)

const ready = init({ module_or_path: new URL('./core/mcp_bridge_core_bg.wasm', import.meta.url) });

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  ready
    .then(() => core.handleMessage(JSON.stringify(message ?? null), sender))
    .then(sendResponse, (err) => sendResponse({ type: MCP_BRIDGE.response.ERROR, message: String(err) }));
  return true; // the answer is sent asynchronously
});

// The core's alarms (their names and periods are the core's): each one missing is created,
// and each one that goes off is handed to the core, which decides what is due.
chrome.alarms.onAlarm.addListener((alarm) => {
  ready.then(() => core.handleAlarm(alarm.name)).catch((e) => console.warn(String(e)));
});
ready
  .then(() =>
    Promise.all(
      JSON.parse(core.alarms()).map(({ name, delayInMinutes, periodInMinutes }) =>
        chrome.alarms.get(name).then((found) => {
          if (!found) chrome.alarms.create(name, { delayInMinutes, periodInMinutes });
        }),
      ),
    ),
  )
  .catch((e) => console.warn(String(e)));
