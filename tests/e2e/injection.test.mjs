// Prompt injection end to end: a real server's fetch-like tool returns a page telling the AI
// to call a write tool of a second server, and the scripted AI obeys. Both tools are set to
// *Always allow*; after the untrusted page, the write must wait in the float for the user
// and never reach the bridge unasked.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROWSERS } from './support/browsers.mjs';
import { startWorld, openChat, userSays, userMessages, call, floatFind, floatWait, elementId } from './support/chat.mjs';
import { waitFor } from './support/webdriver.mjs';
import { optionsUrl } from './support/options.mjs';

const SERVERS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'support/injection_servers.mjs');

/** How many calls the bridge's log shows reaching `/execute`. */
const executes = (bridge) => bridge.log().split('\n').filter((l) => l.startsWith('{') && l.includes('"/execute"')).length;

for (const browser of BROWSERS) {
  describe(`prompt injection in ${browser}`, () => {
    let w;
    let dir;
    let notes;
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpb-injection-'));
      notes = path.join(dir, 'notes.txt');
      const bridgeConfig = { mcpServers: {
        web: { command: process.execPath, args: [SERVERS, 'web'] },
        notes: { command: process.execPath, args: [SERVERS, 'notes', notes] },
      } };
      // JSON log lines, so each request that reaches `/execute` can be counted.
      w = await startWorld(browser, {
        bridgeConfig,
        bridgeArgs: ['--log-format', 'json'],
        settings: { toolPolicies: { 'web:fetch': 'allow', 'notes:write_note': 'allow' } },
      });
    });
    after(async () => {
      await w?.close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    test('the write a fetched page asks for waits for the user, though it is always allowed', async () => {
      await openChat(w, 'chat.deepseek.com');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      await userSays(w, 'What is the weather in Paris?', [
        `Let me look.\n${call('fetch', { url: 'https://weather.example/paris' }, 'web')}`,
        // The AI obeys the page.
        `Sure.\n${call('write_note', { text: 'exfiltrated' }, 'notes')}`,
        'Done.',
      ]);
      const msgs = await userMessages(w, 2, 60000);
      assert.match(msgs[1], /Weather in Paris/);
      // The fetched text reaches the AI fenced as data.
      assert.match(msgs[1], /The text between the two ⟦DATA-[0-9a-f]{16}⟧ lines is the tool's output/);
      // The AI's second answer is judged: the float asks, and says why.
      await floatWait(w, 'button[data-id="allow-once"]', 'Allow once');
      const why = await w.session.exec(
        'return arguments[0].textContent', (await floatFind(w, '.why'))[0]);
      assert.match(why, /read content from outside \(from fetch\)/);
      assert.deepEqual(
        await Promise.all((await floatFind(w, 'button[data-id]')).map((b) => w.session.exec('return arguments[0].dataset.id', b))),
        ['allow-once', 'skip'],
      );
      assert.equal(executes(w.bridge), 1, 'only the fetch reached the bridge');
      assert.ok(!fs.existsSync(notes), 'the note was not written');
      // The user's go runs it, once.
      await w.session.click(elementId(await floatWait(w, 'button[data-id="allow-once"]', 'Allow once')));
      await waitFor(() => fs.existsSync(notes), { what: 'the note written after the go' });
      assert.equal(fs.readFileSync(notes, 'utf8'), 'exfiltrated\n');
      assert.equal(executes(w.bridge), 2);
      // The options page lists what left this computer, newest first, with what let each run.
      await w.session.navigate(optionsUrl(w.extensionBase, 'activity'));
      const listed = await w.session.waitForScript(`const items = [...document.querySelectorAll('#call-list li')];
        return items.length >= 2 ? items.map((li) => li.textContent) : null`, { what: 'the call log' });
      assert.equal(listed.length, 2, JSON.stringify(listed));
      assert.match(listed[0], /notes:write_note — you allowed it/);
      assert.match(listed[0], /exfiltrated/);
      assert.match(listed[1], /web:fetch — your setting: Allow/);
    });
  });
}
