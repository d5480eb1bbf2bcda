// End to end: managing the bridge's MCP servers from the options page, in real Chromium and
// real Firefox, against the real bridge and the real `mcp-server-time` (.tools/venv, from
// ./build.sh setup). A server added on the page runs a chat call; a broken one shows its
// error and stderr; turned off, its tools are gone; a hand edit of the config file shows
// without a reload. Run after ./build.sh build:
//   flock /tmp/e2e.lock node --test --test-concurrency=1 tests/e2e/servers.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BROWSERS, ROOT, launch } from './support/browsers.mjs';
import { startBridge } from './support/bridge.mjs';

/** The address of this file's bridge (a free port, set when it starts). */
let bridgeUrl = '';
import { startFixtures } from './support/fixtures.mjs';
import { call, configure, openChat, userMessages, userSays } from './support/chat.mjs';
import { openOptions as openAt, reveal } from './support/options.mjs';

const TIME = path.join(ROOT, '.tools/venv/bin/mcp-server-time');
const timeServer = (args = ['--local-timezone', 'UTC']) => ({ command: TIME, args });

/** Sets a field's value the way typing would (value + input event). */
const setValue = (session, id, value) => session.exec(
  `const e = document.getElementById(arguments[0]);
   if (e.type === 'checkbox') e.checked = arguments[1]; else e.value = arguments[1];
   e.dispatchEvent(new Event(e.tagName === 'SELECT' || e.type === 'checkbox' ? 'change' : 'input', { bubbles: true }));`, id, value);
/** Clicks `css` as a person would: its section shown and any details around it open first. */
const click = async (session, css) => {
  await reveal(session, css);
  return session.click(await session.find(css));
};
/** Waits until `css` matches and returns the element's text. */
const textOf = (session, css, opts = {}) => session.waitForScript(
  `const e = document.querySelector(${JSON.stringify(css)}); return e ? e.textContent : null;`,
  { timeoutMs: 30000, what: css, ...opts });
const row = (name) => `#server-list li[data-server="${name}"]`;
/**
 * Clicks a button in a server's row. The row is redrawn when the bridge's answer changes (a
 * server that finished starting), so it is found and clicked in one step.
 */
const clickInRow = (session, css) => session.waitForScript(
  `const e = document.querySelector(${JSON.stringify(css)}); if (!e) return false; e.click(); return true;`,
  { what: css });
/** Waits for the server's row to show `status`. */
const statusIs = (session, name, status) => session.waitForScript(
  `return document.querySelector('${row(name)}[data-status="${status}"]')`,
  { timeoutMs: 40000, what: `${name} to be ${status}` });

/** The bridge's own view (node sends no Origin, which the bridge accepts). */
async function bridgeServers(token) {
  const res = await fetch(`${bridgeUrl}/servers`, { headers: { authorization: `Bearer ${token}` } });
  return res.json();
}

assert.ok(fs.existsSync(TIME), `${TIME} is missing: run ./build.sh setup`);

