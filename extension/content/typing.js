// Obeying the core's commands to type and submit, the ways of typing being the core's
// (`typing::Typing`), and offering a result's files to the chat input.
'use strict';

/**
 * Selects everything in the editor, then waits: Lexical (and ProseMirror) copy the DOM
 * selection into their own state on `selectionchange`, which fires later as a task. A
 * paste right after a DOM selection change lands where the editor's stale selection was,
 * after the text already there, instead of replacing it.
 */
async function selectAllIn(el) {
  el.focus();
  const range = document.createRange();
  range.selectNodeContents(el);
  const sel = getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
  await sleep(30);
}

/** A paste event carrying `text`; never touches the user's real clipboard. */
function pasteInto(el, text, html) {
  const data = { 'text/plain': text, ...(html ? { 'text/html': html } : {}) };
  const dt = new DataTransfer();
  for (const [type, value] of Object.entries(data)) dt.setData(type, value);
  const e = new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true });
  // Firefox ignores the data of a DataTransfer given to the constructor.
  for (const [type, value] of Object.entries(data)) {
    if (e.clipboardData && e.clipboardData.getData(type) !== value) e.clipboardData.setData(type, value);
  }
  el.dispatchEvent(e);
}

// ProseMirror turns pasted plain text into paragraphs split on runs of line breaks, so
// blank lines vanish (prosemirror-view's parseFromClipboard); as HTML, one paragraph a
// line, an empty one stays.
const asParagraphs = (text) => text.split('\n').map((line) => {
  const p = document.createElement('p');
  p.textContent = line;
  return p.outerHTML;
}).join('');

// Chromium's execCommand('insertText') turns each line break into a new block, and a
// plain contenteditable then reads back some blank lines twice; a line break per `\n`
// (a <br>) reads back exactly. Firefox inserts <br>s for line breaks by itself.
function insertLines(text) {
  if (!document.queryCommandSupported('insertLineBreak')) {
    document.execCommand('insertText', false, text);
    return;
  }
  text.split('\n').forEach((line, i) => {
    if (i) document.execCommand('insertLineBreak');
    if (line) document.execCommand('insertText', false, line);
  });
}

// Rich editors render each line as a block, and `innerText` puts one or two line breaks
// around a block (two for <p>), so blank lines cannot be read back from the DOM. Every
// other line can: the text landed when its non-blank lines are all there, in order, once.
const lines = (s) => (s || '').split(/\r?\n/).map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
const landed = (el, text) => {
  // An <input> drops line breaks from any value it is given.
  const want = lines(el.tagName === 'INPUT' ? text.replace(/[\r\n]/g, '') : text);
  const got = lines(readInput(el));
  return got.length === want.length && got.every((l, i) => l === want[i]);
};

