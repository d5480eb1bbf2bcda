// End to end: the sites a user adds without a release, in real Chromium and real Firefox.
// A signed site list (signed with a key pair made for this run, the extension built with its
// verifying key) is taken, and a tampered one refused with the reason; the picker writes an
// override that works on the open page without a reload; a site is turned on with no
// selectors. Run after ./build.sh build:
//   node --test tests/e2e/sites.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { BROWSERS, ROOT, launch } from './support/browsers.mjs';
import { call, clickAt, elementId, floatWait, openChat, startWorld, userMessages, userSays } from './support/chat.mjs';
import { waitFor } from './support/webdriver.mjs';
import { publicKeyB64, sign } from '../../tools/sign_sites.mjs';
import { openOptions, reveal } from './support/options.mjs';

// The files a custom site gets: the built-in sites' content script.
const manifestScripts = JSON.parse(fs.readFileSync(path.join(ROOT, 'manifest.json'), 'utf8')).content_scripts[0].js;

/** The site the tests turn MCP Bridge on for. */
const ANY_SITE = 'chat.example.org';

/**
 * A copy of the built extension for `browser` with `key` (base64) as its verifying key. For
 * Chromium, whose permission prompt a test cannot answer, the copy's manifest also holds
 * ANY_SITE's host permission, so `permissions.request` resolves without one; Firefox is
 * told not to prompt instead.
 */
function extensionWithKey(browser, key) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mcpb-ext-${browser}-`));
  fs.cpSync(path.join(ROOT, 'dist', browser === 'chromium' ? 'chrome' : 'firefox'), dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'site-list-key.txt'), `${key}\n`);
  if (browser === 'chromium') {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    manifest.host_permissions.push(`https://${ANY_SITE}/*`);
    fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  }
  return dir;
}

