// Where the unmoved float goes once the chat input has grown tall (a long message typed or
// the instructions put in), at 1280 and 390 px wide, in English and Chinese: its box whole inside the window and
// readable (title bar and buttons not cut), off the newest answer's text and the input;
// where there is no room, the ring, which opens on demand still whole and readable; the
// Prompts menu inside the window, and beside the chat off the newest answer.
// support/hooks.js (in a copy of the built extension) attaches the float's shadow root open,
// so the page can measure it.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS } from './support/browsers.mjs';
import { startWorld, openChat } from './support/chat.mjs';
import { instrumentedExtension } from './support/instrumented.mjs';
import { sleep } from './support/webdriver.mjs';
import { BROKEN_WORDS } from './support/words.mjs';

// Runs in the page: the float's rects, the newest answer's text and the input's.
const MEASURE = `
  const root = document.querySelector('mcp-bridge-float')?.shadowRoot;
  const rect = (r) => r && { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height };
  const of = (e) => e && e.getClientRects().length ? rect(e.getBoundingClientRect()) : null;
  const answers = document.querySelectorAll('article[data-turn=assistant]');
  const range = document.createRange();
  if (answers.length) range.selectNodeContents(answers[answers.length - 1]);
  const box = root?.querySelector('.box');
  return {
    box: of(box), ring: of(root?.querySelector('.ring')),
    // What must be whole for the float to be read: the title and every button of the title
    // bar and of the action row.
    parts: box ? [box.querySelector('.title'), ...box.querySelectorAll('.bar button, .row button')]
      .map((e) => ({ what: e.className || e.textContent, r: of(e) })) : [],
    menu: of(root?.querySelector('.menu')),
    answer: answers.length ? rect(range.getBoundingClientRect()) : null,
    input: of(document.querySelector('#prompt-textarea')),
    send: of(document.querySelector('button[data-testid=send-button]')),
    window: { width: innerWidth, height: innerHeight },
  };`;

const overlap = (a, b) => a && b && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const inside = (a, b) => a.left >= b.left - 0.5 && a.top >= b.top - 0.5 && a.right <= b.right + 0.5 && a.bottom <= b.bottom + 0.5;
const inWindow = (r, w) => inside(r, { left: 0, top: 0, right: w.width, bottom: w.height });

/** Why a measured open float is not whole and readable in the window, or ''. */
function unreadable(got) {
  if (!got.box) return 'no open float';
  if (!inWindow(got.box, got.window)) return 'the float reaches out of the window';
  if (got.box.height < 60) return `the float is a strip ${got.box.height} px tall`;
  const cut = got.parts.filter((p) => !p.r || !inside(p.r, got.box));
  return cut.length ? `cut off: ${cut.map((p) => p.what).join(', ')}` : '';
}

