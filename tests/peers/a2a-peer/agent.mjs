// SPDX-License-Identifier: GPL-3.0-or-later
// A tiny A2A agent on the official @a2a-js/sdk server (JSON-RPC + HTTP+JSON), for tst_a2a_peer.
//
//   node agent.mjs [--port N] [--legacy] [--key K] [--no-streaming]
//
// Prints "a2a-peer listening on http://127.0.0.1:PORT" once it accepts connections, then serves
// until killed. What a task does is chosen by the first word of the user's text:
//   chunks N [ms]  N artifact chunks "chunk<i> " (append after the first, lastChunk on the last),
//                  one every `ms` milliseconds (default 20), then completed
//   ask            asks "Which city?" (input required); the answer continues the same task with
//                  two chunks "Weather in <answer>: " + "sunny." and completes
//   slow N [ms]    like chunks, but meant to be cancelled (checks for cancellation between chunks)
//   fail           one chunk, then failed with a status message
//   message        answers with a plain Message (no task)
//   recall         one chunk "Earlier in this context: <t1> | <t2> …" with the user texts of the
//                  context's earlier tasks (multi-turn: a new task in the same contextId), completed
//   listen N [ms]  like chunks, and while it works it takes further messages with its taskId (the
//                  SDK hands each to execute() again, on the task's own event bus): each is folded
//                  into the answer as the chunk "[noted: <text>] " before the next one
// --legacy enables the SDK's v0.3 compatibility layer (card, JSON-RPC and REST).
// --key K requires the header "X-API-Key: K" on the A2A endpoints; the card says so.
import express from 'express';
import { randomUUID } from 'node:crypto';
import {
    AgentCard, Artifact, Message, Part, Task, TaskState, Role,
} from '@a2a-js/sdk';
import {
    AgentEvent, DefaultRequestHandler, InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import {
    agentCardHandler, jsonRpcHandler, restHandler, UserBuilder,
} from '@a2a-js/sdk/server/express';

const args = process.argv.slice(2);
const option = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const port = Number(option('--port', '0'));
const legacy = args.includes('--legacy');
const apiKey = option('--key', '');
const streaming = !args.includes('--no-streaming');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => new Date().toISOString();
const textPart = (text) => Part.fromJSON({ text, mediaType: 'text/plain' });

function agentMessage(taskId, contextId, text) {
    return Message.fromJSON({
        messageId: randomUUID(), taskId, contextId, role: 'ROLE_AGENT',
        parts: [{ text, mediaType: 'text/plain' }],
    });
}

function status(taskId, contextId, state, text) {
    return AgentEvent.statusUpdate({
        taskId, contextId, metadata: undefined,
        status: {
            state, timestamp: now(),
            message: text === undefined ? undefined : agentMessage(taskId, contextId, text),
        },
    });
}

function chunk(taskId, contextId, text, append, lastChunk) {
    return AgentEvent.artifactUpdate({
        taskId, contextId, append, lastChunk, metadata: undefined,
        artifact: Artifact.fromJSON({
            artifactId: 'result-1', name: 'result.txt', parts: [{ text, mediaType: 'text/plain' }],
        }),
    });
}

function userText(message) {
    return (message?.parts ?? [])
        .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
        .join('');
}

class PeerExecutor {
    constructor() {
        this.cancelled = new Set();
        this.running = new Set();
        this.contexts = new Map(); // contextId -> the user texts of its tasks' first messages
        this.notes = new Map();    // taskId of a working `listen` task -> messages not yet folded in
        this.ended = new Map();    // taskId of a working `listen` task -> promise of its loop's end
    }

    async execute(ctx, bus) {
        const { taskId, contextId } = ctx;
        const words = userText(ctx.userMessage).trim().split(/\s+/);
        const verb = (words[0] ?? '').toLowerCase();

        if (verb === 'message' && !ctx.task) {
            bus.publish(AgentEvent.message(Message.fromJSON({
                messageId: randomUUID(), contextId, role: 'ROLE_AGENT',
                parts: [{ text: 'Hello from the peer.' }],
            })));
            bus.finished();
            return;
        }

        // A message to a working `listen` task: the SDK has appended it to the task's history and
        // calls us again on the task's own bus, where the stream that follows the task already
        // had its Task (a second one breaks it: "Stream ordering violation"). A WORKING status
        // acknowledges it (and answers the sender with the task); the running loop folds the
        // message in and ends the task as usual.
        if (ctx.task && this.notes.has(taskId)) {
            const note = userText(ctx.userMessage).trim();
            this.notes.get(taskId).push(note);
            bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING, `Noted: ${note}`));
            // The SDK finishes the bus when an execute() returns in a working state: this one
            // returns when the task's own loop has ended it.
            await this.ended.get(taskId);
            return;
        }

        // Every turn publishes a task first (the SDK requires it); a follow-up turn republishes
        // the stored one, as the SDK's samples do.
        const task = ctx.task ?? Task.fromJSON({
            id: taskId, contextId,
            status: { state: 'TASK_STATE_SUBMITTED', timestamp: now() },
            history: [Message.toJSON(ctx.userMessage)],
        });
        bus.publish(AgentEvent.task(task));

        if (ctx.task && ctx.task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
            const answer = userText(ctx.userMessage).trim();
            bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING, 'Looking it up...'));
            await sleep(20);
            bus.publish(chunk(taskId, contextId, `Weather in ${answer}: `, false, false));
            await sleep(20);
            bus.publish(chunk(taskId, contextId, 'sunny.', true, true));
            bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
            bus.finished();
            return;
        }

        // A new task's prompt is a turn of its conversation (answers to questions are not).
        const earlier = this.contexts.get(contextId) ?? [];
        this.contexts.set(contextId, [...earlier, userText(ctx.userMessage).trim()]);

        bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING, 'Working...'));
        if (verb === 'recall') {
            bus.publish(chunk(taskId, contextId, `Earlier in this context: ${earlier.join(' | ')}`, false, true));
            bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
            bus.finished();
            return;
        }
        if (verb === 'ask') {
            bus.publish(status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, 'Which city?'));
            bus.finished();
            return;
        }
        if (verb === 'fail') {
            bus.publish(chunk(taskId, contextId, 'partial ', false, false));
            bus.publish(status(taskId, contextId, TaskState.TASK_STATE_FAILED, 'The peer failed on purpose.'));
            bus.finished();
            return;
        }
        const count = Math.max(1, Number(words[1] ?? 5) || 5);
        const interval = Math.max(0, Number(words[2] ?? 20) || 0);
        this.running.add(taskId);
        let endLoop = () => {};
        if (verb === 'listen') {
            this.notes.set(taskId, []);
            this.ended.set(taskId, new Promise((resolve) => { endLoop = resolve; }));
        }
        try {
            for (let i = 0; i < count; ++i) {
                await sleep(interval);
                if (this.cancelled.has(taskId)) {
                    bus.publish(status(taskId, contextId, TaskState.TASK_STATE_CANCELED));
                    bus.finished();
                    return;
                }
                for (const note of this.notes.get(taskId)?.splice(0) ?? [])
                    bus.publish(chunk(taskId, contextId, `[noted: ${note}] `, i > 0, false));
                bus.publish(chunk(taskId, contextId, `chunk${i} `, i > 0, i === count - 1));
            }
            bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
            bus.finished();
        } finally {
            this.running.delete(taskId);
            this.notes.delete(taskId);
            this.ended.delete(taskId);
            endLoop();
        }
    }

    async cancelTask(taskId, bus) {
        this.cancelled.add(taskId);
        // A task that is not looping (e.g. waiting for input) is cancelled here; a looping one
        // publishes its own CANCELED status at its next check. Without this the SDK waits for a
        // terminal event forever.
        if (!this.running.has(taskId)) {
            bus.publish(status(taskId, '', TaskState.TASK_STATE_CANCELED));
            bus.finished();
        }
    }
}

