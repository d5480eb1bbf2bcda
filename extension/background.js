// MCP Bridge background (Chromium: module service worker; Firefox: module event page).
// Listeners are registered synchronously at top level so a restarted worker never misses
// the message that woke it; each one awaits the single `ready` promise and hands the
// message to the Rust core. No decisions are made here.
//
// Two builds of the core run here: the worker's (`core/`, the chat loop), started at once,
// and the pages' (`page-core/`, also the options page's backend), started only when the
// worker's core hands it an errand (the Prompts menu, detection, the picker's result) or a
// failed call to report, or an alarm goes off.
import init, * as core from './core/mcp_bridge_core.js';
import initPages, * as pages from './page-core/mcp_bridge_core.js';
import './contract.js'; // defines globalThis.MCP_BRIDGE (message names)

const ready = init({ module_or_path: new URL('./core/mcp_bridge_core_bg.wasm', import.meta.url) });
let pagesReady = null;
const pagesCore = () => (pagesReady ||= initPages({
  module_or_path: new URL('./page-core/mcp_bridge_core_bg.wasm', import.meta.url),
}));

// The worker's core calls these for a message it leaves to the pages' core, and for a failed
// call, whose report the pages' core writes (and whose record it keeps in the error log).
globalThis.mcpBridgeErrand = (message, tab) => pagesCore().then(() => pages.handleErrand(message, tab));
globalThis.mcpBridgeFailure = (failed) => pagesCore().then(() => pages.reportFailure(failed));

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  ready
    .then(() => core.handleMessage(JSON.stringify(message ?? null), sender))
    .then(sendResponse, (err) => sendResponse({ type: MCP_BRIDGE.response.ERROR, message: String(err) }));
  return true; // the answer is sent asynchronously
});

// The subscribed site list is checked at most once a day: this alarm wakes the worker every
// few hours and the pages' core decides whether a check is due.
const SITE_LIST_ALARM = 'site-list';
chrome.alarms.onAlarm.addListener((alarm) => {
  pagesCore().then(() => pages.handleAlarm(alarm.name)).catch((e) => console.warn(String(e)));
});
chrome.alarms.get(SITE_LIST_ALARM).then((found) => {
  if (!found) chrome.alarms.create(SITE_LIST_ALARM, { delayInMinutes: 1, periodInMinutes: 180 });
});
