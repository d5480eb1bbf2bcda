// MCP Bridge content script: plain JavaScript on purpose — Chromium applies the page's CSP
// to WebAssembly compiled in a content script, so every decision is made by the Rust core
// in the background. This script only observes the page (reports the newest assistant
// message) and obeys the core's commands (type text, submit, draw the float).
(() => {
  'use strict';
  if (globalThis.__mcpBridgeLoaded) return;
  globalThis.__mcpBridgeLoaded = true;

  // Message names, from contract.js (listed before this file wherever it is injected).
  const { tab: TAB, action: ACTION, command: COMMAND, response: RESPONSE, popup: POPUP } = globalThis.MCP_BRIDGE;
  const THROTTLE_MS = 150;
  let site = null;
  // The core's ways to type into each kind of editor, sent with the site.
  let typing = null;
  let lastReport = '';
  let recheckTimer = 0;
  let throttleTimer = 0;
  let float = null;
  let floatState = null;
  let lastChange = Date.now();

  const send = (msg) => chrome.runtime.sendMessage(msg).catch((e) => ({ type: RESPONSE.ERROR, message: String(e) }));

  // ---- selectors ---------------------------------------------------------------------

  /** All elements matching the first selector of `chain` that matches anything. */
  function queryAll(chain) {
    for (const sel of chain || []) {
      try {
        const found = document.querySelectorAll(sel);
        if (found.length) return [...found];
      } catch { /* an invalid selector in a config: try the next one */ }
    }
    return [];
  }
  const query = (chain) => queryAll(chain)[0] || null;

  // ---- finding the parts: the site config first, then the page's structure -------------
  // The config's selectors are the fast path. Where they find nothing usable, this gathers
  // candidates around the page's editable elements and the core chooses (`detect`); what was
  // found is kept and re-checked cheaply (still connected, shown, editable) before each use.
  // Only a failed re-check gathers again, at most once a second.

  const parts = { input: null, send: null, list: null, seenList: null, path: null, composer: null, stopWords: [], stop: null,
    how: { input: 'missing', send: 'missing', answers: 'pending', generating: 'structure' } };
  let lastSent = '';
  let lastSentAt = 0;
  const ANSWER_WAIT_MS = 10000;
  let detecting = null;
  let detectedAt = 0;
  const REDETECT_MS = 1000;

  const shown = (e) => {
    const r = e.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) return false;
    return e.checkVisibility ? e.checkVisibility({ visibilityProperty: true }) : true;
  };
  const isField = (e) => e.tagName === 'TEXTAREA' || e.tagName === 'INPUT';
  const takesText = (e) => (isField(e) ? !e.disabled && !e.readOnly : e.isContentEditable);
  const usableInput = (e) => !!e && e.isConnected && takesText(e) && shown(e);
  const ours = (e) => !!float && float.host.contains(e);

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
    parts.how.send = sendCfg ? 'config' : !parts.send ? 'missing' : choice.sendLearned ? 'learned' : 'structure';
    parts.seenList = g && choice.list != null ? g.lists[choice.list] : null;
    parts.list = parts.seenList && choice.answers ? parts.seenList : null;
    parts.path = parts.list ? choice.answers : null;
    parts.how.generating = site.selectors.generating?.length && sendCfg ? 'config' : parts.stop ? 'learned' : 'structure';
    // Answers are missing only on a page with a conversation, and not while the first
    // answer to what the user sent may still be on its way.
    const talk = scene.composers.some((c) => c.lists.some((l) => l.kids.length));
    const newAnswers = !!parts.list && parts.how.answers !== 'structure';
    parts.how.answers = queryAll(site.selectors.assistantMessage).length ? 'config'
      : parts.list ? 'structure' : talk && Date.now() - lastSentAt > ANSWER_WAIT_MS ? 'missing' : 'pending';
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
   * within the last ANSWER_WAIT_MS (its answer tells the sides apart). A page whose entries
   * cannot be told apart is not gathered again on every batch while it streams.
   */
  const lookForAnswers = () => parts.how.answers !== 'config' && !parts.list?.isConnected
    && (!parts.seenList?.isConnected || Date.now() - lastSentAt < ANSWER_WAIT_MS);

  /** The user (or the core) sent a message: its answer is looked for until it comes. */
  function justSent(text) {
    lastSent = text;
    rememberSent(text);
    lastSentAt = Date.now();
    // One more look once the wait is over, so a missing answer is said.
    setTimeout(() => { if (lookForAnswers() || parts.how.answers === 'pending') { detectedAt = 0; redetect(); } }, ANSWER_WAIT_MS + 100);
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

  const PARTS = [['input', 'partInput'], ['send', 'partSend'], ['answers', 'partAnswers'], ['generating', 'partGenerating']];
  const FOUND = { config: 'foundConfig', structure: 'foundStructure', learned: 'foundLearned', missing: 'foundMissing', pending: 'foundPending' };
  const MISSING = { input: 'missingInput', send: 'missingSend', answers: 'missingAnswers' };

  /** The float's part of the health record: shown once a part is not the config's. */
  function healthSection() {
    const how = parts.how;
    if (!site || PARTS.every(([part]) => how[part] === 'config' || how[part] === 'pending')) return null;
    const box = el('div', { class: 'health' }, PARTS.map(([part, key]) => `${T(key)}${T('colon')}${T(FOUND[how[part]])}`).join(T('listSep')));
    for (const [part, key] of Object.entries(MISSING)) {
      if (how[part] === 'missing') box.append(el('div', { class: 'missing', 'data-part': part }, T(key)));
    }
    return box;
  }

  // ---- observing -----------------------------------------------------------------------

  function newestMessage(withText = true) {
    const all = answerEls();
    if (!all.length) return null;
    const el = all[all.length - 1];
    return { index: all.length - 1, text: withText ? (el.innerText ?? el.textContent ?? '') : '' };
  }

  let lastGenerating = false;
  let endCheck = 0;
  let lastFlipCheck = 0;
  function report(force = false, baseline = false) {
    const generating = generatingNow();
    lastGenerating = generating;
    // While the site streams, the text is not needed yet (the core waits for the end), and
    // reading innerText of a long answer forces layout: send only that it is generating.
    const msg = newestMessage(!generating || baseline);
    if (!msg) return;
    const key = `${msg.index}\u0001${generating}\u0001${msg.text}`;
    if (!force && key === lastReport) return;
    lastReport = key;
    send({ type: TAB.MESSAGE_UPDATED, url: location.href, index: msg.index, text: msg.text, generating, baseline, changedAt: lastChange })
      .then((answer) => {
        clearTimeout(recheckTimer);
        if (answer && answer.type === RESPONSE.ACK && answer.recheckMs) {
          recheckTimer = setTimeout(() => report(true), answer.recheckMs);
        }
      });
  }

  function scheduleReport() {
    lastChange = Date.now();
    if (lookForAnswers()) redetect();
    // Whether the page started or stopped generating is looked at in the next frame (at
    // most every 50 ms): a change is reported at once, not after the throttle, so the core
    // knows an answer streams even when it ends within the throttle, and learns its end at
    // once (it then waits one more frame for a last chunk).
    if (!endCheck && Date.now() - lastFlipCheck >= 50) {
      endCheck = requestAnimationFrame(() => {
        endCheck = 0;
        lastFlipCheck = Date.now();
        // The controls' boxes are read here, in a frame, where the layout is computed anyway.
        checkAppearing();
        if (generatingNow() !== lastGenerating) {
          clearTimeout(throttleTimer);
          throttleTimer = 0;
          report();
        }
      });
    }
    if (throttleTimer) return;
    throttleTimer = setTimeout(() => {
      throttleTimer = 0;
      report();
    }, THROTTLE_MS);
  }

  // One observer on the message area. Sites replace whole subtrees on navigation, so one
  // timer looks for the area again and moves the observer when it changed (the body when
  // the site's own area is gone for now).
  const AREA_CHECK_MS = 2000;
  let watched = null;

  /**
   * The config's first message area that holds the whole conversation: the list the newest
   * answer sits in (its nearest ancestor holding more than one element). A redesign that
   * wraps each message makes an area selector such as `div:has(> .message)` match one
   * message's wrapper, where the next answer never shows; the body is watched then, and
   * while there is no answer yet.
   */
  function messageArea() {
    const newest = answerEls().pop();
    if (!newest) return document.body;
    let list = newest.parentElement;
    while (list && list !== document.body && list.childElementCount < 2) list = list.parentElement;
    for (const sel of site.selectors.messageArea || []) {
      try {
        for (const e of document.querySelectorAll(sel)) if (!ours(e) && list && e.contains(list)) return e;
      } catch { /* an invalid selector in a config: try the next one */ }
    }
    return document.body;
  }

  function observe() {
    const area = messageArea();
    if (watched?.area === area) return;
    watched?.observer.disconnect();
    const observer = new MutationObserver(scheduleReport);
    observer.observe(area, { childList: true, subtree: true, characterData: true });
    if (watched) scheduleReport(); // the new area may already hold a newer message
    watched = { area, observer };
  }

  // The user sending a message themselves resets the automatic-round counter.
  function watchUser() {
    const isInput = (t) => t instanceof Element && !!parts.input?.contains(t);
    // What the user sends is kept: the entry holding it is theirs, the next one the answer.
    const sent = () => {
      if (parts.input) justSent(readInput(parts.input));
      send({ type: TAB.USER_MESSAGE });
    };
    document.addEventListener('keydown', (e) => {
      if (e.isTrusted && e.key === 'Enter' && !e.shiftKey && isInput(e.target)) {
        sent();
        watchForStop();
      }
    }, true);
    document.addEventListener('click', (e) => {
      const btn = parts.send;
      if (!e.isTrusted) return;
      if (btn && btn.contains(e.target)) {
        sent();
        watchForStop();
      } else if (e.target instanceof Element && !isInput(e.target) && !ours(e.target)) {
        pressedSomething(e.target);
      }
    }, true);
  }

  /**
   * A press on a control not known as the send control: when the input's text leaves within
   * a second, the press sent it. The core is told what was pressed (`seen.pressed`) unless
   * the config names the send control.
   */
  function pressedSomething(target) {
    const input = parts.input;
    const text = input?.isConnected ? readInput(input) : '';
    if (!squash(text)) return;
    // The element that takes the click: a control, or the HTML element holding a pressed icon.
    const control = target.closest('button,[role="button"],input[type="submit"]')
      || (target instanceof SVGElement ? target.closest('svg')?.parentElement : target) || target;
    const until = Date.now() + 1000;
    const look = () => {
      if (squash(readInput(input)) !== squash(text)) {
        justSent(text);
        send({ type: TAB.USER_MESSAGE });
        if (parts.how.send !== 'config') {
          seen.pressed = control;
          detectedAt = 0;
          redetect().then(watchForStop);
        } else watchForStop();
      } else if (Date.now() < until) setTimeout(look, 100);
    };
    setTimeout(look, 50);
  }

  // A stop control is learnt from what appears among the input's controls while the answer
  // to a message just sent grows, and is gone once it stopped: the controls shown at the send
  // are noted, each new one is described while shown, and one that went away is reported.
  let appearing = null;
  function watchForStop() {
    if (!parts.composer?.isConnected || parts.how.generating === 'config') return;
    appearing = { before: new Set(composerControls()), found: new Map(), until: Date.now() + 120000 };
  }
  const composerControls = () => [...parts.composer.querySelectorAll('button,[role="button"],[tabindex]')]
    .filter((e) => !ours(e) && shown(e));
  function checkAppearing() {
    if (!appearing) return;
    if (Date.now() > appearing.until || !parts.composer?.isConnected) { appearing = null; return; }
    for (const e of composerControls()) {
      if (!appearing.before.has(e) && !appearing.found.has(e)) appearing.found.set(e, describe(e, 0));
    }
    for (const [e, seenAs] of appearing.found) {
      if (!e.isConnected || !shown(e)) {
        appearing = null;
        seen.appeared = seenAs;
        detectedAt = 0;
        redetect();
        return;
      }
    }
  }

  // ---- typing ----------------------------------------------------------------------------

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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

  const squash = (s) => (s || '').replace(/\s+/g, '');
  const readInput = (el) => (el.tagName === 'TEXTAREA' || el.tagName === 'INPUT' ? el.value : el.innerText);
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

  const isDisabled = (btn) => btn.disabled || btn.getAttribute('aria-disabled') === 'true'
    || !!btn.closest('.disabled,[disabled]');

  async function submit() {
    const input = await inputEl();
    const before = input ? squash(readInput(input)) : '';
    if (input) justSent(readInput(input));
    const deadline = Date.now() + 5000;
    let btn = await sendEl();
    while (btn && isDisabled(btn) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      btn = await sendEl();
    }
    if (btn && !isDisabled(btn)) btn.click();
    else if (input) {
      input.focus();
      for (const type of ['keydown', 'keypress', 'keyup']) {
        input.dispatchEvent(new KeyboardEvent(type, { key: 'Enter', code: 'Enter', keyCode: 13, which: 13, bubbles: true, cancelable: true }));
      }
    }
    // The message has left when the input no longer holds it.
    const gone = Date.now() + 5000;
    while (Date.now() < gone) {
      const now = parts.input?.isConnected ? parts.input : await inputEl();
      if (!now || !before || squash(readInput(now)) !== before) {
        watchForStop();
        return { ok: true };
      }
      await new Promise((r) => setTimeout(r, 100));
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
   * need not cancel a synthetic paste it took (there is no default action), so one that
   * changed its DOM within 300 ms (its attachment chip) took it too; only a paste with
   * neither sign is followed by a `drop`, so no page gets the files twice.
   */
  async function attachFiles(files) {
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
    if (!paste.defaultPrevented) await sleep(300);
    watch.disconnect();
    if (paste.defaultPrevented || changed) return true;
    const drop = new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true });
    input.dispatchEvent(drop);
    return drop.defaultPrevented;
  }

  /** Thumbnails (or players) with a save link for each item; the links live until the next draw. */
  function mediaSection(media) {
    const box = el('div', { class: 'media' });
    media.forEach((m, i) => {
      const file = mediaFile(m, i);
      const url = URL.createObjectURL(file);
      float.urls.push(url);
      const view = m.mimeType.startsWith('image/')
        ? el('img', { src: url, alt: T('floatImage'), title: file.name })
        : el('audio', { src: url, controls: '' });
      // Chromium's player obeys the page's CSP (media-src): what cannot load says what it is.
      view.addEventListener('error', () => view.replaceWith(el('span', {},
        T('floatCannotOpen', [file.type, String(Math.ceil(file.size / 1024))]))));
      box.append(el('div', { class: 'item' }, view, el('a', { href: url, download: file.name }, T('floatSave'))));
    });
    return box;
  }

  // ---- the float (closed shadow root: page CSS cannot reach in, ours cannot leak out) -----

  // The interface language's words (chrome.i18n follows the browser, as the core's float
  // text does); a key missing from a catalog shows as nothing, and tests/locales.rs fails.
  const T = (key, subs) => chrome.i18n.getMessage(key, subs);

  function el(tag, attrs = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === 'onclick') e.addEventListener('click', v);
      else e.setAttribute(k, v);
    }
    for (const c of children.flat()) if (c != null) e.append(c); // strings become text nodes
    return e;
  }
  // The core marks names and commands `like this`: drawn as code, never as backticks.
  const rich = (text) => String(text ?? '').split('`').map((part, i) => (i % 2 ? el('code', {}, part) : part));
  const plain = (text) => String(text ?? '').replaceAll('`', '');

  // Colours meet WCAG AA (4.5:1 or more) for all text in both themes; every target is at
  // least 24×24 px. The tone (the core's) colours the dot and the ring.
  const CSS = `
:host{all:initial;--fg:#111;--bg:#fff;--line:#d0d7de;--soft:#f6f8fa;--hover:#eaeef2;--bad:#b91c1c;--link:#1d4ed8}
@media (prefers-color-scheme:dark){:host{--fg:#e6edf3;--bg:#161b22;--line:#3d444d;--soft:#21262d;--hover:#30363d;--bad:#fca5a5;--link:#93c5fd}}
[data-tone=neutral]{--c:#2563eb}[data-tone=attention],[data-tone=busy]{--c:#d97706}[data-tone=good]{--c:#16a34a}[data-tone=bad]{--c:#dc2626}[data-tone=off]{--c:#6b7280}
.box{position:fixed;right:16px;bottom:16px;z-index:2147483647;width:min(360px,calc(100vw - 32px));display:flex;flex-direction:column;
 overflow:hidden;font:13px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:10px;
 box-shadow:0 6px 24px rgba(0,0,0,.18)}
.bar{display:flex;align-items:center;gap:6px;min-height:36px;flex:none;box-sizing:border-box;padding:4px 6px 4px 10px;cursor:move;border-bottom:1px solid var(--line);user-select:none}
.box.docked{flex-direction:column-reverse}
.box.docked .bar{border-bottom:0;border-top:1px solid var(--line)}
.dot{flex:none;width:10px;height:10px;border-radius:50%;background:var(--c)}
.title{flex:1;font-weight:600;overflow:hidden;display:-webkit-box;-webkit-line-clamp:3;-webkit-box-orient:vertical;word-break:break-word}
.bar button{flex:none;width:28px;height:28px;padding:0}
.bar button.prompts{width:auto;padding:0 8px}
code{font:12px ui-monospace,monospace;background:var(--soft);border-radius:4px;padding:0 3px;word-break:break-all}
.body{padding:8px 10px;white-space:pre-wrap;word-break:break-word;overflow:auto;min-height:0}
.body:empty{display:none}
.body pre{margin:6px 0 0;padding:6px;background:var(--soft);border-radius:6px;font:11px/1.4 ui-monospace,monospace;white-space:pre-wrap;max-height:180px;overflow:auto}
.row,.tools{display:flex;flex-wrap:wrap;gap:6px;padding:6px 10px;flex:none}
.tools{border-top:1px solid var(--line)}
button{font:12px/1.2 system-ui,sans-serif;padding:4px 10px;min-height:28px;min-width:28px;border:1px solid var(--line);border-radius:6px;background:var(--soft);color:var(--fg);cursor:pointer}
button:hover{background:var(--hover)}
button.primary{background:#1d4ed8;border-color:#1d4ed8;color:#fff;font-weight:600}
button.primary:hover{background:#1e40af}
button[data-id=deny]{color:var(--bad);border-color:var(--bad);background:var(--bg)}
button.link{border:0;background:none;padding:4px 0;color:var(--link);text-decoration:underline}
button:focus-visible{outline:2px solid #2563eb;outline-offset:1px}
.cmd{display:flex;align-items:center;gap:6px;margin-top:6px}
.cmd code{flex:1;padding:4px 6px}
.why{margin-top:4px}
.args{margin:6px 0 0;display:grid;grid-template-columns:auto 1fr;gap:2px 8px;max-height:200px;overflow:auto}
.args dt{font-weight:600}.args dd{margin:0}.args dd code{background:none;padding:0}
.args summary{cursor:pointer;min-height:24px}
textarea{width:100%;box-sizing:border-box;height:90px;font:11px ui-monospace,monospace;color:var(--fg);background:var(--bg)}
.manual{display:flex;gap:4px;padding:4px 10px;flex:none}
.media{display:flex;flex-wrap:wrap;gap:6px;margin-top:6px}
.item{display:flex;flex-direction:column;align-items:center;gap:2px}
.item img{max-width:96px;max-height:96px;border:1px solid var(--line);border-radius:4px;background:var(--soft)}
.item audio,.item span{max-width:200px}
.item a{color:var(--link)}
.health{margin-top:6px;font-size:11px}
.missing{margin-top:4px;font-weight:600;color:var(--bad)}
.progress progress{width:100%}
.question{margin-top:6px;padding:6px;border:1px solid var(--line);border-radius:6px;white-space:normal}
.question .row{padding:4px 0 0}
.field{display:flex;flex-direction:column;gap:2px;margin-top:4px}
.field input[type=text],.field input[type=number],.field select{font:12px system-ui,sans-serif;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:2px 4px;min-height:24px}
.url{font:11px ui-monospace,monospace;word-break:break-all;margin-top:4px}
.refused{color:var(--bad)}
.refused:empty{display:none}
.menu{padding:4px 10px 8px;flex:none;max-height:50vh;overflow:auto}
.menu select,.menu input{width:100%;box-sizing:border-box;font:12px system-ui,sans-serif;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:4px;min-height:24px}
.menu .row{padding:4px 0 0}
.desc{margin-top:4px;opacity:.85}
.rlink,.notice{display:flex;align-items:center;gap:6px;margin-top:4px;white-space:normal}
.rlink span{flex:1;overflow:hidden;text-overflow:ellipsis}
.notice{font-weight:600}
.ring{position:fixed;right:16px;bottom:16px;z-index:2147483647;width:32px;height:32px;min-height:0;padding:0;border-radius:50%;
 border:6px solid var(--c);background:var(--bg);cursor:pointer;box-sizing:border-box}
`;

  function createFloat() {
    const host = document.createElement('mcp-bridge-float');
    const root = host.attachShadow({ mode: 'closed' });
    root.append(el('style', {}, CSS));
    const wrap = el('div');
    root.append(wrap);
    document.documentElement.append(host);
    return { host, root, wrap, minimized: false, pos: null, manual: false, menu: false, report: false, elapsedTimer: 0, urls: [], attached: null, prompts: null };
  }

  function drag(handle, box) {
    handle.addEventListener('pointerdown', (e) => {
      if (e.target.closest('button')) return;
      const r = box.getBoundingClientRect();
      const dx = e.clientX - r.left, dy = e.clientY - r.top;
      const move = (m) => {
        float.pos = { left: Math.max(0, m.clientX - dx), top: Math.max(0, m.clientY - dy) };
        placeFloat();
      };
      const up = () => {
        removeEventListener('pointermove', move);
        removeEventListener('pointerup', up);
        if (float.pos) chrome.storage.local.set({ [`floatPos:${site.id}`]: float.pos });
      };
      addEventListener('pointermove', move);
      addEventListener('pointerup', up);
    });
  }

  // Where the float goes unless the user dragged it: at the right edge, never over the chat
  // input or its send button. Sites put those at the bottom, often reaching the right edge,
  // so the float docks just above them (or below, where there is more room), its title bar
  // and buttons on the edge nearest to them so they keep their place while the details
  // above grow or shrink. Where the user put it (open or minimised), it stays, but moves up
  // clear of the input and the send button when it would cover them.
  const EDGE = 16;
  const CLEAR = 8;
  function placeFloat() {
    const node = float?.wrap.firstElementChild;
    if (!node) return;
    const keep = (site ? [parts.input, parts.send] : []).filter(Boolean).map((e) => e.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.height > 0);
    if (float.pos) {
      node.style.maxHeight = `${Math.max(120, innerHeight - 2 * EDGE)}px`;
      const { width, height } = node.getBoundingClientRect();
      const left = Math.max(0, Math.min(float.pos.left, innerWidth - width));
      let top = Math.max(0, Math.min(float.pos.top, innerHeight - height));
      const hit = keep.filter((r) => left < r.right && r.left < left + width && top < r.bottom && r.top < top + height);
      if (hit.length) top = Math.max(0, Math.min(...hit.map((r) => r.top)) - CLEAR - height);
      Object.assign(node.style, { left: `${left}px`, top: `${top}px`, right: 'auto', bottom: 'auto' });
      node.classList.remove('docked');
      return;
    }
    const width = node.getBoundingClientRect().width;
    const left = innerWidth - EDGE - width;
    const rects = keep.filter((r) => r.right > left && r.left < innerWidth - EDGE);
    let bottom = EDGE;
    let room = innerHeight - 2 * EDGE;
    if (rects.length) {
      const top = Math.min(...rects.map((r) => r.top));
      const below = innerHeight - EDGE - (Math.max(...rects.map((r) => r.bottom)) + CLEAR);
      const above = top - CLEAR - EDGE;
      if (below >= above) room = below;
      else { bottom = innerHeight - top + CLEAR; room = above; }
    }
    node.style.bottom = `${bottom}px`;
    node.style.maxHeight = `${Math.max(0, Math.min(room, innerHeight * 0.6))}px`;
    node.classList.toggle('docked', node.dataset.status !== 'confirm');
  }

  // Placing the float reads the layout of the input, the send button and the float. From a
  // timer, while an answer streams in, that forces a layout of the whole page which the next
  // chunk throws away (one more layout each time, on a long answer a long task). In an
  // animation frame it reads the layout the frame computes anyway. A hidden tab draws no
  // frames, and has nothing to place until it is shown.
  let placing = 0;
  function placeSoon() {
    placing ||= requestAnimationFrame(() => { placing = 0; placeFloat(); });
  }

  // A running call's progress, as the core worded it.
  function progressSection(p) {
    const box = el('div', { class: 'progress' });
    if (p.percent != null) box.append(el('progress', { max: '100', value: String(p.percent) }));
    box.append(el('div', {}, p.text || ''));
    return box;
  }

  // The question a server asks during a call: its form (or its URL, opened only on the user's
  // click). What the user types is kept across redraws until they answer.
  function questionSection(q) {
    if (float.draft?.id !== q.id) float.draft = { id: q.id, values: {} };
    const values = float.draft.values;
    const refused = el('div', { class: 'refused' });
    // The core answers with why the bridge refused an answer; the form stays as typed.
    const answer = async (kind, content) => {
      const reply = await send({ type: TAB.USER_ACTION, action: { action: ACTION.ANSWER, questionId: q.id, answer: kind, content } });
      refused.textContent = reply?.type === RESPONSE.ERROR ? reply.message : '';
    };
    const box = el('div', { class: 'question' }, el('strong', {}, q.title || ''), el('div', {}, q.message || ''), refused);
    const form = el('form', { class: 'fields' });
    for (const f of q.fields || []) {
      const id = `mcpq-${f.name}`;
      const label = el('label', { for: id }, f.label || f.name, f.required ? ' *' : '');
      const start = f.name in values ? values[f.name] : f.default;
      let input;
      if (f.kind === 'boolean') {
        input = el('input', { id, type: 'checkbox' });
        input.checked = start === true;
        input.addEventListener('change', () => { values[f.name] = input.checked; });
      } else if (f.kind === 'choice') {
        input = el('select', { id }, el('option', { value: '' }, ''),
          ...(f.options || []).map((o) => el('option', { value: o.value }, o.label || o.value)));
        input.value = start == null ? '' : String(start);
        input.addEventListener('change', () => { values[f.name] = input.value; });
      } else if (f.kind === 'multi') {
        const chosen = new Set(Array.isArray(start) ? start : []);
        input = el('span', { id });
        for (const o of f.options || []) {
          const box2 = el('input', { type: 'checkbox', value: o.value });
          box2.checked = chosen.has(o.value);
          box2.addEventListener('change', () => {
            if (box2.checked) chosen.add(o.value); else chosen.delete(o.value);
            values[f.name] = [...chosen];
          });
          input.append(el('label', {}, box2, o.label || o.value));
        }
        values[f.name] = [...chosen];
      } else {
        const number = f.kind === 'number' || f.kind === 'integer';
        input = el('input', { id, type: number ? 'number' : 'text' });
        if (f.kind === 'integer') input.step = '1';
        if (f.kind === 'number') input.step = 'any';
        input.value = start == null ? '' : String(start);
        input.addEventListener('input', () => { values[f.name] = input.value; });
      }
      if (f.description) input.title = f.description;
      form.append(el('div', { class: 'field', 'data-field': f.name }, label, input));
    }
    // The form's values in the types the schema asks for; an empty field is left out.
    const content = () => {
      const out = {};
      for (const f of q.fields || []) {
        const v = f.name in values ? values[f.name] : f.default;
        if (v == null || v === '') continue;
        if (f.kind === 'number') out[f.name] = Number(v);
        else if (f.kind === 'integer') out[f.name] = Number.parseInt(v, 10);
        else out[f.name] = v;
      }
      return out;
    };
    const row = el('div', { class: 'row' });
    const button = (key, action) => row.append(el('button', { type: 'button', 'data-action': key, onclick: action }, T(key)));
    if (q.mode === 'url') {
      // The core offers an address only when it is an absolute http(s) URL; otherwise it
      // says why there is none, and the user can only decline or cancel.
      if (q.url) {
        box.append(el('div', { class: 'url' }, q.url));
        button('floatOpenUrl', () => window.open(q.url, '_blank', 'noopener'));
        button('floatUrlDone', () => answer('accept'));
      } else {
        box.append(el('div', { class: 'url-refused' }, q.urlRefused || ''));
      }
    } else {
      box.append(form);
      button('floatSubmitAnswer', () => answer('accept', content()));
    }
    button('floatDecline', () => answer('decline'));
    button('floatCancelQuestion', () => answer('cancel'));
    box.append(row);
    return box;
  }

  // The core's actions (`float::ActionId`), as the message each sends.
  const confirmed = (run, always) => ({ action: ACTION.CONFIRM, run, always });
  const ACTIONS = {
    'allow-once': () => confirmed(true, false), 'always-allow': () => confirmed(true, true),
    'trust-server': () => ({ ...confirmed(true, false), trust: true }),
    deny: () => confirmed(false, true), skip: () => confirmed(false, false),
    cancel: () => ({ action: ACTION.CANCEL }), 'open-settings': () => ({ action: ACTION.OPEN_DETAILS }),
    'tell-ai': () => ({ action: ACTION.HELD, tellAi: true }), drop: () => ({ action: ACTION.HELD, tellAi: false }),
    'insert-instructions': () => ({ action: ACTION.INSERT_INSTRUCTIONS }),
  };
  function act(id) {
    if (id === 'copy-report') navigator.clipboard.writeText(floatState.report ?? '').catch(() => {});
    else if (ACTIONS[id]) send({ type: TAB.USER_ACTION, action: ACTIONS[id]() });
  }
  // A copy button that says it copied.
  const copyButton = (text, key) => {
    const b = el('button', { type: 'button', 'data-copy': key, onclick: () => navigator.clipboard.writeText(text)
      .then(() => { b.textContent = T('floatCopied'); }, () => {}) }, T(key));
    return b;
  };

  // The secondary tools, behind one button in the title bar.
  function toolsRow() {
    const row = el('div', { class: 'tools' });
    const tool = (key, action) => row.append(el('button', { type: 'button', 'data-action': key, onclick: action }, T(key)));
    tool('floatRedetect', () => {
      const msg = newestMessage();
      if (msg) send({ type: TAB.USER_ACTION, action: { action: ACTION.REDETECT, index: msg.index, text: msg.text } });
    });
    tool('floatManual', () => { float.manual = !float.manual; render(floatState); });
    tool('floatPick', startPicker);
    tool('floatSettings', () => act('open-settings'));
    return row;
  }

  // A consent prompt: why it asks, and the call's arguments (long values folded).
  function consentSection(c) {
    const box = el('div', { class: 'consent' }, el('div', { class: 'why', id: 'mcpb-why' }, ...rich(c.why)));
    const args = el('dl', { class: 'args' });
    for (const a of c.args || []) {
      const value = a.short ? el('details', {}, el('summary', {}, el('code', {}, a.short)), el('code', {}, a.value)) : el('code', {}, a.value);
      args.append(el('dt', {}, el('code', {}, a.name)), el('dd', {}, value));
    }
    box.append(c.noArgs ? el('div', { class: 'why' }, c.noArgs) : args);
    return box;
  }

  // A state that needs the user opens the float when it comes; they can minimise it again.
  const CALLS_FOR_USER = ['confirm', 'error', 'held', 'unreachable'];

  // ---- the Prompts menu: what the servers offer (the core lists it and puts the chosen one
  // into the chat input); the form keeps what the user typed across redraws ----------------

  const useItem = (item, values) => send({ type: TAB.USER_ACTION, action: { action: ACTION.USE_ITEM, ...item, values } });

  async function openMenu() {
    float.prompts = float.prompts ? null : { items: null, pick: null, values: {}, error: '' };
    render(floatState);
    if (!float.prompts) return;
    const reply = await send({ type: TAB.USER_ACTION, action: { action: ACTION.MENU } });
    if (!float.prompts) return;
    float.prompts.items = reply?.type === RESPONSE.MENU ? reply.menu.items : [];
    float.prompts.error = reply?.type === RESPONSE.ERROR ? reply.message : '';
    render(floatState);
  }

  /** The server's suggestions for a field, as the input's datalist. */
  async function suggest(it, f, input, list) {
    if (it.kind === 'resource') return;
    const reply = await send({ type: TAB.USER_ACTION, action: { action: ACTION.COMPLETE, server: it.server,
      kind: it.kind, name: it.name, argument: f.name, value: input.value, context: float.prompts?.values || {} } });
    if (reply?.type === RESPONSE.COMPLETIONS) list.replaceChildren(...reply.values.map((v) => el('option', { value: v })));
  }

  function menuSection(m) {
    const box = el('div', { class: 'menu' }, el('div', { class: 'refused' }, ...rich(m.error)));
    if (!m.items) {
      box.append(el('div', {}, T('floatMenuLoading')));
      return box;
    }
    if (!m.items.length && !m.error) box.append(el('div', {}, T('floatMenuEmpty')));
    if (!m.items.length) return box;
    const select = el('select', { 'aria-label': T('floatPrompts') }, el('option', { value: '' }, T('floatMenuChoose')),
      ...m.items.map((it, i) => el('option', { value: String(i) }, `${it.label} · ${it.server}`)));
    select.value = m.pick == null ? '' : String(m.pick);
    select.addEventListener('change', () => { m.pick = select.value === '' ? null : Number(select.value); m.values = {}; m.error = ''; render(floatState); });
    box.prepend(select);
    const it = m.items[m.pick];
    if (!it) return box;
    if (it.description) box.append(el('div', { class: 'desc' }, it.description));
    const form = el('form', { class: 'fields' });
    for (const f of it.fields) {
      const id = `mcpm-${f.name}`;
      const list = el('datalist', { id: `${id}-list` });
      const input = el('input', { id, type: 'text', list: list.id });
      input.value = m.values[f.name] ?? '';
      if (f.description) input.title = f.description;
      input.addEventListener('input', () => { m.values[f.name] = input.value; suggest(it, f, input, list); });
      input.addEventListener('focus', () => suggest(it, f, input, list), { once: true });
      form.append(el('div', { class: 'field', 'data-field': f.name }, el('label', { for: id }, f.name, f.required ? ' *' : ''), input, list));
    }
    const go = async () => {
      const reply = await useItem({ server: it.server, kind: it.kind, name: it.name }, m.values);
      if (reply?.type === RESPONSE.ERROR) m.error = reply.message; else float.prompts = null;
      render(floatState);
    };
    box.append(form, el('div', { class: 'row' }, el('button', { type: 'button', 'data-action': 'floatMenuUse', onclick: go },
      it.kind === 'prompt' ? T('floatMenuUse') : T('floatMenuAttach'))));
    return box;
  }

  // A result's resource links, each attached the way the menu's resources are.
  const linksSection = (links) => el('div', { class: 'links' }, ...links.map((l) => el('div', { class: 'rlink' }, el('span', {}, l.label),
    el('button', { type: 'button', 'data-action': 'floatAttachLink', onclick: () => useItem({ server: l.server, kind: 'resource', name: l.uri }) },
      T('floatMenuAttach')))));

  function render(state) {
    const before = floatState;
    if (state !== floatState && float) float.attached = null;
    floatState = state;
    if (!float) float = createFloat();
    const { wrap, root } = float;
    float.urls.forEach((u) => URL.revokeObjectURL(u));
    float.urls = [];
    clearInterval(float.elapsedTimer);
    if (state.status !== before?.status) {
      if (CALLS_FOR_USER.includes(state.status)) float.minimized = false;
      float.report = false;
    }
    const missing = state.status !== 'disabled' && Object.values(parts.how).includes('missing');
    if (missing && !float.toldMissing) float.minimized = false;
    float.toldMissing = missing;
    // Focus goes into a consent prompt and back where it was once it is answered.
    const focused = root.activeElement?.dataset?.id;
    const asking = !!state.consent && !float.minimized;
    if (asking && !before?.consent) float.returnTo = root.activeElement ? null : document.activeElement;
    wrap.replaceChildren();
    if (float.minimized) {
      const label = `${plain(state.title)} — ${T('floatRestore')}`;
      const ring = el('button', { class: 'ring', type: 'button', 'data-tone': state.tone, title: label, 'aria-label': label, onclick: () => {
        float.minimized = false; render(floatState); root.querySelector('.bar button')?.focus();
      } });
      wrap.append(ring);
      placeFloat();
      return;
    }
    // A prompt is an alert dialog named by its question; any other title is a live status.
    const box = el('div', { class: 'box', 'data-status': state.status, 'data-tone': state.tone, lang: state.lang === 'zh' ? 'zh-CN' : 'en',
      ...(state.consent ? { role: 'alertdialog', 'aria-live': 'assertive', 'aria-labelledby': 'mcpb-title', 'aria-describedby': 'mcpb-why' } : {}) });
    const title = el('span', { class: 'title', id: 'mcpb-title', title: plain(state.title), ...(state.consent ? {} : { role: 'status', 'aria-live': 'polite' }) },
      ...rich(state.title));
    const bar = el('div', { class: 'bar' }, el('span', { class: 'dot' }), title);
    const barButton = (cls, key, text, onclick, more = {}) => bar.append(el('button', { type: 'button', class: cls, title: T(key), 'aria-label': T(key), onclick, ...more }, text));
    if (!state.consent && state.status !== 'disabled') {
      barButton('more', 'floatMore', '⋯', () => { float.menu = !float.menu; render(floatState); }, { 'aria-expanded': String(float.menu) });
      // The Prompts menu sits in the title bar, so the action row keeps its size in every state.
      barButton('prompts', 'floatPrompts', T('floatPrompts'), openMenu, { 'data-action': 'floatPrompts', 'aria-expanded': String(!!float.prompts) });
    }
    barButton('min', 'floatMinimize', '–', () => { float.minimized = true; render(floatState); root.querySelector('.ring')?.focus(); });
    drag(bar, box);
    const body = el('div', { class: 'body' });
    if (state.consent) {
      // Only the prompt and its choices while asking; Esc declines this one call.
      box.addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.stopPropagation(); act('skip'); } });
      body.append(consentSection(state.consent));
    } else {
      if (state.detail) body.append(el('div', { class: 'detail' }, ...rich(state.detail)));
      if (state.command) body.append(el('div', { class: 'cmd' }, el('code', {}, state.command), copyButton(state.command, 'floatCopyCommand')));
      if (state.maskedNote) body.append(el('div', { class: 'masked' }, state.maskedNote));
      if (state.status === 'executing' && state.startedAtMs) {
        const clock = el('span', { class: 'clock' });
        const tick = () => { clock.textContent = T('floatElapsed', [String(Math.round((Date.now() - state.startedAtMs) / 1000))]); };
        tick();
        float.elapsedTimer = setInterval(tick, 1000);
        body.append(clock);
      }
      if (state.progress) body.append(progressSection(state.progress));
      if (state.question) body.append(questionSection(state.question));
      if (state.links?.length) body.append(linksSection(state.links));
      if (state.toolsChanged) {
        body.append(el('div', { class: 'notice' }, state.toolsChanged, el('button', { type: 'button', 'data-action': 'floatUpdateInstructions',
          onclick: () => send({ type: TAB.USER_ACTION, action: { action: ACTION.INSERT_INSTRUCTIONS } }) }, T('floatUpdateInstructions'))));
      }
      const media = state.media || [];
      if (media.length) body.append(mediaSection(media));
      if (float.attached !== null) body.append(el('div', {}, T(float.attached ? 'floatAttached' : 'floatNotAttached')));
      if (state.report) {
        // The report is the AI's text, in the report language: shown only when asked for.
        const toggle = el('button', { type: 'button', class: 'link', 'data-tool': 'report', 'aria-expanded': String(float.report),
          onclick: () => { float.report = !float.report; render(floatState); } }, T(float.report ? 'floatHideReport' : 'floatShowReport'));
        const line = el('div', { class: 'cmd' }, toggle);
        if (!state.actions?.some((a) => a.id === 'copy-report')) line.append(copyButton(state.report, 'floatCopy'));
        body.append(line);
        if (float.report) body.append(el('pre', { class: 'report' }, state.report));
      }
      const healthBox = healthSection();
      if (healthBox) body.append(healthBox);
    }
    const row = el('div', { class: 'row' });
    for (const a of state.actions || []) {
      row.append(el('button', { type: 'button', 'data-id': a.id, class: a.primary ? 'primary' : '', onclick: () => act(a.id) }, a.label));
    }
    const images = (state.media || []).filter((m) => m.mimeType.startsWith('image/'));
    if (images.length && site?.imagePaste) {
      // One click puts every image of the result into the chat input, as a paste would.
      row.append(el('button', { type: 'button', 'data-action': 'floatAttach', onclick: async () => {
        float.attached = await attachFiles(images.map(mediaFile));
        render(floatState);
      } }, T('floatAttach')));
    }
    // The buttons sit next to the title bar, so they keep their place as the text grows; a
    // prompt reads top-down instead: question, arguments, choices.
    if (!row.childElementCount) box.append(bar, body);
    else if (state.consent) box.append(bar, body, row);
    else box.append(bar, row, body);
    if (float.menu && !state.consent && state.status !== 'disabled') box.append(toolsRow());
    if (float.prompts && !state.consent) box.append(menuSection(float.prompts));
    if (float.manual && !state.consent) {
      const area = el('textarea', { placeholder: '<tool_code>{"tool_name": …}</tool_code>', 'aria-label': T('floatManual') });
      box.append(el('div', { class: 'manual' }, area, el('button', { type: 'button', onclick: () => {
        send({ type: TAB.USER_ACTION, action: { action: ACTION.MANUAL_INPUT, text: area.value } });
        float.manual = false;
      } }, T('floatRunManual'))));
    }
    wrap.append(box);
    placeFloat();
    if (asking) (root.querySelector(`[data-id="${focused}"]`) || row.querySelector('.primary'))?.focus();
    else if (before?.consent && float.returnTo) {
      if (float.returnTo.isConnected) float.returnTo.focus();
      float.returnTo = null;
    }
  }

  // ---- the picker (extension/picker.js, loaded only when the user starts picking) ---------

  /**
   * The user points at the input, the send control and one answer; the core checks the
   * selectors and writes the site's override, answering with the new config, which this page
   * uses at once (what is on the page now counts as seen before, as at load).
   */
  async function startPicker() {
    const { pick } = await import(chrome.runtime.getURL('picker.js'));
    const parts = await pick({ T, exclude: float?.host });
    if (!parts) return { ok: false, reason: 'cancelled' };
    const answer = await send({ type: TAB.USER_ACTION, action: { action: ACTION.PICKED, url: location.href, ...parts } });
    if (answer?.type === RESPONSE.PAGE_SETUP && answer.site) {
      site = answer.site;
      typing = answer.typing;
      lastReport = '';
      render(answer.float);
      report(true, true);
      return { ok: true };
    }
    render({ ...floatState, status: 'error', tone: 'bad', consent: null, actions: [], title: T('floatPickFailed'), detail: answer?.message ?? '' });
    return { ok: false, reason: answer?.message };
  }

  // ---- commands from the core -----------------------------------------------------------

  chrome.runtime.onMessage.addListener((cmd, sender, sendResponse) => {
    if (sender.id !== chrome.runtime.id || !site) return false;
    const run = {
      [COMMAND.TYPE_TEXT]: () => typeText(cmd.text),
      [COMMAND.APPEND_TEXT]: async () => {
        const had = (await inputEl()) ? readInput(parts.input).trim() : '';
        return typeText(had ? `${had}\n\n${cmd.text}` : cmd.text);
      },
      [COMMAND.SUBMIT]: () => submit(),
      [COMMAND.FLOAT_STATE]: async () => { render(cmd.float); return { ok: true }; },
      // The toolbar popup's button: the same action as the float's.
      [POPUP.GET_PAGE_HEALTH]: async () => ({ ok: true, health: health() }),
      [POPUP.PICK_PARTS]: async () => { startPicker(); return { ok: true }; },
      [POPUP.INSERT_INSTRUCTIONS]: async () => {
        const answer = await send({ type: TAB.USER_ACTION, action: { action: ACTION.INSERT_INSTRUCTIONS } });
        return { ok: answer?.type !== RESPONSE.ERROR };
      },
    }[cmd.type];
    if (!run) return false;
    run().then(sendResponse, (e) => sendResponse({ ok: false, reason: String(e) }));
    return true;
  });

  // ---- start ----------------------------------------------------------------------------

  send({ type: TAB.PAGE_READY, url: location.href }).then(async (setup) => {
    if (!setup || setup.type !== RESPONSE.PAGE_SETUP) return;
    site = setup.site || null;
    typing = setup.typing || null;
    if (site) {
      const saved = await chrome.storage.local.get([`floatPos:${site.id}`, memoryKey()]).catch(() => ({}));
      float = createFloat();
      float.pos = saved[`floatPos:${site.id}`] || null;
      memory = saved[memoryKey()] || {};
    }
    render(setup.float);
    if (!site) return;
    await redetect();
    observe();
    setInterval(() => { observe(); placeSoon(); }, AREA_CHECK_MS);
    addEventListener('resize', placeSoon);
    watchUser();
    report(true, true);
    const input = parts.input;
    if (!newestMessage() && input && !squash(readInput(input))) send({ type: TAB.EMPTY_CHAT, url: location.href });
  });
})();
