// Spike for where an MCP App view reads better: in the float (what ships) or attached beside
// the answer its call came from. Takes the same scene both ways on fixture chat pages, in
// Chromium, with the real bridge and the real `@modelcontextprotocol/server-budget-allocator`:
// the AI calls `get-budget-data`, the result goes back, the AI answers once more, and the view
// shows. "Beside the answer" is a copy of the built extension whose `view/frame.js` places the
// panel next to the answer holding the call (to its right where the page leaves room, else
// under it), following the page as it scrolls. For each (site, width, placement) it saves a
// picture, and a second one after the conversation scrolls to its end.
// Run: node tests/spikes/view_placement.mjs [DIR]   (after ./build.sh build and ./build.sh setup)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../e2e/support/browsers.mjs';
import { startWorld, openChat, userSays, userMessages, call, floatWait } from '../e2e/support/chat.mjs';
import { sleep } from '../e2e/support/webdriver.mjs';

const out = path.resolve(process.argv[2] || fs.mkdtempSync(path.join(os.tmpdir(), 'view-placement-')));
fs.mkdirSync(out, { recursive: true });
const BUDGET = path.join(ROOT, 'node_modules/.bin/mcp-budget-allocator-server');
const SITES = [['deepseek', 'chat.deepseek.com'], ['chatgpt', 'chatgpt.com'], ['kimi', 'www.kimi.com']];
const WIDTHS = [1280, 390];
const HEIGHT = 800;

/** A copy of dist/chrome whose frame.js places the panel beside the answer holding the call. */
function besideTheAnswer() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'view-beside-'));
  fs.cpSync(path.join(ROOT, 'dist/chrome'), dir, { recursive: true });
  const file = path.join(dir, 'view/frame.js');
  const src = fs.readFileSync(file, 'utf8');
  const selectors = Object.fromEntries(SITES.map(([id]) => [id,
    JSON.parse(fs.readFileSync(path.join(ROOT, 'extension/sites', `${id}.json`), 'utf8')).selectors.assistantMessage]));
  const beside = `
  const place = () => {
    const lists = ${JSON.stringify(selectors)};
    const answers = Object.values(lists).flat().flatMap((css) => [...document.querySelectorAll(css)]);
    const answer = answers.filter((a) => a.textContent.includes(tool)).pop();
    panel.hidden = !answer;
    if (!answer) return;
    const r = answer.getBoundingClientRect();
    const room = innerWidth - r.right - 12;
    const right = room >= 300;
    const width = right ? Math.min(room, 420) : r.width;
    const left = right ? r.right + 12 : r.left;
    const top = right ? Math.max(6, r.top) : r.bottom + 6;
    Object.assign(panel.style, { left: left + 'px', top: top + 'px', width: width + 'px', maxHeight: '' });
  };
  addEventListener('scroll', place, true);
  setInterval(place, 200);`;
  const start = src.indexOf('  // Beside the box wherever the float goes');
  const end = src.indexOf('  // The host page says how high');
  if (start < 0 || end < 0) throw new Error('frame.js changed: the spike cannot find its placement code');
  fs.writeFileSync(file, src.slice(0, start) + beside + '\n' + src.slice(end));
  return dir;
}

/** Sizes the window so the page is `width`×HEIGHT. */
async function fit(s, width) {
  for (let i = 0; i < 3; i++) {
    const [iw, ih] = await s.exec('return [window.innerWidth, window.innerHeight]');
    if (iw === width && ih === HEIGHT) return;
    const rect = await s.cmd('GET', '/window/rect');
    await s.cmd('POST', '/window/rect', { width: rect.width + width - iw, height: rect.height + HEIGHT - ih });
  }
}

const beside = besideTheAnswer();
for (const [placement, extension] of [['float', undefined], ['answer', beside]]) {
  const w = await startWorld('chromium', {
    headless: true,
    extension,
    bridgeConfig: { mcpServers: { budget: { command: BUDGET, args: ['--stdio'] } } },
    settings: { toolPolicies: { 'budget:get-budget-data': 'allow' }, trustedServers: ['budget'], exemptAfterUntrusted: ['budget:get-budget-data'] },
  });
  try {
    // The float where the extension puts it (the tests pin it at the top left).
    await w.session.navigate(`${w.extensionBase}options/options.html`);
    await w.session.execAsync(`const done = arguments[arguments.length - 1];
      chrome.storage.local.get(null).then((all) => chrome.storage.local.remove(Object.keys(all).filter((k) => k.startsWith('floatPos:')))).then(() => done(true));`);
    for (const [site, host] of SITES) {
      for (const width of WIDTHS) try {
        await openChat(w, host);
        await w.session.exec('window.fixtureAI.reset()');
        await openChat(w, host);
        await fit(w.session, width);
        await userSays(w, 'How is my budget split this quarter? Suggest where to cut.', [
          // A call runs once per conversation address: each scene's arguments differ.
          `Let me read your budget first.\n\n${call('get-budget-data', { scene: `${site}-${width}` }, 'budget')}`,
          'Marketing takes the largest share. Cutting it by a tenth would free enough for the ' +
            'hiring plan; the view above lets you move the sliders and see the effect.',
        ]);
        await userMessages(w, 2, 60000);
        await floatWait(w, '.view iframe', 'the view frame');
        await sleep(2500);
        const name = `${site}-${width}-${placement}.png`;
        fs.writeFileSync(path.join(out, name), Buffer.from(await w.session.screenshot(), 'base64'));
        // Scrolled to the end, as a conversation that goes on is: is the panel still seen?
        const high = await w.session.exec('return document.documentElement.scrollHeight');
        await w.session.exec('document.scrollingElement.scrollTop = 1e9; for (const e of document.querySelectorAll("*")) if (e.scrollHeight > e.clientHeight + 40 && getComputedStyle(e).overflowY.match(/auto|scroll/)) e.scrollTop = 1e9;');
        await sleep(800);
        fs.writeFileSync(path.join(out, `${site}-${width}-${placement}-scrolled.png`), Buffer.from(await w.session.screenshot(), 'base64'));
        console.log(`${site} | ${width} px | ${placement} | ${name} | page ${high} px high`);
      } catch (e) {
        fs.writeFileSync(path.join(out, `${site}-${width}-${placement}-failed.png`), Buffer.from(await w.session.screenshot(), 'base64'));
        console.log(`${site} | ${width} px | ${placement} | failed: ${e.message.split('\n')[0]}`);
      }
    }
  } finally {
    await w.close();
  }
}
fs.rmSync(beside, { recursive: true, force: true });
console.log(`pictures in ${out}`);