// In both interface languages: the Chinese float's words wrap differently.
for (const browser of BROWSERS) for (const lang of ['en-US', 'zh-CN']) {
  describe(`the float's place with a tall input in ${browser}, ${lang}`, () => {
    let w;
    let ext;
    before(async () => {
      ext = instrumentedExtension(browser);
      w = await startWorld(browser, { extension: ext.dir, lang });
      // Not pinned: the float goes where the extension puts it (`startWorld` pins it; it
      // leaves the options page open, where this runs).
      await w.session.execAsync(`const done = arguments[arguments.length - 1];
        chrome.storage.local.get(null).then((all) => chrome.storage.local.remove(Object.keys(all).filter((k) => k.startsWith('floatPos:')))).then(() => done(true));`);
    });
    after(async () => {
      await w?.close();
      ext?.remove();
    });

    for (const width of [1280, 390]) {
      test(`at ${width} px: whole, readable, off the newest answer; the Prompts menu in the window`, async () => {
        // Firefox keeps its window at least 500 px wide (the test logs the width it got).
        await w.session.cmd('POST', '/window/rect', { width, height: 900 });
        await openChat(w, 'chatgpt.com');
        await w.session.exec('window.fixtureAI.reset()');
        await openChat(w, 'chatgpt.com');
        // A chat long enough to scroll, its newest answer at the bottom, above the input.
        await w.session.execAsync(`const done = arguments[arguments.length - 1];
          window.fixtureAI.setChunk({ size: 4000 });
          window.fixtureAI.respond(Array.from({ length: 40 }, (_, i) => 'Line ' + i + ' of the newest answer, long enough to fill the column').join('\\n\\n')).then(() => done(true));`);
        // The input grows to its tallest, as with a long message or the instructions put in.
        // Typed as a person would, a line break (Shift+Enter) after each line.
        const input = await w.session.find('#prompt-textarea');
        await w.session.exec(`document.querySelector('#prompt-textarea').focus()`);
        await w.session.type(input, Array.from({ length: 24 }, (_, i) => `line ${i}\uE008\uE007\uE000`).join(''));
        await w.session.exec('scrollTo(0, document.documentElement.scrollHeight)');
        // The float is placed again at least every 2 s: wait for a place that holds.
        let got;
        const ok = (g) => {
          if (g.ring && !g.box) return inWindow(g.ring, g.window) && !overlap(g.ring, g.input) && !overlap(g.ring, g.send);
          return !unreadable(g) && !overlap(g.box, g.answer) && !overlap(g.box, g.input) && !overlap(g.box, g.send);
        };
        for (const end = Date.now() + 8000; Date.now() < end;) {
          got = await w.session.exec(MEASURE);
          if (got.input && got.answer && got.input.height > 150 && ok(got)) break;
          await sleep(200);
        }
        console.log(`${browser} ${width}: window ${got.window.width}×${got.window.height}, input`, got.input, 'answer', got.answer,
          'float', got.box ?? { ring: got.ring }, unreadable(got));
        assert.ok(got.input.height > 150, `the input is not tall: ${JSON.stringify(got.input)}`);
        assert.ok(ok(got), `misplaced: ${unreadable(got) || 'over the answer, the input or out of the window'} ${JSON.stringify(got)}`);
        const beside = !!got.box;
        if (!beside) {
          // The ring opens on demand: whole and readable, never over the input.
          await w.session.exec(`document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.ring').click()`);
          await w.session.waitForScript(`return !!document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.box')`, { what: 'the opened float' });
          got = await w.session.exec(MEASURE);
          assert.equal(unreadable(got), '', JSON.stringify(got));
          assert.ok(!overlap(got.box, got.input) && !overlap(got.box, got.send), `over the input: ${JSON.stringify(got)}`);
        }
        // The site's name and every other word stay whole wherever they fit their line.
        const words = await w.session.exec(BROKEN_WORDS);
        assert.ok(words.words > 0, 'no words measured in the float');
        assert.deepEqual(words.broken, [], 'words cut although they fit their line');
        await w.session.exec(`document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.bar button.prompts').click()`);
        await w.session.waitForScript(`return !!document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.menu')`, { what: 'the Prompts menu' });
        got = await w.session.waitForScript(`${MEASURE.replace('return {', 'const got = {')}; return got.menu && got.menu.height > 20 ? got : null`, { what: 'the menu drawn' });
        console.log(`${browser} ${width}: menu`, got.menu, 'float', got.box);
        assert.ok(inWindow(got.menu, got.window) && inside(got.menu, got.box), `the menu reaches out of the window: ${JSON.stringify(got)}`);
        assert.equal(unreadable(got), '', JSON.stringify(got));
        if (beside) assert.ok(!overlap(got.menu, got.answer), `the menu covers the newest answer: ${JSON.stringify(got)}`);
        await w.session.exec(`document.querySelector('mcp-bridge-float').shadowRoot.querySelector('.bar button.prompts').click()`);
      });
    }
  });
}
