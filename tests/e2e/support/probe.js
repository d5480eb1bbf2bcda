// Test-only content script of an instrumented copy (support/instrumented.mjs), never shipped:
// injected at the same moment as the content script (document_idle) on the loopback pages the
// content script must not run on, it marks <html> so that a test knows injection time has
// come and gone there.
document.documentElement.dataset.mcpTestProbe = 'injected';
