// Shared steps of the chat-loop tests: one browser with the extension, the real bridge and
// the fixture pages; helpers to configure the extension and to talk as the user.
import { launch } from './browsers.mjs';
import { startBridge } from './bridge.mjs';
import { startFixtures } from './fixtures.mjs';
import { waitFor } from './webdriver.mjs';

/**
 * Starts bridge + fixtures + browser; `settings` are stored through the options page;
 * `bridgeConfig` (optional) is the bridge's mcp-config.json (its demo server without it).
 */
export async function startWorld(browser, { settings = {}, bridge = true, headless = true, bridgeArgs = [], bridgeConfig, extension, lang } = {}) {
  const fixtures = await startFixtures();
  const br = bridge ? await startBridge({ args: bridgeArgs, config: bridgeConfig }) : null;
  let b;
  try {
    b = await launch(browser, { fixtures, headless, extension, lang });
    const address = br ? { bridgeUrl: br.url } : {};
    await configure(b, { ...address, token: br?.token ?? '', language: 'en', ...settings });
  } catch (e) {
    await b?.close();
    await br?.stop();
    fixtures.stop();
    throw e;
  }
  const world = {
    ...b,
    bridge: br,
    fixtures,
    // The bridge a test left running (it may have replaced the first one).
    close: async () => {
      await b.close();
      await world.bridge?.stop();
      fixtures.stop();
    },
  };
  return world;
}

/** Where the tests pin the float (its saved position), so its buttons can be clicked. */
export const FLOAT_AT = { left: 20, top: 20 };
const SITE_IDS = ['deepseek', 'chatgpt', 'gemini', 'perplexity', 'kimi'];

/**
 * Stores settings the way the options page does (chrome.storage.local["settings"]) and
 * pins the float at FLOAT_AT on the fixture sites.
 */
export async function configure(b, settings) {
  await b.session.navigate(`${b.extensionBase}options/options.html`);
  // Firefox may return from the navigation before the extension page can run scripts.
  await b.session.waitForScript(
    "return document.readyState === 'complete' && typeof chrome === 'object' && !!chrome.storage",
    { what: 'the options page to load' });
  const pins = Object.fromEntries(SITE_IDS.map((id) => [`floatPos:${id}`, FLOAT_AT]));
  await b.session.execAsync(
    `const done = arguments[arguments.length - 1];
     chrome.storage.local.get('settings').then((got) =>
       chrome.storage.local.set({ ...arguments[1], settings: { ...(got.settings || {}), ...arguments[0] } })).then(() => done(true));`,
    settings, pins,
  );
}

/**
 * Clicks the `i`-th button of the float's action row with the pointer, as a user would
 * (WebDriver reaches into the closed shadow root through its host element).
 */
export async function clickFloatButton(b, i) {
  const buttons = await waitFor(async () => {
    const found = await floatFind(b, '.row button');
    return found.length > i && found;
  }, { what: `the float's button ${i}` });
  await clickAt(b, buttons[i]);
}

/**
 * Opens a fixture chat site as its real host (`path` may carry a query, e.g. the Kimi page's
 * `/?editor=lexical`) and waits for the extension to be active.
 */
export async function openChat(b, host, path = '/') {
  await b.session.navigate(`https://${host}${path}`);
  // The float is the one thing the content script adds to a chat page; nothing else marks it.
  await b.session.waitForScript('return !!document.querySelector("mcp-bridge-float")', { what: 'the content script' });
  await b.session.waitForScript('return !!window.fixtureAI', { what: 'the fixture page' });
}

/**
 * A fresh conversation at `host` (settings stored first, when given): the page is opened,
 * the fixture's saved conversation cleared, and the page opened again.
 */
export async function freshChat(b, settings, host = 'chat.deepseek.com') {
  if (settings) await configure(b, settings);
  await openChat(b, host);
  await b.session.exec('window.fixtureAI.reset()');
  await openChat(b, host);
}

/**
 * Queues AI answers, then sends `text` as the user would (real key presses and click).
 * `inputCss` finds the chat input where the fixture's usual one does not (a redesigned page).
 */
export async function userSays(b, text, answers = [], inputCss = null) {
  // Like a person, wait until the AI has answered everything and stopped generating (the
  // site ignores a send while it streams).
  await b.session.waitForScript(
    `const ai = window.fixtureAI;
     return !ai.isGenerating() && ai.answers().length >= ai.messages().length`,
    { what: 'the AI to finish answering' });
  await b.session.exec('window.fixtureAI.queueMany(arguments[0])', answers);
  const site = await b.session.exec('return window.fixtureAI.site');
  const input = await b.session.find(inputCss || {
    deepseek: '#chat-input', chatgpt: '#prompt-textarea', gemini: 'rich-textarea .ql-editor',
    perplexity: '#ask-input', kimi: '.chat-input-editor:is([contenteditable],textarea,input), .chat-input-editor [contenteditable]',
    grok: '.query-bar .tiptap', doubao: '[data-testid="chat_input_input"] [contenteditable]',
  }[site]);
  await b.session.click(input);
  // Firefox drops the rest of a string sent at once into a Lexical editor after its first
  // character (the editor rebuilds its DOM under the caret): there, one key at a time.
  const lexical = await b.session.exec('return !!arguments[0].closest("[data-lexical-editor]")', { [ELEMENT]: input });
  for (const part of lexical ? [...text] : [text]) await b.session.type(input, part);
  await b.session.type(input, '\uE007'); // Enter
}

