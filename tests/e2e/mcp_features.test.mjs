// MCP beyond tools in the chat, end to end: the real bridge running the real
// `@modelcontextprotocol/server-everything`, the fixture chat page playing the AI. A long
// operation shows its server's progress in the float; a server's question shows as a form in
// the float, the user's answer reaches the server (numbers typed as numbers; one that is not
// whole refused in the form), and the question never reaches the AI; a
// question in URL mode opens its http(s) address only when the user clicks, and an address
// of any other kind is never offered; a server that announces new tools
// (`notifications/tools/list_changed`) makes the float say its tools changed.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { BROWSERS, ROOT } from './support/browsers.mjs';
import { startWorld, openChat, userSays, userMessages, call, floatWait, floatFind, elementId, clickAt } from './support/chat.mjs';
import { waitFor, sleep } from './support/webdriver.mjs';

const EVERYTHING = path.join(ROOT, 'node_modules/.bin/mcp-server-everything');
// The bridge tests' own MCP server: it adds a tool while it runs and announces it.
const ODD = path.join(ROOT, 'server/tests/support/odd-server.mjs');
const chatInput = (w) => w.session.exec("return document.querySelector('textarea#chat-input').value");

/** The text of a float element. */
async function textOf(w, ref) {
  return w.session.cmd('GET', `/element/${elementId(ref)}/text`);
}

