// A real MCP server (the official TypeScript SDK, over stdio) with one tool, `get-tone`,
// whose result is text and a short WAV sound: server-everything answers images but no
// sound. The WAV is made here: 0.25 s of a 440 Hz tone, 8 kHz, 8-bit mono.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

/** The tone as a WAV file. */
export function toneWav(seconds = 0.25, rate = 8000, hz = 440) {
  const n = Math.round(seconds * rate);
  const wav = Buffer.alloc(44 + n);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + n, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate, 28); // bytes per second
  wav.writeUInt16LE(1, 32); // block align
  wav.writeUInt16LE(8, 34); // bits per sample
  wav.write('data', 36);
  wav.writeUInt32LE(n, 40);
  for (let i = 0; i < n; i++) wav[44 + i] = 128 + Math.round(100 * Math.sin((2 * Math.PI * hz * i) / rate));
  return wav;
}

if (process.argv[2] === 'serve') {
  const server = new McpServer({ name: 'sound', version: '1.0.0' });
  server.registerTool('get-tone', { description: 'A short tone', annotations: { readOnlyHint: true } }, async () => ({
    content: [
      { type: 'text', text: 'A 440 Hz tone:' },
      { type: 'audio', data: toneWav().toString('base64'), mimeType: 'audio/wav' },
    ],
  }));
  await server.connect(new StdioServerTransport());
}
