// Finding the chat's parts (input, send control, answers, stop control): the config's
// selectors first, else candidates gathered around the page's editable elements for the
// core to choose from (`detect`).
'use strict';

// ---- finding the parts: the site config first, then the page's structure -------------
// The config's selectors are the fast path. Where they find nothing usable, this gathers
// candidates around the page's editable elements and the core chooses (`detect`); what was
// found is kept and re-checked cheaply (still connected, shown, editable) before each use.
// Only a failed re-check gathers again, at most once a second.

const parts = { input: null, send: null, list: null, seenList: null, path: null, composer: null, stopWords: [], stop: null,
  how: { input: 'missing', send: 'missing', answers: 'pending', generating: 'structure' } };
let lastSent = '';
let lastSentAt = 0;
// How long an answer to a message just sent may take to show (the core's, with its choice).
let answerWaitMs = 0;
let detecting = null;
let detectedAt = 0;
const REDETECT_MS = 1000;

/** The first element of the config's chains that passes `ok`. */
function configured(chain, ok) {
  for (const sel of chain || []) {
    try {
      for (const e of document.querySelectorAll(sel)) if (!ours(e) && ok(e)) return e;
    } catch { /* an invalid selector in a config: try the next one */ }
  }
  return null;
}

// An element's tokens (`detect::Candidate::tokens`): what the core's signatures are made of.
const WORD = /^[^0-9 \t\n\f\r]{1,32}$/;
function tokensOf(e) {
  const out = [...e.classList].map((c) => `.${c}`);
  for (const a of e.attributes) {
    if (a.name === 'id' || a.name === 'class' || a.name === 'style') continue;
    out.push(WORD.test(a.value) ? `@${a.name}=${a.value}` : `@${a.name}`);
  }
  return out;
}
const matches = (e, sig, settled = true) => {
  if (e.localName !== sig.tag || (e.getAttribute('role') || null) !== (sig.role ?? null)) return false;
  const t = tokensOf(e);
  return sig.has.every((x) => t.includes(x)) && !sig.not.some((x) => t.includes(x))
    && !(sig.unsent && holdsSent(e, settled));
};

// The texts sent from this page (by the user or typed by the core), newest last: where the
// two sides' entries look alike, holding one of them is what makes an entry the user's.
const sentTexts = [];
let sentVersion = 0;
const sentCache = new WeakMap();
function rememberSent(text) {
  const s = squash(text);
  if (!s) return;
  sentTexts.push({ head: s.slice(0, 200), len: s.length });
  if (sentTexts.length > 50) sentTexts.shift();
  sentVersion++;
}
/**
 * Whether `e` holds a text sent from this page and not much more (an answer quoting the
 * user is longer). An entry's verdict is kept until another text is sent, except for the
 * newest entries (`settled` false), whose text may still be arriving.
 */
function holdsSent(e, settled) {
  const kept = sentCache.get(e);
  if (settled && kept && kept.version === sentVersion) return kept.sent;
  const t = squash(e.textContent);
  const sent = sentTexts.some((s) => t.includes(s.head) && t.length <= s.len + Math.max(80, s.len / 4));
  sentCache.set(e, { version: sentVersion, sent });
  return sent;
}

const BLOCKS = 'p,pre,ul,ol,table,blockquote,h1,h2,h3,h4';
const sentIn = (e) => {
  const want = squash(lastSent).slice(0, 200);
  return !!want && squash(e.textContent).includes(want);
};
/**
 * The parts of one entry of a list: its children, below any wrappers that hold only one
 * element (a turn holding both sides may sit in a wrapper or two).
 */
function entryKids(e) {
  for (let depth = 0; depth < 4 && e.children.length === 1; depth++) e = e.children[0];
  return [...e.children];
}

/** What the core needs to know of one element. */
function describe(e, order, deep = 0) {
  const r = e.getBoundingClientRect();
  const c = {
    tag: e.localName, role: e.getAttribute('role'), order,
    label: (e.getAttribute('aria-label') || e.getAttribute('title') || (deep ? '' : e.innerText || '')).slice(0, 60).toLowerCase(),
    type: e.getAttribute('type'), tokens: tokensOf(e),
    rect: [r.x, r.y, r.width, r.height], visible: shown(e), editable: takesText(e),
    disabled: isDisabled(e), focused: document.activeElement === e, textLen: e.textContent.length,
  };
  if (deep) {
    c.blocks = e.querySelectorAll(BLOCKS).length;
    c.hasSent = sentIn(e);
    if (deep > 1) c.kids = entryKids(e).slice(-8).map((k, i) => describe(k, i, deep - 1));
  }
  return c;
}

/** The controls near `input`: those inside its nearest ancestors that hold any. */
function controlsNear(input) {
  const found = new Set();
  let node = input.parentElement;
  for (let level = 0; node && node !== document.body && level < 8; level++, node = node.parentElement) {
    const all = node.querySelectorAll('button,[role="button"],input[type="submit"]');
    if (all.length > 30) break;
    all.forEach((b) => found.add(b));
    if (found.size && level >= 2) return { composer: node, buttons: [...found] };
  }
  return { composer: node || input.parentElement, buttons: [...found] };
}

