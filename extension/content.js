// MCP Bridge content script: plain JavaScript on purpose — Chromium applies the page's CSP
// to WebAssembly compiled here, so every decision is made by the Rust core in the
// background. This script only observes the page and obeys the core's commands.
(() => {
  'use strict';
  if (globalThis.__mcpBridgeLoaded) return;
  globalThis.__mcpBridgeLoaded = true;

  chrome.runtime.sendMessage({ type: 'ping' }).then((answer) => {
    if (answer && answer.type === 'pong') {
      // A visible, harmless marker that the extension is active on this page.
      document.documentElement.dataset.mcpBridge = answer.version;
    }
  }, () => {});
})();
