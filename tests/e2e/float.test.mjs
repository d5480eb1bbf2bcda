// The float, measured in the page: where it sits (never over the chat input or its send
// button, also where the user put it), that its title bar keeps its place and its labels
// fit, that every state can be minimised and the ring is reached with Tab, the consent
// dialog (role, focus, Esc), and the contrast of its text and the size of its targets in
// its states in the light and the dark theme.
// support/hooks.js (in a copy of the built extension) attaches the float's shadow root open,
// so the page can measure it; nothing else changes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS } from './support/browsers.mjs';
import { CHAT_SITES } from './support/fixtures.mjs';
import { startWorld, openChat, userSays, userMessages, call, configure } from './support/chat.mjs';
import { instrumentedExtension } from './support/instrumented.mjs';
import { sleep } from './support/webdriver.mjs';
import { BROKEN_WORDS } from './support/words.mjs';

const INPUT = {
  deepseek: ['textarea#chat-input', 'div[role=button].ds-button--primary'],
  chatgpt: ['#prompt-textarea', 'button[data-testid=send-button]'],
  gemini: ['rich-textarea .ql-editor', 'button.send-button'],
  perplexity: ['#ask-input', 'button[data-testid=submit-button]'],
  kimi: ['.chat-input-editor', '.send-button-container .send-button'],
  grok: ['.query-bar .tiptap', 'form button[type=submit]'],
  doubao: ['[data-testid=chat_input_input] [contenteditable]', 'button[data-testid=chat_input_send_button]'],
};

// Runs in the page: rects of the float's parts and of the given elements.
const MEASURE = `
  const root = document.querySelector('mcp-bridge-float')?.shadowRoot;
  const rect = (e) => { if (!e) return null; const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height }; };
  const box = root?.querySelector('.box');
  return {
    box: rect(box), ring: rect(root?.querySelector('.ring')), bar: rect(root?.querySelector('.bar')),
    status: box?.dataset.status ?? null,
    buttons: [...(root?.querySelectorAll('button') ?? [])].map((b) => ({
      label: b.textContent, fits: b.scrollWidth <= b.clientWidth + 1 && b.scrollHeight <= b.clientHeight + 1 })),
    others: arguments[0].map((sel) => rect(document.querySelector(sel))),
    window: { width: innerWidth, height: innerHeight },
  };`;

// Runs in the page: the size of every control in the float.
const TARGETS = `
  const root = document.querySelector('mcp-bridge-float').shadowRoot;
  return [...root.querySelectorAll('button, summary, a, input, select')].filter((e) => e.getClientRects().length)
    .map((e) => { const r = e.getBoundingClientRect(); return { what: e.dataset.id || e.dataset.tool || e.className || e.tagName, width: r.width, height: r.height }; });`;

// Runs in the page: every visible text of the float (and its form controls) under 12 px.
const SMALL_TEXT = `
  const root = document.querySelector('mcp-bridge-float').shadowRoot;
  const px = (e) => parseFloat(getComputedStyle(e).fontSize);
  const small = [];
  let texts = 0;
  const walk = (node) => { for (const n of node.childNodes) {
    if (n.nodeType === 3 && n.textContent.trim()) {
      const e = n.parentElement;
      if (!e.checkVisibility()) continue;
      texts += 1;
      if (px(e) < 12) small.push(e.tagName.toLowerCase() + (e.className ? '.' + e.className : '') + ' ' + px(e) + 'px: ' + n.textContent.trim().slice(0, 40));
    } else if (n.nodeType === 1) walk(n); } };
  walk(root);
  for (const e of root.querySelectorAll('input, select, textarea, button')) {
    if (e.checkVisibility() && px(e) < 12) small.push(e.tagName.toLowerCase() + ' ' + px(e) + 'px');
  }
  return { texts, small };`;

