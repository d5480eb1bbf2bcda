// The content script's entry, last of its files: the picker, the core's commands, and the
// start (the page's setup from the core, then observing).
'use strict';

// ---- the picker (extension/picker.js, loaded only when the user starts picking) ---------

/**
 * The user points at the input, the send control and one answer, in the steps the core
 * plans; the core chooses each selector, checks it and writes the site's override, answering with the new config, which this page
 * uses at once (what is on the page now counts as seen before, as at load), or with no site
 * and the float that says why nothing was saved.
 */
async function startPicker() {
  const ask = (action) => send({ type: TAB.USER_ACTION, action });
  const plan = await ask({ action: ACTION.PICK_START });
  if (plan?.type !== RESPONSE.PICK_PLAN) return { ok: false, reason: plan?.message };
  const { pick } = await import(chrome.runtime.getURL('picker.js'));
  const candidates = async (element) => {
    const answer = await ask({ action: ACTION.PICK_CANDIDATES, element });
    return answer?.type === RESPONSE.PICK_CANDIDATES ? answer.selectors : null;
  };
  const parts = await pick({ T, exclude: float?.host, steps: plan.steps, candidates });
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
  // Refused: the core's float says what was not saved and why; the page keeps its site.
  if (answer?.type === RESPONSE.PAGE_SETUP) render(answer.float);
  return { ok: false, reason: answer?.problem ?? answer?.message };
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
    [COMMAND.ATTACH_FILE]: async () => ({ ok: await attachFiles([new File([cmd.text], cmd.name, { type: cmd.mimeType })], { shown: true }) }),
    [COMMAND.FLOAT_STATE]: async () => { render(cmd.float); return { ok: true }; },
    // An MCP App view: its code is loaded only now (extension/view/frame.js).
    [COMMAND.SHOW_VIEW]: async () => {
      const { show } = await import(chrome.runtime.getURL('view/frame.js'));
      if (!float) float = createFloat();
      return show(cmd, float, { title: T('floatView', [cmd.tool]), close: T('floatViewClose') });
    },
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
  labels = setup.labels || {};
  site = setup.site || null;
  typing = setup.typing || null;
  if (site) {
    const saved = await chrome.storage.local.get([`floatPos:${site.id}`, memoryKey()]).catch(() => ({}));
    // The core's commands are obeyed from here on: one may have drawn the float while storage
    // was read (the connection check answers fast when the bridge is away). That float is
    // kept, and its newer state too; a second float would be one nothing updates.
    float ??= createFloat();
    float.pos = saved[`floatPos:${site.id}`] || null;
    memory = saved[memoryKey()] || {};
  }
  if (!floatState) render(setup.float);
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
