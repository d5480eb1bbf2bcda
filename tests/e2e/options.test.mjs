// End to end: the options page in real Chromium and real Firefox against the real bridge
// (its built-in demo server). Run after ./build.sh build:
//   node --test tests/e2e/options.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { BROWSERS, ROOT, launch } from './support/browsers.mjs';
import { startBridge } from './support/bridge.mjs';
import { startWorld, openChat, userSays, userMessages, call, floatWait, elementId } from './support/chat.mjs';
import { openOptions, optionsUrl, reveal, showSection } from './support/options.mjs';

/** The address of this file's bridge (a free port, set when it starts). */
let bridgeUrl = '';


/** Sets an input's value the way typing would (value + input event). */
const setValue = (session, id, value) => session.exec(
  `const e = document.getElementById(arguments[0]);
   if (e.type === 'checkbox') e.checked = arguments[1]; else e.value = arguments[1];
   e.dispatchEvent(new Event('input', { bubbles: true }));`, id, value);
/** Clicks `css` as a person would: its section shown and any details around it open first. */
const click = async (session, css) => {
  await reveal(session, css);
  return session.click(await session.find(css));
};
const text = (session, id) => session.exec('return document.getElementById(arguments[0]).textContent', id);
/** Waits until `#id` has data-state `state` and returns its text. */
const resultOf = (session, id, state = 'down') => session.waitForScript(
  `const e = document.getElementById('${id}');
   return e.dataset.state === '${state}' && e.textContent.length > 0 && e.textContent;`);
/** The exact sentence the page shows for a token the bridge refuses (code shown as code). */
const REFUSED_TOKEN = "The bridge refused this token — copy it again from the bridge's window, or run mcp-bridge install to pair.";
const NOTHING_CHANGED = 'nothing was changed.';
const SECTIONS = ['connection', 'servers', 'tools', 'sites', 'activity', 'advanced'];
/** Saves a screenshot as a build artifact under target/screenshots (never a tracked file). */
async function shoot(session, file) {
  const shots = path.join(ROOT, 'target', 'screenshots');
  fs.mkdirSync(shots, { recursive: true });
  fs.writeFileSync(path.join(shots, file), Buffer.from(await session.screenshot(), 'base64'));
}
/**
 * At each width: no horizontal scroll, and every section of the menu reachable from its link
 * (in view once the link is followed).
 */
async function checkLayout(session, prefix) {
  for (const width of [1024, 1280]) {
    await session.cmd('POST', '/window/rect', { width, height: 900 });
    await session.waitForScript(`return window.outerWidth === ${width} || window.innerWidth <= ${width}`);
    const o = await overflow(session);
    assert.ok(o.scroll <= o.client, `${prefix} at ${width}px scrolls sideways: ${JSON.stringify(o)}`);
    assert.deepEqual(await session.exec(`return [...document.querySelectorAll('#menu a')].map((a) => a.hash.slice(1))`), SECTIONS);
    for (const id of SECTIONS) {
      await session.exec(`document.querySelector('#menu a[href="#${id}"]').click()`);
      await session.waitForScript(`const r = document.getElementById('${id}').getBoundingClientRect();
        return r.top < window.innerHeight && r.bottom > 0;`, { what: `${id} in view at ${width}px` });
    }
    await session.exec('window.scrollTo(0, 0)');
    await shoot(session, `${prefix}-${width}.png`);
  }
  await session.cmd('POST', '/window/rect', { width: 1280, height: 900 });
}

/** An element's text without its buttons' labels (the copy buttons beside commands). */
const prose = (session, id) => session.exec(`const c = document.getElementById(arguments[0]).cloneNode(true);
  for (const b of c.querySelectorAll('button')) b.remove(); return c.textContent;`, id);
/** Whether the page is wider than its window (a horizontal scroll bar). */
const overflow = (session) => session.exec(`const d = document.documentElement;
  const wide = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > d.clientWidth + 1)
    .slice(0, 3).map((e) => e.tagName + '#' + e.id + '.' + e.className);
  return { scroll: d.scrollWidth, client: d.clientWidth, wide };`);
/** Reads chrome.storage.local[key] from the page. */
const stored = (session, key) => session.execAsync(
  `const done = arguments[arguments.length - 1];
   chrome.storage.local.get(arguments[0]).then((v) => done(v[arguments[0]] ?? null), (e) => done(String(e)));`, key);
