// Run a sessiontree share handler (share.ts / share.js / share.mjs) under bun, deno or node.
//
// Usage: <runtime> runner.mjs HANDLER_PATH HTML_PATH
// Imports HANDLER_PATH, calls its default export with HTML_PATH, and prints one line to stdout:
//   @@sessiontree-result@@{"ok":true,"result":...}
//   @@sessiontree-result@@{"ok":false,"stage":"load"|"run"|"result","error":"..."}
// The handler's own console output goes to stderr so it never mixes with the result line.
import process from "node:process";
import { pathToFileURL } from "node:url";

const MARKER = "@@sessiontree-result@@";
const [handlerPath, htmlPath] = process.argv.slice(-2);

for (const name of ["log", "info", "debug"]) {
  console[name] = (...args) => console.error(...args);
}

function describe(error) {
  if (error instanceof Error) {
    return `${error.name}: ${error.message}`;
  }
  return String(error);
}

function finish(payload) {
  let line;
  try {
    line = JSON.stringify(payload);
  } catch (error) {
    line = JSON.stringify({ ok: false, stage: "result", error: `result is not JSON: ${describe(error)}` });
  }
  // Exit explicitly: a handler may leave timers or sockets open.
  process.stdout.write(`\n${MARKER}${line}\n`, () => process.exit(0));
}

let handler;
try {
  const mod = await import(pathToFileURL(handlerPath).href);
  if (typeof mod.default !== "function") {
    throw new TypeError("the module has no default export function (export default async function (htmlPath) {...})");
  }
  handler = mod.default;
} catch (error) {
  finish({ ok: false, stage: "load", error: describe(error) });
}

if (handler) {
  try {
    const result = await handler(htmlPath);
    finish({ ok: true, result: result === undefined ? null : result });
  } catch (error) {
    finish({ ok: false, stage: "run", error: describe(error) });
  }
}
