// MCP App views, end to end: the real bridge running the real
// `@modelcontextprotocol/server-basic-vanillajs` and `server-budget-allocator` (and, for views that fail, the test server
// tests/fixtures/broken_views_server.mjs), the fixture chat page playing the AI. After a call
// of a tool with a view, the float shows the view in a sandboxed frame with the call's result;
// the view calls its server's tool through the core (and is refused when the user denies
// it), writes a message into the chat input, and cannot read the chat page, its cookies or
// the extension's storage; a view that throws or never answers is said to have failed in the
// float, and the chat goes on.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { BROWSERS, ROOT } from './support/browsers.mjs';
import { startWorld, freshChat, userSays, userMessages, call, floatWait, floatFind, floatStatus, elementId, clickAt, configure } from './support/chat.mjs';
import { waitFor } from './support/webdriver.mjs';

const BASIC = path.join(ROOT, 'node_modules/.bin/mcp-server-basic-vanillajs');
const BUDGET = path.join(ROOT, 'node_modules/.bin/mcp-budget-allocator-server');
const BROKEN = path.join(ROOT, 'tests/fixtures/broken_views_server.mjs');
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/;
const SETTINGS = {
  toolPolicies: { 'clock:get-time': 'allow', 'budget:get-budget-data': 'allow' },
  trustedServers: ['broken', 'budget'],
  // The clock's results are untrusted content: its view's calls would ask after them.
  exemptAfterUntrusted: ['clock:get-time', 'budget:get-budget-data'],
};

/** Back to the chat page's own document, out of any frame. */
const toPage = (w) => w.session.cmd('POST', '/frame', { id: null });

/** Into the float's host page (the extension's `view/host.html`). */
async function intoHost(w) {
  await toPage(w);
  const host = await floatWait(w, '.view iframe', 'view frame');
  await w.session.cmd('POST', '/frame', { id: host });
}

/** Into the view's frame: the float's host page, then the sandboxed view inside it. */
async function intoView(w) {
  await intoHost(w);
  const view = await waitFor(async () => (await w.session.cmd('POST', '/elements', { using: 'css selector', value: 'iframe' }))[0],
    { what: "the host page's view frame" });
  await w.session.cmd('POST', '/frame', { id: view });
}

/** The view's `#server-time` once it shows a time other than `not`. */
function viewTime(w, not = null) {
  return w.session.waitForScript(
    `const t = document.getElementById('server-time')?.textContent || '';
     return t && t !== 'Loading...' && t !== ${JSON.stringify(not)} ? t : null`,
    { what: "the view's time", timeoutMs: 20000 });
}

let calls = 0;

/**
 * A fresh chat in which the AI called `get-time`, whose view the float then shows. Each
 * call's arguments differ: the conversation's address is the same, and a call runs once.
 */
async function viewAfterCall(w) {
  await toPage(w);
  await freshChat(w);
  calls += 1;
  const asked = call('get-time', { asked: calls }, 'clock');
  await userSays(w, 'What time is it?', [`Let me look.\n\n${asked}`, 'There it is.']);
  const msgs = await userMessages(w, 2, 60000);
  await intoView(w);
  return msgs[1];
}

/** Clicks an element of the current frame. */
async function clickIn(w, css) {
  await w.session.click(await w.session.find(css));
}