/** Calls a demo tool directly (node sends no Origin header, which the bridge accepts). */
async function execute(token, name, args = {}) {
  const res = await fetch(`${bridgeUrl}/execute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, arguments: args }),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

for (const name of BROWSERS) {
  describe(`options page in ${name}`, () => {
    let bridge;
    let browser;
    let session;
    let page;

    const open = async () => {
      await session.navigate(page);
      await session.waitForScript('return document.body.dataset.ready === "true"', { timeoutMs: 30000 });
    };

    before(async () => {
      bridge = await startBridge();
      bridgeUrl = bridge.url;
      browser = await launch(name);
      session = browser.session;
      page = `${browser.extensionBase}options/options.html`;
      await open();
    });

    after(async () => {
      await browser?.close();
      await bridge?.stop();
    });

    test('the page shows the extension version from the manifest', async () => {
      const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'manifest.json'), 'utf8'));
      assert.equal(await text(session, 'extension-version'), version);
    });

    test('a wrong token is named as the problem', async () => {
      await setValue(session, 'bridge-url', bridgeUrl);
      await setValue(session, 'token', 'not-the-token');
      await click(session, '#test-connection');
      const msg = await resultOf(session, 'connection-result');
      // The bridge cannot prove it holds this token, so the token is never sent: both
      // browsers get the same refusal, in one sentence in the user's words, with the
      // command marked up as code (no backticks shown) and a copy button beside it.
      assert.equal(await prose(session, 'connection-result'), `Token (token): ${REFUSED_TOKEN} — ${NOTHING_CHANGED}`, msg);
      assert.deepEqual(await session.exec(`return [...document.querySelectorAll('#connection-result code')].map((c) => c.textContent)`),
        ['token', 'mcp-bridge install']);
      assert.equal(await session.exec(`return !!document.querySelector('#connection-result code + button.copy')`), true);
      assert.equal(await session.exec('return document.getElementById("token").getAttribute("aria-invalid")'), 'true');
    });

    test('a pasted token with blanks around it is trimmed, not refused', async () => {
      await setValue(session, 'token', ` ${bridge.token}\n`);
      await click(session, '#test-connection');
      const msg = await resultOf(session, 'connection-result', 'ok');
      assert.match(msg, /^Connected to bridge \S+: 1 server, 1 running\.$/, msg);
    });

    test('the right token shows the version and the servers', async () => {
      await setValue(session, 'token', bridge.token);
      await click(session, '#test-connection');
      const msg = await resultOf(session, 'connection-result', 'ok');
      assert.ok(msg.length > 0);
      const services = await text(session, 'services');
      assert.match(services, /running/, services);
    });

    test('an invalid address is refused, naming the field, and nothing is stored', async () => {
      const before = await stored(session, 'settings');
      await setValue(session, 'bridge-url', 'http://example.com:3849');
      await setValue(session, 'token', bridge.token);
      await click(session, '#save-connection');
      const msg = await resultOf(session, 'connection-result');
      assert.match(msg, /bridgeUrl/, msg);
      assert.match(msg, /not this computer/, msg);
      assert.deepEqual(await stored(session, 'settings'), before);
      // Behaviour: an out-of-range number names its field too.
      await setValue(session, 'stack-lines', '0');
      await click(session, '#save-behaviour');
      const msg2 = await resultOf(session, 'behaviour-result');
      assert.match(msg2, /stackLines/, msg2);
      assert.deepEqual(await stored(session, 'settings'), before);
    });

    test('a malformed site config is refused, naming the field, and nothing is stored', async () => {
      await setValue(session, 'site-json', JSON.stringify({
        id: 'mine', name: 'Mine', hosts: ['chat.example.org'], editor: 'monaco',
        selectors: { input: ['textarea'], send: ['button'], assistantMessage: ['.a'] },
      }));
      await click(session, '#save-site');
      const msg = await resultOf(session, 'site-result');
      assert.match(msg, /editor/, msg);
      await setValue(session, 'site-json', '{"id": "mine", "hosts": [');
      await click(session, '#check-site');
      const msg2 = await session.waitForScript(
        `const t = document.getElementById('site-result').textContent; return /EOF/.test(t) && t;`);
      assert.match(msg2, /^(config|hosts)/, msg2);
      assert.equal(await stored(session, 'customSites'), null);

      // A valid config is checked (the page learns the origins to ask for), but the core
      // refuses to save it while the browser has not granted the host permission.
      const good = JSON.stringify({
        id: 'mine', name: 'Mine', hosts: ['chat.example.org'], editor: 'textarea',
        selectors: { input: ['textarea'], send: ['button'], assistantMessage: ['.a'] },
      });
      await setValue(session, 'site-json', good);
      await click(session, '#check-site');
      const ok = await resultOf(session, 'site-result', 'ok');
      assert.match(ok, /https:\/\/chat\.example\.org\/\*/, ok);
      // Straight to the page's core, past the page's own checks.
      const direct = await session.execAsync(`const done = arguments[arguments.length - 1];
        // (Firefox runs this script in a sandbox with its own module instance: init it.)
        import('/core/mcp_bridge_core.js')
          .then(async (core) => {
            await core.default({ module_or_path: '/core/mcp_bridge_core_bg.wasm' });
            return core.handlePageRequest(JSON.stringify({ type: 'save-custom-site', json: arguments[0] }));
          })
          .then(done, (e) => done(String(e)));`, good);
      assert.equal(direct.type, 'error', JSON.stringify(direct));
      assert.equal(direct.field, 'hosts');
      assert.match(direct.message, /not granted/);
      assert.equal(await stored(session, 'customSites'), null);
      // The worker answers no page request at all: each page runs its own instance.
      const worker = await session.execAsync(`const done = arguments[arguments.length - 1];
        chrome.runtime.sendMessage({ type: 'save-custom-site', json: arguments[0] }).then(done, (e) => done(String(e)));`, good);
      assert.equal(worker.type, 'error', JSON.stringify(worker));
      assert.match(worker.message, /own core/);
    });

    // Firefox only: Chromium cannot grant optional host permissions without a prompt, so the
    // test is not defined there (a skipped test would count as one that did not run).
    (name === 'firefox' ? test : () => {})('a custom site is saved and its content script registered once access is granted', async () => {
      // Firefox grants optional permissions without a prompt when this pref is off.
      await session.cmd('POST', '/moz/context', { context: 'chrome' });
      try {
        await session.exec(`Services.prefs.setBoolPref('extensions.webextOptionalPermissionPrompts', false)`);
      } finally {
        await session.cmd('POST', '/moz/context', { context: 'content' });
      }
      const good = JSON.stringify({
        id: 'mine', name: 'Mine', hosts: ['chat.example.org'], editor: 'textarea',
        selectors: { input: ['textarea'], send: ['button'], assistantMessage: ['.a'] },
      });
      await setValue(session, 'site-json', good);
      await click(session, '#check-site');
      await resultOf(session, 'site-result', 'ok');
      await click(session, '#save-site');
      await session.waitForScript(`return document.querySelector('#custom-site-list li[data-site="mine"]')`);
      const scripts = await session.execAsync(`const done = arguments[arguments.length - 1];
        chrome.scripting.getRegisteredContentScripts().then((s) => done(s.map((x) => [x.id, x.matches])), (e) => done(String(e)));`);
      assert.deepEqual(scripts, [['custom-site-mine', ['https://chat.example.org/*']]]);
      assert.equal((await stored(session, 'customSites'))[0].id, 'mine');
      await click(session, '#custom-site-list li[data-site="mine"] button:last-of-type');
      await session.waitForScript(`return !document.querySelector('#custom-site-list li[data-site="mine"]')`);
      const after = await session.execAsync(`const done = arguments[arguments.length - 1];
        chrome.scripting.getRegisteredContentScripts().then((s) => done(s.length), (e) => done(String(e)));`);
      assert.equal(after, 0);
      assert.deepEqual(await stored(session, 'customSites'), []);
    });

    test('saved settings survive reopening the page', async () => {
      await setValue(session, 'bridge-url', bridgeUrl);
      await setValue(session, 'token', bridge.token);
      await click(session, '#save-connection');
      await resultOf(session, 'connection-result', 'ok');
      await setValue(session, 'stack-lines', '7');
      await setValue(session, 'language', 'en');
      await setValue(session, 'auto-send', false);
      await click(session, '#save-behaviour');
      await resultOf(session, 'behaviour-result', 'ok');
      await open();
      const values = await session.exec(`return {
        url: document.getElementById('bridge-url').value, token: document.getElementById('token').value,
        stack: document.getElementById('stack-lines').value, lang: document.getElementById('language').value,
        autoSend: document.getElementById('auto-send').checked }`);
      assert.deepEqual(values, { url: bridgeUrl, token: bridge.token, stack: '7', lang: 'en', autoSend: false });
      // The header names the connection exactly as the core words it for this bridge.
      const health = await (await fetch(`${bridgeUrl}/health`)).json();
      const listed = await (await fetch(`${bridgeUrl}/tools`, { headers: { authorization: `Bearer ${bridge.token}` } })).json();
      const running = listed.services.filter((s) => s.status === 'running');
      const tools = running.reduce((sum, s) => sum + s.tool_count, 0);
      assert.equal(await session.exec(`return document.getElementById('bridge-health').dataset.status`), 'connected');
      const n = listed.services.length;
      assert.equal(await text(session, 'bridge-health'),
        `Connected — bridge ${health.version} · ${n} server${n === 1 ? '' : 's'}, ${tools} tool${tools === 1 ? '' : 's'}`);
    });

    test('saved settings that no longer validate are named; a save replaces them', async () => {
      // As if written by another version: one bad value among good ones.
      await session.execAsync(
        `const done = arguments[arguments.length - 1];
         chrome.storage.local.set({ settings: { bridgeUrl: arguments[0], token: arguments[1], stackLines: 7,
           toolPolicies: { '*:echo': 'sometimes' } } }).then(() => done(true));`, bridgeUrl, bridge.token);
      await open();
      const notice = await resultOf(session, 'behaviour-result', 'down');
      assert.match(notice, /toolPolicies/, notice);
      const values = await session.exec(`return {
        token: document.getElementById('token').value, stack: document.getElementById('stack-lines').value,
        autoExecute: document.getElementById('auto-execute').checked }`);
      // What the chat loop uses meanwhile: the valid connection, automatic execution off.
      assert.deepEqual(values, { token: bridge.token, stack: '10', autoExecute: false });
      await setValue(session, 'auto-execute', true);
      await click(session, '#save-behaviour');
      await resultOf(session, 'behaviour-result', 'ok');
      const saved = await stored(session, 'settings');
      assert.equal(saved.token, bridge.token);
      assert.equal(saved.autoExecute, true);
      assert.deepEqual(saved.toolPolicies, {});
      assert.equal('unreadable' in saved, false);
    });

    test('the reset button clears a 3-failure refusal', async () => {
      for (let i = 0; i < 3; i++) {
        const r = await execute(bridge.token, 'fail_runtime');
        assert.notEqual(r.status, 200, JSON.stringify(r.body));
        assert.notEqual(r.status, 429);
      }
      const refused = await execute(bridge.token, 'fail_runtime');
      assert.equal(refused.status, 429, JSON.stringify(refused.body));
      assert.equal(refused.body.detail.type, 'CallLimitExceeded');

      await click(session, '#refresh-history');
      await session.waitForScript(`return document.querySelector('#counters tr[data-blocked="true"]')`);
      assert.match(await text(session, 'history-result'), /fail_runtime/);
      // "Refused until reset" is a warning, not drawn like a success.
      const colours = await session.exec(`const c = (e) => getComputedStyle(e).color;
        const r = document.getElementById('history-result');
        const ok = document.createElement('p'); ok.dataset.state = 'ok'; document.body.append(ok);
        const out = { state: r.dataset.state, colour: c(r), ok: c(ok) }; ok.remove(); return out;`);
      assert.equal(colours.state, 'warn', JSON.stringify(colours));
      assert.notEqual(colours.colour, colours.ok, JSON.stringify(colours));

      await click(session, '#reset-history');
      await resultOf(session, 'history-result', 'ok');
      await session.waitForScript(`return !document.querySelector('#counters tr[data-blocked="true"]')`);

      const next = await execute(bridge.token, 'fail_runtime');
      assert.notEqual(next.status, 429, 'the call runs again after the reset');
      assert.equal(next.body.detail.type !== 'CallLimitExceeded', true);
    });

    test('the sections sit in a menu, everyday ones first, and nothing scrolls sideways', async () => {
      await checkLayout(session, `options-${name}`);
    });

    test('tools list themselves; a policy shows what is in force and why, and returns to the default', async () => {
      await open();
      // Nothing pressed: the list fills itself once the bridge answers.
      await session.waitForScript(`return document.querySelector('#tool-list tr[data-tool="demo:crash"] select')`,
        { timeoutMs: 20000, what: 'the tool list to fill itself' });
      const row = (key) => session.exec(`const r = document.querySelector('#tool-list tr[data-tool="' + arguments[0] + '"]');
        return { policy: r.dataset.policy, choice: r.querySelector('select').value,
          why: r.querySelector('.policy-why').textContent, first: r.querySelector('select option').textContent };`, key);
      const before = await row('demo:crash');
      assert.deepEqual(before, { policy: 'ask', choice: 'default',
        why: 'The tool may change things, so you are asked before it runs.', first: 'Default (from the tool): Ask' });
      const choose = (value) => session.exec(`const s = document.querySelector('#tool-list tr[data-tool="demo:crash"] select');
        s.value = arguments[0]; s.dispatchEvent(new Event('change'));`, value);
      await choose('deny');
      // Redrawn in place from the core's answer.
      await session.waitForScript(`return document.querySelector('#tool-list tr[data-tool="demo:crash"][data-policy="deny"]')`);
      assert.deepEqual(await row('demo:crash'), { policy: 'deny', choice: 'deny',
        why: 'You chose Deny; the tool\'s own default is Ask.', first: 'Default (from the tool): Ask' });
      assert.equal((await stored(session, 'settings')).toolPolicies['demo:crash'], 'deny');
      await choose('default');
      await session.waitForScript(`return document.querySelector('#tool-list tr[data-tool="demo:crash"][data-policy="ask"]')`);
      assert.deepEqual(await row('demo:crash'), before);
      assert.equal('demo:crash' in (await stored(session, 'settings')).toolPolicies, false);
      // Set once more for the tests that follow, and kept across a reload.
      await choose('deny');
      await session.waitForScript(`return document.querySelector('#tool-list tr[data-tool="demo:crash"][data-policy="deny"]')`);
      await open();
      await session.waitForScript(`return document.querySelector('#tool-list tr[data-tool="demo:crash"][data-policy="deny"]')`,
        { timeoutMs: 20000, what: 'the stored policy after a reload' });
    });

    test('turning on automatic runs says that each tool\'s policy still applies', async () => {
      const said = await session.exec(`const box = document.getElementById('auto-execute');
        return box.closest('label').textContent.trim() + ' | ' + box.closest('label').nextElementSibling.textContent;`);
      assert.equal(said, 'Run allowed tools as soon as the AI calls them | Each tool\'s Allow, Ask or Deny still applies: Ask still asks first, Deny still refuses.');
    });

    test('the error log shows unmasked details, counts and filters', async () => {
      // The stored shape: the record nested in the entry (the page sees it flat).
      const entry = {
        id: 0, timeMs: Date.now(), site: 'chat.deepseek.com',
        record: {
          tool: 'read_text_file', server: 'demo',
          arguments: { path: '/home/alice/notes.txt' }, errorType: 'FileNotFoundError',
          message: 'No such file: /home/alice/notes.txt', traceId: 'trace-e2e',
          traceback: 'Traceback (most recent call last):\n  File "/home/alice/server.py", line 3\nFileNotFoundError: /home/alice/notes.txt',
          category: 'runtime', retryable: true, status: 500, code: -32603,
        },
      };
      await session.execAsync(`const done = arguments[arguments.length - 1];
        chrome.storage.local.set({ errorLog: { nextId: 1, entries: [arguments[0]], counts: { runtime: 1 } } }).then(() => done(true));`, entry);
      await open();
      await session.waitForScript(`return document.querySelector('#log-entries details')`);
      assert.match(await session.exec(`return document.querySelector('#log-entries .traceback').textContent`), /\/home\/alice\/server\.py/);
      assert.equal(await session.exec(`return document.querySelector('#error-counts dd[data-category="runtime"]').textContent`), '1');
      await setValue(session, 'log-category', 'validation');
      await session.exec(`document.getElementById('log-category').dispatchEvent(new Event('change'))`);
      await session.waitForScript(`return !document.querySelector('#log-entries details')`);
      await setValue(session, 'log-category', '');
      await session.exec(`document.getElementById('log-category').dispatchEvent(new Event('change'))`);
      await session.waitForScript(`return document.querySelector('#log-entries details')`);

      if (name === 'chromium') {
        // The README's picture of the page, with tools loaded and one entry open.
        await click(session, '#test-connection');
        await resultOf(session, 'connection-result', 'ok');
        await click(session, '#refresh-history');
        await click(session, '#load-tools');
        await session.waitForScript(`return document.querySelector('#tool-list tr')`, { timeoutMs: 20000 });
        await session.exec(`document.querySelector('#log-entries details').open = true;
          document.body.style.zoom = '1'; window.scrollTo(0, 0);`);
        await session.cmd('POST', '/window/rect', { width: 1280, height: 3000 }).catch(() => {});
        const png = await session.screenshot();
        // A build artifact, never the tracked docs/options.png (copy it there by hand).
        const shots = path.join(ROOT, 'target', 'screenshots');
        fs.mkdirSync(shots, { recursive: true });
        fs.writeFileSync(path.join(shots, 'options.png'), Buffer.from(png, 'base64'));
      }

      await click(session, '#clear-log');
      await session.waitForScript(`return !document.querySelector('#log-entries details')`);
      assert.equal(await session.exec(`return document.querySelector('#error-counts dd[data-category="runtime"]').textContent`), '0');
    });
  });
}

// The page in Chinese: Chromium launched with its interface in Chinese (lang.test.mjs reads the Chinese page in Firefox too).
describe('the options page in Chinese, in chromium', () => {
  let bridge;
  let browser;
  let session;
  const zh = JSON.parse(fs.readFileSync(path.join(ROOT, 'src/domain/i18n/labels/zh.json'), 'utf8')).pages;

  before(async () => {
    bridge = await startBridge();
    browser = await launch('chromium', { lang: 'zh-CN' });
    session = browser.session;
    await session.navigate(`${browser.extensionBase}options/options.html`);
    await session.waitForScript('return document.body.dataset.ready === "true"', { timeoutMs: 30000 });
    await session.execAsync(`const done = arguments[arguments.length - 1];
      chrome.storage.local.set({ settings: { bridgeUrl: arguments[0], token: arguments[1] } }).then(() => done(true));`,
    bridge.url, bridge.token);
    await session.navigate(`${browser.extensionBase}options/options.html`);
    await session.waitForScript('return document.body.dataset.ready === "true"', { timeoutMs: 30000 });
  });

  after(async () => {
    await browser?.close();
    await bridge?.stop();
  });

  test('the menu, the header and the tools speak Chinese, and nothing scrolls sideways', async () => {
    assert.equal(await session.exec('return chrome.i18n.getUILanguage()').then((l) => l.startsWith('zh')), true);
    const menu = await session.exec(`return [...document.querySelectorAll('#menu a')].map((a) => a.textContent)`);
    assert.deepEqual(menu, ['secConnection', 'secServers', 'secTools', 'secSites', 'secActivity', 'secAdvanced'].map((k) => zh[k]));
    const header = await session.waitForScript(`const e = document.getElementById('bridge-health');
      return e.dataset.status === 'connected' && e.textContent;`, { what: 'the connected header' });
    assert.match(header, /^已连接 — 桥接服务 \S+ · 1 个服务，\d+ 个工具$/, header);
    await session.waitForScript(`return document.querySelector('#tool-list tr[data-tool="demo:crash"]')`,
      { timeoutMs: 20000, what: 'the tool list to fill itself' });
    const why = await session.exec(`return document.querySelector('#tool-list tr[data-tool="demo:crash"] .policy-why').textContent`);
    assert.equal(why, '工具可能修改内容，所以运行前会询问你。');
    const first = await session.exec(`return document.querySelector('#tool-list tr[data-tool="demo:crash"] option').textContent`);
    assert.equal(first, '默认（由工具决定）：询问');
    await checkLayout(session, 'options-chromium-zh');
  });
});

// The `read_resource` pseudo-tool's policy, chosen in the float, shows and changes on the
// options page like a tool's: the real bridge running server-everything (which offers
// resources), the fixture chat page playing the AI.
for (const name of BROWSERS) {
  describe(`reading resources, from the float to the options page, in ${name}`, () => {
    let w;
    before(async () => {
      const everything = path.join(ROOT, 'node_modules/.bin/mcp-server-everything');
      w = await startWorld(name, { bridgeConfig: { mcpServers: { everything: { command: everything, args: ['stdio'] } } } });
    });
    after(async () => { await w?.close(); });

    test('"Always allow" in the float shows in the read_resource row as the site\'s choice; the row changes both', async () => {
      const session = w.session;
      await openChat(w, 'chat.deepseek.com');
      await userSays(w, 'Read the features document.', [
        `Reading.\n\n${call('read_resource', { uri: 'demo://resource/static/document/features.md' }, 'everything')}`,
        'Read.',
      ]);
      // It asks the first time; the user allows it for good, on this site.
      await session.click(elementId(await floatWait(w, 'button[data-id="always-allow"]', 'Always allow')));
      const msgs = await userMessages(w, 2, 60000);
      assert.match(msgs[1], /features\.md/);

      await session.navigate(optionsUrl(w.extensionBase, 'tools'));
      const key = 'everything:read_resource';
      assert.equal((await stored(session, 'settings')).siteToolPolicies.deepseek[key], 'allow');
      const rowCss = `#tool-list tr[data-tool="${key}"]`;
      await session.waitForScript(`return document.querySelector('${rowCss} .site-choice[data-site="deepseek"]')`,
        { timeoutMs: 30000, what: 'the read_resource row with the site\'s choice' });
      const row = () => session.exec(`const r = document.querySelector(arguments[0]);
        return { policy: r.dataset.policy, choice: r.querySelector('select').value, text: r.textContent,
                 sites: [...r.querySelectorAll('.site-choice')].map((c) => c.textContent) };`, rowCss);
      const shown = await row();
      assert.equal(shown.choice, 'default', 'the menu is the every-site choice');
      assert.match(shown.text, /Read resources/);
      assert.equal(shown.sites.length, 1);
      assert.match(shown.sites[0], /On deepseek only: Allow/);
      // The menu sets every site; the site's own choice stays beside it.
      await session.exec(`const s = document.querySelector(arguments[0] + ' select');
        s.value = 'deny'; s.dispatchEvent(new Event('change'));`, rowCss);
      await session.waitForScript(`return document.querySelector('${rowCss}[data-policy="deny"] .site-choice')`);
      assert.equal((await stored(session, 'settings')).toolPolicies[key], 'deny');
      // *Forget* drops the site's choice: the every-site Deny holds there again.
      // Clicked in the page: the section may redraw its rows between a find and a click.
      await session.exec('document.querySelector(arguments[0]).click()', `${rowCss} .forget-site-choice`);
      await session.waitForScript(`const r = document.querySelector('${rowCss}');
        return r && !r.querySelector('.site-choice')`, { what: 'the site\'s choice forgotten' });
      assert.equal((await stored(session, 'settings')).siteToolPolicies.deepseek, undefined);
    });
  });
}

