// SPDX-License-Identifier: GPL-3.0-or-later
// The official `@modelcontextprotocol/sdk` Client (StreamableHTTPClientTransport and its experimental
// tasks API) against `runwatch-sim --mcp`: if the simulator drifted from MCP tasks as the SDK speaks
// them (handshake, session header, SSE replies, task handles, polling, the tasks/result stream with
// progress and the elicitation request, answers, cancel, list pages, error codes), the vendor's own
// client would notice. ctest runs it as `mcp_client_peer` (tests/peers/CMakeLists.txt).
//
//   node client.mjs /path/to/runwatch-sim    starts `runwatch-sim --mcp` (twice: the default
//                                            session-bound store and --mcp-session-free) (ctest)
//   node client.mjs --url http://HOST:PORT/mcp [--session-free-url URL]
//                                            starts nothing: simulators already running, token in
//                                            MCP_TOKEN (default: the one ctest uses)
//
// Every check picks its behaviour with the tools and the words of their `topic` argument
// (runwatch-sim --help, "MCP"). Exit 0: every check passed; 1: a check failed or the package is
// not installed.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import assert from 'node:assert/strict';

let Client, StreamableHTTPClientTransport, StreamableHTTPError, ElicitRequestSchema, CallToolResultSchema, McpError;
try {
    ({ Client } = await import('@modelcontextprotocol/sdk/client/index.js'));
    ({ StreamableHTTPClientTransport, StreamableHTTPError } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js'));
    ({ ElicitRequestSchema, CallToolResultSchema, McpError } = await import('@modelcontextprotocol/sdk/types.js'));
} catch (error) {
    // A peer that is missing is a failure, not a skip: CI must never pass without the real client.
    console.log(`FAIL: @modelcontextprotocol/sdk is not installed (run scripts/setup-test-peers.sh): ${error.message}`);
    process.exit(1);
}

const args = process.argv.slice(2);
if (args.length === 0 || (args[0] === '--url' && !args[1])) {
    console.error('usage: node client.mjs RUNWATCH_SIM | --url MCP_URL [--session-free-url MCP_URL]');
    process.exit(2);
}
const TOKEN = args[0] === '--url' ? (process.env.MCP_TOKEN ?? 'peer-mcp-token') : 'peer-mcp-token';
const FAST = 'interval_ms=5 poll_ms=20';

// Starts the simulator on a free loopback port and resolves with its MCP endpoint.
function startSimulator(simPath, extra = []) {
    const child = spawn(simPath, ['--mcp', '--port', '0', '--key', TOKEN, '--interval-ms', '5', ...extra],
                        { stdio: ['ignore', 'pipe', 'inherit'] });
    const url = new Promise((resolve, reject) => {
        const lines = createInterface({ input: child.stdout });
        lines.on('line', (line) => {
            const match = /listening on (\S+)/.exec(line);
            if (match)
                resolve(match[1]);
        });
        child.on('exit', (code) => reject(new Error(`runwatch-sim exited early (${code})`)));
    });
    return { child, url };
}

// The simulator's text: piece i is "tok<i>" + one of "", "é", "日本", "🎉" + " " (mcpsimoptions.h).
const SUFFIXES = ['', 'é', '日本', '🎉'];
function expectedText(count) {
    let text = '';
    for (let i = 0; i < count; ++i)
        text += `tok${i}${SUFFIXES[i % 4]} `;
    return text;
}

function textOf(result) {
    return result.content.filter((item) => item.type === 'text').map((item) => item.text).join('');
}

// A connected client: the SDK's Client with the bearer token; `elicit` (when given) answers the
// server's elicitation/create requests and sees each one.
async function connect(url, { elicit, capabilities, sessionId } = {}) {
    const client = new Client({ name: 'runwatch-mcp-peer', version: '1.0.0' },
                              { capabilities: capabilities ?? { elicitation: { form: {}, url: {} } } });
    const seen = [];
    if (elicit) {
        client.setRequestHandler(ElicitRequestSchema, async (request) => {
            seen.push(request.params);
            return elicit(request.params);
        });
    }
    const errors = [];
    client.onerror = (error) => errors.push(error);
    const transport = new StreamableHTTPClientTransport(new URL(url), {
        sessionId, requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
    await client.connect(transport);
    await client.listTools(); // callToolStream reads taskSupport from the cached list
    return { client, transport, seen, errors };
}

// callToolStream to the end: the messages by type, and the progress the call saw.
async function runTool(client, name, toolArgs, options = {}) {
    const progress = [];
    const messages = [];
    const stream = client.experimental.tasks.callToolStream(
        { name, arguments: toolArgs }, CallToolResultSchema,
        { task: { ttl: 60000 }, onprogress: (p) => progress.push(p), timeout: 20000, ...options });
    for await (const message of stream)
        messages.push(message);
    const created = messages.find((m) => m.type === 'taskCreated');
    return { messages, progress, task: created?.task, last: messages.at(-1),
             statuses: messages.filter((m) => m.type === 'taskStatus').map((m) => m.task) };
}

async function waitStatus(client, taskId, wanted) {
    const deadline = Date.now() + 10000;
    for (;;) {
        const task = await client.experimental.tasks.getTask(taskId);
        if (wanted.includes(task.status))
            return task;
        assert.ok(Date.now() < deadline, `task ${taskId} still ${task.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
}

async function rejectsWithCode(promise, code, pattern) {
    await assert.rejects(promise, (error) => {
        assert.equal(error.code, code, error.message);
        if (pattern)
            assert.match(error.message, pattern);
        return true;
    });
}

const checks = {
    // initialize negotiates 2025-11-25, issues a session, and advertises the tasks capability.
    async handshake(url) {
        const { client, transport } = await connect(url);
        assert.ok(transport.sessionId, 'no Mcp-Session-Id');
        assert.equal(transport.protocolVersion, '2025-11-25');
        const caps = client.getServerCapabilities();
        assert.ok(caps.tasks?.requests?.tools?.call && caps.tasks.list && caps.tasks.cancel, JSON.stringify(caps));
        await client.close();
    },

    // tools/list: every tool with an object inputSchema and execution.taskSupport.
    async toolsList(url) {
        const { client } = await connect(url);
        const { tools } = await client.listTools();
        const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
        assert.deepEqual(support, { write: 'required', approve: 'required', ask: 'required', sign_in: 'required',
                                    fail: 'required', long_job: 'required', summarize: 'optional',
                                    echo: 'forbidden' });
        for (const tool of tools)
            assert.equal(tool.inputSchema.type, 'object');
        await client.close();
    },

    // A task followed to completion: the handle, polling at pollInterval, the text identical to the
    // tool's result, and the queued progress delivered on the tasks/result stream.
    async taskCompleted(url) {
        const { client } = await connect(url);
        const started = Date.now();
        const run = await runTool(client, 'write', { topic: `batteries ${FAST}`, steps: 5 });
        assert.equal(run.last.type, 'result', JSON.stringify(run.last));
        assert.equal(textOf(run.last.result), expectedText(5));
        assert.deepEqual(run.last.result.structuredContent, { topic: `batteries ${FAST}`, parts: 5 });
        assert.equal(run.task.status, 'working');
        assert.equal(run.task.pollInterval, 20);
        assert.equal(run.task.ttl, 60000);
        assert.match(run.task.taskId, /^[0-9a-f]{32}$/);
        assert.equal(run.statuses.at(-1).status, 'completed');
        assert.ok(Date.now() - started >= 20 * (run.statuses.length - 1));
        assert.deepEqual(run.progress.map((p) => [p.progress, p.total]), [[1, 5], [2, 5], [3, 5], [4, 5], [5, 5]]);
        assert.equal(run.progress[4].message, 'Writing part 5 of 5');
        await client.close();
    },

    // input_required: the SDK calls tasks/result, the elicitation arrives there once (with the
    // related-task meta), the handler accepts with typed content, the task completes.
    async elicitationAccept(url) {
        const { client, seen } = await connect(url, {
            elicit: () => ({ action: 'accept', content: { approve: true, reason: 'peer', priority: 'high', budget: 12.5 } }) });
        const run = await runTool(client, 'approve', { topic: `plan ${FAST}`, steps: 3 });
        assert.equal(run.last.type, 'result', JSON.stringify(run.last));
        assert.equal(textOf(run.last.result), `Approved (reason: peer, priority: high, budget: 12.5). ${expectedText(3)}`);
        assert.equal(seen.length, 1);
        assert.equal(seen[0].mode, 'form');
        assert.deepEqual(seen[0].requestedSchema.required, ['approve']);
        assert.deepEqual(Object.keys(seen[0].requestedSchema.properties).sort(), ['approve', 'budget', 'priority', 'reason']);
        assert.equal(seen[0]._meta['io.modelcontextprotocol/related-task'].taskId, run.task.taskId);
        assert.ok(run.statuses.some((t) => t.status === 'input_required' && /Waiting for approval/.test(t.statusMessage)));
        const task = await client.experimental.tasks.getTask(run.task.taskId);
        assert.equal(task.status, 'completed');
        await client.close();
    },

    // decline: reported to the tool, which finishes normally with its own result.
    async elicitationDecline(url) {
        const { client, seen } = await connect(url, { elicit: () => ({ action: 'decline' }) });
        const run = await runTool(client, 'approve', { topic: `plan ${FAST}` });
        assert.equal(run.last.type, 'result', JSON.stringify(run.last));
        assert.equal(textOf(run.last.result), 'Declined: nothing was written.');
        assert.equal(seen.length, 1);
        await client.close();
    },

    // A form with one string field, and a URL-mode elicitation.
    async questionAndUrl(url) {
        const { client, seen } = await connect(url, {
            elicit: (params) => (params.mode === 'url' ? { action: 'accept' }
                                                       : { action: 'accept', content: { answer: 'costs' } }) });
        const asked = await runTool(client, 'ask', { topic: `angle ${FAST}`, steps: 2 });
        assert.equal(textOf(asked.last.result), `Answer: costs. ${expectedText(2)}`);
        const signed = await runTool(client, 'sign_in', { topic: `account ${FAST}`, steps: 2 });
        assert.equal(textOf(signed.last.result), `Signed in. ${expectedText(2)}`);
        assert.equal(seen.length, 2);
        assert.equal(seen[1].mode, 'url');
        assert.match(seen[1].url, /^https:\/\//);
        assert.ok(seen[1].elicitationId);
        await client.close();
    },

    // A client that declared no elicitation: the task that asks fails, its reason in tasks/result.
    async noElicitationCapability(url) {
        const { client } = await connect(url, { capabilities: {} });
        const run = await runTool(client, 'approve', { topic: `plan ${FAST}` });
        assert.equal(run.last.type, 'error');
        const result = await client.experimental.tasks.getTaskResult(run.task.taskId, CallToolResultSchema);
        assert.equal(result.isError, true);
        assert.match(textOf(result), /Client does not support form elicitation\./);
        await client.close();
    },

    // failed: callToolStream reports "Task X failed" without the text; the text is only in
    // tasks/result, the status message is stale.
    async failedTask(url) {
        const { client } = await connect(url);
        const run = await runTool(client, 'fail', { topic: `doomed ${FAST} steps=4 fail_after=2` });
        assert.equal(run.last.type, 'error');
        assert.match(run.last.error.message, /failed/);
        const task = await client.experimental.tasks.getTask(run.task.taskId);
        assert.equal(task.status, 'failed');
        assert.equal(task.statusMessage, 'Writing part 2 of 4');
        const result = await client.experimental.tasks.getTaskResult(run.task.taskId, CallToolResultSchema);
        assert.equal(result.isError, true);
        assert.match(textOf(result), /^Simulated failure after 2 steps/);
        assert.equal(result._meta['io.modelcontextprotocol/related-task'].taskId, run.task.taskId);
        await client.close();
    },

    // Cancel: cancelled at once and confirmed by tasks/get; cancelling again and reading the result
    // are errors with the SDK's codes.
    async cancel(url) {
        const { client } = await connect(url);
        const stream = client.experimental.tasks.callToolStream(
            { name: 'long_job', arguments: { topic: `slow ${FAST}` } }, CallToolResultSchema, { task: { ttl: 60000 } });
        const first = await stream.next();
        assert.equal(first.value.type, 'taskCreated');
        const taskId = first.value.task.taskId;
        await stream.return();
        const cancelled = await client.experimental.tasks.cancelTask(taskId);
        assert.equal(cancelled.status, 'cancelled');
        assert.equal(cancelled.statusMessage, 'Client cancelled task execution.');
        assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'cancelled');
        await rejectsWithCode(client.experimental.tasks.cancelTask(taskId), -32602,
                              /Cannot cancel task in terminal status: cancelled/);
        await rejectsWithCode(client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema), -32603,
                              /has no result stored/);
        await client.close();
    },

    // tasks/list: pages of 10 with nextCursor; another session sees none of them (the SDK's
    // session-bound store), nor any one task.
    async listPagesAndSessions(url) {
        const { client } = await connect(url);
        const ids = [];
        for (let i = 0; i < 12; ++i) {
            const stream = client.experimental.tasks.callToolStream(
                { name: 'write', arguments: { topic: `page ${FAST}`, steps: 1 } }, CallToolResultSchema,
                { task: { ttl: 60000 } });
            ids.push((await stream.next()).value.task.taskId);
            await stream.return();
        }
        const first = await client.experimental.tasks.listTasks();
        assert.equal(first.tasks.length, 10);
        assert.equal(first.nextCursor, first.tasks[9].taskId);
        const second = await client.experimental.tasks.listTasks(first.nextCursor);
        assert.equal(second.nextCursor, undefined);
        assert.deepEqual([...first.tasks, ...second.tasks].map((t) => t.taskId), ids);
        await rejectsWithCode(client.experimental.tasks.listTasks('nope'), -32602, /Invalid cursor: nope/);

        const other = await connect(url);
        assert.equal((await other.client.experimental.tasks.listTasks()).tasks.length, 0);
        await rejectsWithCode(other.client.experimental.tasks.getTask(ids[0]), -32602, /Task not found/);
        await other.client.close();
        await client.close();
    },

    // Refusals: the SDK refuses a required tool without a task locally; a task call of the
    // forbidden tool gets -32602; the forbidden tool itself answers a plain call; an optional tool
    // without a task blocks and returns its result.
    async taskSupportRules(url) {
        const { client } = await connect(url);
        await rejectsWithCode(client.callTool({ name: 'write', arguments: { topic: 'x' } }), -32600,
                              /requires task-based execution/);
        const refused = await runTool(client, 'echo', { text: 'hi' });
        assert.equal(refused.last.type, 'error');
        assert.equal(refused.last.error.code, -32602);
        assert.match(refused.last.error.message, /Invalid task creation result/);
        assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })), 'hi');
        const direct = await client.callTool({ name: 'summarize', arguments: { topic: `short ${FAST}`, steps: 3 } },
                                             CallToolResultSchema, { timeout: 20000 });
        assert.equal(textOf(direct), expectedText(3));
        await client.close();
    },

    // Another process rejoins the session with the stored id (no initialize) and follows the task.
    async rejoinSession(url) {
        const { client, transport } = await connect(url);
        const stream = client.experimental.tasks.callToolStream(
            { name: 'write', arguments: { topic: `rejoin ${FAST}`, steps: 3 } }, CallToolResultSchema, { task: { ttl: 60000 } });
        const taskId = (await stream.next()).value.task.taskId;
        await stream.return();
        const again = new Client({ name: 'runwatch-mcp-peer-2', version: '1.0.0' });
        const rejoined = new StreamableHTTPClientTransport(new URL(url), {
            sessionId: transport.sessionId, requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
        await again.connect(rejoined);
        rejoined.setProtocolVersion('2025-11-25');
        await waitStatus(again, taskId, ['completed']);
        const result = await again.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
        assert.equal(textOf(result), expectedText(3));
        await again.close();
        await client.close();
    },

    // The server forgets the session (lose_session=1): the next request gets 404.
    async sessionLost(url) {
        const { client } = await connect(url);
        const stream = client.experimental.tasks.callToolStream(
            { name: 'write', arguments: { topic: `gone ${FAST} lose_session=1` } }, CallToolResultSchema,
            { task: { ttl: 60000 } });
        const taskId = (await stream.next()).value.task.taskId;
        await stream.return();
        await assert.rejects(client.experimental.tasks.getTask(taskId), (error) => {
            assert.ok(error instanceof StreamableHTTPError, String(error));
            assert.equal(error.code, 404);
            assert.match(error.message, /Session not found/);
            return true;
        });
    },

    // Faults: 503 with Retry-After reaches the client as an HTTP error; a tasks/result stream cut
    // after its first event leaves the request unanswered, and the next tasks/result (a new
    // connection) delivers the rest; CRLF line endings in 7-byte pieces parse the same.
    async faults(url) {
        const { client } = await connect(url);
        let run = await runTool(client, 'write',
                                { topic: `busy ${FAST} steps=2 http_error_status=503 http_error_count=1 http_error_on=tasks/get` });
        assert.equal(run.last.type, 'error');
        assert.match(String(run.last.error.message), /503/);
        await waitStatus(client, run.task.taskId, ['completed']);

        const stream = client.experimental.tasks.callToolStream(
            { name: 'write', arguments: { topic: `cut ${FAST} steps=3 drop_after=1 fault_connections=1` } },
            CallToolResultSchema, { task: { ttl: 60000 }, onprogress: () => {} });
        const taskId = (await stream.next()).value.task.taskId;
        await stream.return();
        await waitStatus(client, taskId, ['completed']);
        await assert.rejects(client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, { timeout: 1500 }));
        const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, { timeout: 5000 });
        assert.equal(textOf(result), expectedText(3));

        run = await runTool(client, 'write', { topic: `framing ${FAST} steps=4 line_ending=crlf split=7` });
        assert.equal(textOf(run.last.result), expectedText(4));
        await client.close();
    },

    // With the session-free store (--mcp-session-free) another session follows the task, but the
    // elicitation stays with the session that started it.
    async sessionFreeStore(_url, freeUrl) {
        const { client } = await connect(freeUrl);
        const stream = client.experimental.tasks.callToolStream(
            { name: 'write', arguments: { topic: `shared ${FAST}`, steps: 2 } }, CallToolResultSchema,
            { task: { ttl: 60000 } });
        const taskId = (await stream.next()).value.task.taskId;
        await stream.return();
        const other = await connect(freeUrl);
        await waitStatus(other.client, taskId, ['completed']);
        assert.equal(textOf(await other.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)),
                     expectedText(2));
        const listed = [];
        let cursor;
        do {
            const page = await other.client.experimental.tasks.listTasks(cursor);
            listed.push(...page.tasks.map((t) => t.taskId));
            cursor = page.nextCursor;
        } while (cursor);
        assert.ok(listed.includes(taskId));
        await other.client.close();
        await client.close();
    },
};

const sims = [];
let failed = 0;
try {
    let url;
    let freeUrl;
    if (args[0] === '--url') {
        url = args[1];
        freeUrl = args[2] === '--session-free-url' ? args[3] : undefined;
    } else {
        sims.push(startSimulator(args[0]));
        sims.push(startSimulator(args[0], ['--mcp-session-free']));
        [url, freeUrl] = await Promise.all(sims.map((s) => s.url));
    }
    for (const [name, check] of Object.entries(checks)) {
        if (name === 'sessionFreeStore' && !freeUrl) {
            failed += 1;
            console.log(`FAIL!  : ${name}: no --session-free-url given`);
            continue;
        }
        try {
            await check(url, freeUrl);
            console.log(`PASS   : ${name}`);
        } catch (error) {
            failed += 1;
            console.log(`FAIL!  : ${name}: ${error.stack ?? error}`);
        }
    }
} finally {
    for (const sim of sims)
        sim.child.kill('SIGTERM');
}
const passed = Object.keys(checks).length - failed;
console.log(`Totals: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