for (const browser of BROWSERS) {
  describe(`MCP progress and questions in ${browser}`, () => {
    let w;
    before(async () => {
      const bridgeConfig = { mcpServers: {
        everything: { command: EVERYTHING, args: ['stdio'] },
        odd: { command: process.execPath, args: [ODD] },
      } };
      w = await startWorld(browser, {
        bridgeConfig,
        // Trusted and, since each test's chat has read these servers' results already,
        // exempted from asking after untrusted content.
        settings: {
          toolPolicies: {
            'everything:trigger-elicitation-request': 'allow', 'everything:trigger-url-elicitation': 'allow',
            'odd:add-tool': 'allow',
          },
          trustedServers: ['everything', 'odd'],
          exemptAfterUntrusted: [
            'everything:trigger-elicitation-request', 'everything:trigger-url-elicitation', 'odd:add-tool',
            'everything:trigger-long-running-operation',
          ],
        },
      });
    });
    after(async () => { await w?.close(); });

    test('a long operation shows its progress in the float', async () => {
      await openChat(w, 'chat.deepseek.com');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      await userSays(w, 'Run the long operation.', [
        `Starting it.\n\n${call('trigger-long-running-operation', { duration: 6, steps: 6 }, 'everything')}`,
        'It finished.',
      ]);
      const bar = await floatWait(w, '.progress', 'progress');
      const text = await waitFor(async () => {
        const t = await textOf(w, bar).catch(() => '');
        return /Progress \d \/ 6/.test(t) ? t : null;
      }, { what: 'a progress line', timeoutMs: 30000 });
      assert.match(text, /Progress \d \/ 6/);
      const meter = await floatFind(w, '.progress progress');
      assert.equal(meter.length, 1, 'a bar, since the total is known');
      const msgs = await userMessages(w, 2, 60000);
      assert.match(msgs[1], /Long running operation completed/);
    });

    test("a server's question is answered in the float and never shown to the AI", async () => {
      await openChat(w, 'chat.deepseek.com');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      await userSays(w, 'Ask me for my details.', [
        `Asking.\n\n${call('trigger-elicitation-request', {}, 'everything')}`,
        'Thanks.',
      ]);
      const question = await floatWait(w, '.question', 'question');
      assert.match(await textOf(w, question), /everything asks you/);
      const name = await floatWait(w, '.field[data-field="name"] input', 'name field');
      // Typed as a user would: a click into the field, then key presses.
      await clickAt(w, name);
      await w.session.cmd('POST', '/actions', { actions: [{ type: 'key', id: 'keys',
        actions: [...'Ada Lovelace'].flatMap((c) => [{ type: 'keyDown', value: c }, { type: 'keyUp', value: c }]) }] });
      await w.session.cmd('DELETE', '/actions');
      const submit = await floatWait(w, '.question button[data-action="floatSubmitAnswer"]', 'submit');
      await w.session.click(elementId(submit));
      const msgs = await userMessages(w, 2, 60000);
      const report = msgs[msgs.length - 1];
      assert.match(report, /Name: Ada Lovelace/);
      assert.doesNotMatch(report, /Please provide inputs/, 'the question is not in the report');
    });

    test("numbers typed into a server's question reach it as numbers, and one that is not whole is refused in the form", async () => {
      // A conversation of its own: the call of the test before ran in the other one already.
      await openChat(w, 'chat.deepseek.com', '/?numbers');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com', '/?numbers');
      await userSays(w, 'Ask me for my numbers.', [
        `Asking.\n\n${call('trigger-elicitation-request', {}, 'everything')}`,
        'Thanks.',
      ]);
      await floatWait(w, '.question', 'question');
      // Typed into each field as a user would, in place of what it holds: into the field
      // (scrolled to, in the float's form), select all, then key presses.
      const typeInto = async (field, text) => {
        const input = await floatWait(w, `.field[data-field="${field}"] input`, `${field} field`);
        await w.session.exec('arguments[0].scrollIntoView({ block: "center" }); arguments[0].focus();', input);
        const press = (key) => [{ type: 'keyDown', value: key }, { type: 'keyUp', value: key }];
        const CONTROL = '\uE009';
        const BACKSPACE = '\uE003';
        await w.session.cmd('POST', '/actions', { actions: [{ type: 'key', id: 'keys', actions: [
          { type: 'keyDown', value: CONTROL }, ...press('a'), { type: 'keyUp', value: CONTROL },
          ...press(BACKSPACE), ...[...text].flatMap(press)] }] });
        await w.session.cmd('DELETE', '/actions');
        return input;
      };
      await typeInto('name', 'Ada');
      await typeInto('number', '250');
      const integer = await typeInto('integer', '3.5');
      const submit = async () => w.session.click(elementId(
        await floatWait(w, '.question button[data-action="floatSubmitAnswer"]', 'submit')));
      await submit();
      const refused = await waitFor(async () => {
        const t = await textOf(w, await floatWait(w, '.question .refused', 'refusal')).catch(() => '');
        return t || null;
      }, { what: 'the refusal in the form' });
      assert.equal(refused, 'The answer was not accepted: “Integer” needs a whole number; “3.5” is not one.');
      assert.equal(await w.session.cmd('GET', `/element/${elementId(integer)}/property/value`), '3.5',
        'the form keeps what the user typed');
      await typeInto('integer', '7');
      await submit();
      const msgs = await userMessages(w, 2, 60000);
      const report = msgs[msgs.length - 1];
      // The server echoes what it received: numbers, not the text typed.
      assert.match(report, /"integer": 7\b/);
      assert.match(report, /"number": 250\b/);
      assert.match(report, /Favorite Integer: 7\b/);
    });

    test('a URL question opens its address only when the user clicks, and then answers', async () => {
      await openChat(w, 'chat.deepseek.com');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      const url = `http://127.0.0.1:${w.fixtures.port}/deepseek/?signed-in`;
      const chat = await w.session.cmd('GET', '/window');
      await userSays(w, 'Sign me in.', [
        `Opening.\n\n${call('trigger-url-elicitation', { url, message: 'Sign in to continue' }, 'everything')}`,
        'Signed in.',
      ]);
      const question = await floatWait(w, '.question', 'question');
      assert.match(await textOf(w, question), /Sign in to continue/);
      const shown = await floatWait(w, '.question .url', 'the address');
      assert.equal(await textOf(w, shown), url);
      // Shown, not opened: one window, and the call still waits for the user.
      await sleep(1000);
      assert.deepEqual(await w.session.windowHandles(), [chat]);
      assert.equal((await w.session.exec('return window.fixtureAI.messages()')).length, 1);
      await w.session.click(elementId(await floatWait(w, '.question button[data-action="floatOpenUrl"]', 'Open link')));
      const opened = await waitFor(async () => {
        const handles = await w.session.windowHandles();
        return handles.length === 2 && handles.find((h) => h !== chat);
      }, { what: 'the opened tab' });
      await w.session.switchTo(opened);
      const at = await waitFor(async () => {
        const u = await w.session.url();
        return u.startsWith('http') && u;
      }, { what: "the opened tab's address" });
      assert.equal(at, url);
      await w.session.cmd('DELETE', '/window'); // the opened tab only
      await w.session.switchTo(chat);
      await w.session.click(elementId(await floatWait(w, '.question button[data-action="floatUrlDone"]', 'Done')));
      const msgs = await userMessages(w, 2, 60000);
      assert.match(msgs[1], /completed the URL elicitation/);
      assert.doesNotMatch(msgs[1], /Sign in to continue/, 'the question is not in the report');
    });

    test('a URL question with an address that is not http(s) is declined by the bridge and never reaches the float', async () => {
      await openChat(w, 'chat.deepseek.com');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      const chat = await w.session.cmd('GET', '/window');
      await userSays(w, 'Sign me in.', [
        `Opening.\n\n${call('trigger-url-elicitation', { url: 'javascript:alert(document.domain)', message: 'Open this' }, 'everything')}`,
        'Understood.',
      ]);
      // The bridge answers the server's question itself: the tool's result says it was
      // declined, and the user was never asked (the float's own refusal stays as a second
      // line of defence, tested natively).
      const msgs = await userMessages(w, 2, 60000);
      assert.match(msgs[1], /declined to open the URL/);
      assert.equal((await floatFind(w, '.question')).length, 0, 'no question was left in the float');
      assert.deepEqual(await w.session.windowHandles(), [chat]);
    });

    test('a server announcing new tools makes the float say so, and the instructions carry them', async () => {
      await openChat(w, 'chat.deepseek.com');
      await w.session.exec('window.fixtureAI.reset()');
      await openChat(w, 'chat.deepseek.com');
      await w.session.click(elementId(await floatWait(w, 'button[data-id="insert-instructions"]')));
      const first = await waitFor(async () => {
        const v = await chatInput(w);
        return v.includes('add-tool') ? v : null;
      }, { what: 'the instructions in the chat input' });
      assert.doesNotMatch(first, /late-tool/);
      // The AI asks the server to add a tool; the server adds it and announces the change.
      await userSays(w, 'Add a tool.', [
        `Adding.\n\n${call('add-tool', { name: 'late-tool', notify: true }, 'odd')}`,
        'Added.',
      ]);
      const msgs = await userMessages(w, 2, 60000);
      assert.match(msgs[1], /late-tool/);
      const notice = await floatWait(w, '.notice', 'the notice');
      assert.match(await textOf(w, notice), /^The tools of odd changed/);
      await w.session.click(elementId(await floatWait(w, 'button[data-action="floatUpdateInstructions"]')));
      const again = await waitFor(async () => {
        const v = await chatInput(w);
        return v.includes('late-tool') ? v : null;
      }, { what: 'the updated instructions' });
      assert.match(again, /\n  - late-tool\b[^\n]*Added while running: late-tool\./);
    });
  });
}
