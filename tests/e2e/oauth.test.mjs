// End to end in Chromium: signing in to a remote MCP server from the options page. The server
// is the MCP TypeScript SDK's example streamable HTTP server (`@modelcontextprotocol/sdk`,
// a dev dependency) run with `--oauth`, its demo authorization server beside it; the bridge
// is the real one. A chat call made before the sign-in waits in the float with words for the
// user; *Sign in* opens the authorization page in a new tab, the callback tab says the sign-in
// worked, the server's tools appear on the page without a reload, and the waiting call runs
// on the signed-in server. Run after ./build.sh build:
//   node --test --test-concurrency=1 tests/e2e/oauth.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, launch } from './support/browsers.mjs';
import { freePort, startBridge } from './support/bridge.mjs';
import { startFixtures } from './support/fixtures.mjs';
import { call, configure, floatHtml, openChat, userMessages, userSays } from './support/chat.mjs';
import { waitFor } from './support/webdriver.mjs';
import { openOptions } from './support/options.mjs';

const EXAMPLE = path.join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js');
assert.ok(fs.existsSync(EXAMPLE), `${EXAMPLE} is missing: run ./build.sh setup`);

/** Starts the SDK's example server with its demo OAuth provider on free ports. */
async function startSdkServer() {
  const [mcpPort, authPort] = [await freePort(), await freePort()];
  const proc = spawn(process.execPath, [EXAMPLE, '--oauth'], {
    env: { ...process.env, MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  proc.stdout.on('data', (d) => { log += d; });
  proc.stderr.on('data', (d) => { log += d; });
  await waitFor(() => (log.match(/listening on port/g) ?? []).length >= 2,
    { timeoutMs: 30000, what: `the SDK's example server to listen (${log})` });
  return { url: `http://localhost:${mcpPort}/mcp`, stop: () => proc.kill('SIGTERM') };
}

const row = '#server-list li[data-server="sdk"]';

describe('signing in to a remote server in chromium', () => {
  let sdk;
  let fixtures;
  let bridge;
  let browser;
  let session;
  let optionsTab;
  let chatTab;

  before(async () => {
    sdk = await startSdkServer();
    fixtures = await startFixtures();
    bridge = await startBridge({ config: { mcpServers: { sdk: { url: sdk.url } } } });
    browser = await launch('chromium', { fixtures });
    session = browser.session;
    await configure(browser, { bridgeUrl: bridge.url, token: bridge.token, language: 'en', toolPolicies: { 'sdk:greet': 'allow' }, exemptAfterUntrusted: ['sdk:greet'] });
    await openOptions(session, browser.extensionBase, 'servers');
    optionsTab = await session.cmd('GET', '/window');
  });

  after(async () => {
    await browser?.close();
    await bridge?.stop();
    fixtures?.stop();
    sdk?.stop();
  });

  test('the row says the server needs a sign-in and offers Sign in', async () => {
    const text = await session.waitForScript(
      `const c = document.querySelector('${row} .sign-in[data-sign-in="needs_sign_in"]'); return c && c.textContent`,
      { timeoutMs: 30000, what: 'the sign-in state of sdk' });
    assert.match(text, /needs sign-in/, text);
    assert.match(text, /Sign in/, text);
    assert.equal(await session.exec(`return document.querySelector('${row} button[data-action="sign-out"]')`), null);
    assert.equal(await session.exec(`return document.querySelector('#tool-list tr[data-tool="sdk:greet"]')`), null);
  });

  test('a chat call made before the sign-in waits in the float, telling the user to sign in', async () => {
    chatTab = (await session.newWindow()).handle;
    await session.switchTo(chatTab);
    await openChat(browser, 'chat.deepseek.com');
    await userSays(browser, 'Greet me.', [`Sure.\n${call('greet', { name: 'e2e' }, 'sdk')}`, 'Done.']);
    const float = await waitFor(async () => {
      const html = await floatHtml(browser);
      return /needs you to sign in/.test(html) && html;
    }, { timeoutMs: 20000, what: 'the float to ask for a sign-in' });
    assert.match(float, /sdk/, float);
    // Nothing went to the AI: the user's one message is all there is.
    assert.equal((await session.exec('return window.fixtureAI.messages()')).length, 1);
    await session.switchTo(optionsTab);
  });

  test('Sign in opens the authorization page in a new tab, whose callback says it worked', async () => {
    const before = await session.windowHandles();
    await session.waitForScript(
      `const b = document.querySelector('${row} button[data-action="sign-in"]'); if (!b) return false; b.click(); return true;`,
      { what: 'the Sign in button' });
    const opened = await waitFor(async () => {
      const now = await session.windowHandles();
      return now.find((h) => !before.includes(h));
    }, { timeoutMs: 15000, what: 'a new tab' });
    const said = await session.exec(`return document.getElementById('servers-result').textContent`);
    assert.match(said, /sign-in page of sdk opened in a new tab/, said);
    await session.switchTo(opened);
    // The demo provider consents at once and sends the tab to the bridge's callback.
    const page = await session.waitForScript(
      `return location.pathname === '/oauth/callback' && document.body && document.body.textContent`,
      { timeoutMs: 20000, what: 'the callback page' });
    assert.match(page, /Signed in/, page);
    assert.match(page, /signed in to sdk\. You can close this tab\./, page);
    assert.equal(await session.exec('return location.origin'), bridge.url);
    await session.cmd('DELETE', '/window');
    await session.switchTo(optionsTab);
  });

  test('the tools appear and the row says signed in, without a reload', async () => {
    const marker = await session.exec('return window.performance.timeOrigin');
    await session.waitForScript(`return document.querySelector('#tool-list tr[data-tool="sdk:greet"]')`,
      { timeoutMs: 30000, what: 'the greet tool in the tools list' });
    const text = await session.waitForScript(
      `const c = document.querySelector('${row} .sign-in[data-sign-in="signed_in"]'); return c && c.textContent`,
      { timeoutMs: 15000, what: 'sdk signed in' });
    assert.match(text, /signed in — until \d{4}-\d\d-\d\dT/, text);
    assert.ok(await session.exec(`return document.querySelector('${row} button[data-action="sign-out"]')`));
    assert.equal(await session.exec('return window.performance.timeOrigin'), marker, 'the page was not reloaded');
  });

  test('the waiting call runs on the signed-in server', async () => {
    await session.switchTo(chatTab);
    const msgs = await userMessages(browser, 2);
    assert.match(msgs[1], /<tool_result>/, msgs[1]);
    assert.match(msgs[1], /Hello, e2e!/, msgs[1]);
  });
});
