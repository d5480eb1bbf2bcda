// Which way of typing works on which editor, in real Chromium and Firefox: each of the
// content script's ways (`typing::TypingWay`; the same code as extension/content/typing.js) into
// every fixture editor, on a fresh page each, with a multi-line text that has blank lines and
// lines that are only `{` or `}`. Prints, per editor and way: `model` when the editor's own
// model (`fixtureAI.editorText()`, what the site would send) holds the text exactly, `dom`
// when only the page's text reads back (what the content script can check) and the model
// does not, `-` when neither. The core's order of ways per kind (src/domain/typing.rs) is
// chosen from this table.
//
//   node tests/e2e/typing_ways.mjs [chromium|firefox]
import { BROWSERS } from './support/browsers.mjs';
import { EDITOR_PAGES, ANY_EDITOR_PAGES } from './support/fixtures.mjs';
import { startWorld } from './support/chat.mjs';

const TEXT = 'Result:\n{\n  "ok": true,\n\n  "n": [1, 2]\n}\n\nend';
const WAYS = ['value', 'insert', 'insert-lines', 'paste', 'paste-paragraphs', 'before-input-paste', 'before-input-text', 'dom'];
const INPUT = [
  'textarea#chat-input', 'input#chat-input', '#prompt-textarea', 'rich-textarea .ql-editor', '#ask-input',
  '.chat-input-editor:is([contenteditable],textarea,input)', '.chat-input-editor [contenteditable]',
  '.query-bar .tiptap', '[data-testid="chat_input_input"] [contenteditable]',
].join(', ');

// Runs in the page: the content script's ways, then what reads back.
const PROBE = `
const [css, how, text, done] = arguments;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const el = document.querySelector(css);
const field = el.tagName === 'TEXTAREA' || el.tagName === 'INPUT';
function pasteInto(el, text, html) {
  const data = { 'text/plain': text, ...(html ? { 'text/html': html } : {}) };
  const dt = new DataTransfer();
  for (const [type, value] of Object.entries(data)) dt.setData(type, value);
  const e = new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true });
  for (const [type, value] of Object.entries(data)) {
    if (e.clipboardData && e.clipboardData.getData(type) !== value) e.clipboardData.setData(type, value);
  }
  el.dispatchEvent(e);
}
const asParagraphs = (text) => text.split('\\n').map((line) => { const p = document.createElement('p'); p.textContent = line; return p.outerHTML; }).join('');
function insertLines(text) {
  if (!document.queryCommandSupported('insertLineBreak')) { document.execCommand('insertText', false, text); return; }
  text.split('\\n').forEach((line, i) => { if (i) document.execCommand('insertLineBreak'); if (line) document.execCommand('insertText', false, line); });
}
function beforeInput(el, inputType, text) {
  const init = { inputType, bubbles: true, cancelable: true, composed: true };
  if (inputType === 'insertText') init.data = text;
  else { const dt = new DataTransfer(); dt.setData('text/plain', text); init.dataTransfer = dt; }
  const e = new InputEvent('beforeinput', init);
  if (e.dataTransfer && e.dataTransfer.getData('text/plain') !== text) { try { e.dataTransfer.setData('text/plain', text); } catch {} }
  el.dispatchEvent(e);
}
const ways = {
  value: (el, text) => {
    if (!field) return;
    const proto = el.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    el.focus(); Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, text);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  },
  insert: (el, text) => document.execCommand('insertText', false, text),
  'insert-lines': (el, text) => insertLines(text),
  paste: (el, text) => pasteInto(el, text, null),
  'paste-paragraphs': (el, text) => pasteInto(el, text, asParagraphs(text)),
  'before-input-paste': (el, text) => beforeInput(el, 'insertFromPaste', text),
  'before-input-text': (el, text) => beforeInput(el, 'insertText', text),
  dom: (el, text) => { el.textContent = text; el.dispatchEvent(new Event('input', { bubbles: true })); },
};
const lines = (s) => (s || '').split(/\\r?\\n/).map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
(async () => {
  el.focus();
  if (field) el.select();
  else {
    const range = document.createRange(); range.selectNodeContents(el);
    const sel = getSelection(); sel.removeAllRanges(); sel.addRange(range);
  }
  await sleep(150);
  try { ways[how](el, text); } catch (e) { done({ error: String(e) }); return; }
  await sleep(400);
  const want = el.tagName === 'INPUT' ? text.replace(/[\\r\\n]/g, '') : text;
  const read = field ? el.value : el.innerText;
  const w = lines(want); const g = lines(read);
  const dom = w.length === g.length && w.every((l, i) => l === g[i]);
  const model = window.fixtureAI.editorText();
  done({ dom, model: model === want || model === want + '\\n' });
})();`;

const only = process.argv[2];
for (const browser of BROWSERS.filter((b) => !only || b === only)) {
  const w = await startWorld(browser, { bridge: false });
  try {
    const rows = [];
    for (const [name, host, path] of [...EDITOR_PAGES, ...ANY_EDITOR_PAGES]) {
      const row = [name];
      for (const how of WAYS) {
        await w.session.navigate(`https://${host}${path}`);
        await w.session.waitForScript(`return !!window.fixtureAI && !!document.querySelector(${JSON.stringify(INPUT)})`,
          { what: 'the page' }).catch(() => {});
        let got;
        try { got = await w.session.execAsync(PROBE, INPUT, how, TEXT); } catch (e) { got = { error: String(e).slice(0, 60) }; }
        row.push(got.error ? 'err' : got.model ? 'model' : got.dom ? 'dom' : '-');
      }
      rows.push(row);
      console.log(`${browser} | ${row.join(' | ')}`);
    }
    console.log(`\n${browser}\n| editor | ${WAYS.join(' | ')} |\n|---|${WAYS.map(() => '---').join('|')}|`);
    for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  } finally {
    await w.close();
  }
}