const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

/** Waits until the user side of the chat holds `n` messages and returns them. */
export async function userMessages(b, n, timeoutMs = 30000) {
  return b.session.waitForScript(
    `const m = window.fixtureAI.messages(); return m.length >= ${n} ? m : null`,
    { timeoutMs, what: `${n} user messages` },
  );
}

/**
 * Proves that nothing more runs from what the AI wrote so far, by an event rather than a
 * wait: the user sends one more message, whose answer calls a tool named after a fresh
 * marker (no server has it, so any bridge reports it back at once, whatever its servers),
 * and once that report is in the chat the user's messages before the exchange are returned.
 * The tab's events are handled in order, so a second run of an earlier call would stand
 * among them.
 */
export async function messagesBeforeMarker(b, inputCss = null) {
  const marker = `marker_${Math.random().toString(36).slice(2, 10)}`;
  await userSays(b, 'One more, please.', [`Sure.\n${call(marker, {})}`, 'Done.'], inputCss);
  const msgs = await b.session.waitForScript(
    `const m = window.fixtureAI.messages();
     return m.length && m[m.length - 1].includes(${JSON.stringify(marker)}) ? m : null`,
    { what: "the marker call's report" });
  return msgs.slice(0, -2);
}

/**
 * Waits until the float shows one of `statuses` (its `data-status`: `confirm`, `held`,
 * `executing`, …): the event that proves a call is waiting for the user, not running.
 */
export async function floatStatus(b, ...statuses) {
  const css = statuses.map((s) => `.box[data-status="${s}"]`).join(', ');
  return floatWait(b, css, `status ${statuses.join(' or ')}`);
}

export const call = (tool, args, server) =>
  `<tool_code>\n${JSON.stringify({ tool_name: tool, arguments: args, ...(server ? { server_name: server } : {}) })}\n</tool_code>`;

/**
 * The float's markup, or '' when there is none. Chromium only: the DevTools protocol is the
 * one way to read a closed shadow root (which is the point of using one).
 */
export async function floatHtml(b) {
  const cdp = (cmd, params) => b.session.cmd('POST', '/goog/cdp/execute', { cmd, params });
  const { root } = await cdp('DOM.getDocument', { depth: -1, pierce: true });
  const find = (n) => (n.localName === 'mcp-bridge-float' ? n
    : [...(n.children || []), ...(n.shadowRoots || [])].map(find).find(Boolean));
  const host = find(root);
  if (!host?.shadowRoots?.length) return '';
  return (await cdp('DOM.getOuterHTML', { nodeId: host.shadowRoots[0].nodeId })).outerHTML;
}

/**
 * The float's elements matching `css`, as WebDriver element references (both drivers reach
 * into a closed shadow root through the host element); [] when there is no float.
 */
export async function floatFind(b, css) {
  const hosts = await b.session.cmd('POST', '/elements', { using: 'css selector', value: 'mcp-bridge-float' });
  if (!hosts.length) return [];
  const root = await b.session.cmd('GET', `/element/${Object.values(hosts[0])[0]}/shadow`);
  return b.session.cmd('POST', `/shadow/${Object.values(root)[0]}/elements`, { using: 'css selector', value: css });
}

/** Waits for the float's first element matching `css` and returns its reference. */
export async function floatWait(b, css, what = css) {
  return waitFor(async () => (await floatFind(b, css))[0], { what: `the float's ${what}` });
}

/** The WebDriver id of an element reference. */
export const elementId = (ref) => Object.values(ref)[0];

/** Clicks the middle of an element (a float's one too) with the pointer, as a user would. */
export async function clickAt(b, ref) {
  const r = await b.session.cmd('GET', `/element/${elementId(ref)}/rect`);
  await b.session.cmd('POST', '/actions', {
    actions: [{
      type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' },
      actions: [
        { type: 'pointerMove', x: Math.round(r.x + r.width / 2), y: Math.round(r.y + r.height / 2), origin: 'viewport', duration: 0 },
        { type: 'pointerDown', button: 0 },
        { type: 'pointerUp', button: 0 },
      ],
    }],
  });
  await b.session.cmd('DELETE', '/actions');
}

/** The first JSON line of the bridge's log after `from` (a length) that holds `needle`. */
export function waitForLog(world, from, needle, timeoutMs = 60000) {
  return waitFor(
    () => world.bridge.log().slice(from).split('\n').find((l) => l.includes(needle) && l.startsWith('{')),
    { timeoutMs, intervalMs: 20, what: `${needle} in the bridge log` },
  );
}
