// Images in a tool's result end to end: the real bridge running
// @modelcontextprotocol/server-everything (its get-tiny-image tool answers text, a PNG,
// text). The report names the image; the float shows it with a save link and, on sites
// whose input takes pasted images, attaches it to the chat input with one click, which the
// fixture page's own paste handler (ProseMirror, Lexical, Quill, React textarea,
// contenteditable) receives as a file. The thumbnail is checked pixel for pixel, also on a
// page whose CSP allows images only from its own origin; the Save link's file is read from
// the browser's download folder; a page that attaches a pasted file without cancelling the
// paste gets it once. The instructions, where the user chose a file for them, reach the same
// paste handlers as a text file, with one line pointing to it in the input.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { BROWSERS, ROOT } from './support/browsers.mjs';
import { EDITOR_PAGES } from './support/fixtures.mjs';
import {
  startWorld, openChat, userSays, userMessages, call, floatHtml, floatFind, floatWait, elementId, clickAt, configure,
} from './support/chat.mjs';
import { sleep, waitFor } from './support/webdriver.mjs';
import { toneWav } from './support/sound_server.mjs';
import { MCP_TINY_IMAGE } from '../../node_modules/@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js';

const PNG = Buffer.from(MCP_TINY_IMAGE, 'base64');
const SUM = PNG.reduce((a, b) => (a + b) % 65521, 0);

const SITES = EDITOR_PAGES;

/**
 * What the float's thumbnail shows: `{tag, width, same}`, `same` when its pixels are the
 * PNG's own (decoded here by the page from the bytes). An <img> is judged by its
 * naturalWidth (0: it did not load).
 */
async function thumbnail(w) {
  const view = await floatWait(w, '.item > :first-child', 'thumbnail');
  return w.session.execAsync(`
    const [view, b64, done] = arguments;
    (async () => {
      if (view.tagName !== 'CANVAS') return { tag: view.tagName, width: view.complete ? view.naturalWidth : 0 };
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const ref = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
      const c = document.createElement('canvas');
      c.width = ref.width;
      c.height = ref.height;
      c.getContext('2d').drawImage(ref, 0, 0);
      const want = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const got = view.width ? view.getContext('2d').getImageData(0, 0, view.width, view.height).data : [];
      return { tag: 'CANVAS', width: view.width, same: got.length === want.length && want.every((v, i) => got[i] === v) };
    })().then(done, (e) => done({ error: String(e) }));`, view, MCP_TINY_IMAGE);
}

/** Waits (a little: a blob decodes fast) for the thumbnail to show the whole image. */
async function thumbnailShown(w) {
  let last;
  await waitFor(async () => {
    last = await thumbnail(w);
    return last.width === 20 && (last.tag === 'IMG' || last.same);
  }, { timeoutMs: 3000, what: 'the thumbnail' }).catch(() => {});
  assert.equal(last.width, 20, `the thumbnail did not render: ${JSON.stringify(last)}`);
  if (last.tag === 'CANVAS') assert.ok(last.same, 'the thumbnail is not the image');
}

/**
 * What the float offers for the tone: `{played: duration}` once its player has loaded it, or
 * `{note}` when it shows what the file is instead (the player could not load it).
 */
async function soundOffered(w) {
  return waitFor(async () => {
    const [player] = await floatFind(w, '.item > audio');
    if (player) {
      const duration = await w.session.exec('const a = arguments[0]; return a.readyState >= 1 && a.duration', player);
      return duration ? { played: duration } : null;
    }
    const [note] = await floatFind(w, '.item > span');
    return note && { note: await w.session.cmd('GET', `/element/${elementId(note)}/text`) };
  }, { what: 'the player or its note', timeoutMs: 5000 });
}

/** Clicks the float's Save link and returns the bytes of the file it saved as `name`. */
async function saved(w, name) {
  const link = await floatWait(w, 'a[download]', 'Save link');
  const id = elementId(link);
  assert.equal(await w.session.cmd('GET', `/element/${id}/attribute/download`), name);
  assert.match(await w.session.cmd('GET', `/element/${id}/property/href`), /^blob:/);
  await clickAt(w, link);
  const file = path.join(w.downloads, name);
  // Browsers write a download under another name and rename it when it is complete.
  await waitFor(() => fs.existsSync(file) && fs.statSync(file).size > 0
    && !fs.readdirSync(w.downloads).some((f) => /\.(crdownload|part)$/.test(f)),
  { what: `${file} (have: ${fs.readdirSync(w.downloads)})` });
  return fs.readFileSync(file);
}