for (const name of BROWSERS) {
  describe(`managing servers in ${name}`, () => {
    let fixtures;
    let bridge;
    let browser;
    let session;

    const openOptions = () => openAt(session, browser.extensionBase, 'servers');
    /** Opens the editor of a listed server and saves `definition` in it. */
    const saveEdited = async (server, definition) => {
      await clickInRow(session, `${row(server)} button[data-action="edit"]`);
      await session.waitForScript(`return !document.getElementById('server-editor').hidden`);
      await setValue(session, 'server-json', JSON.stringify(definition, null, 2));
      await click(session, '#save-server');
      await session.waitForScript(`return document.getElementById('server-editor').hidden`, { what: 'the editor to close' });
    };

    let home;

    before(async () => {
      fixtures = await startFixtures();
      // Claude Desktop's config in a home of its own: one server whose name clashes, one new.
      home = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpb-home-'));
      const claude = path.join(home, '.config/Claude/claude_desktop_config.json');
      fs.mkdirSync(path.dirname(claude), { recursive: true });
      fs.writeFileSync(claude, JSON.stringify({ mcpServers: { other: { command: 'elsewhere' }, imported: timeServer() } }));
      // A config with a server, but not `time`.
      bridge = await startBridge({
        config: { mcpServers: { other: timeServer() } },
        env: { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') },
      });
      bridgeUrl = bridge.url;
      browser = await launch(name, { fixtures });
      session = browser.session;
      await configure(browser, { bridgeUrl, token: bridge.token, language: 'en', toolPolicies: { 'time:get_current_time': 'allow' } });
      await openOptions();
    });

    after(async () => {
      await browser?.close();
      await bridge?.stop();
      fixtures?.stop();
      if (home) fs.rmSync(home, { recursive: true, force: true });
    });

    test('the list shows the config\'s servers, without `time`', async () => {
      await statusIs(session, 'other', 'running');
      assert.equal(await session.exec(`return document.querySelector('${row('time')}')`), null);
      assert.match(await textOf(session, '#config-path'), /mcp-config\.json/);
    });

    test('a definition is checked as it is typed, naming the field', async () => {
      await setValue(session, 'server-template', 'local');
      await click(session, '#add-server');
      // The template's example path is refused until it is replaced.
      const example = await session.waitForScript(
        `const r = document.getElementById('editor-result'); return r.dataset.state === 'down' && r.textContent`);
      assert.match(example, /\(definition\.command\): \/path\/to\/server is the template's example; replace it with your own/, example);
      // A config that lists servers already: nothing is said about the demo server.
      assert.equal(await session.exec(`return document.getElementById('editor-notice').hidden`), true);
      await setValue(session, 'server-name', 'time');
      // A misspelt key is named, with the key it reads as.
      await setValue(session, 'server-json', '{"comand": "uvx", "args": ["mcp-server-time"]}');
      const misspelt = await session.waitForScript(
        `const r = document.getElementById('editor-result'); return r.dataset.state === 'down' && /comand/.test(r.textContent) && r.textContent`);
      assert.match(misspelt, /comand is not a key of a server definition; did you mean command\?/, misspelt);
      // The label, the field, the key written and the key meant are each shown as code.
      assert.deepEqual(await session.exec(`return [...document.querySelectorAll('#editor-result code')].map((c) => c.textContent)`),
        ['mcpServers', 'definition.comand', 'comand', 'command']);
      await setValue(session, 'server-json', '{"command": "x", "args": "--local-timezone"}');
      const msg = await session.waitForScript(
        `const r = document.getElementById('editor-result'); return r.dataset.state === 'down' && /definition\\.args/.test(r.textContent) && r.textContent`);
      assert.match(msg, /must be an array/, msg);
      assert.equal(await session.exec(`return document.getElementById('server-json').getAttribute('aria-invalid')`), 'true');
      // Nothing was sent to the bridge.
      assert.ok(!(await bridgeServers(bridge.token)).servers.some((s) => s.name === 'time'));
      // What only the bridge checks comes back naming the field of the definition.
      await setValue(session, 'server-json', JSON.stringify({ ...timeServer(), timeout: -1 }));
      await session.waitForScript(`return document.getElementById('editor-result').dataset.state === 'ok'`);
      await click(session, '#save-server');
      const refused = await session.waitForScript(
        `const r = document.getElementById('editor-result'); return r.dataset.state === 'down' && r.textContent`);
      assert.match(refused, /definition\.timeout/, refused);
      assert.match(refused, /The bridge refused the change to time/, refused);
      assert.ok(!(await bridgeServers(bridge.token)).servers.some((s) => s.name === 'time'));
    });

    test('added from a template, its tools appear without pressing "Load tools"', async () => {
      await setValue(session, 'server-json', JSON.stringify(timeServer(), null, 2));
      await session.waitForScript(`return document.getElementById('editor-result').dataset.state === 'ok'`);
      await click(session, '#save-server');
      await statusIs(session, 'time', 'running');
      assert.match(await textOf(session, `${row('time')} .tool-count`), /2 tools/);
      await session.waitForScript(`return document.querySelector('#tool-list tr[data-tool="time:get_current_time"]')`,
        { timeoutMs: 20000, what: 'the time tools in the tools list' });
      const def = (await bridgeServers(bridge.token)).servers.find((s) => s.name === 'time').definition;
      assert.deepEqual(def, timeServer());
    });

    test('a chat call runs the added server', async () => {
      await openChat(browser, 'chat.deepseek.com');
      await session.exec('window.fixtureAI.reset()');
      await openChat(browser, 'chat.deepseek.com');
      await userSays(browser, 'What time is it in UTC?', [
        `Let me check.\n${call('get_current_time', { timezone: 'UTC' }, 'time')}`, 'Thanks.']);
      const msgs = await userMessages(browser, 2);
      assert.match(msgs[1], /<tool_result>/);
      assert.match(msgs[1], /"timezone": ?"UTC"/, msgs[1]);
      assert.match(msgs[1], /datetime/, msgs[1]);
      await openOptions();
    });

    test('a broken command shows its error and stderr; fixed, it runs again', async () => {
      await statusIs(session, 'time', 'running');
      await saveEdited('time', timeServer(['--no-such-flag']));
      const shown = await session.waitForScript(
        `const p = document.querySelector('${row('time')} pre.stderr'); return p && /no-such-flag/.test(p.textContent) && p.textContent`,
        { timeoutMs: 40000, what: 'the stderr of the broken server' });
      assert.match(shown, /unrecognized arguments|error/, shown);
      const status = await session.exec(`return document.querySelector('${row('time')}').dataset.status`);
      assert.notEqual(status, 'running');
      await saveEdited('time', timeServer());
      await statusIs(session, 'time', 'running');
      assert.equal(await session.exec(`return document.querySelector('${row('time')} pre.stderr')`), null);
    });

    test('a secret is shown masked, kept when saved masked, and revealed on request', async () => {
      const secret = 'sk-e2e-secret-0123456789';
      await saveEdited('time', { ...timeServer(), env: { API_KEY: secret } });
      await statusIs(session, 'time', 'running');
      await clickInRow(session, `${row('time')} button[data-action="edit"]`);
      const shown = await session.exec(`return document.getElementById('server-json').value`);
      assert.ok(!shown.includes(secret), shown);
      assert.match(shown, /"API_KEY": "\*\*\*"/, shown);
      // Saved as shown (masked): the stored secret stays.
      await click(session, '#save-server');
      await session.waitForScript(`return document.getElementById('server-editor').hidden`);
      const { config_path: file } = await bridgeServers(bridge.token);
      assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).mcpServers.time.env.API_KEY, secret);
      await clickInRow(session, `${row('time')} button[data-action="edit"]`);
      await click(session, '#reveal-server');
      await session.waitForScript(`return document.getElementById('server-json').value.includes(${JSON.stringify(secret)})`,
        { what: 'the revealed secret' });
      await click(session, '#close-editor');
    });

    test('turned off, its status says so and its tools are gone', async () => {
      await session.waitForScript(`return document.querySelector('#tool-list tr[data-tool="time:get_current_time"]')`,
        { timeoutMs: 20000, what: 'the time tools' });
      await clickInRow(session, `${row('time')} input[data-kind="enabled"]`);
      await statusIs(session, 'time', 'disabled');
      assert.match(await textOf(session, `${row('time')} .status`), /turned off/);
      await session.waitForScript(`return !document.querySelector('#tool-list [data-service="time"]')`,
        { timeoutMs: 20000, what: 'the time tools to leave the tools list' });
      assert.equal((await bridgeServers(bridge.token)).servers.find((s) => s.name === 'time').enabled, false);
    });

    test('removed after a confirmation, it is gone', async () => {
      await clickInRow(session, `${row('time')} button[data-action="remove"]`);
      // Nothing happens before the confirmation.
      assert.ok((await bridgeServers(bridge.token)).servers.some((s) => s.name === 'time'));
      await clickInRow(session, `${row('time')} button[data-action="confirm-remove"]`);
      await session.waitForScript(`return !document.querySelector('${row('time')}')`, { what: 'the row to go' });
      assert.ok(!(await bridgeServers(bridge.token)).servers.some((s) => s.name === 'time'));
    });

    test('import lists Claude Desktop\'s servers, adds the picked one and reports the clash', async () => {
      await click(session, '#import-servers');
      await session.waitForScript(`return document.querySelector('#import-list li[data-candidate="imported"]')`);
      const clash = await textOf(session, '#import-list li[data-candidate="other"]');
      assert.match(clash, /Claude Desktop/, clash);
      assert.equal(await session.exec(`return document.querySelector('#import-list li[data-candidate="other"] input').disabled`), true);
      // Pick the clashing one as well (as an older page might): the bridge refuses it by name.
      await session.exec(`const b = document.querySelector('#import-list li[data-candidate="other"] input'); b.disabled = false; b.checked = true;`);
      await click(session, '#import-picked');
      const said = await session.waitForScript(
        `const r = document.getElementById('import-result'); return /Added/.test(r.textContent) && r.textContent`);
      assert.match(said, /Added: imported/, said);
      assert.match(said, /Not added, other/, said);
      await statusIs(session, 'imported', 'running');
      const other = (await bridgeServers(bridge.token)).servers.find((s) => s.name === 'other');
      assert.equal(other.definition.command, TIME, 'the clash did not overwrite');
    });

    test('a hand edit of the config file shows without a reload', async () => {
      const { config_path: file } = await bridgeServers(bridge.token);
      const config = JSON.parse(fs.readFileSync(file, 'utf8'));
      config.mcpServers.clock = timeServer(['--local-timezone', 'Europe/Paris']);
      fs.writeFileSync(file, JSON.stringify(config, null, 2));
      await statusIs(session, 'clock', 'running');
      await session.waitForScript(`return document.querySelector('#tool-list tr[data-tool="clock:get_current_time"]')`,
        { timeoutMs: 20000, what: 'the hand-added server\'s tools' });
    });
  });
}

