// Observing the page: the newest answer reported to the core, the user's own sending
// noticed, and a stop control learnt from what comes and goes with an answer.
'use strict';

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
  // A send control that a site shows only once text is typed is looked for again then.
  if (lookForAnswers() || parts.how.send === 'pending') redetect();
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
