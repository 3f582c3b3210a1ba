// SPDX-License-Identifier: GPL-3.0-or-later
// An MCP server built only from the official @modelcontextprotocol/sdk 1.32.2, laid out as the SDK's
// simpleStreamableHttp example (docs: shared/protocols/mcp-tasks.md §1): one McpServer per session,
// experimental.tasks.registerToolTask, the SDK's InMemoryTaskStore (session-bound, the default) and
// InMemoryTaskMessageQueue, StreamableHTTPServerTransport routed by Mcp-Session-Id with express.
// tst_mcp_peer starts it; its tools are deterministic so the test can compare texts:
//   write     (required)  completes after `steps` status updates with "Wrote: <text>" (+ structuredContent)
//   approve   (required)  asks for input (string, boolean and enum fields), answers with what it got
//   fail      (required)  fails with an error text only tasks/result carries
//   long      (required)  works until cancelled (re-reads its status as the SDK docs advise)
//   summarize (optional)  may run as a task or not
//   echo      (forbidden) a plain registerTool tool
//
//   node server.mjs [--port N] [--log FILE] [--poll-interval MS]
// prints "mcp-server-peer listening on http://127.0.0.1:PORT/mcp" once it listens. With --log, every
// HTTP request is appended to FILE as one JSON line {t, http, method, id, session, taskId, version}
// (t in ms since the epoch): the test reads poll times and proves what was (not) sent.
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import * as z from 'zod/v4';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTaskStore, InMemoryTaskMessageQueue } from '@modelcontextprotocol/sdk/experimental/tasks';

const arg = (name, fallback) => {
    const i = process.argv.indexOf(name);
    return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
};
const port = Number(arg('--port', '0'));
const logFile = arg('--log', '');
const pollInterval = Number(arg('--poll-interval', '500'));

const log = (entry) => {
    if (logFile) appendFileSync(logFile, JSON.stringify({ t: Date.now(), ...entry }) + '\n');
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Shared by every session, as in the SDK example; bound to the session that creates a task.
const taskStore = new InMemoryTaskStore();

async function isCancelled(taskId) {
    const task = await taskStore.getTask(taskId);
    return !task || task.status === 'cancelled';
}

function taskTool(server, name, config, work) {
    server.experimental.tasks.registerToolTask(name, config, {
        async createTask(args, extra) {
            const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 60000, pollInterval });
            // The work goes on after the reply (out of band), against the unscoped store.
            (async () => {
                try {
                    const result = await work(args, task.taskId, server);
                    if (result && !(await isCancelled(task.taskId)))
                        await taskStore.storeTaskResult(task.taskId, result.isError ? 'failed' : 'completed', result);
                } catch (error) {
                    if (!(await isCancelled(task.taskId))) {
                        await taskStore.storeTaskResult(task.taskId, 'failed', {
                            content: [{ type: 'text', text: `Error: ${error?.message ?? error}` }],
                            isError: true,
                        });
                    }
                }
            })();
            return { task };
        },
        async getTask(_args, { taskId, taskStore: scoped }) {
            return await scoped.getTask(taskId);
        },
        async getTaskResult(_args, { taskId, taskStore: scoped }) {
            return await scoped.getTaskResult(taskId);
        },
    });
}

