// `./build.sh store-screenshots`: the store listings' screenshots (store/screenshots/), taken
// of the real extension (dist/chrome) in Chromium at 1280×800 (the Chrome Web Store's size),
// with the real bridge and its demo MCP server, on the local DeepSeek fixture page: a tool
// call that succeeded, one that failed with its report, the options page, and an MCP App's
// view (the real `@modelcontextprotocol/server-basic-vanillajs`) in the float. Not a test:
// nothing runs it but that command, and it only writes the pictures.
//
//   node tests/e2e/store_screenshots.mjs [DIR]    (default store/screenshots)
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './support/browsers.mjs';
import { startWorld, openChat, userSays, userMessages, call, clickAt, floatWait } from './support/chat.mjs';
import { sleep, waitFor } from './support/webdriver.mjs';

const dir = path.resolve(process.argv[2] || path.join(ROOT, 'store/screenshots'));
fs.mkdirSync(dir, { recursive: true });
const WIDTH = 1280;
const HEIGHT = 800;

/** Takes the pictures in `w`'s browser; `scenes(fit, save)` drives it. */
async function shoot(w, scenes) {
  // Size the window so that the page (what a screenshot holds) is exactly 1280×800.
  const fit = async () => {
    for (let i = 0; i < 3; i++) {
      const [iw, ih] = await w.session.exec('return [window.innerWidth, window.innerHeight]');
      if (iw === WIDTH && ih === HEIGHT) return;
      const rect = await w.session.cmd('GET', '/window/rect');
      await w.session.cmd('POST', '/window/rect', {
        width: rect.width + WIDTH - iw,
        height: rect.height + HEIGHT - ih,
      });
    }
    const [iw, ih] = await w.session.exec('return [window.innerWidth, window.innerHeight]');
    if (iw !== WIDTH || ih !== HEIGHT) throw new Error(`the page is ${iw}×${ih}, not ${WIDTH}×${HEIGHT}`);
  };
  const save = async (name) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, Buffer.from(await w.session.screenshot(), 'base64'));
    console.log(`saved ${path.relative(ROOT, file)}`);
  };
  try {
    await scenes(fit, save);
  } catch (e) {
    // What the page showed when it went wrong, for the person running the command.
    const file = path.join(dir, 'failed.png');
    await w.session.cmd('POST', '/frame', { id: null }).catch(() => {});
    fs.writeFileSync(file, Buffer.from(await w.session.screenshot(), 'base64'));
    console.error(`store_screenshots: ${e.message}; the page then: ${file}`);
    process.exitCode = 1;
  } finally {
    await w.close();
  }
}

const w = await startWorld('chromium', { headless: true });
await shoot(w, async (fit, save) => {
  await openChat(w, 'chat.deepseek.com');
  await w.session.exec('window.fixtureAI.reset()');
  await openChat(w, 'chat.deepseek.com');
  await fit();
  await w.session.exec('window.fixtureAI.setChunk({ size: 12, intervalMs: 30 })');
  await userSays(w, 'What time is it? Then add 17 and 25.', [
    `I'll check the time first.\n${call('get_time', {})}`,
    `Now the sum.\n${call('add', { a: 17, b: 25 })}`,
    'It is the time shown above, and 17 + 25 = 42.',
  ]);
  await userMessages(w, 3, 180000);
  await sleep(1500);
  await save('1-tool-calls.png');

  await userSays(w, 'Read my notes file.', [
    `Reading it.\n${call('read_text_file', { path: '/home/demo/notes/todo.txt' })}`,
    'The file does not exist — shall I look for it in another folder?',
  ]);
  await userMessages(w, 5, 180000);
  // The float keeps the report folded; open it, as a user who wants to see it would.
  await clickAt(w, await floatWait(w, '[data-tool="report"]', 'Show report'));
  await sleep(1500);
  await save('2-error-report.png');

  // The Tools section, the one people come back to: each tool's policy and why.
  await w.session.navigate(`${w.extensionBase}options/options.html#tools`);
  await w.session.waitForScript("return document.readyState === 'complete' && document.body.dataset.tools === 'loaded'", { what: 'the options page with its tools' });
  await fit();
  await sleep(1500);
  await save('3-options.png');
});

// An MCP App's view: the clock's `get-time` shows the time it read in a frame of its own.
const BASIC = path.join(ROOT, 'node_modules/.bin/mcp-server-basic-vanillajs');
const viewWorld = await startWorld('chromium', {
  headless: true,
  bridgeConfig: { mcpServers: { clock: { command: BASIC, args: ['--stdio'] } } },
  settings: { toolPolicies: { 'clock:get-time': 'allow' }, exemptAfterUntrusted: ['clock:get-time'] },
});
await shoot(viewWorld, async (fit, save) => {
  const v = viewWorld;
  await openChat(v, 'chat.deepseek.com');
  await v.session.exec('window.fixtureAI.reset()');
  await openChat(v, 'chat.deepseek.com');
  await fit();
  await userSays(v, 'What time is it on my computer?', [
    `I'll ask the clock.\n${call('get-time', {}, 'clock')}`,
    'The clock shows it above.',
  ]);
  await userMessages(v, 2, 180000);
  // The float's view frame, then the view inside it, until the view shows its time.
  const host = await floatWait(v, '.view iframe', 'the view frame');
  await v.session.cmd('POST', '/frame', { id: host });
  const view = await waitFor(async () => (await v.session.cmd('POST', '/elements', { using: 'css selector', value: 'iframe' }))[0],
    { what: "the host page's view frame" });
  await v.session.cmd('POST', '/frame', { id: view });
  await v.session.waitForScript(`const t = document.getElementById('server-time')?.textContent || '';
    return t && t !== 'Loading...'`, { what: "the view's time", timeoutMs: 30000 });
  await v.session.cmd('POST', '/frame', { id: null });
  await sleep(1500);
  await save('4-app-view.png');
});
