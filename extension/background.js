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

// The subscribed site list is checked at most once a day: this alarm wakes the worker every
// few hours and the core decides whether a check is due.
const SITE_LIST_ALARM = 'site-list';
chrome.alarms.onAlarm.addListener((alarm) => {
  ready.then(() => core.handleAlarm(alarm.name)).catch((e) => console.warn(String(e)));
});
chrome.alarms.get(SITE_LIST_ALARM).then((found) => {
  if (!found) chrome.alarms.create(SITE_LIST_ALARM, { delayInMinutes: 1, periodInMinutes: 180 });
});
