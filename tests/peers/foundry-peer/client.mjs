// SPDX-License-Identifier: GPL-3.0-or-later
// The official `@azure/ai-agents` client against `runwatch-sim --foundry`: if the simulator drifted
// from the real Agent Service (paths, query parameters, object shapes, event names, the stream's
// end), the vendor's own client would notice. ctest runs it as `foundry_peer` (tests/peers/CMakeLists.txt).
//
//   node client.mjs /path/to/runwatch-sim
//
// Exit 0: every check passed; 1: a check failed or the package is not installed.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import assert from 'node:assert/strict';

let AgentsClient;
let createPipelineRequest;
let createDefaultHttpClient;
try {
    ({ AgentsClient } = await import('@azure/ai-agents'));
    ({ createPipelineRequest, createDefaultHttpClient } = await import('@azure/core-rest-pipeline'));
} catch (error) {
    // A peer that is missing is a failure, not a skip: CI must never pass without the real client.
    console.log(`FAIL: @azure/ai-agents is not installed (run scripts/setup-test-peers.sh): ${error.message}`);
    process.exit(1);
}

const simPath = process.argv[2];
if (!simPath) {
    console.error('usage: node client.mjs RUNWATCH_SIM');
    process.exit(2);
}

const TOKEN = 'peer-test-entra-token';
const PROJECT = 'peer-project';
const AGENT = 'asst_sim_weather';

// What DefaultAzureCredential is to the client: any object with getToken. A fixed token that
// expires in an hour, so the client's token cycler asks once.
const credential = {
    getTokenCalls: 0,
    async getToken(scopes) {
        this.getTokenCalls += 1;
        this.scopes = scopes;
        return { token: TOKEN, expiresOnTimestamp: Date.now() + 3600 * 1000 };
    },
};

// The client refuses to send a Bearer token over plain http (its bearerTokenAuthenticationPolicy
// throws before sending), and the simulator serves loopback http. Swap that one policy for one that
// asks the same credential for the same scope and sets the same header; everything else in the
// pipeline (api-version, retries, deserialisation, SSE) stays the vendor's.
function allowLoopbackBearer(client) {
    client.pipeline.removePolicy({ name: 'bearerTokenAuthenticationPolicy' });
    client.pipeline.addPolicy({
        name: 'loopbackBearerPolicy',
        async sendRequest(request, next) {
            const token = await credential.getToken(['https://ai.azure.com/.default']);
            request.headers.set('Authorization', `Bearer ${token.token}`);
            return next(request);
        },
    }, { phase: 'Sign' });
}