for (const browser of BROWSERS) {
  describe(`MCP App views in ${browser}`, () => {
    let w;
    before(async () => {
      w = await startWorld(browser, {
        bridgeConfig: { mcpServers: {
          clock: { command: BASIC, args: ['--stdio'] },
          budget: { command: BUDGET, args: ['--stdio'] },
          broken: { command: process.execPath, args: [BROKEN] },
        } },
        settings: SETTINGS,
      });
    });
    after(async () => { await w?.close(); });

    test('the view appears after the call and shows its result', async () => {
      const report = await viewAfterCall(w);
      const time = await viewTime(w);
      assert.match(time, ISO);
      assert.ok(report.includes(time), `the chat's report holds the view's time ${time}: ${report}`);
      await toPage(w);
    });

    test("a richer view, the budget allocator, draws its chart and a slider per category of the result", async () => {
      await toPage(w);
      await freshChat(w);
      await userSays(w, 'How is my budget split?', [`Let me look.\n\n${call('get-budget-data', {}, 'budget')}`, 'Here it is.']);
      const msgs = await userMessages(w, 2, 60000);
      // The categories the result names, as the chat's copy of its text has them
      // (`  - Marketing: 25% default`).
      const categories = [...msgs[1].matchAll(/^\s*- (.+?): \d+% default$/gm)].map((m) => m[1]);
      await intoView(w);
      const drawn = await w.session.waitForScript(`
        const rows = document.querySelectorAll('#sliders-container .slider-row');
        const canvas = document.getElementById('budget-chart');
        if (!rows.length || !canvas || !canvas.width) return null;
        const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let painted = 0;
        for (let i = 3; i < px.length; i += 4) if (px[i]) painted++;
        return painted ? { rows: rows.length, text: document.getElementById('sliders-container').textContent } : null;`,
      { what: "the budget view's chart and sliders", timeoutMs: 30000 });
      assert.ok(categories.length >= 3, `categories in the report: ${categories}`);
      assert.equal(drawn.rows, categories.length, JSON.stringify(drawn));
      for (const name of categories) assert.ok(drawn.text.includes(name), `${name} in ${drawn.text}`);
      await toPage(w);
    });

    test("the view calls its own server's tool", async () => {
      await viewAfterCall(w);
      const first = await viewTime(w);
      await clickIn(w, '#get-time-btn');
      const second = await viewTime(w, first);
      assert.match(second, ISO);
      assert.ok(second > first, `${second} after ${first}`);
      await toPage(w);
    });

    test('a tool the user denies is refused to the view', async () => {
      await viewAfterCall(w);
      const first = await viewTime(w);
      // The user denies the tool on the options page, in another tab, while the view is open.
      const chat = await w.session.cmd('GET', '/window');
      const { handle } = await w.session.newWindow();
      await w.session.switchTo(handle);
      await configure(w, { ...SETTINGS, toolPolicies: { 'clock:get-time': 'deny' } });
      await w.session.cmd('DELETE', '/window');
      await w.session.switchTo(chat);
      await intoView(w);
      try {
        await clickIn(w, '#get-time-btn');
        assert.equal(await viewTime(w, first), '[ERROR]');
      } finally {
        await toPage(w);
        await configure(w, SETTINGS);
      }
    });

    test("a view's call of a tool that asks asks in the float; Allow runs it, a saved Deny refuses it", async () => {
      await viewAfterCall(w);
      const first = await viewTime(w);
      // Nothing set for the tool: its call asks the first time, with Deny among the answers.
      await toPage(w);
      const chat = await w.session.cmd('GET', '/window');
      const { handle } = await w.session.newWindow();
      await w.session.switchTo(handle);
      await configure(w, { ...SETTINGS, toolPolicies: {} });
      await w.session.cmd('DELETE', '/window');
      await w.session.switchTo(chat);
      try {
        await intoView(w);
        await clickIn(w, '#get-time-btn');
        await toPage(w);
        await floatStatus(w, 'confirm');
        const why = await w.session.cmd('GET', `/element/${elementId(await floatWait(w, '.why'))}/text`);
        assert.match(why, /view of get-time makes this call/i);
        // The view's panel stays clear of the question's buttons (the click is the pointer's).
        await clickAt(w, await floatWait(w, '[data-id=allow-once]'));
        await intoView(w);
        const second = await viewTime(w, first);
        assert.match(second, ISO);
        // Asked again, the user denies it for good: the view is refused, now and after.
        await clickIn(w, '#get-time-btn');
        await toPage(w);
        await floatStatus(w, 'confirm');
        await clickAt(w, await floatWait(w, '[data-id=deny]'));
        await intoView(w);
        assert.equal(await viewTime(w, second), '[ERROR]');
        await w.session.exec("document.getElementById('server-time').textContent = 'again'");
        await clickIn(w, '#get-time-btn');
        assert.equal(await viewTime(w, 'again'), '[ERROR]');
        await toPage(w);
        assert.equal((await floatFind(w, '.box[data-status="confirm"]')).length, 0, 'the saved Deny did not ask');
      } finally {
        await toPage(w);
        // The Deny was kept for the fixture site.
        await configure(w, { ...SETTINGS, siteToolPolicies: {} });
      }
    });

    test("a view's link opens only on the user's click in the float, and only when it is http(s)", async () => {
      await viewAfterCall(w);
      await viewTime(w);
      const windows = async () => (await w.session.cmd('GET', '/window/handles')).length;
      const before = await windows();
      // A closed port of this machine: the browser opens a tab that loads nothing.
      const link = 'http://127.0.0.1:9/from-the-view';
      for (const url of ['javascript:alert(document.cookie)', link]) {
        await w.session.exec("const i = document.getElementById('link-url'); i.value = arguments[0]; i.dispatchEvent(new Event('input'));", url);
        await clickIn(w, '#open-link-btn');
      }
      await intoHost(w);
      const offered = await w.session.waitForScript(
        `const b = [...document.querySelectorAll('#links button')];
         return b.some((x) => x.title === ${JSON.stringify(link)}) ? b.map((x) => x.title) : null`,
        { what: "the float's button for the view's link" });
      // The http link is offered, the javascript: one is not, and nothing opened by itself.
      assert.deepEqual(offered, [link]);
      assert.equal(await windows(), before);
      await clickIn(w, '#links button');
      await waitFor(async () => (await windows()) === before + 1, { what: 'the link to open on the click' });
      await toPage(w);
      const chat = await w.session.cmd('GET', '/window');
      for (const h of await w.session.cmd('GET', '/window/handles')) {
        if (h === chat) continue;
        await w.session.switchTo(h);
        await w.session.cmd('DELETE', '/window');
      }
      await w.session.switchTo(chat);
    });

    test('the view writes a message into the chat input, and the float says so', async () => {
      await viewAfterCall(w);
      await viewTime(w);
      await clickIn(w, '#send-message-btn');
      await toPage(w);
      const typed = await w.session.waitForScript(
        "const v = document.querySelector('textarea#chat-input').value; return v.includes('This is message text.') ? v : null",
        { what: "the view's message in the chat input" });
      assert.equal(typed.trim(), 'This is message text.');
      const said = await waitFor(async () => {
        const [title] = await floatFind(w, '.box .title');
        const text = title ? await w.session.cmd('GET', `/element/${elementId(title)}/text`) : '';
        return /view of get-time wrote/i.test(text) ? text : null;
      }, { what: 'the float to say the view wrote the message' });
      assert.match(said, /read it before you send it/);
    });

    test("inside the view, the chat page, its cookies and the extension's storage are out of reach", async () => {
      await viewAfterCall(w);
      await viewTime(w);
      // The frame is sandboxed by its host page (the bridge's policy sandboxes the document too).
      await intoHost(w);
      assert.equal(await w.session.exec("return document.querySelector('iframe').getAttribute('sandbox')"), 'allow-scripts');
      await intoView(w);
      const tried = await w.session.exec(`
        const attempt = (f) => { try { const v = f(); return v === undefined ? 'undefined' : 'read: ' + String(v).slice(0, 40); }
          catch (e) { return 'refused'; } };
        return {
          origin: self.origin,
          parentDom: attempt(() => parent.document.body.innerHTML),
          topDom: attempt(() => top.document.body.innerHTML),
          topUrl: attempt(() => top.location.href),
          cookie: attempt(() => document.cookie),
          localStorage: attempt(() => localStorage.length),
          extension: typeof chrome === 'object' && chrome?.storage ? 'chrome.storage' : 'none',
        };`);
      assert.deepEqual(tried, {
        origin: 'null', parentDom: 'refused', topDom: 'refused', topUrl: 'refused', cookie: 'refused',
        localStorage: 'refused', extension: 'none',
      });
      await toPage(w);
    });

    test('wherever the float stands, the view is beside its box, inside the window, and cut only when no side has room', async () => {
      // The float pinned at places drawn from a seed over the window, and where the extension
      // docks it by the input (no pin); the budget view wants more height than half a window.
      const [iw, ih] = await w.session.exec('return [innerWidth, innerHeight]');
      const next = (() => { let a = 20261128; return () => { a = (Math.imul(a, 1103515245) + 12345) >>> 0; return a / 2 ** 32; }; })();
      const pins = [null, { left: 20, top: 20 }, ...Array.from({ length: 4 }, () => ({
        left: Math.round(next() * (iw - 380)), top: Math.round(next() * (ih - 160)) }))];
      const rect = async (css) => w.session.cmd('GET', `/element/${elementId(await floatWait(w, css))}/rect`);
      for (const [i, pin] of pins.entries()) {
        await toPage(w);
        await configure(w, SETTINGS);
        await w.session.execAsync(`const done = arguments[arguments.length - 1];
          (arguments[0] ? chrome.storage.local.set({ 'floatPos:deepseek': arguments[0] }) : chrome.storage.local.remove('floatPos:deepseek')).then(() => done(true));`, pin);
        await freshChat(w);
        await userSays(w, 'How is my budget split?', [`Let me look.\n\n${call('get-budget-data', { place: i }, 'budget')}`, 'Here it is.']);
        await userMessages(w, 2, 60000);
        const frame = await floatWait(w, '.view iframe', 'view frame');
        // The height the view asked for, once it asked (the frame's own 160 px before).
        const want = await waitFor(async () => {
          const style = await w.session.cmd('GET', `/element/${elementId(frame)}/attribute/style`);
          const px = Number(/height:\s*(\d+)px/.exec(style || '')?.[1]);
          return px > 160 ? px : null;
        }, { what: 'the view to ask for its height', timeoutMs: 30000 });
        // Placed once the size is in: the panel's rect settles.
        let panel = await rect('.view');
        panel = await waitFor(async () => { const again = await rect('.view'); const same = JSON.stringify(again) === JSON.stringify(panel); panel = again; return same && again; },
          { what: 'the panel to settle', intervalMs: 300 });
        const box = await rect('.box');
        const bar = await rect('.view .vbar');
        const at = `pin ${JSON.stringify(pin)}, window ${iw}×${ih}, box ${JSON.stringify(box)}, panel ${JSON.stringify(panel)}, view wants ${want}`;
        const apart = panel.x + panel.width <= box.x + 1 || box.x + box.width <= panel.x + 1
          || panel.y + panel.height <= box.y + 1 || box.y + box.height <= panel.y + 1;
        assert.ok(apart, `the panel is over the box: ${at}`);
        assert.ok(panel.x >= -1 && panel.y >= -1 && panel.x + panel.width <= iw + 1 && panel.y + panel.height <= ih + 1, `the panel leaves the window: ${at}`);
        // As wide as the box, and at least 360 px where the window has them.
        const width = Math.min(Math.max(box.width, 360), iw - 12);
        assert.ok(Math.abs(panel.width - width) <= 1, `the panel is ${panel.width} px wide, not ${width}: ${at}`);
        // Room for the whole view (its bar and frame, borders aside) above, below or beside the box?
        const whole = want + bar.height;
        const gaps = 12;
        const fits = whole <= box.y - gaps || whole <= ih - box.y - box.height - gaps
          || (whole <= ih - gaps && (box.x - gaps >= width || iw - box.x - box.width - gaps >= width));
        if (fits) assert.ok(panel.height >= whole, `the view is cut although it fits: ${at}`);
        else assert.ok(panel.height >= Math.max(box.y, ih - box.y - box.height) - gaps - 2, `the view is cut more than the room: ${at}`);
      }
      await configure(w, SETTINGS);
    });

    test('a view that throws or never answers is said to have failed, and the chat goes on', async () => {
      await toPage(w);
      await freshChat(w);
      for (const [i, tool] of ['throwing-view', 'silent-view'].entries()) {
        await userSays(w, `Show me ${tool}.`, [`Showing.\n\n${call(tool, {}, 'broken')}`, 'Shown.']);
        const msgs = await userMessages(w, 2 * (i + 1), 60000);
        assert.match(msgs[msgs.length - 1], new RegExp(`${tool} ran`));
        const failed = await waitFor(async () => {
          const titles = await floatFind(w, '.box[data-status="error"] .title');
          if (!titles.length) return null;
          const text = await w.session.cmd('GET', `/element/${elementId(titles[0])}/text`);
          return text.includes(tool) ? text : null;
        }, { what: `the float to say the view of ${tool} failed`, timeoutMs: 20000 });
        assert.match(failed, /view of .* failed/i);
      }
    });
  });
}
