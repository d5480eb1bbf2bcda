// End to end: pairing through the native messaging host, and the status the options header
// and the toolbar popup show, in real Chromium and real Firefox with the real bridge.
//   flock /tmp/e2e.lock node --test --test-concurrency=1 tests/e2e/pairing.test.mjs
// The host is registered with `mcp-bridge install` under a temporary HOME: Chromium reads
// `<user-data-dir>/NativeMessagingHosts` (the profile is `$HOME/.config/chromium`), Firefox
// `$HOME/.mozilla/native-messaging-hosts`. Both browsers pass their environment to the host,
// so the host finds the test's config directory.
import { after, afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BROWSERS, ROOT, launch } from './support/browsers.mjs';
import { freePort, startBridge } from './support/bridge.mjs';
import { startFixtures } from './support/fixtures.mjs';
import { configure, openChat, userSays, userMessages, call, floatHtml } from './support/chat.mjs';
import { waitFor } from './support/webdriver.mjs';

const EXE = path.join(ROOT, 'target/release/mcp-bridge');
const saved = {
  HOME: process.env.HOME,
  MCP_BRIDGE_CONFIG_DIR: process.env.MCP_BRIDGE_CONFIG_DIR,
  MCP_BRIDGE_PORT: process.env.MCP_BRIDGE_PORT,
};

/**
 * A temporary HOME and config directory, and a free port for the bridge the host starts
 * (as a user who set MCP_BRIDGE_PORT); with `install`, the host registered there.
 */
async function home({ install }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpb-home-'));
  const config = path.join(dir, 'cfg');
  const port = await freePort();
  if (install) {
    execFileSync(EXE, ['install'], { env: { ...process.env, HOME: dir, MCP_BRIDGE_CONFIG_DIR: config } });
  }
  // The browsers (and so the host they start) inherit this process's environment.
  process.env.HOME = dir;
  process.env.MCP_BRIDGE_CONFIG_DIR = config;
  process.env.MCP_BRIDGE_PORT = String(port);
  return { dir, config, url: `http://127.0.0.1:${port}` };
}

function restoreEnv() {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k]; else process.env[k] = v;
  }
}

/** Stops the bridge the host started (its pid is in the endpoint file it wrote). */
function stopStartedBridge(config) {
  try {
    const { pid } = JSON.parse(fs.readFileSync(path.join(config, 'endpoint.json'), 'utf8'));
    if (pid) process.kill(pid, 'SIGTERM');
  } catch { /* none started */ }
}


/** Opens an extension page and waits for its status: `{status, title, detail}`. */
async function statusOn(b, page, id, detailId) {
  await b.session.navigate(`${b.extensionBase}${page}`);
  return waitFor(() => b.session.exec(
    `const e = document.getElementById(arguments[0]);
     return document.body.dataset.ready === 'true' && e.dataset.status
       ? { status: e.dataset.status, title: e.textContent, detail: document.getElementById(arguments[1]).textContent }
       : null;`, id, detailId), { timeoutMs: 40000, what: `the status on ${page}` });
}
const header = (b) => statusOn(b, 'options/options.html', 'bridge-health', 'bridge-detail');
const popup = (b) => statusOn(b, 'popup/popup.html', 'state', 'detail');

