// One language throughout: with the browser in English and then in Chinese — and the report
// language set to the other one each time — every float state, the popup and the options page
// speak the interface language only. The check reads every shown text (and title, aria-label)
// outside code: in the English interface no Chinese character; in the Chinese one no Latin
// letter and no half-width punctuation (a time's or a version's
// colons and dots between digits aside). Names, commands and code are
// marked up as code, and the report behind *Show report* is the AI's text, in the report
// language, so both are exempt — and the report is checked to be in the other language.
// Text from the bridge or an MCP server (a tool's own description, an error it wrote) is data
// in whatever language it came: the pages isolate it as <bdi>, and it is exempt too; the
// product and format names that have no Chinese (NAMES) stay as they are.
// (A name in a tooltip or label, which cannot mark code, counts as code where the same
// name is shown as code.)
// Chromium runs every float state; Firefox (in Chinese with its language pack) a smaller set:
// the ready float, consent, a success and its report, the popup and the options page.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorld, openChat, userSays, userMessages, call, configure, floatWait, clickAt } from './support/chat.mjs';
import { instrumentedExtension } from './support/instrumented.mjs';
import { freePort } from './support/bridge.mjs';
import { BROWSERS } from './support/browsers.mjs';
import { showSection } from './support/options.mjs';

// Names of products and formats, written the same in Chinese (longest first).
const NAMES = ['MCP Bridge', 'Claude Desktop', 'VS Code', 'Cursor', 'Node.js', 'Python', 'MCP', 'JSON', 'HTTP'];

// Runs in the page: the texts of `arguments[0]` (a selector; the float's shadow root when
// 'float') in the wrong language for `arguments[1]` ('en' or 'zh').
const WRONG = `
  const [where, lang] = arguments;
  const scope = where === 'float' ? document.querySelector('mcp-bridge-float').shadowRoot : document.body;
  const exempt = (e) => !!e.closest('code, bdi, .report, textarea, script, style, [data-lang-exempt]');
  const shownEl = (e) => { const cs = getComputedStyle(e); return cs.display !== 'none' && cs.visibility !== 'hidden' && e.getClientRects().length > 0; };
  // An attribute (a tooltip, a label) cannot mark code: the names the float shows as code
  // are taken out of it first.
  const names = [...scope.querySelectorAll('code')].map((c) => c.textContent).filter(Boolean).sort((a, b) => b.length - a.length);
  const unnamed = (t) => names.reduce((s, n) => s.replaceAll(n, ''), t);
  const texts = [];
  const walk = (node) => { for (const n of node.childNodes) {
    if (n.nodeType === 3 && n.textContent.trim() && !exempt(n.parentElement) && shownEl(n.parentElement)) texts.push(n.textContent.trim());
    else if (n.nodeType === 1 && !exempt(n)) {
      for (const a of ['title', 'aria-label', 'placeholder']) {
        // One token (an example address, a name) is code, which an attribute cannot mark.
        const v = unnamed(n.getAttribute(a) ?? '');
        if (v && !/^[\\w.:\\/@-]+$/.test(v)) texts.push(v);
      }
      walk(n.shadowRoot || n);
    } } };
  walk(scope);
  const cjk = /[\\u3000-\\u303f\\u3400-\\u9fff\\uff00-\\uffef]/;
  const bad = lang === 'en'
    ? (t) => cjk.test(t)
    : (t) => { const s = ${JSON.stringify(NAMES)}.reduce((s, n) => s.replaceAll(n, ''), t); const n = s.replace(/\\d[.:]\\d/g, ''); return /[A-Za-z]/.test(n) || /[,;:?!()]/.test(n) || /\\.(?!\\d)/.test(n); };
  return { count: texts.length, wrong: texts.filter(bad) };`;

// A browser language with no catalog of its own (Traditional Chinese) gets the default
// catalog, English, from the browser; the core's words follow the same choice, not a
// Chinese of their own beside English labels. Chromium alone (Firefox here has only the
// zh-CN language pack), with the short set of states.
const LANGS = [['en-US', 'en', 'zh'], ['zh-CN', 'zh', 'en'], ['zh-TW', 'en', 'zh', 'chromium']];