// Where text is spread over several children, a list starts; above it, a child holding
// nearly all the text is only a wrapper.
function listIn(e) {
  for (let depth = 0; depth < 12; depth++) {
    const kids = e.children;
    if (kids.length === 1) { e = kids[0]; continue; }
    if (kids.length > 1 && kids.length <= 4) {
      const total = e.textContent.length;
      const big = [...kids].find((k) => k.textContent.length >= total * 0.9);
      if (big) { e = big; continue; }
    }
    break;
  }
  return e;
}

/** Blocks above the input, in the branches before its own at each level. */
function listsAbove(input) {
  const out = [];
  for (let node = input; node && node !== document.body && out.length < 6; node = node.parentElement) {
    let sib = node.previousElementSibling;
    for (let n = 0; sib && n < 3; n++, sib = sib.previousElementSibling) {
      if (!ours(sib) && sib.textContent.length) out.push(listIn(sib));
    }
  }
  return out;
}

// What the user's exchanges taught the core about this site (`detect::learn`), kept as the
// core hands it back, and what was seen since the last detection: the control whose press
// sent the user's text, and a control that came and went with an answer.
const memoryKey = () => `detectMemory:${location.host}`;
let memory = {};
const seen = { pressed: null, appeared: null };

/** The elements of `composer` the memory's signatures find, so the core can choose them. */
function remembered(composer) {
  const out = [];
  for (const sig of [memory.send, memory.stop]) {
    if (!sig || !composer) continue;
    for (const e of composer.querySelectorAll(sig.tag)) if (!ours(e) && matches(e, sig)) out.push(e);
  }
  return out;
}

/** Gathers the candidates, asks the core, and keeps what it chose. */
async function detectParts() {
  const fromConfig = configured(site.selectors.input, usableInput);
  const sendCfg = configured(site.selectors.send, shown);
  if (fromConfig && sendCfg && queryAll(site.selectors.assistantMessage).length) {
    // The fast path: the config finds every part; nothing to gather or to ask.
    Object.assign(parts, { input: fromConfig, send: sendCfg, composer: null, list: null, seenList: null, path: null });
    const generating = site.selectors.generating?.length ? 'config' : 'structure';
    Object.assign(parts.how, { input: 'config', send: 'config', answers: 'config', generating });
    detectedAt = Date.now();
    healthChanged();
    return;
  }
  const inputs = fromConfig ? [fromConfig]
    : [...document.querySelectorAll('textarea,input:not([type]),input[type="text"],[contenteditable="true"],[contenteditable=""],[contenteditable="plaintext-only"],[role="textbox"]')]
      .filter((e) => !ours(e)).slice(0, 10);
  const pressed = seen.pressed;
  const appeared = seen.appeared;
  seen.pressed = null;
  seen.appeared = null;
  const gathered = inputs.map((input) => {
    const { composer, buttons } = controlsNear(input);
    const extra = [...(pressed && composer?.contains(pressed) ? [pressed] : []), ...remembered(composer)];
    return { input, composer, buttons: [...new Set([...buttons, ...extra])], lists: listsAbove(input) };
  });
  const scene = {
    viewport: [innerWidth, innerHeight],
    composers: gathered.map((g, i) => ({
      input: describe(g.input, i), empty: !squash(readInput(g.input)),
      buttons: g.buttons.map((b, j) => describe(b, j)),
      lists: g.lists.map((l, j) => Object.assign(describe(l, j),
        { kids: [...l.children].slice(-40).map((k, n) => describe(k, n, 2)) })),
    })),
    memory,
    ...(pressed ? { pressed: describe(pressed, 0) } : {}),
    ...(appeared ? { appeared } : {}),
    sinceSentMs: lastSentAt ? Date.now() - lastSentAt : null,
  };
  const answer = await send({ type: TAB.DETECT, scene });
  const choice = answer?.type === RESPONSE.DETECTED ? answer.choice : {};
  const g = gathered[choice.input ?? -1];
  parts.stopWords = choice.stopWords || [];
  parts.stop = choice.stop || null;
  if (choice.remember) {
    memory = choice.remember;
    chrome.storage.local.set({ [memoryKey()]: memory }).catch(() => {});
  }
  parts.input = g ? g.input : null;
  parts.composer = g ? g.composer : null;
  parts.how.input = !g ? 'missing' : fromConfig ? 'config' : 'structure';
  parts.send = sendCfg || (g && choice.send != null ? g.buttons[choice.send] : null);
  // Whether a send control that nothing found counts as missing is the core's too.
  parts.how.send = sendCfg ? 'config' : parts.send ? (choice.sendLearned ? 'learned' : 'structure')
    : choice.sendMissing ? 'missing' : 'pending';
  parts.seenList = g && choice.list != null ? g.lists[choice.list] : null;
  parts.list = parts.seenList && choice.answers ? parts.seenList : null;
  parts.path = parts.list ? choice.answers : null;
  parts.how.generating = site.selectors.generating?.length && sendCfg ? 'config' : parts.stop ? 'learned' : 'structure';
  // Whether answers that nothing found count as missing is the core's (`choice.answersMissing`).
  answerWaitMs = choice.answerWaitMs ?? answerWaitMs;
  const newAnswers = !!parts.list && parts.how.answers !== 'structure';
  parts.how.answers = queryAll(site.selectors.assistantMessage).length ? 'config'
    : parts.list ? 'structure' : choice.answersMissing ? 'missing' : 'pending';
  detectedAt = Date.now();
  healthChanged();
  if (newAnswers) report();
}

