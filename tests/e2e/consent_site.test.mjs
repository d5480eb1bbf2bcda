// Consent by site, end to end with a real MCP server: *Always allow* in the float holds on
// the site it was given on, another site asks again, and a choice kept "on every site"
// holds on a third site the user never answered on.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROWSERS } from './support/browsers.mjs';
import { startWorld, freshChat, userSays, call, floatFind, floatWait, elementId } from './support/chat.mjs';
import { waitFor } from './support/webdriver.mjs';

const SERVERS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'support/injection_servers.mjs');

for (const browser of BROWSERS) {
  describe(`consent by site in ${browser}`, () => {
    let w;
    let dir;
    let notes;
    const written = () => (fs.existsSync(notes) ? fs.readFileSync(notes, 'utf8').split('\n').filter(Boolean) : []);
    /** The AI on a fresh chat at `host` writes `text`; resolves once the float asks or the note is written. */
    const aiWrites = async (host, text) => {
      await freshChat(w, null, host);
      await userSays(w, `Note ${text}`, [`Sure.\n${call('write_note', { text }, 'notes')}`, 'Done.']);
      return waitFor(async () => {
        if (written().includes(text)) return 'ran';
        return (await floatFind(w, 'button[data-id="always-allow"]')).length ? 'asked' : null;
      }, { what: `the write on ${host} to run or ask` });
    };
    /** The result is in the chat and the AI answered it (before the test leaves the page). */
    const delivered = () => w.session.waitForScript(
      `const ai = window.fixtureAI;
       return ai.messages().length === 2 && ai.answers().length === 2 && !ai.isGenerating()`,
      { what: 'the result delivered and answered' });
    const click = async (id) => w.session.click(elementId(await floatWait(w, `button[data-id="${id}"]`)));

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpb-consent-site-'));
      notes = path.join(dir, 'notes.txt');
      const bridgeConfig = { mcpServers: { notes: { command: process.execPath, args: [SERVERS, 'notes', notes] } } };
      // `notes` is trusted and its writer stays on this machine, so its results do not
      // mark the conversation: what asks here is the choice by site alone.
      w = await startWorld(browser, { bridgeConfig, settings: { trustedServers: ['notes'] } });
    });
    after(async () => {
      await w?.close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    test('an Always allow holds on its site only; one kept on every site holds everywhere', async () => {
      assert.equal(await aiWrites('chat.deepseek.com', 'one'), 'asked');
      const box = await floatWait(w, 'label.everywhere', 'the "on every site" box');
      assert.match(await w.session.exec('return arguments[0].textContent', box), /every site, not only on DeepSeek/);
      await click('always-allow');
      await waitFor(() => written().includes('one'), { what: 'the first note' });
      await delivered();
      assert.equal(await aiWrites('chat.deepseek.com', 'two'), 'ran', 'kept on DeepSeek');
      await delivered();

      assert.equal(await aiWrites('www.kimi.com', 'three'), 'asked', 'Kimi asks again');
      await w.session.click(elementId(await floatWait(w, 'input[data-everywhere]')));
      await click('always-allow');
      await waitFor(() => written().includes('three'), { what: 'the note allowed on Kimi' });
      await delivered();

      assert.equal(await aiWrites('chatgpt.com', 'four'), 'ran', 'kept on every site');
      assert.deepEqual(written(), ['one', 'two', 'three', 'four'], 'each ran once');
    });
  });
}
