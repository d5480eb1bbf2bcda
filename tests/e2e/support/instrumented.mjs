// A copy of the built extension with support/hooks.js loaded before content.js, for tests
// that count what the content script leaves running or measure its float.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './browsers.mjs';

/** Copies dist/chrome or dist/firefox; resolves to `{ dir, remove }`. */
export function instrumentedExtension(browser) {
  const src = path.join(ROOT, 'dist', browser === 'chromium' ? 'chrome' : 'firefox');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mcpb-ext-${browser}-`));
  fs.cpSync(src, dir, { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'tests/e2e/support/hooks.js'), path.join(dir, 'test-hooks.js'));
  const manifestFile = path.join(dir, 'manifest.json');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  for (const cs of manifest.content_scripts) cs.js = ['test-hooks.js', ...cs.js];
  fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
