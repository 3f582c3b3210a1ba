// SPDX-License-Identifier: GPL-3.0-or-later
// The official SDK client (@modelcontextprotocol/sdk 1.32.2) starts a task of server.mjs's `write`
// tool and leaves it running, for tst_mcp_peer's attach: prints one JSON line {session, taskId}.
// The session is left open (never DELETEd): with the SDK's default task store the task is visible
// only on it.
//   node sdk-start.mjs URL TEXT
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';

const [url, text] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url));
const client = new Client({ name: 'sdk-start', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
await client.connect(transport);
const created = await client.request(
    { method: 'tools/call', params: { name: 'write', arguments: { text, steps: 4, delay_ms: 400 }, task: { ttl: 600000 } } },
    CreateTaskResultSchema,
);
const task = await client.experimental.tasks.getTask(created.task.taskId);
console.log(JSON.stringify({ session: transport.sessionId, taskId: created.task.taskId, status: task.status }));
// Leave without terminating the session.
process.exit(0);