// Starts the simulator on a free loopback port and resolves with the project endpoint.
function startSimulator(extraArgs) {
    const child = spawn(simPath, ['--foundry', '--foundry-project', PROJECT, '--port', '0', '--key', TOKEN,
                                  '--interval-ms', '5', ...extraArgs],
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

const TERMINAL = ['completed', 'failed', 'cancelled', 'expired', 'incomplete'];

async function pollUntil(client, threadId, runId, done) {
    const deadline = Date.now() + 20000;
    for (;;) {
        const run = await client.runs.get(threadId, runId);
        if (done(run))
            return run;
        assert.ok(Date.now() < deadline, `run ${runId} still ${run.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
}

const pollTerminal = (client, threadId, runId) =>
    pollUntil(client, threadId, runId, (run) => TERMINAL.includes(run.status));
const pollNeedsAction = (client, threadId, runId) =>
    pollUntil(client, threadId, runId, (run) => run.status === 'requires_action' || TERMINAL.includes(run.status));

// The text of a run as an operator reads it: every assistant message of the run, oldest first,
// every text content part. The client's list iterator is the vendor's own reading of the list.
async function runText(client, threadId, runId) {
    let text = '';
    for await (const message of client.messages.list(threadId, { runId, order: 'asc', limit: 100 })) {
        assert.equal(message.runId, runId);
        if (message.role !== 'assistant')
            continue;
        for (const part of message.content) {
            if (part.type === 'text')
                text += part.text.value;
        }
    }
    return text;
}

function startRun(client, prompt, extra = {}) {
    return client.runs.createThreadAndRun(AGENT, {
        thread: { messages: [{ role: 'user', content: prompt }] }, ...extra });
}

// Reads a stream to its end: the deltas' text, the event names, the last run object.
async function readStream(stream) {
    const seen = { text: '', events: [], run: null, thread: null };
    for await (const event of stream) {
        seen.events.push(event.event);
        if (event.event === 'thread.created')
            seen.thread = typeof event.data === 'string' ? JSON.parse(event.data) : event.data;
        if (event.event.startsWith('thread.run.') && !event.event.startsWith('thread.run.step.'))
            seen.run = event.data;
        if (event.event === 'thread.message.delta') {
            for (const part of event.data.delta.content ?? []) {
                if (part.type === 'text')
                    seen.text += part.text?.value ?? '';
            }
        }
    }
    return seen;
}

const checks = {
    // GET /assistants as the client pages it: the project's agents with name and model.
    async listAgents(client) {
        const agents = [];
        for await (const agent of client.listAgents())
            agents.push(agent);
        const byId = Object.fromEntries(agents.map((agent) => [agent.id, agent]));
        assert.equal(byId[AGENT]?.name, 'weather-agent');
        assert.equal(byId[AGENT]?.model, 'gpt-4o');
        assert.ok(byId.asst_sim_research, JSON.stringify(agents.map((agent) => agent.id)));
        const one = await client.getAgent(AGENT);
        assert.equal(one.name, 'weather-agent');
    },

    // POST /threads/runs without a stream, then poll GET …/runs/{r} to completed; the message list
    // holds the answer; usage once terminal.
    async createAndPoll(client) {
        const created = await startRun(client, 'normal deltas=6');
        assert.equal(created.assistantId, AGENT);
        assert.ok(created.threadId && created.id, JSON.stringify(created));
        assert.ok(['queued', 'in_progress'].includes(created.status), created.status);
        assert.ok(created.createdAt instanceof Date);
        const done = await pollTerminal(client, created.threadId, created.id);
        assert.equal(done.status, 'completed');
        assert.ok(done.usage?.totalTokens > 0, JSON.stringify(done.usage));
        assert.ok(done.completedAt instanceof Date);
        const text = await runText(client, created.threadId, created.id);
        assert.equal(text, 'tok0 tok1 tok2 tok3 tok4 tok5 ');
    },

    // The same create with stream:true, read by the client's own SSE reader: typed events from
    // thread.created to done, and the deltas' text equals the stored message text.
    async streamed(client) {
        const seen = await readStream(await startRun(client, 'normal deltas=9').stream());
        assert.equal(seen.events[0], 'thread.created');
        assert.ok(seen.thread?.id, 'thread.created carries the thread');
        for (const name of ['thread.run.created', 'thread.run.in_progress', 'thread.message.created',
                            'thread.message.delta', 'thread.message.completed', 'thread.run.completed'])
            assert.ok(seen.events.includes(name), `no ${name} in ${seen.events.join(' ')}`);
        assert.equal(seen.events.at(-1), 'done');
        assert.equal(seen.run?.status, 'completed');
        assert.equal(seen.run.threadId, seen.thread.id);
        const stored = await client.runs.get(seen.run.threadId, seen.run.id);
        assert.equal(stored.status, 'completed');
        assert.equal(await runText(client, seen.run.threadId, seen.run.id), seen.text);
        assert.equal(seen.text.split(' ').length - 1, 9);
    },

    // A long answer: more assistant messages than one page of the list, several content parts each.
    async longAnswerAllParts(client) {
        const created = await startRun(client, 'long messages=23 parts=3 deltas=2');
        const done = await pollTerminal(client, created.threadId, created.id);
        assert.equal(done.status, 'completed');
        let messages = 0;
        for await (const message of client.messages.list(created.threadId, { runId: created.id, order: 'asc' })) {
            if (message.role === 'assistant') {
                messages += 1;
                assert.equal(message.content.filter((part) => part.type === 'text').length, 3);
            }
        }
        // The client's iterator stops after the first page (see the protocol reference §5.7), so
        // the count is at least what one page of 20 holds; 23 when it follows has_more.
        assert.ok(messages >= 20, `${messages} assistant messages`);
    },

    // requires_action with two function calls; all outputs in one submit; the run completes and the
    // answer names both outputs.
    async submitToolOutputs(client) {
        const created = await startRun(client, 'tools deltas=3');
        const waiting = await pollNeedsAction(client, created.threadId, created.id);
        assert.equal(waiting.status, 'requires_action');
        assert.equal(waiting.requiredAction?.type, 'submit_tool_outputs');
        const calls = waiting.requiredAction.submitToolOutputs.toolCalls;
        assert.deepEqual(calls.map((call) => call.function.name), ['get_weather', 'get_time']);
        for (const call of calls) {
            assert.equal(call.type, 'function');
            assert.doesNotThrow(() => JSON.parse(call.function.arguments), call.function.arguments);
        }
        assert.ok(waiting.expiresAt instanceof Date && waiting.expiresAt > new Date(), String(waiting.expiresAt));
        const outputs = calls.map((call, i) => ({ toolCallId: call.id, output: `out${i}` }));
        const after = await client.runs.submitToolOutputs(created.threadId, created.id, outputs);
        assert.equal(after.id, created.id);
        assert.ok(['queued', 'in_progress'].includes(after.status), after.status);
        const done = await pollTerminal(client, created.threadId, created.id);
        assert.equal(done.status, 'completed');
        const text = await runText(client, created.threadId, created.id);
        assert.ok(text.startsWith(`[${calls[0].id}: out0] [${calls[1].id}: out1] `), text);
    },

    // The submit with stream:true continues the same run on the response's stream.
    async submitToolOutputsStreamed(client) {
        const first = await readStream(await startRun(client, 'tool deltas=4').stream());
        assert.equal(first.run?.status, 'requires_action');
        assert.ok(first.events.includes('thread.run.requires_action'), first.events.join(' '));
        const [call] = first.run.requiredAction.submitToolOutputs.toolCalls;
        assert.equal(call.function.name, 'get_weather');
        const second = await readStream(await client.runs.submitToolOutputs(
            first.run.threadId, first.run.id, [{ toolCallId: call.id, output: 'sunny' }]).stream());
        assert.equal(second.run?.id, first.run.id);
        assert.equal(second.run.status, 'completed');
        assert.equal(second.events.at(-1), 'done');
        const text = await runText(client, first.run.threadId, first.run.id);
        assert.equal(text, first.text + second.text);
        assert.ok(text.startsWith(`[${call.id}: sunny] `), text);
    },

    // MCP approvals: the client has no method for tool_approvals (protocol reference §5.7), so the
    // body goes to …/submit_tool_outputs through the client's own pipeline (auth, api-version).
    async mcpApproval(client, endpoint) {
        for (const approve of [true, false]) {
            const created = await startRun(client, 'approval deltas=2');
            const waiting = await pollNeedsAction(client, created.threadId, created.id);
            assert.equal(waiting.status, 'requires_action');
            assert.equal(waiting.requiredAction?.type, 'submit_tool_approval');
            const raw = await send(client, 'GET', `${endpoint}/threads/${created.threadId}/runs/${created.id}`);
            const [call] = raw.required_action.submit_tool_approval.tool_calls;
            assert.equal(call.type, 'mcp');
            assert.ok(call.name && call.server_label && typeof call.arguments === 'string', JSON.stringify(call));
            await send(client, 'POST', `${endpoint}/threads/${created.threadId}/runs/${created.id}/submit_tool_outputs`,
                       { tool_approvals: [{ tool_call_id: call.id, approve, headers: {} }] });
            const done = await pollTerminal(client, created.threadId, created.id);
            assert.equal(done.status, 'completed');
            const text = await runText(client, created.threadId, created.id);
            assert.ok(text.startsWith(`[${approve ? 'approved' : 'rejected'}: ${call.name}] `), text);
        }
    },

    // An unanswered action expires: terminal `expired`.
    async expiry(client) {
        const created = await startRun(client, 'expire expires_ms=300');
        const done = await pollTerminal(client, created.threadId, created.id);
        assert.equal(done.status, 'expired');
    },

    // Cancel: cancelling (or already cancelled) at once, then cancelled.
    async cancel(client) {
        const created = await startRun(client, 'slow interval_ms=20');
        await pollUntil(client, created.threadId, created.id, (run) => run.status === 'in_progress');
        const cancelling = await client.runs.cancel(created.threadId, created.id);
        assert.ok(['cancelling', 'cancelled'].includes(cancelling.status), cancelling.status);
        const done = await pollTerminal(client, created.threadId, created.id);
        assert.equal(done.status, 'cancelled');
        assert.ok(done.cancelledAt instanceof Date, String(done.cancelledAt));
    },

    // A failed run carries last_error with code and message.
    async failed(client) {
        const created = await startRun(client, 'fail deltas=4');
        const done = await pollTerminal(client, created.threadId, created.id);
        assert.equal(done.status, 'failed');
        assert.equal(done.lastError?.code, 'server_error');
        assert.ok(done.lastError?.message, JSON.stringify(done.lastError));
    },

    // The service's errors reach the client as RestError with the status and the body's code.
    async errors(client) {
        await assert.rejects(client.runs.get('thread_nope', 'run_nope'), (error) => {
            assert.equal(error.statusCode, 404);
            return true;
        });
    },
};

let httpClient;
async function send(client, method, url, body) {
    httpClient ??= createDefaultHttpClient();
    const request = createPipelineRequest({ url, method, allowInsecureConnection: true });
    if (body !== undefined) {
        request.headers.set('Content-Type', 'application/json');
        request.body = JSON.stringify(body);
    }
    const response = await client.pipeline.sendRequest(httpClient, request);
    assert.ok(response.status >= 200 && response.status < 300, `${method} ${url}: ${response.status} ${response.bodyAsText}`);
    return JSON.parse(response.bodyAsText);
}

const { child, url } = startSimulator([]);
let failures = 0;
try {
    const endpoint = await url;
    // No apiVersion option: the client's default ("v1") must be accepted, as by the service.
    const client = new AgentsClient(endpoint, credential, { allowInsecureConnection: true,
                                                            retryOptions: { maxRetries: 0 } });
    allowLoopbackBearer(client);
    // A client on a dated GA version, as Runwatch's connections default to.
    const dated = new AgentsClient(endpoint, credential, { apiVersion: '2025-05-01', allowInsecureConnection: true,
                                                           retryOptions: { maxRetries: 0 } });
    allowLoopbackBearer(dated);
    for (const [name, check] of Object.entries(checks)) {
        try {
            await check(name === 'createAndPoll' ? dated : client, endpoint);
            console.log(`PASS ${name}`);
        } catch (error) {
            failures += 1;
            console.log(`FAIL ${name}: ${error.stack ?? error}`);
        }
    }
    assert.ok(credential.getTokenCalls > 0, 'the credential was never asked');
    assert.deepEqual(credential.scopes, ['https://ai.azure.com/.default']);
} catch (error) {
    failures += 1;
    console.log(`FAIL setup: ${error.stack ?? error}`);
} finally {
    child.kill('SIGTERM');
}
const total = Object.keys(checks).length;
console.log(`${total - failures} passed, ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