/**
 * Detects again, at most once a second: a call within the second after the last detection
 * is put off to its end (what changed meanwhile is seen then). Resolves when it is done.
 */
let redetectTimer = 0;
function redetect() {
  if (detecting) return detecting;
  const wait = detectedAt + REDETECT_MS - Date.now();
  if (wait > 0) {
    redetectTimer ||= setTimeout(() => { redetectTimer = 0; redetect(); }, wait);
    return Promise.resolve();
  }
  detecting = detectParts().catch(() => {}).finally(() => { detecting = null; });
  return detecting;
}

/** The chat input: the kept one while it still takes text, else found again. */
async function inputEl() {
  if (!usableInput(parts.input)) await (detecting || (detectedAt = 0, redetect()));
  return usableInput(parts.input) ? parts.input : null;
}

/** The send control: the kept one while it is still on the page and shown. */
async function sendEl() {
  const ok = (b) => !!b && b.isConnected && shown(b);
  if (!ok(parts.send)) await (detecting || (detectedAt = 0, redetect()));
  return ok(parts.send) ? parts.send : null;
}

/**
 * Whether a mutation batch should look for the answers again: they are not found, and
 * either no conversation was seen yet or its list was replaced, or the user sent a message
 * within the core's `answerWaitMs` (its answer tells the sides apart). A page whose entries
 * cannot be told apart is not gathered again on every batch while it streams.
 */
const lookForAnswers = () => parts.how.answers !== 'config' && !parts.list?.isConnected
  && (!parts.seenList?.isConnected || Date.now() - lastSentAt < answerWaitMs);

/** The user (or the core) sent a message: its answer is looked for until it comes. */
function justSent(text) {
  lastSent = text;
  rememberSent(text);
  lastSentAt = Date.now();
  // One more look once the wait is over, so a missing answer is said.
  setTimeout(() => { if (lookForAnswers() || parts.how.answers === 'pending') { detectedAt = 0; redetect(); } }, answerWaitMs + 100);
  // The list found must hold what was just sent once the page shows it. With one exchange
  // on the page, the one turn holding both sides looks like the list itself; the next
  // message then lands beside it, and the list is found again.
  for (const ms of [600, 1600]) {
    setTimeout(() => {
      if (parts.list?.isConnected && lastSent === text && !sentIn(parts.list)) {
        parts.list = null;
        detectedAt = 0;
        redetect();
      }
    }, ms);
  }
}

const answersBy = (how) => {
  if (parts.how.answers !== how) { parts.how.answers = how; healthChanged(); }
};

/** Every answer on the page, oldest first: by the config, else by the structure found. */
function answerEls() {
  const byConfig = queryAll(site.selectors.assistantMessage).filter((e) => !ours(e));
  if (byConfig.length) answersBy('config');
  if (byConfig.length || !parts.list) return byConfig;
  if (!parts.list.isConnected) { redetect(); return []; }
  const [outer, inner] = parts.path;
  const out = [];
  const kids = parts.list.children;
  for (let i = 0; i < kids.length; i++) {
    const kid = kids[i];
    if (!matches(kid, outer, i < kids.length - 3)) continue;
    if (!inner) out.push(kid);
    else {
      const found = entryKids(kid).filter((g) => matches(g, inner)).pop();
      if (found) out.push(found);
    }
  }
  return out;
}

/**
 * A stop control by the config, or one among the composer's controls by its words. Only a
 * shown one counts: some sites keep the stop control in the page and hide it with a class
 * while nothing streams (Doubao).
 */
function generatingNow() {
  if (queryAll(site.selectors.generating).some(shown)) return true;
  if (!parts.composer) return false;
  if (parts.stop && [...parts.composer.querySelectorAll(parts.stop.tag)].some((e) => matches(e, parts.stop) && shown(e))) return true;
  for (const b of parts.composer.querySelectorAll('button,[role="button"]')) {
    const label = (b.getAttribute('aria-label') || b.getAttribute('title') || '').toLowerCase();
    if (label && parts.stopWords.some((w) => label.includes(w)) && shown(b)) return true;
  }
  return false;
}

/** The health record: for each part, found by config, by structure, or not. */
const health = () => ({ ...parts.how });
let shownHealth = '';
function healthChanged() {
  const now = JSON.stringify(parts.how);
  if (now === shownHealth) return;
  shownHealth = now;
  if (floatState) render(floatState);
}
