// The float, measured in the page: where it sits (never over the chat input or its send
// button), that its button row keeps its place and its labels fit, that the minimized float
// is reached with Tab, and the contrast of all its text in the light and the dark theme.
// support/hooks.js (in a copy of the built extension) attaches the float's shadow root open,
// so the page can measure it; nothing else changes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS } from './support/browsers.mjs';
import { startWorld, openChat, userSays, userMessages, call } from './support/chat.mjs';
import { instrumentedExtension } from './support/instrumented.mjs';
import { sleep } from './support/webdriver.mjs';

const SITES = [
  ['deepseek', 'chat.deepseek.com'],
  ['chatgpt', 'chatgpt.com'],
  ['gemini', 'gemini.google.com'],
  ['perplexity', 'www.perplexity.ai'],
  ['kimi', 'www.kimi.com'],
];
const INPUT = {
  deepseek: ['textarea#chat-input', 'div[role=button].ds-button--primary'],
  chatgpt: ['#prompt-textarea', 'button[data-testid=send-button]'],
  gemini: ['rich-textarea .ql-editor', 'button.send-button'],
  perplexity: ['#ask-input', 'button[data-testid=submit-button]'],
  kimi: ['.chat-input-editor', '.send-button-container .send-button'],
};

// Runs in the page: rects of the float's parts and of the given elements.
const MEASURE = `
  const root = document.querySelector('mcp-bridge-float')?.shadowRoot;
  const rect = (e) => { if (!e) return null; const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height }; };
  const box = root?.querySelector('.box');
  return {
    box: rect(box), ring: rect(root?.querySelector('.ring')), row: rect(root?.querySelector('.row')),
    status: box?.dataset.status ?? null,
    buttons: [...(root?.querySelectorAll('.row button') ?? [])].map((b) => ({
      label: b.textContent, fits: b.scrollWidth <= b.clientWidth + 1 && b.scrollHeight <= b.clientHeight + 1 })),
    others: arguments[0].map((sel) => rect(document.querySelector(sel))),
    window: { width: innerWidth, height: innerHeight },
  };`;

const overlap = (a, b) => a && b && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

// Runs in the page: WCAG contrast of every text node's element against its backdrop.
const CONTRAST = `
  const parse = (c) => { const m = c.match(/[\\d.]+/g).map(Number); return { rgb: m.slice(0, 3), a: m.length > 3 ? m[3] : 1 }; };
  const canvas = (() => { const p = document.createElement('div'); p.style.background = 'Canvas';
    document.body.append(p); const c = getComputedStyle(p).backgroundColor; p.remove(); return parse(c).rgb; })();
  const lum = (rgb) => { const [r, g, b] = rgb.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const backdrop = (el) => { for (let e = el; e; e = e.parentElement || e.getRootNode().host) {
      const c = parse(getComputedStyle(e).backgroundColor); if (c.a > 0.5) return c.rgb; } return canvas; };
  const scope = arguments[0] === 'float' ? document.querySelector('mcp-bridge-float').shadowRoot : document.body;
  const out = [];
  const walk = (node) => { for (const n of node.childNodes) {
    if (n.nodeType === 3 && n.textContent.trim()) {
      const e = n.parentElement; const cs = getComputedStyle(e);
      if (cs.visibility === 'hidden' || cs.display === 'none' || !e.getClientRects().length) continue;
      const fg = parse(cs.color).rgb; const bg = backdrop(e);
      const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      out.push({ text: n.textContent.trim().slice(0, 40), ratio: Math.round(((hi + 0.05) / (lo + 0.05)) * 100) / 100, fg: cs.color });
    } else if (n.nodeType === 1) walk(n.shadowRoot || n); } };
  walk(scope);
  return out;`;