// The first server of one's own, on a bridge that runs only its built-in demo server (no
// config file): the editor says the demo steps aside, the save says it happened, and a
// program that is not on this computer is named with how to install it. Chromium only.
describe('the first server of one\'s own, in chromium', () => {
  let bridge;
  let browser;
  let session;

  before(async () => {
    bridge = await startBridge();
    bridgeUrl = bridge.url;
    browser = await launch('chromium');
    session = browser.session;
    await configure(browser, { bridgeUrl: bridge.url, token: bridge.token, language: 'en' });
    await openAt(session, browser.extensionBase, 'servers');
    await session.waitForScript('return document.body.dataset.ready === "true"', { timeoutMs: 30000 });
  });

  after(async () => {
    await browser?.close();
    await bridge?.stop();
  });

  test('the demo steps aside, saying so, and a missing uvx is named with how to get it', async () => {
    await session.waitForScript(`return document.querySelector('${row('demo')}[data-status="running"]')`,
      { timeoutMs: 30000, what: 'the demo server' });
    await setValue(session, 'server-template', 'uvx');
    await click(session, '#add-server');
    const notice = await session.waitForScript(
      `const n = document.getElementById('editor-notice'); return !n.hidden && n.textContent`);
    assert.equal(notice, 'This is your first server: once it is saved, the built-in demo server steps aside and its tools leave the list, unless you keep it.');
    // Offered, not chosen: saving sets the demo aside.
    assert.equal(await session.exec(`return !document.getElementById('keep-demo-row').hidden && document.getElementById('keep-demo').checked`), false);
    // A uvx that is not on this computer (a path where there is none).
    const missing = path.join(os.tmpdir(), `no-such-dir-${process.pid}`, 'uvx');
    await setValue(session, 'server-json', JSON.stringify({ command: missing, args: ['mcp-server-time'] }));
    await session.waitForScript(`return document.getElementById('editor-result').dataset.state === 'ok'`);
    await click(session, '#save-server');
    const said = await session.waitForScript(
      `const r = document.getElementById('servers-result'); return /Added/.test(r.textContent) && r.textContent`);
    assert.equal(said, 'Added time. The built-in demo server steps aside now that the config lists a server of your own.');
    const hint = await textOf(session, `${row('time')} .server-hint`, { timeoutMs: 40000 });
    assert.equal(hint, `${missing} is not installed on this computer. Install uv, which provides uvx: https://docs.astral.sh/uv/getting-started/installation/`);
    // One message per action, and not a green one beside the row's red failure.
    await session.waitForScript(`return !document.getElementById('servers-result').dataset.state`,
      { what: 'the added message to stop reading as a success' });
    assert.equal(await session.exec(`return document.getElementById('servers-result').textContent`), said);
    assert.ok(!(await bridgeServers(bridge.token)).servers.some((s) => s.name === 'demo'), 'the demo server stepped aside');
  });
});

