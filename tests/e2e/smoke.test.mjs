// The plumbing, end to end in both browsers: the built extension loads, its background
// starts the wasm core, the content script on a chat site gets the core's answer, and the
// options page shows the bridge's /health as fetched by the core in the background.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { BROWSERS, ROOT } from './support/browsers.mjs';
import { startWorld, openChat, userSays, userMessages, call } from './support/chat.mjs';

const VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'manifest.json'), 'utf8')).version;

for (const browser of BROWSERS) {
  describe(`smoke in ${browser}`, () => {
    let w;
    before(async () => { w = await startWorld(browser); });
    after(async () => { await w?.close(); });

    test('the content script on a chat site is answered by the core', async () => {
      await openChat(w, 'chat.deepseek.com');
      // The core's answer to page-ready carries the site config; the float is drawn.
      assert.equal(await w.session.exec('return document.querySelectorAll("mcp-bridge-float").length'), 1);
      // Nothing else tells the page the extension is there: no marker on <html> or <body>.
      const marks = await w.session.exec(
        'return [document.documentElement, document.body].flatMap((e) => e.getAttributeNames()).filter((n) => /mcp|bridge/i.test(n))');
      assert.deepEqual(marks, []);
    });

    test('the page sees no performance entry of the extension, even after a call', async () => {
      await openChat(w, 'chat.deepseek.com');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      // The page watches every mark and measure from now on (a measure cleared at once is
      // still delivered to an observer), and the buffer holds those made before.
      await w.session.exec(`window.__seen = [];
        new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__seen.push(e.name); })
          .observe({ entryTypes: ['mark', 'measure'] });`);
      await userSays(w, 'Echo something.', [`Sure.\n\n${call('echo', { text: 'timing' })}`, 'Done.']);
      const msgs = await userMessages(w, 2, 60000);
      assert.match(msgs[1], /timing/);
      const names = await w.session.exec(`return [...performance.getEntries().map((e) => e.name), ...window.__seen]
        .filter((n) => /mcp|bridge/i.test(n))`);
      assert.deepEqual(names, []);
    });

    // Chromium's extension ID is fixed (the development key), so a page could ask for a
    // web-accessible file at chrome-extension://<id>/ to learn the extension is installed.
    // The picker is listed under the session's dynamic URL only; Firefox's moz-extension
    // host is a random UUID per profile already.
    if (browser === 'chromium') {
      test('a page cannot find the extension at its fixed ID', async () => {
        await openChat(w, 'chat.deepseek.com');
        const fromPage = await w.session.execAsync(`
          const done = arguments[arguments.length - 1];
          fetch(arguments[0]).then((r) => done('loaded ' + r.status), (e) => done('refused ' + e.name));
        `, `${w.extensionBase}picker.js`);
        assert.equal(fromPage, 'refused TypeError');
        // The file is in the build and loads for the extension itself (the content script
        // imports it through its dynamic URL when the user picks: sites.test.mjs).
        await w.session.navigate(`${w.extensionBase}options/options.html`);
        const own = await w.session.execAsync(`
          const done = arguments[arguments.length - 1];
          const url = chrome.runtime.getURL('picker.js');
          fetch(url).then((r) => r.text()).then((t) => done({ url, loaded: t.includes('export') }), (e) => done({ url, error: String(e) }));
        `);
        assert.equal(own.loaded, true, JSON.stringify(own));
      });
    }

    test('the options page shows the core version and the bridge health', async () => {
      await w.session.navigate(`${w.extensionBase}options/options.html`);
      const core = await w.session.waitForScript(
        'const t = document.getElementById("core-version")?.textContent; return t && t !== "…" ? t : null',
        { what: 'the core version' });
      assert.equal(core, VERSION);
      const direct = await (await fetch(`${w.bridge.url}/health`)).json();
      const shown = await w.session.waitForScript(
        'const e = document.getElementById("bridge-health"); return e && e.dataset.state === "ok" && e.textContent',
        { what: 'the bridge health' });
      assert.ok(shown.includes(direct.version), shown);
    });
  });
}
