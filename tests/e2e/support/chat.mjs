// Shared steps of the chat-loop tests: one browser with the extension, the real bridge and
// the fixture pages; helpers to configure the extension and to talk as the user.
import { launch } from './browsers.mjs';
import { startBridge } from './bridge.mjs';
import { startFixtures } from './fixtures.mjs';

/** Starts bridge + fixtures + browser; `settings` are stored through the options page. */
export async function startWorld(browser, { settings = {}, bridge = true } = {}) {
  const fixtures = await startFixtures();
  const br = bridge ? await startBridge() : null;
  let b;
  try {
    b = await launch(browser, { fixtures });
    await configure(b, { token: br?.token ?? '', language: 'en', ...settings });
  } catch (e) {
    await b?.close();
    await br?.stop();
    fixtures.stop();
    throw e;
  }
  return {
    ...b,
    bridge: br,
    fixtures,
    close: async () => {
      await b.close();
      await br?.stop();
      fixtures.stop();
    },
  };
}

/** Stores settings the way the options page does (chrome.storage.local["settings"]). */
export async function configure(b, settings) {
  await b.session.navigate(`${b.extensionBase}options/options.html`);
  await b.session.execAsync(
    `const done = arguments[arguments.length - 1];
     chrome.storage.local.get('settings').then((got) =>
       chrome.storage.local.set({ settings: { ...(got.settings || {}), ...arguments[0] } })).then(() => done(true));`,
    settings,
  );
}

/** Opens a fixture chat site as its real host and waits for the extension to be active. */
export async function openChat(b, host) {
  await b.session.navigate(`https://${host}/`);
  await b.session.waitForScript('return document.documentElement.dataset.mcpBridge === "active"', { what: 'the content script' });
  await b.session.waitForScript('return !!window.fixtureAI', { what: 'the fixture page' });
}

/** Queues AI answers, then sends `text` as the user would (real key presses and click). */
export async function userSays(b, text, answers = []) {
  await b.session.exec('window.fixtureAI.queueMany(arguments[0])', answers);
  const site = await b.session.exec('return window.fixtureAI.site');
  const input = await b.session.find({
    deepseek: 'textarea#chat-input', chatgpt: '#prompt-textarea', gemini: 'rich-textarea .ql-editor',
    perplexity: '#ask-input', kimi: '.chat-input-editor',
  }[site]);
  await b.session.click(input);
  await b.session.type(input, text);
  await b.session.type(input, '\uE007'); // Enter
}

/** Waits until the user side of the chat holds `n` messages and returns them. */
export async function userMessages(b, n, timeoutMs = 30000) {
  return b.session.waitForScript(
    `const m = window.fixtureAI.messages(); return m.length >= ${n} ? m : null`,
    { timeoutMs, what: `${n} user messages` },
  );
}

export const call = (tool, args, server) =>
  `<tool_code>\n${JSON.stringify({ tool_name: tool, arguments: args, ...(server ? { server_name: server } : {}) })}\n</tool_code>`;
