// Builds (once) and serves the fixture chat pages; the server is also the browsers' proxy,
// answering for the real chat hosts (HTTPS through a self-signed certificate).
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './browsers.mjs';
import { freePort, waitFor } from './webdriver.mjs';

/** The fixture chat sites: `[name, host]`. */
export const CHAT_SITES = [
  ['deepseek', 'chat.deepseek.com'],
  ['chatgpt', 'chatgpt.com'],
  ['gemini', 'gemini.google.com'],
  ['perplexity', 'www.perplexity.ai'],
  ['kimi', 'www.kimi.com'],
  ['grok', 'grok.com'],
  ['doubao', 'www.doubao.com'],
];

/** Each editor library of the fixture pages once: `[name, host, path]`. */
export const EDITOR_PAGES = [
  ['deepseek (React textarea)', 'chat.deepseek.com', '/'],
  ['chatgpt (ProseMirror)', 'chatgpt.com', '/'],
  ['gemini (Quill)', 'gemini.google.com', '/'],
  ['perplexity (Lexical)', 'www.perplexity.ai', '/'],
  ['kimi (contenteditable)', 'www.kimi.com', '/'],
  // kimi.com's input is a Lexical plain-text editor while its config says `contenteditable`.
  ['kimi (Lexical)', 'www.kimi.com', '/?editor=lexical'],
];

/**
 * More editor libraries, all but Grok's on a page whose config names another kind (Kimi's
 * says `contenteditable`, DeepSeek's `textarea`, Doubao's `prosemirror`), so the way to type
 * is chosen by what the element is: `[name, host, path, {singleLine}]`. Their pages take no
 * pasted images (images.test.mjs keeps to EDITOR_PAGES). A single-line `<input>` drops the
 * line breaks of any value it is given.
 */
export const ANY_EDITOR_PAGES = [
  ['grok (TipTap)', 'grok.com', '/'],
  ['doubao (Slate)', 'www.doubao.com', '/'],
  ['kimi (Slate)', 'www.kimi.com', '/?editor=slate'],
  ['kimi (TipTap)', 'www.kimi.com', '/?editor=tiptap'],
  ['kimi (Draft.js)', 'www.kimi.com', '/?editor=draft'],
  ['kimi (CodeMirror 6)', 'www.kimi.com', '/?editor=codemirror'],
  ['deepseek (React input)', 'chat.deepseek.com', '/?editor=input', { singleLine: true }],
  ['deepseek (Vue textarea)', 'chat.deepseek.com', '/?editor=vue-textarea'],
  ['deepseek (Vue input)', 'chat.deepseek.com', '/?editor=vue-input', { singleLine: true }],
];

/** Whether the built pages are missing or older than any of their sources. */
function fixturesStale() {
  const built = path.join(ROOT, 'tests/fixtures/dist/deepseek/index.html');
  if (!fs.existsSync(built)) return true;
  const builtAt = fs.statSync(built).mtimeMs;
  const src = path.join(ROOT, 'tests/fixtures/src');
  return fs.readdirSync(src).some((f) => fs.statSync(path.join(src, f)).mtimeMs > builtAt);
}

export async function startFixtures() {
  if (fixturesStale()) {
    execFileSync('node', [path.join(ROOT, 'tests/fixtures/build.mjs')], { stdio: 'inherit' });
  }
  const port = await freePort();
  const proc = spawn('node', [path.join(ROOT, 'tests/fixtures/server.mjs'), String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const health = await waitFor(async () => {
    const res = await fetch(`http://127.0.0.1:${port}/__health`);
    return res.ok && res.json();
  }, { what: 'the fixture server' });
  return { port, spki: health.spki, stop: () => proc.kill('SIGTERM') };
}