/** A chat on `page` of `host` whose one tool call answers the tiny image (or the tone). */
async function imageChat(w, host, page, tool = call('get-tiny-image', {}, 'everything')) {
  await openChat(w, host, page);
  await w.session.exec('window.fixtureAI.reset()');
  await openChat(w, host, page);
  await userSays(w, 'Show me the logo.', [`Here it comes.\n\n${tool}`, 'That is the logo.']);
  const msgs = await userMessages(w, 2);
  // The float is redrawn once the report has left.
  await sleep(1000);
  return msgs;
}

for (const browser of BROWSERS) {
  describe(`images in ${browser}`, () => {
    let w;
    before(async () => {
      const bridgeConfig = { mcpServers: {
        everything: { command: path.join(ROOT, 'node_modules/.bin/mcp-server-everything'), args: ['stdio'] },
        sound: { command: process.execPath, args: [path.join(ROOT, 'tests/e2e/support/sound_server.mjs'), 'serve'] },
      } };
      // Trusted, so their read-only tools run unasked.
      w = await startWorld(browser, { bridgeConfig, settings: { trustedServers: ['everything', 'sound'] } });
    });
    after(async () => { await w?.close(); });

    for (const [name, host, page] of SITES) {
      test(`${name}: the report names the image, the float shows it and attaches it to the input`, async () => {
        const msgs = await imageChat(w, host, page);
        assert.match(msgs[1], new RegExp(`\\[image: image/png, \\d+ KB\\]`));
        assert.ok(!msgs[1].includes(MCP_TINY_IMAGE.slice(0, 64)), 'image bytes reached the chat as text');
        await thumbnailShown(w);
        if (browser === 'chromium') {
          // The whole float's markup, as the DevTools protocol reads it.
          const float = await floatHtml(w);
          assert.match(float, /<a [^>]*download="mcp-image-1\.png"/);
          assert.match(float, /data-action="floatAttach"/);
        }
        assert.deepEqual(await w.session.exec('return window.fixtureAI.pastedFiles()'), []);
        await clickAt(w, await floatWait(w, 'button[data-action="floatAttach"]'));
        const files = await w.session.waitForScript(
          'const f = window.fixtureAI.pastedFiles(); return f.length ? f : null', { what: 'the pasted image' });
        assert.deepEqual(files, [{ name: 'mcp-image-1.png', type: 'image/png', size: PNG.length, sum: SUM }]);
        if (browser === 'chromium') assert.match(await floatHtml(w), /Attached to the chat input\./);
        // Once: no drop followed the paste. The chat input holds no text from it, and nothing
        // more was sent.
        await sleep(1000);
        assert.equal((await w.session.exec('return window.fixtureAI.pastedFiles()')).length, 1);
        assert.equal((await w.session.exec('return window.fixtureAI.messages()')).length, 2);
      });
    }

    // Quill's uploader keeps only images (its default mimetypes): there the text is typed.
    const takesText = (name) => !name.includes('Quill');
    for (const [name, host, page] of SITES) {
      test(`${name}: the instructions go in a file where the page takes it, one line pointing to it in the input; else typed whole`, async () => {
        await configure(w, { instructionsAsFile: true });
        try {
          await openChat(w, host, page);
          await w.session.exec('window.fixtureAI.reset()');
          await openChat(w, host, page);
          await clickAt(w, await floatWait(w, 'button[data-id="insert-instructions"]'));
          if (!takesText(name)) {
            const typed = await waitFor(async () => {
              const v = await w.session.exec('return window.fixtureAI.editorText()');
              return v.includes('<tool_code>') ? v : null;
            }, { what: 'the whole instructions typed in the chat input' });
            assert.match(typed, /get-tiny-image/);
            assert.doesNotMatch(typed, /mcp-bridge-instructions\.txt/);
            assert.deepEqual(await w.session.exec('return window.fixtureAI.pastedFiles()'), []);
            return;
          }
          const files = await w.session.waitForScript(
            'const f = window.fixtureAI.pastedFiles(); return f.length ? f : null', { what: 'the attached instructions' });
          assert.equal(files.length, 1, JSON.stringify(files));
          assert.equal(files[0].name, 'mcp-bridge-instructions.txt');
          assert.equal(files[0].type, 'text/plain');
          // The whole instructions, the servers' tools listed, are in the file.
          assert.match(files[0].text, /^# MCP Bridge · tools for this chat\n/);
          assert.match(files[0].text, /get-tiny-image/);
          assert.match(files[0].text, /<tool_code>/);
          const typed = await waitFor(async () => {
            const v = await w.session.exec('return window.fixtureAI.editorText()');
            return v.includes('mcp-bridge-instructions.txt') ? v : null;
          }, { what: 'the line pointing to the file in the chat input' });
          assert.doesNotMatch(typed, /get-tiny-image|<tool_code>/, 'the whole text was typed too');
          assert.equal((await w.session.exec('return window.fixtureAI.messages()')).length, 0, 'nothing was sent');
        } finally {
          await configure(w, { instructionsAsFile: false });
        }
      });
    }

    test('the Save link saves the image, byte for byte, under its own name', async () => {
      // Its own address: a call that ran in a conversation (the address) never runs again.
      await imageChat(w, 'www.kimi.com', '/?save');
      assert.deepEqual(await saved(w, 'mcp-image-1.png'), PNG);
      assert.deepEqual(fs.readdirSync(w.downloads), ['mcp-image-1.png']);
      // Saving left the chat page where it was.
      assert.equal(await w.session.url(), 'https://www.kimi.com/?save');
    });

    test('on a page whose CSP allows images only from itself, the thumbnail still shows', async () => {
      await imageChat(w, 'www.kimi.com', '/?csp=strict');
      // The policy is in force: the page's own blob: image is refused.
      const own = await w.session.execAsync(`const [b64, done] = arguments;
        const img = new Image();
        img.onload = () => done('loaded');
        img.onerror = () => done('refused');
        img.src = URL.createObjectURL(new Blob([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], { type: 'image/png' }));`, MCP_TINY_IMAGE);
      assert.equal(own, 'refused');
      // The float's, made by the extension, is not the page's to refuse.
      await thumbnailShown(w);
    });

    test('the float plays a sound', async () => {
      await imageChat(w, 'www.kimi.com', '/?sound', call('get-tone', {}, 'sound'));
      const offered = await soundOffered(w);
      assert.ok(Math.abs(offered.played - 0.25) < 0.01, `the player did not load the sound: ${JSON.stringify(offered)}`);
    });

    test('on a page whose CSP allows media only from itself, the sound is offered (player or note) and saved', async (t) => {
      const wav = toneWav();
      await imageChat(w, 'www.kimi.com', '/?csp=strict&sound', call('get-tone', {}, 'sound'));
      const own = await w.session.execAsync(`const [b64, done] = arguments;
        const a = new Audio();
        a.onloadedmetadata = () => done('loaded');
        a.onerror = () => done('refused');
        a.src = URL.createObjectURL(new Blob([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], { type: 'audio/wav' }));`,
      wav.toString('base64'));
      assert.equal(own, 'refused');
      const offered = await soundOffered(w);
      t.diagnostic(`${browser}: ${JSON.stringify(offered)}`);
      if (offered.note !== undefined) {
        assert.equal(offered.note, 'audio/wav, 2 KB: it cannot be opened here; save it instead.');
      } else {
        assert.ok(Math.abs(offered.played - 0.25) < 0.01, JSON.stringify(offered));
      }
      assert.deepEqual(await saved(w, 'mcp-audio-1.wav'), wav);
    });

    for (const [mode, how] of [['passive', 'takes a pasted file without cancelling the paste'], ['drop', 'takes only dropped files']]) {
      test(`a page that ${how} gets it once`, async () => {
        await imageChat(w, 'www.kimi.com', `/?attach=${mode}`);
        await clickAt(w, await floatWait(w, 'button[data-action="floatAttach"]'));
        await w.session.waitForScript(
          'return window.fixtureAI.pastedFiles().length ? true : null', { what: 'the attached image' });
        await sleep(1000);
        assert.deepEqual(await w.session.exec('return window.fixtureAI.pastedFiles()'),
          [{ name: 'mcp-image-1.png', type: 'image/png', size: PNG.length, sum: SUM }]);
        assert.equal(await w.session.exec('return document.querySelectorAll(".attachment").length'), 1);
        if (browser === 'chromium') assert.match(await floatHtml(w), /Attached to the chat input\./);
      });
    }
  });
}