// The first server of one's own with "keep the demo" chosen: one save writes both into the
// config file, and the tools section lists the demo's tools and the new server's. Chromium
// and Firefox, each against a bridge with no config file.
for (const name of BROWSERS) {
  describe(`the first server of one's own, keeping the demo, in ${name}`, () => {
    let bridge;
    let browser;
    let session;

    before(async () => {
      bridge = await startBridge();
      bridgeUrl = bridge.url;
      browser = await launch(name);
      session = browser.session;
      await configure(browser, { bridgeUrl: bridge.url, token: bridge.token, language: 'en' });
      await openAt(session, browser.extensionBase, 'servers');
      await session.waitForScript('return document.body.dataset.ready === "true"', { timeoutMs: 30000 });
    });

    after(async () => {
      await browser?.close();
      await bridge?.stop();
    });

    test('the demo is kept beside the new server, and both servers\' tools are listed', async () => {
      await statusIs(session, 'demo', 'running');
      await setValue(session, 'server-template', 'uvx');
      await click(session, '#add-server');
      await session.waitForScript(`return !document.getElementById('keep-demo-row').hidden`, { what: 'the offer to keep the demo' });
      await setValue(session, 'server-json', JSON.stringify(timeServer()));
      await session.waitForScript(`return document.getElementById('editor-result').dataset.state === 'ok'`);
      await click(session, '#keep-demo');
      assert.equal(await session.exec(`return document.getElementById('keep-demo').checked`), true);
      await click(session, '#save-server');
      const said = await session.waitForScript(
        `const r = document.getElementById('servers-result'); return /Added/.test(r.textContent) && r.textContent`);
      assert.equal(said, 'Added time; the built-in demo server stays, as demo in the config file.');
      await statusIs(session, 'time', 'running');
      await statusIs(session, 'demo', 'running');
      for (const tool of ['demo:echo', 'time:get_current_time']) {
        await session.waitForScript(`return document.querySelector('#tool-list tr[data-tool="${tool}"]')`,
          { timeoutMs: 40000, what: `the tool ${tool}` });
      }
      // The bridge's view: the demo is a server of the config file now, not the built-in one.
      const { servers } = await bridgeServers(bridge.token);
      const demo = servers.find((s) => s.name === 'demo');
      assert.equal(demo.builtin, false, JSON.stringify(demo));
      assert.deepEqual(demo.definition.args.slice(0, 1), ['demo-server'], JSON.stringify(demo));
      assert.deepEqual(servers.map((s) => s.name), ['demo', 'time']);
      // The demo's row can now be edited and removed like any server of the file.
      assert.equal(await session.exec(`return document.querySelector('${row('demo')} [data-action="edit"]').disabled`), false);
    });
  });
}
