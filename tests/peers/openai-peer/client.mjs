// SPDX-License-Identifier: GPL-3.0-or-later
// The official `openai` npm client against runwatch-sim: if the simulator drifted from the real
// Responses API (paths, event shapes, background semantics, errors), the vendor's own client would
// notice. ctest runs it as `openai_peer` (see tests/peers/CMakeLists.txt).
//
//   node client.mjs /path/to/runwatch-sim
//
// Exit 0: every check passed; 1: a check failed or the openai package is not installed.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import assert from 'node:assert/strict';

let OpenAI;
try {
    ({ default: OpenAI } = await import('openai'));
} catch (error) {
    // A peer that is missing is a failure, not a skip: CI must never pass without the real client.
    console.log(`FAIL: the openai package is not installed (run scripts/setup-test-peers.sh): ${error.message}`);
    process.exit(1);
}

const simPath = process.argv[2];
if (!simPath) {
    console.error('usage: node client.mjs RUNWATCH_SIM');
    process.exit(2);
}

const KEY = 'sk-peer-test-key';

// Starts the simulator on a free loopback port and resolves with its base URL.
function startSimulator(extraArgs) {
    const child = spawn(simPath, ['--port', '0', '--key', KEY, '--interval-ms', '5', ...extraArgs],
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

function textOf(response) {
    // The SDK's own convenience: it concatenates every output_text part of every message item.
    return response.output_text;
}

async function waitTerminal(client, id) {
    const deadline = Date.now() + 20000;
    for (;;) {
        const response = await client.responses.retrieve(id);
        if (!['queued', 'in_progress'].includes(response.status))
            return response;
        assert.ok(Date.now() < deadline, `response ${id} still ${response.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
}

const checks = {
    // Background + stream: events carry increasing sequence numbers; the text of the deltas equals
    // the stored response's output_text.
    async streamedBackground(client) {
        const stream = await client.responses.create({
            model: 'runwatch-sim-1', input: 'normal deltas=12', background: true, stream: true });
        let id = null;
        let text = '';
        let last = -1;
        let terminal = null;
        for await (const event of stream) {
            assert.ok(event.sequence_number > last, `sequence ${event.sequence_number} after ${last}`);
            last = event.sequence_number;
            if (event.type === 'response.created')
                id = event.response.id;
            if (event.type === 'response.output_text.delta')
                text += event.delta;
            if (event.type === 'response.completed')
                terminal = event.response;
        }
        assert.ok(id, 'no response.created');
        assert.equal(terminal?.status, 'completed');
        const stored = await client.responses.retrieve(id);
        assert.equal(stored.status, 'completed');
        assert.equal(stored.background, true);
        assert.equal(textOf(stored), text);
    },

    // Drop the stream part-way, resume with GET ?stream=true&starting_after=N: no gap, no duplicate.
    async resumeWithStartingAfter(client) {
        const stream = await client.responses.create({
            model: 'runwatch-sim-1', input: 'normal deltas=20 interval_ms=10', background: true, stream: true });
        let id = null;
        let text = '';
        let last = -1;
        for await (const event of stream) {
            last = event.sequence_number;
            if (event.type === 'response.created')
                id = event.response.id;
            if (event.type === 'response.output_text.delta')
                text += event.delta;
            if (text.length > 0 && last >= 6)
                break; // leaves the loop: the SDK aborts the HTTP request
        }
        const resumed = await client.responses.retrieve(id, { stream: true, starting_after: last });
        for await (const event of resumed) {
            assert.ok(event.sequence_number > last, `replayed ${event.sequence_number} after ${last}`);
            last = event.sequence_number;
            if (event.type === 'response.output_text.delta')
                text += event.delta;
        }
        const stored = await waitTerminal(client, id);
        assert.equal(stored.status, 'completed');
        assert.equal(textOf(stored), text);
    },

    // Background without streaming: 200 with status queued, then poll to completion.
    async polledBackground(client) {
        const created = await client.responses.create({
            model: 'runwatch-sim-1', input: 'normal deltas=5', background: true });
        assert.ok(['queued', 'in_progress'].includes(created.status), created.status);
        const done = await waitTerminal(client, created.id);
        assert.equal(done.status, 'completed');
        assert.ok(textOf(done).length > 0);
    },

    // Cancel a running background response; cancelling again is harmless.
    async cancel(client) {
        const created = await client.responses.create({
            model: 'runwatch-sim-1', input: 'long interval_ms=20', background: true });
        const cancelled = await client.responses.cancel(created.id);
        assert.ok(['cancelled', 'in_progress', 'queued'].includes(cancelled.status), cancelled.status);
        const final = await waitTerminal(client, created.id);
        assert.equal(final.status, 'cancelled');
    },

    // A failed run carries an error object.
    async failedRun(client) {
        const created = await client.responses.create({
            model: 'runwatch-sim-1', input: 'fail', background: true });
        const final = await waitTerminal(client, created.id);
        assert.equal(final.status, 'failed');
        assert.ok(final.error?.code && final.error?.message, JSON.stringify(final.error));
    },

    // Delete, then the response is gone (404 as the SDK's NotFoundError).
    async deleteThenNotFound(client) {
        const created = await client.responses.create({
            model: 'runwatch-sim-1', input: 'normal deltas=2', background: true });
        await waitTerminal(client, created.id);
        await client.responses.delete(created.id);
        await assert.rejects(client.responses.retrieve(created.id), OpenAI.NotFoundError);
    },

    // Human in the loop (protocol §1.8): a background response completes on two function calls;
    // the next response names it in previous_response_id and carries one function_call_output
    // per call; it completes, and the chain is readable (previous_response_id, input_items).
    async functionCallChain(client) {
        const created = await client.responses.create({
            model: 'runwatch-sim-1', input: 'tool_call calls=2 deltas=3', background: true });
        const first = await waitTerminal(client, created.id);
        assert.equal(first.status, 'completed');
        const calls = first.output.filter((item) => item.type === 'function_call');
        assert.equal(calls.length, 2);
        for (const call of calls) {
            assert.ok(call.call_id && call.name, JSON.stringify(call));
            assert.equal(typeof JSON.parse(call.arguments), 'object');
        }
        assert.equal(textOf(first), '');
        // An answer that leaves a call out is refused, as by the real API.
        await assert.rejects(client.responses.create({
            model: 'runwatch-sim-1', previous_response_id: first.id, background: true,
            input: [{ type: 'function_call_output', call_id: calls[0].call_id, output: 'sunny' }] }),
                             OpenAI.BadRequestError);
        const next = await client.responses.create({
            model: 'runwatch-sim-1', previous_response_id: first.id, background: true, store: true,
            input: calls.map((call, i) => ({ type: 'function_call_output', call_id: call.call_id,
                                             output: `out${i}` })) });
        assert.equal(next.previous_response_id, first.id);
        assert.notEqual(next.id, first.id);
        const done = await waitTerminal(client, next.id);
        assert.equal(done.status, 'completed');
        assert.equal(textOf(done),
                     `[${calls[0].call_id}: out0] [${calls[1].call_id}: out1] tok0 tok1 tok2 `);
        const items = await client.responses.inputItems.list(next.id);
        const outputs = items.data.filter((item) => item.type === 'function_call_output');
        assert.deepEqual(outputs.map((item) => item.call_id).sort(), calls.map((c) => c.call_id).sort());
    },

    // An MCP approval request, answered with mcp_approval_response in the next response.
    async mcpApprovalChain(client) {
        const created = await client.responses.create({
            model: 'runwatch-sim-1', input: 'mcp_approval deltas=1', background: true, stream: true });
        let first = null;
        for await (const event of created) {
            if (event.type === 'response.completed')
                first = event.response;
        }
        const request = first.output.find((item) => item.type === 'mcp_approval_request');
        assert.ok(request?.id && request.name && request.server_label, JSON.stringify(first.output));
        const next = await client.responses.create({
            model: 'runwatch-sim-1', previous_response_id: first.id, background: true,
            input: [{ type: 'mcp_approval_response', approval_request_id: request.id, approve: false }] });
        const done = await waitTerminal(client, next.id);
        assert.equal(textOf(done), `[rejected: ${request.name}] tok0 `);
    },

    // A wrong key is a 401 the SDK maps to AuthenticationError.
    async wrongKey(_client, baseURL) {
        const other = new OpenAI({ apiKey: 'sk-wrong', baseURL, maxRetries: 0 });
        await assert.rejects(other.responses.retrieve('resp_x'), OpenAI.AuthenticationError);
    },
};

const sim = startSimulator([]);
let failed = 0;
try {
    const baseURL = await sim.url;
    const client = new OpenAI({ apiKey: KEY, baseURL, maxRetries: 2, timeout: 20000 });
    for (const [name, check] of Object.entries(checks)) {
        try {
            await check(client, baseURL);
            console.log(`PASS   : ${name}`);
        } catch (error) {
            failed += 1;
            console.log(`FAIL!  : ${name}: ${error.stack ?? error}`);
        }
    }
} finally {
    sim.child.kill('SIGTERM');
}
const passed = Object.keys(checks).length - failed;
console.log(`Totals: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
