// Spike for MCP App views: which way of framing a view's HTML (with its inline scripts) works in
// real Chromium and Firefox, on an extension page and on a chat page with a strict CSP, and
// what the view can reach from inside. Prints one line per (browser, place, way).
// Run: node tests/spikes/app_frames.mjs  (after ./build.sh build; uses a copy of dist/).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ROOT, launch } from '../e2e/support/browsers.mjs';
import { startFixtures } from '../e2e/support/fixtures.mjs';

// The view: inline script, then reports what it could reach (each try's outcome, never data).
const VIEW = `<!doctype html><meta charset="utf-8"><body>view<script>
const tries = {};
const t = (k, f) => { try { const v = f(); tries[k] = v === undefined || v === null ? 'empty' : 'READ'; } catch (e) { tries[k] = 'refused'; } };
t('parentDom', () => parent.document.body.innerHTML);
t('topDom', () => top.document.title);
t('cookie', () => document.cookie || null);
t('storage', () => localStorage.length);
t('chromeApi', () => (typeof chrome === 'object' && chrome.storage) ? chrome.storage : null);
parent.postMessage({ spike: 'ran', origin: String(origin), tries }, '*');
</script>`;

function viewServer() {
  return new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8',
        // What a resource declares; inline scripts of the view allowed, nothing else.
        'content-security-policy': "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'" });
      res.end(VIEW);
    });
    server.listen(0, '127.0.0.1', () => resolve({ port: server.address().port, close: () => server.close() }));
  });
}

const HOST_JS = `
const way = location.hash.slice(1).split(':')[0];
const port = location.hash.split(':')[1];
const out = (r) => { document.title = JSON.stringify(r); parent.postMessage({ spikeHost: r }, '*'); };
addEventListener('message', (e) => { if (e.data?.spike) out({ way, ...e.data }); });
const f = document.createElement('iframe');
if (way === 'srcdoc') { f.sandbox = 'allow-scripts'; f.srcdoc = ${JSON.stringify(VIEW)}; }
if (way === 'sandboxpage') { f.src = 'sandbox.html'; }
if (way === 'bridge') { f.sandbox = 'allow-scripts'; f.src = 'http://127.0.0.1:' + port + '/view'; }
document.body.append(f);
setTimeout(() => { if (!document.title.startsWith('{')) out({ way, spike: 'nothing in 5 s' }); }, 5000);
`;

async function copyExtension(browser) {
  const src = path.join(ROOT, 'dist', browser === 'chromium' ? 'chrome' : 'firefox');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mcpb-spike-${browser}-`));
  fs.cpSync(src, dir, { recursive: true });
  fs.mkdirSync(path.join(dir, 'spike'));
  fs.writeFileSync(path.join(dir, 'spike/host.html'), '<!doctype html><meta charset="utf-8"><title>-</title><body><script src="host.js"></script>');
  fs.writeFileSync(path.join(dir, 'spike/host.js'), HOST_JS);
  fs.writeFileSync(path.join(dir, 'spike/sandbox.html'), VIEW);
  const mf = path.join(dir, 'manifest.json');
  const m = JSON.parse(fs.readFileSync(mf, 'utf8'));
  m.web_accessible_resources.push({ resources: ['spike/*'], matches: ['https://*/*'] });
  m.sandbox = { pages: ['spike/sandbox.html'] };
  m.content_security_policy = { ...(m.content_security_policy || {}),
    sandbox: "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'" };
  fs.writeFileSync(mf, JSON.stringify(m, null, 2));
  return dir;
}

const views = await viewServer();
for (const browser of ['chromium', 'firefox']) {
  const fixtures = await startFixtures();
  const ext = await copyExtension(browser);
  let b;
  try {
    b = await launch(browser, { fixtures, headless: true, extension: ext });
    for (const way of ['srcdoc', 'sandboxpage', 'bridge']) {
      // 1. The extension page itself, top level.
      await b.session.navigate(`${b.extensionBase}spike/host.html#${way}:${views.port}`);
      const top = await b.session.waitForScript("return document.title.startsWith('{') ? document.title : null", { timeoutMs: 10000, what: 'result' }).catch((e) => `error ${e.message}`);
      console.log(`${browser} | extension page | ${way} | ${top}`);
      // 2. The extension page framed into a chat page served with a strict CSP.
      await b.session.navigate('https://chat.deepseek.com/?csp=strict');
      await b.session.waitForScript('return document.readyState === "complete"');
      await b.session.exec(`window.spikeResult = null;
        addEventListener('message', (e) => { if (e.data?.spikeHost) window.spikeResult = JSON.stringify(e.data.spikeHost); });
        const f = document.createElement('iframe'); f.src = arguments[0]; document.body.append(f);`,
        `${b.extensionBase}spike/host.html#${way}:${views.port}`);
      const framed = await b.session.waitForScript('return window.spikeResult', { timeoutMs: 10000, what: 'framed result' }).catch((e) => `error ${e.message}`);
      console.log(`${browser} | chat page, strict CSP | ${way} | ${framed}`);
    }
  } catch (e) {
    console.log(`${browser} | launch | - | error ${e.message}`);
  } finally {
    await b?.close();
    fixtures.stop();
    fs.rmSync(ext, { recursive: true, force: true });
  }
}
views.close();
