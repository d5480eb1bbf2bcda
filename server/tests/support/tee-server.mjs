// Runs an MCP server over stdio for the bridge's tests only (never shipped), writing each line
// the client sends it to a file as well: `node tee-server.mjs LOG COMMAND ARGS...`. Its stdout
// and stderr are the server's own.
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

const [log, command, ...args] = process.argv.slice(2);
const server = spawn(command, args, { stdio: ["pipe", "inherit", "inherit"] });
process.stdin.on("data", (chunk) => {
  appendFileSync(log, chunk);
  server.stdin.write(chunk);
});
process.stdin.on("end", () => server.stdin.end());
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
