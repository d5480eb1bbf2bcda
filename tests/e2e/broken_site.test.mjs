// A broken shipped site config turns the extension off on that site with a message in the
// float, and leaves the page alone (Chromium: the float is read through the DevTools
// protocol, which alone can pierce its closed shadow root).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, launch } from './support/browsers.mjs';
import { startFixtures } from './support/fixtures.mjs';
import { floatHtml } from './support/chat.mjs';
import { waitFor } from './support/webdriver.mjs';

test('a broken site config is reported in the float, not a broken page (chromium)', async () => {
  const ext = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpb-broken-'));
  fs.cpSync(path.join(ROOT, 'dist/chrome'), ext, { recursive: true });
  const file = path.join(ext, 'sites/deepseek.json');
  const cfg = JSON.parse(fs.readFileSync(file, 'utf8'));
  cfg.editor = 'word-processor';
  fs.writeFileSync(file, JSON.stringify(cfg));
  const fixtures = await startFixtures();
  const b = await launch('chromium', { fixtures, extension: ext });
  try {
    await b.session.navigate('https://chat.deepseek.com/');
    await b.session.waitForScript('return !!document.querySelector("mcp-bridge-float")', { what: 'the content script' });
    const html = await waitFor(
      async () => { const h = await floatHtml(b); return h.includes('deepseek.json') && h; },
      { what: 'the float to say the config is broken' });
    assert.match(html, /deepseek\.json is broken/);
    assert.match(html, /editor/);
    assert.match(html, /data-status="disabled"/);
    // The page itself still works.
    assert.ok(await b.session.exec('return !!window.fixtureAI'));
  } finally {
    await b.close();
    fixtures.stop();
    fs.rmSync(ext, { recursive: true, force: true });
  }
});
