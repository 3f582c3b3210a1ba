// SPDX-License-Identifier: GPL-3.0-or-later
// The official LangGraph Agent Server (@langchain/langgraph-api, the in-memory server that
// `langgraphjs dev` runs) serving the graphs of graphs.mjs, for the LangGraph connector tests.
//
//   node server.mjs [--port N] [--workers N]
//
// Binds 127.0.0.1 (port 0, the default, lets the OS pick one). Prints exactly one line to stdout,
// "langgraph-peer listening on http://127.0.0.1:PORT", once it accepts connections; everything the
// server logs goes to stderr (LOG_LEVEL, default "warn", and LOG_JSON, default "true", are the
// server's own settings). The server keeps its state in a fresh temporary directory (its cwd), which
// is removed when the process exits; SIGTERM, SIGINT and SIGHUP make it exit with status 0.
// Offline: tracing and analytics are off, and nothing here contacts another host (checked with no
// network at all: only the listening socket is ever opened).
import { mkdtempSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const option = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const port = Number(option('--port', '0'));
const nWorkers = Number(option('--workers', '4'));
if (!Number.isInteger(port) || port < 0 || port > 65535 || !Number.isInteger(nWorkers) || nWorkers < 1) {
    process.stderr.write('usage: node server.mjs [--port N] [--workers N]\n');
    process.exit(2);
}

// Before the server is imported: its logger reads LOG_* when it loads, and langsmith/langchain read
// the tracing switches.
process.env.LANGSMITH_TRACING = 'false';
process.env.LANGCHAIN_TRACING_V2 = 'false';
process.env.LANGCHAIN_TRACING = 'false';
process.env.LANGGRAPH_CLI_NO_ANALYTICS = '1';
process.env.LOG_LEVEL ??= 'warn';
process.env.LOG_JSON ??= 'true';

// stdout carries only the "listening" line: whatever else writes to process.stdout (the server's
// winston console logger, console.log in a dependency) goes to stderr instead.
const writeStdout = (text) => writeSync(1, text);
process.stdout.write = process.stderr.write.bind(process.stderr);

const here = path.dirname(fileURLToPath(import.meta.url));
const workdir = mkdtempSync(path.join(tmpdir(), 'langgraph-peer-'));
let removed = false;
const removeWorkdir = () => {
    if (removed) return;
    removed = true;
    try {
        rmSync(workdir, { recursive: true, force: true });
    } catch {
        // nothing more to do while exiting
    }
};
process.on('exit', removeWorkdir);
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
    process.on(signal, () => {
        removeWorkdir();
        process.exit(0);
    });
}

// Graph paths are resolved against the server's cwd (the temporary directory).
const graphFile = path.relative(workdir, path.join(here, 'graphs.mjs'));
const graphs = Object.fromEntries(
    ['echo', 'approval', 'restricted', 'question', 'fail', 'slow'].map((id) => [id, `${graphFile}:${id}`]));

try {
    const { startServer } = await import('@langchain/langgraph-api/server');
    const { host } = await startServer({ port, nWorkers, host: '127.0.0.1', cwd: workdir, graphs });
    const boundPort = Number(host.slice(host.lastIndexOf(':') + 1));
    writeStdout(`langgraph-peer listening on http://127.0.0.1:${boundPort}\n`);
} catch (error) {
    process.stderr.write(`langgraph-peer: cannot start: ${error?.stack ?? error}\n`);
    removeWorkdir();
    process.exit(1);
}