// Icons: a stdio server of the bridge's tests whose `inline` tool has a data: icon (its other
// icon URLs point at a port nothing listens on, and a stdio server's are never fetched). The
// options page's tool row and the float asking about the tool show it; a tool without one
// shows none.
for (const name of BROWSERS) {
  describe(`icons in the options page and the float, in ${name}`, () => {
    let w;
    before(async () => {
      const server = path.join(ROOT, 'server/tests/support/icon-server.mjs');
      w = await startWorld(name, { bridgeConfig: { mcpServers: { icons: { command: process.execPath, args: [server, 'http://127.0.0.1:9'] } } } });
    });
    after(async () => { await w?.close(); });

    test('a tool\'s icon shows beside its name in the float\'s question and in the Tools section', async () => {
      const session = w.session;
      await openChat(w, 'chat.deepseek.com');
      await userSays(w, 'Use the inline tool.', [`Calling.\n\n${call('inline', {}, 'icons')}`, 'Done.']);
      const img = elementId(await floatWait(w, '.bar img.icon', 'icon'));
      const src = await session.cmd('GET', `/element/${img}/attribute/src`);
      assert.match(src, /^data:image\/png;base64,/);
      assert.equal(await session.cmd('GET', `/element/${img}/attribute/alt`), '');

      await session.navigate(optionsUrl(w.extensionBase, 'tools'));
      await session.waitForScript('return document.querySelector(\'#tool-list tr[data-tool="icons:far"]\')',
        { timeoutMs: 30000, what: 'the icon server\'s tools' });
      // The image decodes (a PNG of one pixel), drawn at 16 px.
      await session.waitForScript(`const img = document.querySelector('#tool-list tr[data-tool="icons:inline"] td:first-child img.icon');
        return img && img.complete && img.naturalWidth > 0`, { what: 'the inline tool\'s icon' });
      const icons = await session.exec(`return [...document.querySelectorAll('#tool-list tr[data-tool]')].map((r) => {
        const img = r.querySelector('td:first-child img.icon');
        return [r.dataset.tool, img && { src: img.getAttribute('src').slice(0, 22), alt: img.alt, width: img.getBoundingClientRect().width }];
      });`);
      const byTool = Object.fromEntries(icons);
      assert.deepEqual(byTool['icons:inline'], { src: 'data:image/png;base64,', alt: '', width: 16 }, JSON.stringify(icons));
      assert.equal(byTool['icons:far'], null, JSON.stringify(icons));
      assert.equal(byTool['icons:on-disk'], null, JSON.stringify(icons));
    });
  });
}

