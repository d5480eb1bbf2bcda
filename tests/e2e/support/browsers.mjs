// Launches real Chromium and real Firefox with the built extension (dist/chrome,
// dist/firefox — exactly what users load) unpacked, with the fixture server as their proxy
// so that https://chat.deepseek.com/ and the other chat hosts are our fixture pages.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Session, startDriver, waitFor } from './webdriver.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const GECKO_ID = 'mcp-bridge@mcp-bridge.dev';
// Fixed internal UUID so the test knows the extension's moz-extension:// origin.
const GECKO_UUID = '6c0d6f9e-7c3f-4c63-9d0e-2b1a4e5f0a11';

export const BROWSERS = process.env.ONLY_BROWSER ? [process.env.ONLY_BROWSER] : ['chromium', 'firefox'];

function which(bin) {
  for (const dir of (process.env.PATH || '').split(':')) {
    const p = path.join(dir, bin);
    if (fs.existsSync(p)) return p;
  }
  return null;
}

/**
 * Starts `name` ('chromium' | 'firefox') with the extension. Resolves to
 * `{ session, extensionBase, downloads, close }`; `extensionBase` ends with '/', `downloads`
 * is the (fresh, empty) folder the browser saves downloads into without asking. With `profile` (a
 * directory) the browser keeps its data there across launches (a browser restart);
 * otherwise a fresh profile is made and removed on close. `extension` replaces the built
 * extension directory (dist/chrome or dist/firefox). `lang` ('zh-CN') is the browser's
 * interface language, which the extension's pages and float follow (Firefox takes it from
 * its language pack, Debian's `firefox-esr-l10n-zh-cn`).
 */
export async function launch(name, { fixtures, headless = true, profile, extension, lang } = {}) {
  const keep = !!profile;
  const dir = profile || fs.mkdtempSync(path.join(os.tmpdir(), `mcpb-${name}-`));
  const downloads = fs.mkdtempSync(path.join(os.tmpdir(), `mcpb-downloads-${name}-`));
  const b = name === 'chromium' ? await launchChromium(dir, fixtures, headless, extension, downloads, lang)
    : name === 'firefox' ? await launchFirefox(dir, fixtures, extension, downloads, lang)
      : null;
  if (!b) throw new Error(`unknown browser ${name}`);
  b.downloads = downloads;
  const close = b.close;
  b.close = async () => {
    await close();
    fs.rmSync(downloads, { recursive: true, force: true });
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  };
  return b;
}

async function launchChromium(profile, fixtures, headless, extension, downloads, lang = 'en-US') {
  const ext = extension || path.join(ROOT, 'dist/chrome');
  // On Linux, Chromium takes its interface language from LANGUAGE (with its locale pack).
  const driver = await startDriver(process.env.CHROMEDRIVER || which('chromedriver') || '/usr/bin/chromedriver', [],
    { LANGUAGE: lang.replace('-', '_') });
  const args = [
    ...(headless ? ['--headless=new'] : []), '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
    '--no-first-run', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--disable-quic', `--user-data-dir=${profile}`,
    '--window-size=1280,900', `--lang=${lang}`,
    // Chromium ≥ 137 ignores --load-extension unless this feature is off.
    '--disable-features=DisableLoadExtensionCommandLineSwitch',
    `--load-extension=${ext}`, `--disable-extensions-except=${ext}`,
  ];
  if (fixtures) {
    args.push(`--proxy-server=http://127.0.0.1:${fixtures.port}`);
    // Trust only the fixture server's self-signed certificate.
    args.push(`--ignore-certificate-errors-spki-list=${fixtures.spki}`);
  }
  let session;
  try {
    session = await Session.create(driver.base, {
      browserName: 'chrome',
      'goog:loggingPrefs': { browser: 'ALL' },
      'goog:chromeOptions': {
        binary: process.env.CHROMIUM || which('chromium') || '/usr/bin/chromium',
        args,
        excludeSwitches: ['disable-extensions', 'enable-automation'],
        prefs: { 'download.default_directory': downloads, 'download.prompt_for_download': false },
      },
    });
  } catch (e) {
    driver.stop();
    throw e;
  }
  // The extension id is random for an unpacked load: read it off the worker's target.
  const id = await waitFor(async () => {
    const { targetInfos } = await session.cmd('POST', '/goog/cdp/execute', { cmd: 'Target.getTargets', params: {} });
    const sw = targetInfos.find((t) => t.url.startsWith('chrome-extension://') && t.url.endsWith('/background.js'));
    return sw && new URL(sw.url).host;
  }, { what: 'the extension service worker to start' });
  return {
    session,
    extensionBase: `chrome-extension://${id}/`,
    close: async () => {
      await session.close().catch(() => {});
      driver.stop();
    },
  };
}

