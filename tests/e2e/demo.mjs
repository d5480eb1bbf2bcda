// `./build.sh demo`: the whole loop for a person to watch, with no account anywhere. Starts
// the bridge with its demo MCP server and a local "DeepSeek" whose scripted AI calls tools
// (one succeeds, one fails), in Chromium with the built extension.
//
//   node tests/e2e/demo.mjs                 a visible browser; Ctrl+C ends the demo
//   node tests/e2e/demo.mjs --screenshot F  headless; saves the float in the error state to F
import fs from 'node:fs';
import { startWorld, openChat, userSays, userMessages, call } from './support/chat.mjs';
import { sleep } from './support/webdriver.mjs';

const shotAt = process.argv.indexOf('--screenshot');
const shot = shotAt > 0 ? process.argv[shotAt + 1] : null;

const w = await startWorld('chromium', { headless: !!shot });
const stop = async () => { await w.close(); process.exit(0); };
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

await openChat(w, 'chat.deepseek.com');
await w.session.exec('window.fixtureAI.reset()');
await openChat(w, 'chat.deepseek.com');
await w.session.exec('window.fixtureAI.setChunk({ size: 12, intervalMs: 30 })');
await userSays(w, 'What time is it? Then read my notes file.', [
  `I'll check the time first.\n${call('get_time', {})}`,
  `Got it. Now the notes.\n${call('read_text_file', { path: '/home/demo/notes/todo.txt' })}`,
  'The file does not exist — shall I look for it in another folder?',
]);
await userMessages(w, 3, 60000);
await sleep(1500);
if (shot) {
  fs.writeFileSync(shot, Buffer.from(await w.session.screenshot(), 'base64'));
  console.log(`saved ${shot}`);
  await stop();
}
console.log('The demo is running in the browser window. Ctrl+C ends it.');