/** One key press (WebDriver key code). */
const key = (w, k) => w.session.cmd('POST', '/actions', { actions: [{ type: 'key', id: 'kb', actions: [
  { type: 'keyDown', value: k }, { type: 'keyUp', value: k }] }] });

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
      await unpin();
    });
    // Not pinned: the float goes where the extension puts it (`configure` pins it; it leaves
    // the options page open, where this runs).
    const unpin = () => w.session.execAsync(`const done = arguments[arguments.length - 1];
      chrome.storage.local.get(null).then((all) => chrome.storage.local.remove(Object.keys(all).filter((k) => k.startsWith('floatPos:')))).then(() => done(true));`);
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

    for (const [site, host] of CHAT_SITES) {
      test(`${site}: the float covers neither the input nor the send button, and its labels fit`, async () => {
        await longChat(host);
        // Beside the chat where there is room; else, the answer filling the window, the ring,
        // opened on demand.
        const ring = await w.session.exec(`return !!document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.ring')`);
        if (ring) {
          const shut = await measure(site);
          assert.ok(!overlap(shut.ring, shut.others[0]) && !overlap(shut.ring, shut.others[1]), `the ring covers the input: ${JSON.stringify(shut)}`);
          await w.session.exec(`document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.ring').click()`);
        }
        await w.session.waitForScript(`return !!document.querySelector('mcp-bridge-float')?.shadowRoot?.querySelector('.box')`, { what: 'the open float' });
        const got = await measure(site);
        console.log(`${browser} ${site}: window ${got.window.width}×${got.window.height}, float`, got.box, ring ? '(opened from the ring)' : '', 'input', got.others[0], 'send', got.others[1]);
        assert.ok(got.box, 'no open float');
        assert.ok(got.others[0] && got.others[1], 'input or send button not found');
        assert.ok(got.others[0].bottom > got.window.height / 2, `the input is not at the bottom: ${JSON.stringify(got.others[0])}`);
        assert.ok(!overlap(got.box, got.others[0]), `the float covers the input: ${JSON.stringify(got)}`);
        assert.ok(!overlap(got.box, got.others[1]), `the float covers the send button: ${JSON.stringify(got)}`);
        assert.ok(got.box.top >= 0 && got.box.bottom <= got.window.height && got.box.right <= got.window.width, JSON.stringify(got.box));
        for (const b of got.buttons) assert.ok(b.fits, `"${b.label}" is cut off`);
      });
    }

    test('with the bridge down, the sentence comes before the command that it introduces', async () => {
      const { freePort } = await import('./support/bridge.mjs');
      await configure(w, { bridgeUrl: `http://127.0.0.1:${await freePort()}` });
      await unpin();
      try {
        await openChat(w, 'chat.deepseek.com');
        await w.session.waitForScript(`return !!document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.box[data-status=unreachable] .cmd code')`, { what: 'the float of a bridge that is not running' });
        const got = await w.session.exec(`const root = document.querySelector('mcp-bridge-float').shadowRoot;
          const r = (e) => e.getBoundingClientRect();
          const title = root.querySelector('.title'); const cmd = root.querySelector('.cmd code'); const copy = root.querySelector('[data-copy]');
          return { title: title.textContent, titleBottom: r(title).bottom, cmd: cmd.textContent, cmdTop: r(cmd).top, copyTop: r(copy).top };`);
        assert.match(got.title, /Start it in a terminal:$/);
        assert.ok(got.titleBottom <= got.cmdTop && got.titleBottom <= got.copyTop, `the command stands above its sentence: ${JSON.stringify(got)}`);
      } finally {
        await configure(w, { bridgeUrl: w.bridge.url });
        await unpin();
      }
    });

    test('a fresh chat with a welcome above the input raises no missing-part warning', async () => {
      // Kimi greets a fresh chat above its input; no answer exists yet, so none is missing.
      await openChat(w, 'www.kimi.com', '/?welcome=1');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'www.kimi.com', '/?welcome=1');
      // Every missing-part warning the float shows from now on is recorded.
      await w.session.exec(`const root = document.querySelector('mcp-bridge-float').shadowRoot;
        window.sawMissing = [];
        const look = () => { for (const m of root.querySelectorAll('.missing')) window.sawMissing.push(m.dataset.part + ': ' + m.textContent); };
        look();
        new MutationObserver(look).observe(root, { childList: true, subtree: true });`);
      // The user's first exchange: the page was read before it (the content script reads the
      // page, then watches the user), and the call in the answer is found and reported.
      await userSays(w, 'Echo please.', [`Sure.\n${call('echo', { text: 'welcome gone' })}`, 'Done.'], '.chat-input-editor');
      const msgs = await userMessages(w, 2);
      assert.match(msgs[1], /welcome gone/);
      assert.deepEqual(await w.session.exec('return window.sawMissing'), [], 'a warning on a fresh chat');
      // The AI's last answer in, the chat is left empty for the tests that follow.
      await w.session.waitForScript('return window.fixtureAI.answers().length >= 2', { what: 'the second answer' });
      await w.session.exec('window.fixtureAI.reset()');
    });

    test('the title bar keeps its place from ready to an error', async () => {
      // ChatGPT's column leaves room beside it at 1280 px: the float is open there.
      await longChat('chatgpt.com');
      const before = await measure('chatgpt');
      assert.equal(before.status, 'ready');
      await userSays(w, 'Run the failing tool.', [`Trying.\n${call('fail_runtime', { message: 'boom' })}`, 'It failed.']);
      await userMessages(w, 2);
      await w.session.waitForScript('return window.fixtureAI.answers().length >= 2', { what: 'the second answer' });
      await sleep(2500); // the input is empty again and the float has been placed
      const after = await measure('chatgpt');
      assert.equal(after.status, 'error');
      // A longer title may take a second line; the edge by the input stays.
      for (const k of ['left', 'right', 'bottom']) {
        assert.ok(Math.abs(after.bar[k] - before.bar[k]) <= 1, `bar ${k}: ${before.bar[k]} → ${after.bar[k]}`);
      }
      assert.ok(!overlap(after.box, after.others[0]) && !overlap(after.box, after.others[1]), JSON.stringify(after));
    });

    test('an error float is minimised, stays so while it redraws, and opens again with Tab and Enter', async () => {
      await openChat(w, 'www.kimi.com');
      await userSays(w, 'Fail.', [`Trying.\n${call('fail_runtime', { message: 'boom' })}`, 'It failed.']);
      await w.session.waitForScript(`return document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.box[data-status=error]')`, { what: 'the error float' });
      // Show report and Copy report are buttons of one kind; the title is read whole.
      const look = await w.session.exec(`const root = document.querySelector('mcp-bridge-float').shadowRoot;
        const kind = (e) => { const s = getComputedStyle(e); return [s.borderTopWidth, s.backgroundColor, s.textDecorationLine].join(' '); };
        const title = root.querySelector('.title');
        return { show: kind(root.querySelector('[data-tool=report]')), copy: kind(root.querySelector('[data-id=copy-report], [data-copy=floatCopy]')),
          titleCut: title.scrollHeight > title.clientHeight + 1 };`);
      assert.equal(look.show, look.copy, 'Show report and Copy report differ in kind');
      assert.ok(!look.titleCut, 'the title is cut');
      await w.session.exec(`document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.bar button.min').click()`);
      await w.session.waitForScript(`return !!document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.ring[data-tone=bad]')`, { what: 'the ring' });
      await sleep(2500); // the float is placed again: it stays minimised, and off the input
      const got = await measure('kimi');
      assert.ok(got.ring && !got.box, JSON.stringify(got));
      assert.ok(!overlap(got.ring, got.others[0]) && !overlap(got.ring, got.others[1]), JSON.stringify(got));
      await w.session.exec('document.activeElement?.blur(); document.body.focus()');
      let reached = false;
      for (let i = 0; i < 40 && !reached; i++) {
        await key(w, '\uE004');
        reached = await w.session.exec(`const host = document.querySelector('mcp-bridge-float');
          return document.activeElement === host && host.shadowRoot.activeElement?.classList.contains('ring')`);
      }
      assert.ok(reached, 'Tab never reached the minimized float');
      await key(w, '\uE007');
      await w.session.waitForScript(`return !!document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.box[data-status=error]')`, { what: 'the float to open' });
    });

    test('a float the user put over the input moves clear of it, where they put it otherwise', async () => {
      await openChat(w, 'chat.deepseek.com');
      const input = await w.session.exec(`const r = document.querySelector('textarea#chat-input').getBoundingClientRect(); return { left: r.left, top: r.top }`);
      const store = async (script, arg) => {
        await w.session.navigate(`${w.extensionBase}options/options.html`);
        await w.session.waitForScript("return document.readyState === 'complete' && !!globalThis.chrome?.storage", { what: 'the options page' });
        await w.session.execAsync(`const done = arguments[arguments.length - 1]; ${script}.then(() => done(true));`, arg);
      };
      try {
        await store(`chrome.storage.local.set({ 'floatPos:deepseek': arguments[0] })`, { left: Math.round(input.left) + 4, top: Math.round(input.top) + 2 });
        await openChat(w, 'chat.deepseek.com');
        await sleep(2500);
        const got = await measure('deepseek');
        assert.ok(got.box, 'the float is open');
        assert.ok(!overlap(got.box, got.others[0]) && !overlap(got.box, got.others[1]), JSON.stringify(got));
        assert.ok(Math.abs(got.box.left - (Math.round(input.left) + 4)) <= 1, 'it kept its place across');
      } finally {
        await store(`chrome.storage.local.remove('floatPos:deepseek')`);
      }
    });

    test('consent is a dialog: the question first, the arguments as a list, focus in and back, Esc keeps the question', async () => {
      await configure(w, { toolPolicies: { 'demo:echo': 'ask' } });
      try {
        await openChat(w, 'chat.deepseek.com');
        await w.session.exec('window.fixtureAI.reset()');
        await openChat(w, 'chat.deepseek.com');
        const long = 'word '.repeat(60);
        await userSays(w, 'Echo please.', [`Sure.\n${call('echo', { text: long, password: 'hunter2-hunter2' })}`, 'Done.']);
        await w.session.waitForScript(`return document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.box[data-status=confirm]')`, { what: 'the prompt' });
        const got = await w.session.exec(`const root = document.querySelector('mcp-bridge-float').shadowRoot;
          const box = root.querySelector('.box');
          return { role: box.getAttribute('role'), live: box.getAttribute('aria-live'), question: root.querySelector('.title').textContent,
            labelled: root.getElementById(box.getAttribute('aria-labelledby'))?.textContent,
            focused: root.activeElement?.dataset.id ?? null, host: document.activeElement === document.querySelector('mcp-bridge-float'),
            buttons: [...root.querySelectorAll('.row button')].map((b) => ({ id: b.dataset.id, primary: b.classList.contains('primary') })),
            tools: root.querySelectorAll('.more, .tools, [data-tool], [data-action]').length,
            args: [...root.querySelectorAll('.args dt')].map((d) => d.textContent),
            folded: root.querySelector('.args details') && !root.querySelector('.args details').open,
            text: root.querySelector('.box').innerText }`);
        assert.equal(got.role, 'alertdialog');
        assert.equal(got.live, 'assertive');
        assert.equal(got.question, 'Let DeepSeek run echo on demo?');
        assert.equal(got.labelled, got.question);
        assert.ok(got.host && got.focused === 'allow-once', `focus is on Allow once: ${JSON.stringify(got)}`);
        assert.deepEqual(got.buttons, [{ id: 'allow-once', primary: true }, { id: 'skip', primary: false }]);
        assert.equal(got.tools, 0, 'only the consent choices show');
        assert.deepEqual(got.args, ['password', 'text']);
        assert.ok(got.folded, 'the long value is folded');
        assert.ok(!got.text.includes('hunter2'), 'the secret-named value is masked');
        await key(w, '\uE00C'); // Escape
        // The question stays (the call waits for an answer); the focus is back in the chat.
        await w.session.waitForScript(`return document.activeElement === document.querySelector('textarea#chat-input')`, { what: 'the focus back in the chat input' });
        const kept = await w.session.exec(`return !!document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.box[data-status=confirm]')`);
        assert.ok(kept, 'Esc dropped the question');
        assert.equal(await w.session.exec('return window.fixtureAI.messages().length'), 1, 'nothing was run or sent');
        // Answered later, the call runs and the AI gets its report: nothing hangs.
        await w.session.exec(`document.querySelector('mcp-bridge-float').shadowRoot.querySelector('[data-id=allow-once]').click()`);
        const msgs = await userMessages(w, 2);
        assert.match(msgs[1], /word word/);
      } finally {
        await configure(w, { toolPolicies: {} });
      }
    });

    for (const theme of ['light', 'dark']) {
      test(`every float state's text is at least 4.5:1 and 12 px, and every target at least 24×24, in the ${theme} theme`, async () => {
        await setTheme(w, browser, theme);
        await configure(w, { toolPolicies: { 'demo:echo': 'ask' } });
        try {
          await openChat(w, 'chat.deepseek.com');
          await w.session.exec('window.fixtureAI.reset()');
          await openChat(w, 'chat.deepseek.com');
          const states = {};
          const check = async (name) => {
            const texts = await w.session.exec(CONTRAST, 'float');
            const targets = await w.session.exec(TARGETS);
            states[name] = { texts: texts.length, min: Math.min(...texts.map((t) => t.ratio)) };
            assert.ok(texts.length > 1, `${name}: ${JSON.stringify(texts)}`);
            assert.deepEqual(texts.filter((t) => t.ratio < 4.5), [], `${name}: below 4.5:1`);
            assert.deepEqual(targets.filter((t) => t.width < 24 || t.height < 24), [], `${name}: targets below 24×24`);
            const sizes = await w.session.exec(SMALL_TEXT);
            assert.ok(sizes.texts > 1, `${name}: no texts measured`);
            assert.deepEqual(sizes.small, [], `${name}: text under 12 px`);
            const words = await w.session.exec(BROKEN_WORDS);
            assert.ok(words.words > 1, `${name}: no words measured`);
            assert.deepEqual(words.broken, [], `${name}: words cut although they fit their line`);
          };
          await w.session.exec(`document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.more').click()`);
          await w.session.exec(`document.querySelector('mcp-bridge-float').shadowRoot.querySelector('[data-action=floatManual]').click()`);
          await check('ready with its tools and the pasted-call box');
          await w.session.exec(`document.querySelector('mcp-bridge-float').shadowRoot.querySelector('[data-action=floatManual]').click()`);
          // Names and paths of many lengths, so some fall at a line's end wherever the float is.
          const names = Array.from({ length: 12 }, (_, i) => `${['src', 'docs', 'server'][i % 3]}/${'module_'.repeat(1 + (i % 4))}${i}.rs`);
          await userSays(w, 'Echo.', [`Sure.\n${call('echo', { text: `${names.join(' ')} hi in the ${theme} theme `.repeat(3) })}`, 'Done.']);
          await w.session.waitForScript(`return document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.box[data-status=confirm]')`, { what: 'the prompt' })
            .catch(async (e) => {
              // Say what the float showed and what reached the chat instead.
              const seen = await w.session.exec(`const box = document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.box');
                return { status: box?.dataset.status, text: box?.textContent.slice(0, 300), sent: window.fixtureAI.messages() };`);
              throw new Error(`${e.message}; instead: ${JSON.stringify(seen)}`);
            });
          await check('consent');
          await w.session.exec(`document.querySelector('mcp-bridge-float').shadowRoot.querySelector('[data-id=allow-once]').click()`);
          await userMessages(w, 2);
          await userSays(w, 'Fail please.', [`Trying.\n${call('fail_runtime', { message: `boom in the ${theme} theme` })}`, 'It failed.']);
          await userMessages(w, 3);
          await w.session.waitForScript(`return document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.box[data-status=error]')`, { what: 'the error float' });
          await w.session.exec(`document.querySelector('mcp-bridge-float').shadowRoot.querySelector('[data-tool=report]').click()`);
          await w.session.waitForScript(`return !!document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.report')`, { what: 'the report' });
          await check('error with its report');
          console.log(`${browser} ${theme}: float contrast`, JSON.stringify(states));
        } finally {
          await configure(w, { toolPolicies: {} });
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