async function launchFirefox(profile, fixtures, extension, downloads, lang) {
  const ext = extension || path.join(ROOT, 'dist/firefox');
  // System access lets the tests switch to the chrome context to open extension pages:
  // WebDriver itself refuses to navigate to moz-extension:// URLs.
  const driver = await startDriver(process.env.GECKODRIVER || which('geckodriver'), ['--allow-system-access']);
  const prefs = {
    'extensions.webextensions.uuids': JSON.stringify({ [GECKO_ID]: GECKO_UUID }),
    'datareporting.policy.dataSubmissionEnabled': false,
    'browser.shell.checkDefaultBrowser': false,
    'app.update.enabled': false,
    // A temporary add-on is uninstalled when Firefox quits; keep its storage as an installed
    // add-on's is kept, so the tests can restart the browser.
    'extensions.webextensions.keepStorageOnUninstall': true,
    // Downloads go to their own folder, without a dialog.
    'browser.download.folderList': 2,
    'browser.download.dir': downloads,
    'browser.download.useDownloadDir': true,
    'browser.download.always_ask_before_handling_new_types': false,
  };
  // The interface language, from the installed language pack.
  if (lang) Object.assign(prefs, { 'intl.locale.requested': lang, 'intl.accept_languages': lang });
  if (fixtures) {
    Object.assign(prefs, {
      'network.proxy.type': 1,
      'network.proxy.http': '127.0.0.1',
      'network.proxy.http_port': fixtures.port,
      'network.proxy.ssl': '127.0.0.1',
      'network.proxy.ssl_port': fixtures.port,
      'network.proxy.no_proxies_on': '',
      // Loopback (the bridge) never goes through the proxy.
      'network.proxy.allow_hijacking_localhost': false,
    });
  }
  let session;
  try {
    session = await Session.create(driver.base, {
      browserName: 'firefox',
      acceptInsecureCerts: !!fixtures,
      'moz:firefoxOptions': {
        binary: process.env.FIREFOX || which('firefox-esr') || which('firefox'),
        args: ['-headless', '-profile', profile],
        prefs,
      },
    });
    await session.cmd('POST', '/moz/addon/install', { path: ext, temporary: true });
  } catch (e) {
    await session?.close().catch(() => {});
    driver.stop();
    throw e;
  }
  // geckodriver refuses to navigate to moz-extension:// URLs; load them from chrome context.
  const navigate = session.navigate.bind(session);
  session.navigate = async (url) => {
    if (!url.startsWith('moz-extension://')) return navigate(url);
    // Opening from chrome context returns before the load starts, and the page being left
    // may have the same address (the options page opened again): a script run now would
    // run in the old page, which then goes away under it. Mark the old page's global object
    // (a property of its window, gone with it) and wait for a page without the mark.
    await session.exec('window.__mcpbLeaving = true').catch(() => {});
    await session.cmd('POST', '/moz/context', { context: 'chrome' });
    try {
      await session.exec(`openTrustedLinkIn(arguments[0], 'current')`, url);
    } finally {
      await session.cmd('POST', '/moz/context', { context: 'content' });
    }
    await waitFor(async () => (await session.url()) === url, { what: `Firefox to open ${url}` });
    await waitFor(() => session.exec('return !window.__mcpbLeaving && document.readyState === "complete"').catch(() => false),
      { what: 'the page to load' });
  };
  return {
    session,
    extensionBase: `moz-extension://${GECKO_UUID}/`,
    close: async () => {
      await session.close().catch(() => {});
      driver.stop();
    },
  };
}