for (const name of BROWSERS) {
  describe(`pairing and status in ${name}`, () => {
    let b;
    let fixtures;
    let bridge;
    let env;
    afterEach(async () => {
      await b?.close();
      b = null;
      await bridge?.stop();
      bridge = null;
      fixtures?.stop();
      fixtures = null;
      if (env) {
        stopStartedBridge(env.config);
        await waitFor(() => fetch(`${env.url}/health`).then(() => false, () => true),
          { timeoutMs: 10000, what: 'the started bridge to stop' }).catch(() => {});
        fs.rmSync(env.dir, { recursive: true, force: true });
        env = null;
      }
      restoreEnv();
    });
    after(restoreEnv);

    test('with the host registered, the first tool call works with nothing typed in the options', async () => {
      env = await home({ install: true });
      fixtures = await startFixtures();
      const profile = name === 'chromium' ? path.join(env.dir, '.config/chromium') : undefined;
      b = await launch(name, { fixtures, profile });
      // Nothing is configured: the chat page is the first thing the extension sees.
      await openChat(b, 'chat.deepseek.com');
      await b.session.exec('window.fixtureAI.reset()');
      await openChat(b, 'chat.deepseek.com');
      await userSays(b, 'Please echo something.', [call('echo', { text: 'paired' }), 'Done.']);
      const msgs = await userMessages(b, 2, 60000);
      assert.match(msgs[1], /<tool_result>/);
      assert.match(msgs[1], /paired/);
      const token = fs.readFileSync(path.join(env.config, 'token'), 'utf8').trim();
      const h = await header(b);
      assert.equal(h.status, 'connected', JSON.stringify(h));
      assert.match(h.title, /Connected — bridge .* servers?, \d+ tools/);
      assert.equal(await b.session.exec("return document.getElementById('token').value"), token);
      const p = await popup(b);
      assert.equal(p.status, 'connected');
    });

    test('without the host and without a bridge, the header and popup say the two ways to connect, the float the command', async () => {
      env = await home({ install: false });
      fixtures = await startFixtures();
      b = await launch(name, { fixtures });
      // The address a user would set: nothing listens there.
      await configure(b, { language: 'en', bridgeUrl: env.url });
      const h = await header(b);
      assert.equal(h.status, 'not-running', JSON.stringify(h));
      assert.match(h.detail, /mcp-bridge install/);
      // On the options page itself: the field below, and the command for this address's port.
      assert.match(h.detail, /Token field/);
      assert.ok(h.detail.includes(`mcp-bridge --port ${new URL(env.url).port}`), h.detail);
      const p = await popup(b);
      assert.equal(p.status, 'not-running');
      assert.match(p.detail, /mcp-bridge install/);
      if (name === 'chromium') {
        // The float lives in a closed shadow root: only the DevTools protocol reads it.
        await openChat(b, 'chat.deepseek.com');
        const html = await waitFor(async () => {
          const h = await floatHtml(b);
          return h.includes('<code>mcp-bridge --port ') && h;
        }, { timeoutMs: 20000, what: 'the float to say how to connect' });
        assert.match(html, /not running on this computer/);
        assert.match(html, new RegExp(`<code>mcp-bridge --port ${new URL(env.url).port}</code>`));
      }
    });

    test('a rejected token and a good one are told apart in the header and the popup', async () => {
      env = await home({ install: false });
      bridge = await startBridge();
      b = await launch(name);
      await configure(b, { language: 'en', bridgeUrl: bridge.url, token: 'not-the-token' });
      let h = await header(b);
      assert.equal(h.status, 'token-rejected', JSON.stringify(h));
      assert.match(h.title, /refused the token/);
      assert.match(h.detail, /mcp-bridge install/);
      let p = await popup(b);
      assert.equal(p.status, 'token-rejected');
      // Saving a wrong token tests it first: it is saved, and the page says it does not work.
      await header(b);
      await b.session.exec(
        `const e = document.getElementById('token'); e.value = 'still-wrong';
         e.dispatchEvent(new Event('input', { bubbles: true }));
         document.getElementById('save-connection').click();`);
      const said = await waitFor(() => b.session.exec(
        `const e = document.getElementById('connection-result');
         return e.dataset.state === 'warn' && e.textContent;`), { timeoutMs: 20000, what: 'the save to say what it found' });
      assert.match(said, /^Saved, but the connection does not work yet: The bridge refused this token/);
      await configure(b, { token: bridge.token });
      h = await header(b);
      assert.equal(h.status, 'connected', JSON.stringify(h));
      p = await popup(b);
      assert.equal(p.status, 'connected');
      assert.match(p.title, /Connected/);
    });
  });
}