/** Serves `body()` as the site list on a free port of this computer; CORS open, as a list's host must be. */
async function listServer(body) {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
    res.end(JSON.stringify(body()));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/sites.json`, close: () => server.close() };
}

const deepseek = () => JSON.parse(fs.readFileSync(path.join(ROOT, 'extension/sites/deepseek.json'), 'utf8'));
const stored = (session, key) => session.execAsync(
  `const done = arguments[arguments.length - 1];
   chrome.storage.local.get(arguments[0]).then((v) => done(v[arguments[0]] ?? null), (e) => done(String(e)));`, key);
const setValue = (session, id, value) => session.exec(
  `const e = document.getElementById(arguments[0]); e.value = arguments[1];
   e.dispatchEvent(new Event('input', { bubbles: true }));`, id, value);
/** Clicks `css` as a person would: its section shown and any details around it open first. */
const click = async (session, css) => {
  await reveal(session, css);
  return session.click(await session.find(css));
};

for (const name of BROWSERS) {
  describe(`site lists in ${name}`, () => {
    const { privateKey } = crypto.generateKeyPairSync('ed25519');
    let served;
    let server;
    let browser;
    let dir;

    before(async () => {
      served = sign({ version: 1, sites: [{ ...deepseek(), stableMs: 700 }] }, privateKey);
      server = await listServer(() => served);
      dir = extensionWithKey(name, publicKeyB64(privateKey));
      browser = await launch(name, { extension: dir });
      await openOptions(browser.session, browser.extensionBase, 'sites');
      await browser.session.waitForScript('return document.body.dataset.ready === "true"', { timeoutMs: 30000 });
    });
    after(async () => {
      await browser?.close();
      server?.close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    test('a signed list is taken, and a tampered one refused with the reason', async () => {
      const { session } = browser;
      await setValue(session, 'site-list-url', server.url);
      await click(session, '#subscribe-list');
      const state = await session.waitForScript(
        `const e = document.getElementById('site-list-state'); return e.dataset.version === '1' && e.dataset.state + ' ' + e.textContent;`,
        { what: 'the list to be taken' });
      assert.match(state, /^ok .*1/, state);
      assert.equal((await stored(session, 'siteList')).sites[0].stableMs, 700);

      // Version 2 with a selector changed after signing.
      served = sign({ version: 2, sites: [deepseek()] }, privateKey);
      served.sites[0].selectors.input = ['textarea.evil'];
      await click(session, '#check-list');
      const refused = await session.waitForScript(
        `const e = document.getElementById('site-list-state'); return e.dataset.state === 'down' && e.textContent;`,
        { what: 'the refusal' });
      assert.match(refused, /signature does not match/, refused);
      const list = await stored(session, 'siteList');
      assert.equal(list.version, 1, 'the version in force stays');
      assert.equal(list.sites[0].stableMs, 700);
      assert.match(list.refused, /signature/);

      // A newer one, well signed, is taken; an older one then refused.
      served = sign({ version: 3, sites: [] }, privateKey);
      await click(session, '#check-list');
      await session.waitForScript(`return document.getElementById('site-list-state').dataset.version === '3'`, { what: 'version 3' });
      assert.deepEqual((await stored(session, 'siteList')).sites, []);
      served = sign({ version: 2, sites: [deepseek()] }, privateKey);
      await click(session, '#check-list');
      const older = await session.waitForScript(
        `const t = document.getElementById('site-list-state').textContent; return /older/.test(t) && t;`, { what: 'older refused' });
      assert.match(older, /version 2 is older than version 3/, older);
    });

    test('a site is turned on from the options page with no selectors', async () => {
      const { session } = browser;
      if (name === 'firefox') {
        await session.cmd('POST', '/moz/context', { context: 'chrome' });
        try {
          await session.exec(`Services.prefs.setBoolPref('extensions.webextOptionalPermissionPrompts', false)`);
        } finally {
          await session.cmd('POST', '/moz/context', { context: 'content' });
        }
      }
      await setValue(session, 'enable-url', `https://${ANY_SITE}/chats/1`);
      await click(session, '#enable-site');
      const said = await session.waitForScript(
        `const e = document.getElementById('enable-result'); return e.dataset.state && e.dataset.state + ' ' + e.textContent;`,
        { what: 'the answer' });
      assert.match(said, new RegExp(`^ok .*${ANY_SITE}`), said);
      const scripts = await session.execAsync(`const done = arguments[arguments.length - 1];
        chrome.scripting.getRegisteredContentScripts().then((s) => done(s.map((x) => [x.id, x.matches, x.js.map((f) => f.replace(/^[/]/, ''))])), (e) => done(String(e)));`);
      assert.deepEqual(scripts, [['custom-site-chat-example-org', [`https://${ANY_SITE}/*`], manifestScripts]]);
      const [site] = await stored(session, 'customSites');
      assert.deepEqual(site.selectors, { input: [], send: [], assistantMessage: [], generating: [], messageArea: [] });
      await session.waitForScript(`return document.querySelector('#custom-site-list li[data-site="chat-example-org"]')`);
      // A page that is not a web page is refused, naming the field.
      await setValue(session, 'enable-url', 'about:blank');
      await click(session, '#enable-site');
      const refused = await session.waitForScript(
        `const e = document.getElementById('enable-result'); return e.dataset.state === 'down' && e.textContent;`);
      assert.match(refused, /not a web page/, refused);
    });

    test('the daily check is an alarm of the worker', async () => {
      const alarm = await browser.session.execAsync(`const done = arguments[arguments.length - 1];
        chrome.alarms.get('site-list').then((a) => done(a ? a.periodInMinutes : null), (e) => done(String(e)));`);
      assert.equal(alarm, 180);
    });
  });

  describe(`the picker in ${name}`, () => {
    let w;
    before(async () => { w = await startWorld(name); });
    after(async () => { await w?.close(); });

    /** Clicks the picker's button `which` (use, wider, skip, cancel) in its closed shadow root. */
    async function pickerButton(which) {
      const ref = await waitFor(async () => {
        const hosts = await w.session.cmd('POST', '/elements', { using: 'css selector', value: 'mcp-bridge-picker' });
        if (!hosts.length) return null;
        const root = await w.session.cmd('GET', `/element/${elementId(hosts[0])}/shadow`);
        const found = await w.session.cmd('POST', `/shadow/${Object.values(root)[0]}/elements`,
          { using: 'css selector', value: `button[data-pick="${which}"]:not([disabled])` });
        return found[0];
      }, { what: `the picker's ${which} button` });
      await clickAt(w, ref);
    }

    test('the parts picked on a page whose config stopped matching work at once, without a reload', async () => {
      // DeepSeek's config as if the site had been redesigned: nothing of it matches.
      const stale = { ...deepseek(), selectors: { input: ['#gone-input'], send: ['#gone-send'], assistantMessage: ['.gone-answer'] } };
      await w.session.execAsync(`const done = arguments[arguments.length - 1];
        chrome.storage.local.set({ customSites: [arguments[0]] }).then(() => done(true));`, stale);
      await openChat(w, 'chat.deepseek.com');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      await userSays(w, 'Hello.', ['Hello there.']);
      await w.session.waitForScript('return window.fixtureAI.answers().length === 1 && !window.fixtureAI.isGenerating()');

      await clickAt(w, await floatWait(w, 'button.more', 'More tools'));
      await clickAt(w, await floatWait(w, 'button[data-action="floatPick"]', 'Pick button'));
      await clickAt(w, { e: await w.session.find('textarea#chat-input') });
      await pickerButton('use');
      await clickAt(w, { e: await w.session.find('div.ds-button--primary') });
      await pickerButton('use');
      await clickAt(w, { e: await w.session.find('.ds-message:not(._user) .ds-markdown p') });
      await pickerButton('wider'); // from the paragraph to the whole answer
      await pickerButton('use');

      // The picker is gone once it handed its result to the core.
      await w.session.waitForScript(`return !document.querySelector('mcp-bridge-picker')`, { what: 'the picker to close' });

      // The same page, not reloaded: a call is found, run once, and its result sent.
      await userSays(w, 'Echo something.', [`Checking.\n${call('echo', { text: 'picked works' })}`, 'Done.']);
      const msgs = await userMessages(w, 3);
      assert.match(msgs[2], /<tool_result>[\s\S]*picked works/);
      assert.match(w.bridge.log(), /tool call succeeded server=demo tool="echo"/);

      // What was saved: the picked selectors first, the old ones behind them.
      await openOptions(w.session, w.extensionBase, 'sites');
      await w.session.waitForScript('return document.body.dataset.ready === "true"', { timeoutMs: 30000 });
      const [saved] = await stored(w.session, 'customSites');
      assert.equal(saved.id, 'deepseek');
      assert.equal(saved.selectors.input[1], '#gone-input');
      assert.equal(saved.selectors.assistantMessage[0], 'div.ds-markdown');
      // Listed in the options page as the user's override, editable and removable.
      await w.session.waitForScript(`return document.querySelector('#custom-site-list li[data-site="deepseek"]')`);
      await openChat(w, 'chat.deepseek.com');
      const picked = await w.session.exec(`const [i, s] = arguments[0];
        return [document.querySelector(i)?.id, document.querySelector(s)?.className];`,
      [saved.selectors.input[0], saved.selectors.send[0]]);
      assert.equal(picked[0], 'chat-input');
      assert.match(picked[1], /ds-button--primary/);
    });
  });
}
