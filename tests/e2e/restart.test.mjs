// Settings survive a browser restart: saved in one run of the browser, read back in the
// next run on the same profile (both browsers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BROWSERS, launch } from './support/browsers.mjs';
import { configure } from './support/chat.mjs';
import { optionsUrl } from './support/options.mjs';

for (const browser of BROWSERS) {
  test(`settings survive a restart of ${browser}`, async () => {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), `mcpb-restart-${browser}-`));
    try {
      let b = await launch(browser, { profile });
      try {
        await configure(b, { token: 'kept-across-restarts', stackLines: 7 });
      } finally {
        await b.close();
      }
      b = await launch(browser, { profile });
      try {
        await b.session.navigate(optionsUrl(b.extensionBase, 'advanced'));
        const stored = await b.session.execAsync(
          'const done = arguments[arguments.length - 1]; chrome.storage.local.get("settings").then((s) => done(s.settings));');
        assert.equal(stored?.token, 'kept-across-restarts');
        assert.equal(stored?.stackLines, 7);
        // …and the page shows them.
        const shown = await b.session.waitForScript(
          'const v = document.getElementById("stack-lines")?.value; return v ? v : null', { what: 'the form' });
        assert.equal(shown, '7');
      } finally {
        await b.close();
      }
    } finally {
      fs.rmSync(profile, { recursive: true, force: true });
    }
  });
}