let baseUrl = '';
function card() {
    const interfaces = [
        { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
        { url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
    ];
    if (legacy) {
        interfaces.push({ url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' });
        interfaces.push({ url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3', tenant: '' });
    }
    const json = {
        name: 'Runwatch Peer',
        description: 'Test agent for Runwatch on @a2a-js/sdk',
        supportedInterfaces: interfaces,
        version: '1.0.0',
        capabilities: { streaming, pushNotifications: false },
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [{ id: 'chunks', name: 'Chunked output', description: 'Streams artifact chunks', tags: ['test'] },
                 { id: 'ask', name: 'Ask', description: 'Asks a question first', tags: ['test'] }],
    };
    if (apiKey) {
        json.securitySchemes = { key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } } };
        json.securityRequirements = [{ schemes: { key: { list: [] } } }];
    }
    return AgentCard.fromJSON(json);
}

const executor = new PeerExecutor();
const handler = new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor);
// The card must carry the real port, known only after listen(): serve a fresh one each time.
handler.getAgentCard = async () => card();

const app = express();
const compat = legacy ? { enabled: true } : undefined;
app.use('/.well-known/agent-card.json',
    agentCardHandler({ agentCardProvider: async () => card(), legacyCompat: compat }));
if (apiKey) {
    app.use('/a2a', (req, res, next) => {
        if (req.get('x-api-key') !== apiKey) {
            res.status(401).json({ error: 'missing or wrong X-API-Key' });
            return;
        }
        next();
    });
}
app.use('/a2a/jsonrpc', jsonRpcHandler({
    requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: compat,
}));
app.use('/a2a/rest', restHandler({
    requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: compat,
}));

const server = app.listen(port, '127.0.0.1', () => {
    baseUrl = `http://127.0.0.1:${server.address().port}`;
    process.stdout.write(`a2a-peer listening on ${baseUrl}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
void Role;
