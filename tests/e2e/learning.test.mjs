// The parts learnt from the user's own exchange, in Chromium and Firefox, on Kimi's renamed
// page where the structure alone cannot find them: a send control that is a bare <div> (and
// Enter makes a new line, so only that control sends) is learnt from the user's press and
// used for the call's result, and found again after a reload; a stop control with no label
// is learnt from its coming and going while the answer streams.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSERS } from './support/browsers.mjs';
import { startWorld, openChat, call, clickAt, floatFind, userMessages, userSays } from './support/chat.mjs';
import { waitFor } from './support/webdriver.mjs';

const HOST = 'www.kimi.com';
const INPUT = '[contenteditable="true"]';

/** The float's health line once it matches `want`. */
async function health(w, want) {
  return waitFor(async () => {
    const [box] = await floatFind(w, '.health');
    // How each part was found sits in a closed details view: its text, shown or not.
    const text = box ? await w.session.cmd('GET', `/element/${Object.values(box)[0]}/property/textContent`) : '';
    return want.test(text) && text;
  }, { what: `the float's health line to match ${want}` });
}

for (const browser of BROWSERS) {
  describe(`parts learnt from the user's exchange in ${browser}`, () => {
    let w;
    before(async () => { w = await startWorld(browser); });
    after(async () => { await w?.close(); });

    test('the send control is learnt from the press that sent, used for the result, and remembered', async () => {
      const path = '/redesign/?send=plain&enter=newline';
      await openChat(w, HOST, path);
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, HOST, path);
      await health(w, /Send button: not shown yet/);
      await w.session.exec('window.fixtureAI.queueMany(arguments[0])',
        [`Sure.\n\n${call('echo', { text: 'sent by the learnt control' })}`, 'Thanks.']);
      const input = await w.session.find(INPUT);
      await w.session.click(input);
      await w.session.type(input, 'Please echo something.');
      // The send control: the bare <div> holding the send icon (the fixture's ICON_SEND).
      const sendDiv = await w.session.exec('return document.querySelector(\'svg path[d^="M8 2l5"]\').closest("svg").parentElement');
      await clickAt(w, sendDiv);
      const msgs = await userMessages(w, 2);
      assert.match(msgs[1], /sent by the learnt control/);
      await health(w, /Send button: learned from your message/);
      // A new page of the site finds it by the memory, before any press.
      await openChat(w, HOST, path);
      await health(w, /Send button: learned from your message/);
    });

    test('a stop control with no label is learnt from its coming and going', async () => {
      const path = '/redesign/?stop=bare';
      await openChat(w, HOST, path);
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, HOST, path);
      await w.session.exec('window.fixtureAI.setChunk(arguments[0])', { size: 4, intervalMs: 60 });
      await userSays(w, 'Tell me a story.', ['Once upon a time there was a tool that answered every question it was asked, quickly and well.'], INPUT);
      await health(w, /Generating state: learned from your message/);
      // With the stop control known, a call runs once the answer ends.
      await userSays(w, 'Now echo.', [`Checking.\n\n${call('echo', { text: 'after the learnt stop' })}`, 'Done.'], INPUT);
      const msgs = await userMessages(w, 3);
      assert.match(msgs[2], /after the learnt stop/);
    });
  });
}
