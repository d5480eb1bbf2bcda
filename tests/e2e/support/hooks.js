// Test-only content script, put before the content script in a copy of the built extension
// (support/instrumented.mjs), never shipped. It runs in the content script's own world
// (Chromium's isolated world, Firefox's sandbox), which the page and WebDriver cannot reach,
// and publishes what it sees on <html>:
// - data-mcp-test-observers: MutationObservers observing now; data-mcp-test-intervals:
//   intervals not cleared;
// - the float's shadow root is attached open, so the page (and so the test) can measure it.
(() => {
  const html = document.documentElement;
  let observers = 0;
  const intervals = new Set();
  const publish = () => {
    html.dataset.mcpTestObservers = String(observers);
    html.dataset.mcpTestIntervals = String(intervals.size);
  };

  const NativeObserver = globalThis.MutationObserver;
  globalThis.MutationObserver = function MutationObserver(callback) {
    const o = new NativeObserver(callback);
    const observe = o.observe.bind(o);
    const disconnect = o.disconnect.bind(o);
    let live = false;
    o.observe = (...args) => {
      if (!live) { live = true; observers++; publish(); }
      return observe(...args);
    };
    o.disconnect = () => {
      if (live) { live = false; observers--; publish(); }
      return disconnect();
    };
    return o;
  };

  const nativeSet = globalThis.setInterval.bind(globalThis);
  const nativeClear = globalThis.clearInterval.bind(globalThis);
  globalThis.setInterval = (fn, ms, ...args) => {
    const id = nativeSet(fn, ms, ...args);
    intervals.add(id);
    publish();
    return id;
  };
  globalThis.clearInterval = (id) => {
    intervals.delete(id);
    publish();
    return nativeClear(id);
  };

  const nativeCreate = document.createElement.bind(document);
  document.createElement = (tag, ...rest) => {
    const e = nativeCreate(tag, ...rest);
    if (String(tag).toLowerCase() === 'mcp-bridge-float') {
      const attach = e.attachShadow.bind(e);
      e.attachShadow = (init) => attach({ ...init, mode: 'open' });
    }
    return e;
  };
  publish();
})();
