// The share of generated redesign variants on which a call is delivered, per site and
// browser: every variant of support/variants.mjs (or a sample: `VARIANTS_PER_SITE=n`,
// `VARIANT_SEED=s`), each checked by one exchange (a successful, a failing and a fenced
// call, each reported once). Prints one line per site and browser and the variants that
// failed. Run after ./build.sh build:  node tests/e2e/bench_variants.mjs [site…]
import { BROWSERS } from './support/browsers.mjs';
import { CHAT_SITES } from './support/fixtures.mjs';
import { startWorld } from './support/chat.mjs';
import { EDITOR_MARK, allVariants, delivered, exchange, sampleVariants, variantName } from './support/variants.mjs';

const only = process.argv.slice(2);
const per = process.env.VARIANTS_PER_SITE ? Number(process.env.VARIANTS_PER_SITE) : null;
const seed = Number(process.env.VARIANT_SEED || 1);
const browsers = process.env.BROWSER ? [process.env.BROWSER] : BROWSERS;
const sites = CHAT_SITES.filter(([s]) => EDITOR_MARK[s] && (!only.length || only.includes(s)));

for (const browser of browsers) {
  const w = await startWorld(browser);
  try {
    for (const [site, host] of sites) {
      const list = per ? sampleVariants(site, per, seed) : allVariants(site);
      const failed = [];
      let ok = 0;
      for (const [i, v] of list.entries()) {
        const c = await exchange(w, site, host, v, { tag: ` ${i}`, timeoutMs: 15000 });
        if (delivered(c)) ok++;
        else failed.push(`${variantName(v)} ${JSON.stringify(c)}`);
      }
      console.log(`${browser} ${site}: delivered on ${ok}/${list.length} variants (${Math.round((100 * ok) / list.length)}%)`);
      for (const f of failed) console.log(`  not delivered: ${f}`);
    }
  } finally {
    await w.close();
  }
}
