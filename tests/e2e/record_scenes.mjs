// Records what the content script gathers for the core's structural finder on each
// redesigned fixture page (after the user sent one message and the AI answered it) into
// tests/golden/detect/<site>-redesign.json, which tests/detect_scenes.rs reads natively.
// A copy of the built extension gets a hook, loaded before the content script in the same world,
// that keeps the last `detect` message's scene on the page; nothing of it ships.
//   ./build.sh build && node tests/fixtures/build.mjs && node tests/e2e/record_scenes.mjs
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './support/browsers.mjs';
import { startWorld, openChat, userSays } from './support/chat.mjs';
import { waitFor } from './support/webdriver.mjs';

const SITES = {
  deepseek: ['chat.deepseek.com', 'textarea'],
  chatgpt: ['chatgpt.com', '.ProseMirror'],
  gemini: ['gemini.google.com', '.ql-editor'],
  perplexity: ['www.perplexity.ai', '[data-lexical-editor="true"]'],
  kimi: ['www.kimi.com', '[contenteditable="true"]'],
};

const HOOK = `{
  const send = chrome.runtime.sendMessage.bind(chrome.runtime);
  chrome.runtime.sendMessage = (msg, ...rest) => {
    if (msg && msg.type === 'detect') document.documentElement.dataset.mcpTestScene = JSON.stringify(msg.scene);
    return send(msg, ...rest);
  };
}`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpb-record-'));
fs.cpSync(path.join(ROOT, 'dist/chrome'), dir, { recursive: true });
fs.writeFileSync(path.join(dir, 'record-hook.js'), HOOK);
const manifestFile = path.join(dir, 'manifest.json');
const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
for (const cs of manifest.content_scripts) cs.js = ['record-hook.js', ...cs.js];
fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));

const out = path.join(ROOT, 'tests/golden/detect');
fs.mkdirSync(out, { recursive: true });
const w = await startWorld('chromium', { extension: dir });
try {
  for (const [site, [host, css]] of Object.entries(SITES)) {
    await openChat(w, host, '/redesign/');
    await w.session.exec('window.fixtureAI.reset()');
    await openChat(w, host, '/redesign/');
    await userSays(w, 'What time is it in Tokyo?', ['It is morning in Tokyo.\n\nAnything else?'], css);
    // The detection that found the answers is the last one: its list holds both messages.
    const scene = await waitFor(() => w.session.exec(`
      const s = document.documentElement.dataset.mcpTestScene;
      return s && JSON.parse(s).composers.some((c) => c.lists.some((l) => l.kids.length >= 2)) ? s : null`),
    { what: `the scene on ${site}` });
    fs.writeFileSync(path.join(out, `${site}-redesign.json`), `${JSON.stringify(JSON.parse(scene), null, 1)}\n`);
    console.log(`${site}: ${scene.length} B`);
  }
} finally {
  await w.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