for (const browser of BROWSERS) for (const [locale, ui, report, only] of LANGS) {
  if (only && only !== browser) continue;
  const full = browser === 'chromium' && !only;
  describe(`the ${ui} interface of a ${locale} browser (reports in ${report}) in ${browser}`, () => {
    let w;
    let ext;
    const root = `document.querySelector('mcp-bridge-float').shadowRoot`;
    const check = async (name, where = 'float') => {
      const got = await w.session.exec(WRONG, where, ui);
      assert.ok(got.count > 0, `${name}: nothing to read`);
      assert.deepEqual(got.wrong, [], `${name}: text not in ${ui}`);
      return got.count;
    };
    const waitStatus = (status) => w.session.waitForScript(`return !!${root}.querySelector('.box[data-status=${status}]')`, { what: `the ${status} float` });
    before(async () => {
      ext = instrumentedExtension(browser);
      w = await startWorld(browser, {
        extension: ext.dir, lang: locale,
        settings: { language: report, toolPolicies: { 'demo:echo': 'ask', 'demo:crash': 'deny' } },
      });
      const ui2 = await w.session.exec('return chrome.i18n.getUILanguage()');
      assert.ok(ui2.startsWith(locale.slice(0, 2)), `the browser runs in ${ui2}`);
    });
    after(async () => {
      await w?.close();
      ext?.remove();
    });

    test('every float state speaks the interface language; the report is in the report language', async () => {
      const seen = {};
      await openChat(w, 'chat.deepseek.com');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      await waitStatus('ready');
      await w.session.exec(`${root}.querySelector('.more').click()`);
      seen.ready = await check('ready, its tools open');

      await userSays(w, 'Echo.', [`Sure.\n${call('echo', { text: 'hello '.repeat(30) })}`, 'Done.']);
      await waitStatus('confirm');
      seen.consent = await check('consent');
      await w.session.exec(`${root}.querySelector('[data-id=allow-once]').click()`);
      await userMessages(w, 2);
      await waitStatus('success');
      seen.success = await check('success');
      await w.session.exec(`${root}.querySelector('[data-tool=report]').click()`);
      const text = await w.session.exec(`return ${root}.querySelector('.report').textContent`);
      // Shown for a person: the heading set apart, no markup or markers meant for the AI.
      assert.ok(await w.session.exec(`return !!${root}.querySelector('.report .h')`), 'the report has its heading');
      assert.doesNotMatch(text, /<\/?tool_result>|\*\*|^#/m, `the report is shown without markup: ${text.slice(0, 200)}`);
      const chinese = /[\u4e00-\u9fff]/.test(text.replace(/hello/g, ''));
      assert.equal(chinese, report === 'zh', `the report is in ${report}: ${text.slice(0, 200)}`);
      seen.report = await check('success, its report open');
      if (!full) {
        console.log(`${browser} ${ui}: texts read per float state`, JSON.stringify(seen));
        return;
      }

      await userSays(w, 'Fail.', [`Trying.\n${call('fail_runtime', { message: 'boom' })}`, 'It failed.']);
      await userMessages(w, 3);
      await waitStatus('error');
      seen.error = await check('error');

      await userSays(w, 'Crash.', [`Trying.\n${call('crash', {})}`, 'Declined.']);
      await userMessages(w, 4);
      await waitStatus('denied');
      seen.denied = await check('denied');

      // Nothing answers at the address: the setup problem, with its command.
      // (The bridge's address is put back whatever happens: the next tests need it.)
      try {
        await configure(w, { bridgeUrl: `http://127.0.0.1:${await freePort()}` });
        await openChat(w, 'chat.deepseek.com');
        await waitStatus('unreachable');
        const command = await w.session.exec(`return ${root}.querySelector('.cmd code').textContent`);
        assert.match(command, /^mcp-bridge --port \d+$/);
        seen.unreachable = await check('unreachable');
        await w.session.exec(`window.__floatLog = []; const r = ${root}; new MutationObserver(() => { const b = r.querySelector('.box');
          window.__floatLog.push([Math.round(performance.now()), b ? b.dataset.status : (r.querySelector('.ring') ? 'ring' : '-')]); }).observe(r, { childList: true, subtree: true });`);
        // The user's own click (a script's click() on the button was seen, rarely, to change nothing).
        await clickAt(w, await floatWait(w, '.bar button.min'));
        await w.session.waitForScript(`return !!${root}.querySelector('.ring')`, { what: 'the ring' }).catch(async (e) => {
          const seen = await w.session.exec(`const b = ${root}.querySelector('.box'); return { status: b?.dataset.status, title: b?.querySelector('.title')?.textContent, log: window.__floatLog,
            floats: document.querySelectorAll('mcp-bridge-float').length, ring: !!${root}.querySelector('.ring'), html: ${root}.innerHTML.length }`);
          throw new Error(`${e.message}; the float instead: ${JSON.stringify(seen)}`);
        });
        seen.minimised = await check('minimised');
        console.log(`${browser} ${ui}: texts read per float state`, JSON.stringify(seen));
      } finally {
        await configure(w, { bridgeUrl: w.bridge.url });
      }
    });

    test('the popup speaks the interface language', async () => {
      await w.session.navigate(`${w.extensionBase}popup/popup.html`);
      await w.session.waitForScript('return document.body.dataset.ready === "true"', { timeoutMs: 30000, what: 'the popup' });
      await check('popup', 'page');
    });

    test('the options page speaks the interface language', async () => {
      await w.session.navigate(`${w.extensionBase}options/options.html`);
      await w.session.waitForScript('return document.body.dataset.ready === "true"', { timeoutMs: 30000, what: 'the options page' });
      // Every section, one at a time as the page shows them, with their details open (the
      // error log's entries, the tools' switches, the sites' advanced part).
      await w.session.exec(`for (const d of document.querySelectorAll('details')) d.open = true`);
      for (const section of await w.session.exec(`return [...document.querySelectorAll('#menu a')].map((a) => a.hash.slice(1))`)) {
        await showSection(w.session, section);
        await check(`options, ${section}`, 'page');
      }
      // The editor of a first server, which says what happens to the built-in demo server.
      await showSection(w.session, 'servers');
      await w.session.exec(`document.getElementById('add-server').click()`);
      await w.session.waitForScript(`const r = document.getElementById('editor-result');
        return !document.getElementById('server-editor').hidden && r.dataset.state === 'ok'`, { what: 'the server editor' });
      await check('options, a new server', 'page');
    });
  });
}
