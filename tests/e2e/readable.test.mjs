// The extension's own pages are readable: on the options page and the toolbar popup, the
// body's text is at least 13 px and no visible text (nor a form control's) is under 12 px,
// in real Chromium and Firefox, in English and Chinese. Chromium gives every extension page
// `body { font-size: 75% }`, which a `:root` size alone does not undo.
//   node --test --test-concurrency=1 tests/e2e/readable.test.mjs
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS } from './support/browsers.mjs';
import { startWorld } from './support/chat.mjs';
import { showSection } from './support/options.mjs';

/** The body's font size and every visible text or control under 12 px, read in the page. */
const MEASURE = `
  const px = (el) => parseFloat(getComputedStyle(el).fontSize);
  const small = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    if (!walker.currentNode.textContent.trim() || seen.has(el) || !el.checkVisibility()) continue;
    seen.add(el);
    if (px(el) < 12) small.push(el.tagName.toLowerCase() + (el.className ? '.' + el.className : '') + ' ' + px(el) + 'px: ' + walker.currentNode.textContent.trim().slice(0, 40));
  }
  for (const el of document.querySelectorAll('input, select, textarea, button')) {
    if (el.checkVisibility() && px(el) < 12) small.push(el.tagName.toLowerCase() + ' ' + px(el) + 'px');
  }
  return { body: px(document.body), small, texts: seen.size };`;

for (const browser of BROWSERS) {
  for (const lang of ['en-US', 'zh-CN']) {
    describe(`${browser}, ${lang}: the extension's pages are readable`, () => {
      let w;
      before(async () => { w = await startWorld(browser, { lang }); });
      after(async () => { await w?.close(); });

      for (const page of ['options/options.html', 'popup/popup.html']) {
        test(`${page}: body ≥ 13 px, nothing under 12 px`, async () => {
          await w.session.navigate(`${w.extensionBase}${page}`);
          await w.session.waitForScript('return document.body.dataset.ready === "true"', { what: `${page} ready` });
          // The options page shows one section at a time: each is measured, its details open.
          const sections = page.startsWith('options')
            ? await w.session.exec(`for (const d of document.querySelectorAll('details')) d.open = true;
                return [...document.querySelectorAll('#menu a')].map((a) => a.hash.slice(1))`)
            : [null];
          // Over its own tab the popup offers Settings alone: its other buttons and the
          // page's parts are shown too, to be measured.
          if (page.startsWith('popup')) await w.session.exec(`for (const e of document.querySelectorAll('[hidden]')) e.hidden = false;
            document.getElementById('parts').append(Object.assign(document.createElement('li'), { textContent: 'Chat input' }));`);
          for (const section of sections) {
            if (section) await showSection(w.session, section);
            const got = await w.session.exec(MEASURE);
            assert.ok(got.texts > 5, `only ${got.texts} texts were found on ${page} ${section ?? ''}`);
            assert.ok(got.body >= 13, `the body's text is ${got.body} px`);
            assert.deepEqual(got.small, [], `text under 12 px on ${page} ${section ?? ''}`);
          }
        });
      }
    });
  }
}