// One way each of putting text in, as the core names them (`sites::TypingWay`).
const ways = {
  value: (el, text) => {
    // React keeps its own copy of the value; only the native setter plus an input event
    // updates it (https://github.com/facebook/react/issues/10135).
    const proto = el.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    el.focus();
    Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, text);
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

/**
 * A synthetic `beforeinput`: editors that model every edit from it (Slate) carry it out
 * themselves. It has no default action, so a page that does not listen is left as it was.
 */
function beforeInput(el, inputType, text) {
  const init = { inputType, bubbles: true, cancelable: true, composed: true };
  if (inputType === 'insertText') init.data = text;
  else {
    const dt = new DataTransfer();
    dt.setData('text/plain', text);
    init.dataTransfer = dt;
  }
  const e = new InputEvent('beforeinput', init);
  // As with a paste, Firefox may drop the data of a DataTransfer given to the constructor.
  if (e.dataTransfer && e.dataTransfer.getData('text/plain') !== text) {
    try { e.dataTransfer.setData('text/plain', text); } catch { /* read-only: the next way */ }
  }
  el.dispatchEvent(e);
}

/**
 * The kind of editor the element is and its ways, from the core's table: the first
 * library mark the element or an ancestor bears, else what the config says.
 */
function typingFor(el) {
  for (const m of typing.markers) {
    try { if (el.closest(m.selector)) return m; } catch { /* a selector this browser lacks */ }
  }
  return { kind: typing.unmarked, ways: typing.unmarkedWays };
}

async function typeText(text) {
  const el = await inputEl();
  if (!el) return { ok: false, reason: 'input-not-found' };
  // The kind the element is, which may not be the one its config says: a site's config
  // may be older than its editor (kimi.com's input became a Lexical editor, which marks
  // its root). The core says how each kind is told and how to type into it.
  const field = isField(el);
  for (const how of typingFor(el).ways) {
    if (!field) await selectAllIn(el);
    ways[how](el, text);
    await sleep(50);
    if (landed(el, text)) break;
  }
  await sleep(50);
  placeFloat(); // the input may have grown
  return landed(el, text) ? { ok: true } : { ok: false, reason: 'text-not-accepted' };
}

/** Sends the typed message the way the core's table says (`typing.submit`). */
async function submit() {
  const { waitMs, pollMs, enterFallback } = typing.submit;
  const input = await inputEl();
  const before = input ? squash(readInput(input)) : '';
  if (input) justSent(readInput(input));
  const deadline = Date.now() + waitMs;
  let btn = await sendEl();
  while (btn && isDisabled(btn) && Date.now() < deadline) {
    await sleep(pollMs);
    btn = await sendEl();
  }
  if (btn && !isDisabled(btn)) btn.click();
  else if (input && enterFallback) {
    input.focus();
    for (const type of ['keydown', 'keypress', 'keyup']) {
      input.dispatchEvent(new KeyboardEvent(type, { key: 'Enter', code: 'Enter', keyCode: 13, which: 13, bubbles: true, cancelable: true }));
    }
  }
  // The message has left when the input no longer holds it.
  const gone = Date.now() + waitMs;
  while (Date.now() < gone) {
    const now = parts.input?.isConnected ? parts.input : await inputEl();
    if (!now || !before || squash(readInput(now)) !== before) {
      watchForStop();
      return { ok: true };
    }
    await sleep(pollMs);
  }
  return { ok: false, reason: btn ? 'not-sent' : 'send-not-found' };
}

// ---- images and sounds of a tool's result ---------------------------------------------

/** A tool's media item (`{mimeType, data}`, base64 as the bridge sent it) as a File. */
function mediaFile(m, i) {
  const bin = atob(m.data);
  const bytes = new Uint8Array(bin.length);
  for (let j = 0; j < bin.length; j++) bytes[j] = bin.charCodeAt(j);
  const [kind, sub] = m.mimeType.split('/');
  const ext = { jpeg: 'jpg', mpeg: 'mp3', 'x-wav': 'wav' }[sub] || sub.replace(/[^a-z0-9]/g, '') || 'bin';
  return new File([bytes], `mcp-${kind}-${i + 1}.${ext}`, { type: m.mimeType });
}

// Firefox shows a page only the files that the page itself put into a DataTransfer (each
// item keeps who added it), so there the files are made and added through the page's own
// objects (`wrappedJSObject`, `cloneInto`); Chromium has neither and needs neither.
const pageWindow = typeof cloneInto === 'function' ? window.wrappedJSObject : null;
const forPage = (files) => (pageWindow
  ? files.map((f) => new pageWindow.File(cloneInto([f], pageWindow, { wrapReflectors: true }), f.name, cloneInto({ type: f.type }, pageWindow)))
  : files);
const pageSide = (obj) => (pageWindow ? obj.wrappedJSObject : obj);

/**
 * Offers `files` to the chat input as a user pasting a screenshot does: a `paste` whose
 * clipboard holds them (never the real clipboard); true when the page took them. A page
 * that cancelled it, or changed its DOM within the core's `typing.filesWaitMs` (its
 * attachment chip), took it; only a paste with neither sign is followed by a `drop`, so no
 * page gets the files twice. With `shown`, only the chip counts: an editor may cancel every
 * paste and keep only images (Quill's uploader), and a line pointing to a file that is not
 * there must not be typed.
 */
async function attachFiles(files, { shown = false } = {}) {
  const input = await inputEl();
  if (!input) return false;
  input.focus();
  const own = forPage(files);
  const dt = pageWindow ? new pageWindow.DataTransfer() : new DataTransfer();
  for (const f of own) dt.items.add(f);
  const paste = new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true });
  // Firefox ignores the init-dict DataTransfer; the event's own one takes the files.
  const data = pageSide(paste).clipboardData;
  if (data && data.files.length !== own.length) for (const f of own) data.items.add(f);
  let changed = false;
  const watch = new MutationObserver(() => { changed = true; });
  watch.observe(document.body, { childList: true, subtree: true });
  input.dispatchEvent(paste);
  if (shown || !paste.defaultPrevented) await sleep(typing.filesWaitMs);
  watch.disconnect();
  if (changed || (paste.defaultPrevented && !shown)) return true;
  if (paste.defaultPrevented) return false;
  const drop = new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true });
  if (!shown) {
    input.dispatchEvent(drop);
    return drop.defaultPrevented;
  }
  watch.observe(document.body, { childList: true, subtree: true });
  input.dispatchEvent(drop);
  await sleep(typing.filesWaitMs);
  watch.disconnect();
  return changed;
}

/** Thumbnails (or players) with a save link for each item; the links live until the next draw. */