for (const browser of BROWSERS) {
  describe(`the float in ${browser}`, () => {
    let w;
    let ext;
    before(async () => {
      ext = instrumentedExtension(browser);
      w = await startWorld(browser, { extension: ext.dir });
      // Not pinned: the float goes where the extension puts it.
      await w.session.execAsync(`const done = arguments[arguments.length - 1];
        chrome.storage.local.get(null).then((all) => chrome.storage.local.remove(Object.keys(all).filter((k) => k.startsWith('floatPos:')))).then(() => done(true));`);
    });
    after(async () => {
      await w?.close();
      ext?.remove();
    });

    const measure = (site) => w.session.exec(MEASURE, INPUT[site]);
    // A chat long enough to scroll, as real chats are: the sticky composer then sits at the
    // bottom of the window, where the float is too.
    const longChat = async (host) => {
      await openChat(w, host);
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, host);
      await w.session.execAsync(`const done = arguments[arguments.length - 1];
        window.fixtureAI.setChunk({ size: 4000 });
        window.fixtureAI.respond(Array.from({ length: 60 }, (_, i) => 'Paragraph ' + i).join('\\n\\n')).then(() => done(true));`);
      await w.session.exec('scrollTo(0, document.documentElement.scrollHeight)');
      await sleep(2500); // the float is placed again at least every 2 s
    };

    for (const [site, host] of SITES) {
      test(`${site}: the open float covers neither the input nor the send button, and its labels fit`, async () => {
        await longChat(host);
        await w.session.waitForScript(`return !!document.querySelector('mcp-bridge-float')?.shadowRoot?.querySelector('.box')`, { what: 'the open float' });
        const got = await measure(site);
        console.log(`${browser} ${site}: window ${got.window.width}×${got.window.height}, float`, got.box, 'input', got.others[0], 'send', got.others[1]);
        assert.ok(got.box, 'no open float');
        assert.ok(got.others[0] && got.others[1], 'input or send button not found');
        assert.ok(got.others[0].bottom > got.window.height / 2, `the input is not at the bottom: ${JSON.stringify(got.others[0])}`);
        assert.ok(!overlap(got.box, got.others[0]), `the float covers the input: ${JSON.stringify(got)}`);
        assert.ok(!overlap(got.box, got.others[1]), `the float covers the send button: ${JSON.stringify(got)}`);
        assert.ok(got.box.top >= 0 && got.box.bottom <= got.window.height && got.box.right <= got.window.width, JSON.stringify(got.box));
        for (const b of got.buttons) assert.ok(b.fits, `"${b.label}" is cut off`);
      });
    }

    test('the button row keeps its place from ready to an error with a stack', async () => {
      await longChat('chat.deepseek.com');
      const before = await measure('deepseek');
      assert.equal(before.status, 'ready');
      await userSays(w, 'Run the failing tool.', [`Trying.\n${call('fail_runtime', { message: 'boom' })}`, 'It failed.']);
      await userMessages(w, 2);
      await w.session.waitForScript('return window.fixtureAI.answers().length >= 2', { what: 'the second answer' });
      await sleep(2500); // the input is empty again and the float has been placed
      const after = await measure('deepseek');
      assert.equal(after.status, 'error');
      assert.ok(after.box.height > before.box.height, 'the error float shows more');
      for (const k of ['left', 'top', 'right', 'bottom']) {
        assert.ok(Math.abs(after.row[k] - before.row[k]) <= 1, `row ${k}: ${before.row[k]} → ${after.row[k]}`);
      }
      assert.ok(!overlap(after.box, after.others[0]) && !overlap(after.box, after.others[1]), JSON.stringify(after));
    });

    test('the minimized float is reached with Tab and opened with Enter', async () => {
      await openChat(w, 'www.kimi.com');
      await w.session.exec(`document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.bar button').click()`);
      await w.session.waitForScript(`return !!document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.ring')`);
      await w.session.exec('document.activeElement?.blur(); document.body.focus()');
      let reached = false;
      for (let i = 0; i < 40 && !reached; i++) {
        await w.session.cmd('POST', '/actions', { actions: [{ type: 'key', id: 'kb', actions: [
          { type: 'keyDown', value: '\uE004' }, { type: 'keyUp', value: '\uE004' }] }] });
        reached = await w.session.exec(`const host = document.querySelector('mcp-bridge-float');
          return document.activeElement === host && host.shadowRoot.activeElement?.classList.contains('ring')`);
      }
      assert.ok(reached, 'Tab never reached the minimized float');
      await w.session.cmd('POST', '/actions', { actions: [{ type: 'key', id: 'kb', actions: [
        { type: 'keyDown', value: '\uE007' }, { type: 'keyUp', value: '\uE007' }] }] });
      await w.session.waitForScript(`return !!document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.box')`, { what: 'the float to open' });
    });

    for (const theme of ['light', 'dark']) {
      test(`all float text is at least 4.5:1 in the ${theme} theme`, async () => {
        await setTheme(w, browser, theme);
        try {
          // An error float: title, message, category, stack, buttons.
          await openChat(w, 'chat.deepseek.com');
          await w.session.exec('window.fixtureAI.reset()');
          await openChat(w, 'chat.deepseek.com');
          await userSays(w, 'Fail please.', [`Trying.\n${call('fail_runtime', { message: `boom in the ${theme} theme` })}`, 'It failed.']);
          await userMessages(w, 2);
          await w.session.waitForScript(`return document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.box[data-status=error]')`, { what: 'the error float' });
          const texts = await w.session.exec(CONTRAST, 'float');
          assert.ok(texts.length > 3, JSON.stringify(texts));
          const low = texts.filter((t) => t.ratio < 4.5);
          console.log(`${browser} ${theme}: float text contrast min ${Math.min(...texts.map((t) => t.ratio))}`);
          assert.deepEqual(low, [], `below 4.5:1: ${JSON.stringify(low)}`);
        } finally {
          await setTheme(w, browser, 'light');
        }
      });

      test(`the options page's results are at least 4.5:1 in the ${theme} theme`, async () => {
        await setTheme(w, browser, theme);
        try {
          await w.session.navigate(`${w.extensionBase}options/options.html`);
          await w.session.waitForScript('return document.body.dataset.ready === "true"', { timeoutMs: 30000 });
          // One result of each kind the page draws: success, error, warning.
          await w.session.exec(`for (const state of ['ok', 'down', 'warn']) {
            const p = document.createElement('p'); p.className = 'result'; p.dataset.state = state;
            p.textContent = 'state ' + state; document.querySelector('main section').append(p); }`);
          const texts = (await w.session.exec(CONTRAST, 'page')).filter((t) => t.text.startsWith('state '));
          assert.equal(texts.length, 3, JSON.stringify(texts));
          console.log(`${browser} ${theme}: options results`, texts.map((t) => `${t.text} ${t.ratio}`).join(', '));
          const low = texts.filter((t) => t.ratio < 4.5);
          assert.deepEqual(low, [], `below 4.5:1: ${JSON.stringify(low)}`);
        } finally {
          await setTheme(w, browser, 'light');
        }
      });
    }
  });
}

/** Switches prefers-color-scheme for the pages of this browser. */
async function setTheme(w, browser, theme) {
  if (browser === 'chromium') {
    await w.session.cmd('POST', '/goog/cdp/execute', {
      cmd: 'Emulation.setEmulatedMedia', params: { features: [{ name: 'prefers-color-scheme', value: theme }] },
    });
    return;
  }
  // Firefox: the content colour-scheme override (0 dark, 1 light).
  await w.session.cmd('POST', '/moz/context', { context: 'chrome' });
  try {
    await w.session.exec(`Services.prefs.setIntPref('layout.css.prefers-color-scheme.content-override', arguments[0])`, theme === 'dark' ? 0 : 1);
  } finally {
    await w.session.cmd('POST', '/moz/context', { context: 'content' });
  }
}