function newServer() {
    const server = new McpServer(
        { name: 'runwatch-mcp-server-peer', version: '1.0.0' },
        {
            capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
            taskStore,
            taskMessageQueue: new InMemoryTaskMessageQueue(),
        },
    );

    taskTool(
        server,
        'write',
        {
            description: 'Writes the text after a few steps of work',
            inputSchema: {
                text: z.string().describe('What to write'),
                steps: z.number().int().min(0).max(100).default(3).describe('Steps of work'),
                delay_ms: z.number().int().min(0).max(10000).default(300).describe('Time per step'),
            },
            execution: { taskSupport: 'required' },
        },
        async ({ text, steps, delay_ms }, taskId) => {
            for (let i = 1; i <= steps; ++i) {
                await sleep(delay_ms);
                if (await isCancelled(taskId)) return null;
                await taskStore.updateTaskStatus(taskId, 'working', `step ${i} of ${steps}`);
            }
            return {
                content: [
                    { type: 'text', text: `Wrote: ${text}` },
                    { type: 'text', text: `\n(${steps} steps)` },
                ],
                structuredContent: { text, steps },
            };
        },
    );

    taskTool(
        server,
        'approve',
        {
            description: 'Asks a person before it goes on',
            inputSchema: { action: z.string().describe('What to approve') },
            execution: { taskSupport: 'required' },
        },
        async ({ action }, taskId, mcp) => {
            await sleep(100);
            await taskStore.updateTaskStatus(taskId, 'input_required', `waiting for approval of ${action}`);
            const answer = await mcp.server.elicitInput(
                {
                    mode: 'form',
                    message: `Approve ${action}?`,
                    requestedSchema: {
                        type: 'object',
                        properties: {
                            approve: { type: 'boolean', title: 'Approve', description: 'Go ahead' },
                            reason: { type: 'string', title: 'Reason', description: 'Why', minLength: 2 },
                            priority: { type: 'string', title: 'Priority', enum: ['low', 'normal', 'high'] },
                        },
                        required: ['approve'],
                    },
                },
                // The SDK's default request timeout (60 s) would fail the task a minute after asking.
                { relatedTask: { taskId }, timeout: 3600000 },
            );
            if (await isCancelled(taskId)) return null;
            await taskStore.updateTaskStatus(taskId, 'working', 'answer received');
            await sleep(100);
            let text;
            if (answer.action === 'accept') {
                const c = answer.content ?? {};
                text = `${action}: ${c.approve ? 'approved' : 'not approved'} (reason: ${c.reason ?? '-'}, priority: ${c.priority ?? '-'})`;
            } else {
                text = `${action}: ${answer.action}`;
            }
            return { content: [{ type: 'text', text }] };
        },
    );

    taskTool(
        server,
        'fail',
        {
            description: 'Fails after a moment',
            inputSchema: { why: z.string().default('disk full') },
            execution: { taskSupport: 'required' },
        },
        async ({ why }, taskId) => {
            await taskStore.updateTaskStatus(taskId, 'working', 'trying hard');
            await sleep(300);
            return { content: [{ type: 'text', text: `The tool failed: ${why}` }], isError: true };
        },
    );

    taskTool(
        server,
        'long',
        {
            description: 'Works until cancelled',
            inputSchema: {},
            execution: { taskSupport: 'required' },
        },
        async (_args, taskId) => {
            for (let i = 1; i < 100000; ++i) {
                await sleep(200);
                if (await isCancelled(taskId)) return null;
                if (i % 5 === 0) await taskStore.updateTaskStatus(taskId, 'working', `still at it (${i})`);
            }
            return { content: [{ type: 'text', text: 'done at last' }] };
        },
    );

    taskTool(
        server,
        'summarize',
        {
            description: 'Summarizes a text, as a task or not',
            inputSchema: { text: z.string() },
            execution: { taskSupport: 'optional' },
        },
        async ({ text }) => {
            await sleep(200);
            return { content: [{ type: 'text', text: `Summary: ${text.slice(0, 20)}` }] };
        },
    );

    server.registerTool(
        'echo',
        { description: 'Echoes at once (never a task)', inputSchema: { text: z.string() } },
        async ({ text }) => ({ content: [{ type: 'text', text }] }),
    );
    return server;
}

const app = createMcpExpressApp();
const sessions = new Map();

app.use((req, _res, next) => {
    const body = req.body && typeof req.body === 'object' ? req.body : {};
    log({
        http: req.method,
        method: body.method ?? (body.result || body.error ? 'response' : undefined),
        id: body.id,
        session: req.headers['mcp-session-id'],
        version: req.headers['mcp-protocol-version'],
        taskId: body.params?.taskId,
        name: body.params?.name,
        action: body.result?.action,
    });
    next();
});

app.post('/mcp', async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    try {
        const known = sessionId ? sessions.get(sessionId) : undefined;
        if (known) {
            await known.handleRequest(req, res, req.body);
            return;
        }
        if (!sessionId && isInitializeRequest(req.body)) {
            const transport = new StreamableHTTPServerTransport({
                sessionIdGenerator: () => randomUUID(),
                onsessioninitialized: (id) => sessions.set(id, transport),
            });
            transport.onclose = () => {
                if (transport.sessionId) sessions.delete(transport.sessionId);
            };
            await newServer().connect(transport);
            await transport.handleRequest(req, res, req.body);
            return;
        }
        if (sessionId) {
            res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
            return;
        }
        res.status(400).json({
            jsonrpc: '2.0',
            error: { code: -32000, message: 'Bad Request: No valid session ID provided' },
            id: null,
        });
    } catch (error) {
        console.error('mcp-server-peer:', error);
        if (!res.headersSent)
            res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
    }
});

const bySession = async (req, res) => {
    const transport = sessions.get(req.headers['mcp-session-id'] ?? '');
    if (!transport) {
        res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
        return;
    }
    await transport.handleRequest(req, res);
};
app.get('/mcp', bySession);
app.delete('/mcp', bySession);

// Test hook: forget every session (a restarted server), so that the next request gets 404.
app.post('/forget-sessions', (_req, res) => {
    sessions.clear();
    res.status(204).end();
});

const listener = app.listen(port, '127.0.0.1', () => {
    console.log(`mcp-server-peer listening on http://127.0.0.1:${listener.address().port}/mcp`);
});