// One section at a time, as a dashboard shows them: the menu and the address's hash choose
// it; the Servers and Tools sections' buttons wait for a bridge; the risky switches of a
// tool sit in its details; the Sites section leads with turning a site on.
for (const name of BROWSERS) {
  describe(`the options page's sections in ${name}`, () => {
    let bridge;
    let browser;
    let session;
    /** Which sections are shown, and which menu links are marked as the current one. */
    const shown = () => session.exec(`return {
      sections: [...document.querySelectorAll('main > section')].filter((s) => s.checkVisibility()).map((s) => s.id),
      current: [...document.querySelectorAll('#menu a[aria-current="page"]')].map((a) => a.hash.slice(1)),
      hash: location.hash };`);
    /** The Servers and Tools controls that ask the bridge: disabled or not, and the line saying why. */
    const needs = () => session.exec(`return {
      disabled: ['server-template', 'add-server', 'import-servers', 'refresh-servers', 'load-tools'].filter((id) => document.getElementById(id).disabled),
      why: [...document.querySelectorAll('main > section:not([hidden]) .needs-bridge')].filter((p) => p.checkVisibility()).map((p) => p.textContent) };`);

    before(async () => {
      bridge = await startBridge();
      browser = await launch(name);
      session = browser.session;
    });
    after(async () => {
      await browser?.close();
      await bridge?.stop();
    });

    test('with no bridge, the Servers and Tools buttons are off and one line says why; connecting turns them on', async () => {
      await openOptions(session, browser.extensionBase, 'servers');
      const why = 'No bridge is connected, so these buttons are off: connect it under Connection first.';
      assert.deepEqual(await needs(), { disabled: ['server-template', 'add-server', 'import-servers', 'refresh-servers', 'load-tools'], why: [why] });
      await showSection(session, 'tools');
      assert.deepEqual((await needs()).why, [why]);
      await showSection(session, 'connection');
      await setValue(session, 'bridge-url', bridge.url);
      await setValue(session, 'token', bridge.token);
      await click(session, '#save-connection');
      await resultOf(session, 'connection-result', 'ok');
      await showSection(session, 'servers');
      assert.deepEqual(await needs(), { disabled: [], why: [] });
    });

    test('one section is shown at a time; the menu marks it after a click and after a reload', async () => {
      await openOptions(session, browser.extensionBase);
      assert.deepEqual(await shown(), { sections: ['connection'], current: ['connection'], hash: '' });
      for (const id of ['tools', 'sites', 'activity']) {
        await session.click(await session.find(`#menu a[href="#${id}"]`));
        await session.waitForScript(`return location.hash === '#${id}'`);
        assert.deepEqual(await shown(), { sections: [id], current: [id], hash: `#${id}` });
      }
      await session.cmd('POST', '/refresh', {});
      await session.waitForScript('return document.body.dataset.ready === "true"', { timeoutMs: 30000 });
      assert.deepEqual(await shown(), { sections: ['activity'], current: ['activity'], hash: '#activity' });
      await openOptions(session, browser.extensionBase, 'tools');
      assert.deepEqual(await shown(), { sections: ['tools'], current: ['tools'], hash: '#tools' });
    });

    test('a tool\'s "Pass results unmasked" is inside its details, with its risk beside it', async () => {
      await session.waitForScript(`return document.querySelectorAll('#tool-list tr[data-tool]').length > 2`, { timeoutMs: 20000, what: 'the tools' });
      const got = await session.exec(`const rows = [...document.querySelectorAll('#tool-list tr[data-tool]')];
        return rows.map((r) => {
          const box = r.querySelector('input.unmasked');
          const details = box.closest('details.tool-more');
          return { tool: r.dataset.tool, inDetails: !!details, open: details?.open ?? null, seen: box.checkVisibility(),
                   risk: details?.querySelector('.risk')?.textContent ?? null };
        });`);
      for (const row of got) {
        assert.deepEqual(row, { tool: row.tool, inDetails: true, open: false, seen: false,
          risk: "Risk: keys, tokens and passwords in this tool's results go to the chat site and the AI as they are." });
      }
      // Opened, the switch is there and works.
      await click(session, '#tool-list tr[data-tool="demo:echo"] input.unmasked');
      await resultOf(session, 'tools-result', 'ok');
      assert.deepEqual((await stored(session, "settings")).unmaskedResults, ["demo:echo"]);
    });

    test('Sites leads with "Turn on for any site", has one main button, and folds the JSON editor away', async () => {
      await openOptions(session, browser.extensionBase, 'sites');
      const got = await session.exec(`const main = [...document.querySelectorAll('#sites button.primary')].map((b) => b.id);
        const url = document.getElementById('enable-url'), json = document.getElementById('site-json');
        return { main, before: !!(url.compareDocumentPosition(json) & Node.DOCUMENT_POSITION_FOLLOWING),
                 folded: json.closest('details')?.open === false, jsonSeen: json.checkVisibility(), urlSeen: url.checkVisibility() };`);
      assert.deepEqual(got, { main: ['enable-site'], before: true, folded: true, jsonSeen: false, urlSeen: true });
      // Site names are words for people: not code, and never cut mid-word (each word on one
      // line), in a wide window and a phone-sized one.
      for (const width of [1280, 390]) {
        await session.cmd('POST', '/window/rect', { width, height: 900 });
        // Firefox keeps a window somewhat wider than 390 px: as narrow as it goes.
        await session.waitForScript(`return window.outerWidth === ${width} || window.innerWidth <= ${Math.max(width, 600)}`);
        const names = await session.exec(`return [...document.querySelectorAll('#site-table tbody td:first-child')].map((td) =>
          ({ name: td.textContent, code: !!td.querySelector('code'), cut: [...td.querySelector('bdi').textContent.matchAll(/\\S+/g)].filter((m) => {
            const range = document.createRange();
            range.setStart(td.querySelector('bdi').firstChild, m.index);
            range.setEnd(td.querySelector('bdi').firstChild, m.index + m[0].length);
            return range.getClientRects().length !== 1;
          }).map((m) => m[0]) }))
          .filter((n) => n.code || n.cut.length);`);
        assert.deepEqual(names, [], `site names as code or broken at ${width}px`);
      }
      await session.cmd('POST', '/window/rect', { width: 1280, height: 900 });
    });
  });
}
