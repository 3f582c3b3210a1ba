// SPDX-License-Identifier: GPL-3.0-or-later
// The official `@azure/ai-projects` 2.x client, and the `openai` client its getOpenAIClient()
// returns, against `runwatch-sim --openai --foundry-project`: if the simulator drifted from a
// Foundry project's agents protocol (the agents listing, conversations, agent_reference, background
// streams and their resume, cancel, the one-turn-at-a-time lock), the vendor's own clients would
// notice. ctest runs it as `ai_projects_peer` (tests/peers/CMakeLists.txt).
//
//   node client.mjs /path/to/runwatch-sim
//
// Exit 0: every check passed; 1: a check failed or the packages are not installed.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import assert from 'node:assert/strict';

let AIProjectClient;
let OpenAI;
try {
    ({ AIProjectClient } = await import('@azure/ai-projects'));
    ({ default: OpenAI } = await import('openai'));
} catch (error) {
    // A peer that is missing is a failure, not a skip: CI must never pass without the real client.
    console.log(`FAIL: @azure/ai-projects is not installed (run scripts/setup-test-peers.sh): ${error.message}`);
    process.exit(1);
}

const simPath = process.argv[2];
if (!simPath) {
    console.error('usage: node client.mjs RUNWATCH_SIM');
    process.exit(2);
}

const TOKEN = 'peer-test-entra-token';
const PROJECT = 'peer-project';
const SCOPE = 'https://ai.azure.com/.default';

// What DefaultAzureCredential is to the client: the TokenCredential interface, an object with
// getToken. A fixed token that expires in an hour. This is the client's own input, not a stand-in
// for the service.
const credential = {
    getTokenCalls: 0,
    scopes: new Set(),
    async getToken(scopes) {
        this.getTokenCalls += 1;
        for (const scope of [scopes].flat())
            this.scopes.add(scope);
        return { token: TOKEN, expiresOnTimestamp: Date.now() + 3600 * 1000 };
    },
};

// The project client's Azure pipelines refuse to send a bearer token over plain http (their
// bearerTokenAuthenticationPolicy throws before sending, whatever allowInsecureConnection says),
// and the simulator serves loopback http. Swap that one policy, in both of the client's pipelines
// (the client keeps them in private fields: the version is pinned), for one that asks the same
// credential for the same scope and sets the same header. Everything else (api-version, paging,
// retries, deserialisation) stays the vendor's. The openai client getOpenAIClient() returns has
// no such rule and is used exactly as returned.
function allowLoopbackBearer(project) {
    for (const inner of [project._azureScopeClient, project._cognitiveScopeClient]) {
        assert.ok(inner?.pipeline, 'the project client no longer keeps its pipelines where 2.10.0 did');
        inner.pipeline.removePolicy({ name: 'bearerTokenAuthenticationPolicy' });
        inner.pipeline.addPolicy({
            name: 'loopbackBearerPolicy',
            async sendRequest(request, next) {
                const token = await credential.getToken([SCOPE]);
                request.headers.set('Authorization', `Bearer ${token.token}`);
                return next(request);
            },
        }, { phase: 'Sign' });
    }
}

// Starts the simulator on a free loopback port and resolves with the Foundry project endpoint.
function startSimulator(extraArgs) {
    const child = spawn(simPath, ['--openai', '--foundry-project', PROJECT, '--port', '0', '--key', TOKEN,
                                  '--interval-ms', '5',
                                  '--agent', 'name=researcher,version=3,description=Finds sources',
                                  '--agent', 'name=writer,version=1,model=runwatch-sim-2', ...extraArgs],
                        { stdio: ['ignore', 'pipe', 'inherit'] });
    const url = new Promise((resolve, reject) => {
        const lines = createInterface({ input: child.stdout });
        lines.on('line', (line) => {
            // "runwatch-sim Foundry project at <base URL> (project endpoint <URL>)"
            const match = /\(project endpoint (\S+)\)/.exec(line);
            if (match)
                resolve(match[1]);
        });
        child.on('exit', (code) => reject(new Error(`runwatch-sim exited early (${code})`)));
    });
    return { child, url };
}

const agent = (name, version) => ({ type: 'agent_reference', name, ...(version ? { version } : {}) });

async function waitUntil(openai, id, done) {
    const deadline = Date.now() + 20000;
    for (;;) {
        const response = await openai.responses.retrieve(id);
        if (done(response))
            return response;
        assert.ok(Date.now() < deadline, `response ${id} still ${response.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
}

const waitTerminal = (openai, id) =>
    waitUntil(openai, id, (response) => !['queued', 'in_progress'].includes(response.status));

// The items of a conversation, oldest first, every page: the client's own pager.
async function conversationItems(openai, conversationId) {
    const items = [];
    for await (const item of openai.conversations.items.list(conversationId, { order: 'asc', limit: 2 }))
        items.push(item);
    return items;
}

const checks = {
    // project.agents: every agent, paged by the SDK (has_more + last_id) with api-version=v1.
    async listAgents({ project }) {
        const seen = [];
        for await (const a of project.agents.list({ limit: 1 }))
            seen.push(a);
        const byName = Object.fromEntries(seen.map((a) => [a.name, a]));
        assert.deepEqual(Object.keys(byName).sort(), ['researcher', 'writer']);
        assert.equal(byName.researcher.versions.latest.version, '3');
        assert.equal(byName.researcher.versions.latest.description, 'Finds sources');
        assert.equal(byName.researcher.versions.latest.definition.kind, 'prompt');
        assert.equal(byName.writer.versions.latest.definition.model, 'runwatch-sim-2');
    },

    // conversations.create, then a background, streamed response on an agent in it: the events'
    // sequence numbers rise, the deltas' text is the stored output_text, the response echoes the
    // conversation and the version it resolved, and the conversation holds the turn's items.
    async agentStreamInConversation({ openai }) {
        const conversation = await openai.conversations.create({ metadata: { purpose: 'peer' } });
        assert.match(conversation.id, /^conv_/);
        assert.equal(conversation.metadata.purpose, 'peer');
        const stream = await openai.responses.create({
            agent_reference: agent('researcher'), conversation: conversation.id, input: 'normal deltas=12',
            background: true, stream: true });
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
        const stored = await openai.responses.retrieve(id);
        assert.equal(stored.status, 'completed');
        assert.equal(stored.background, true);
        assert.equal(stored.output_text, text);
        assert.equal(stored.conversation?.id, conversation.id);
        assert.deepEqual(stored.agent_reference, agent('researcher', '3'));
        const items = await conversationItems(openai, conversation.id);
        assert.deepEqual(items.map((item) => item.type), ['message', 'message']);
        assert.equal(items[0].role, 'user');
        assert.equal(items[1].role, 'assistant');
    },

    // Drop the stream part-way, resume with GET ?stream=true&starting_after=N: no gap, no duplicate.
    async resumeWithStartingAfter({ openai }) {
        const conversation = await openai.conversations.create();
        const stream = await openai.responses.create({
            agent_reference: agent('writer', '1'), conversation: conversation.id,
            input: 'normal deltas=20 interval_ms=10', background: true, stream: true });
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
        const resumed = await openai.responses.retrieve(id, { stream: true, starting_after: last });
        for await (const event of resumed) {
            assert.ok(event.sequence_number > last, `replayed ${event.sequence_number} after ${last}`);
            last = event.sequence_number;
            if (event.type === 'response.output_text.delta')
                text += event.delta;
        }
        const stored = await waitTerminal(openai, id);
        assert.equal(stored.status, 'completed');
        assert.equal(stored.model, 'runwatch-sim-2');
        assert.equal(stored.output_text, text);
    },

    // Background without a stream, then cancel: the response ends cancelled, and the conversation
    // takes its next turn.
    async cancel({ openai }) {
        const conversation = await openai.conversations.create();
        const created = await openai.responses.create({
            agent_reference: agent('researcher'), conversation: conversation.id, input: 'long interval_ms=20',
            background: true });
        assert.ok(['queued', 'in_progress'].includes(created.status), created.status);
        await waitUntil(openai, created.id, (response) => response.status === 'in_progress');
        const cancelled = await openai.responses.cancel(created.id);
        assert.equal(cancelled.id, created.id);
        const stored = await waitTerminal(openai, created.id);
        assert.equal(stored.status, 'cancelled');
        const next = await openai.responses.create({
            agent_reference: agent('researcher'), conversation: conversation.id, input: 'normal deltas=2',
            background: true });
        assert.equal((await waitTerminal(openai, next.id)).status, 'completed');
    },

    // One turn at a time: a second response while the first is in flight is refused with 409
    // conversation_locked (the client's ConflictError). The openai client retries a 409 twice by
    // default; this client has maxRetries 0, so the refusal is seen once and at once. After the
    // first turn ends, the same request is taken: nothing was created by the refused one.
    async conversationLocked({ noRetry }) {
        const conversation = await noRetry.conversations.create();
        const first = await noRetry.responses.create({
            agent_reference: agent('researcher'), conversation: conversation.id,
            input: 'normal deltas=40 interval_ms=20', background: true });
        const second = { agent_reference: agent('researcher'), conversation: conversation.id,
                         input: 'normal deltas=2', background: true };
        await assert.rejects(noRetry.responses.create(second), (error) => {
            assert.ok(error instanceof OpenAI.ConflictError, `${error.constructor.name}: ${error.message}`);
            assert.equal(error.status, 409);
            assert.equal(error.code, 'conversation_locked');
            assert.equal(error.param, 'conversation');
            return true;
        });
        assert.equal((await waitTerminal(noRetry, first.id)).status, 'completed');
        const taken = await noRetry.responses.create(second);
        assert.equal((await waitTerminal(noRetry, taken.id)).status, 'completed');
        const items = await conversationItems(noRetry, conversation.id);
        assert.equal(items.length, 4, `items: ${items.map((item) => item.type).join(', ')}`);
    },

    // A function call ends the response completed; its output goes in the next response of the
    // same conversation, which continues from it.
    async functionCallInConversation({ openai }) {
        const conversation = await openai.conversations.create();
        const created = await openai.responses.create({
            agent_reference: agent('researcher'), conversation: conversation.id, input: 'tool_call',
            background: true });
        const waiting = await waitTerminal(openai, created.id);
        assert.equal(waiting.status, 'completed');
        const call = waiting.output.find((item) => item.type === 'function_call');
        assert.ok(call, 'no function_call item');
        assert.equal(call.name, 'get_weather');
        const answered = await openai.responses.create({
            agent_reference: agent('researcher'), conversation: conversation.id, background: true,
            input: [{ type: 'function_call_output', call_id: call.call_id, output: '21 C' }] });
        const done = await waitTerminal(openai, answered.id);
        assert.equal(done.status, 'completed');
        assert.ok(done.output_text.startsWith(`[${call.call_id}: 21 C] `), done.output_text);
        const types = (await conversationItems(openai, conversation.id)).map((item) => item.type);
        assert.deepEqual(types, ['message', 'function_call', 'function_call_output', 'message']);
    },

    // What the service refuses, as the client raises it: the deprecated `agent` member, fields the
    // agent's definition owns, version "latest", an unknown conversation.
    async refusals({ noRetry }) {
        const refused = async (body, status, check) => {
            await assert.rejects(noRetry.responses.create({ input: 'hi', background: true, ...body }), (error) => {
                assert.equal(error.status, status, `${error.status}: ${error.message}`);
                check?.(error);
                return true;
            });
        };
        await refused({ agent: { type: 'agent_reference', name: 'researcher' } }, 400, (error) => {
            assert.equal(error.code, 'invalid_payload');
            assert.equal(error.param, 'agent');
            assert.match(error.message, /The 'agent' property is deprecated\. Use 'agent_reference' instead\./);
        });
        await refused({ agent_reference: agent('researcher'), instructions: 'Be brief.' }, 400, (error) => {
            assert.equal(error.param, 'instructions');
            assert.match(error.message, /Not allowed when agent is specified\./);
        });
        await refused({ agent_reference: agent('researcher', 'latest') }, 404,
                      (error) => assert.match(error.message, /with version latest not found/));
        await refused({ agent_reference: agent('nobody') }, 404);
        await refused({ agent_reference: agent('researcher'), conversation: 'conv_unknown' }, 404);
    },

    // Deleting a conversation, as the client does it.
    async deleteConversation({ openai }) {
        const conversation = await openai.conversations.create();
        const deleted = await openai.conversations.delete(conversation.id);
        assert.equal(deleted.deleted, true);
        await assert.rejects(openai.conversations.retrieve(conversation.id), (error) => error.status === 404);
    },
};

const { child, url } = startSimulator([]);
let failures = 0;
try {
    const endpoint = await url;
    const project = new AIProjectClient(endpoint, credential, { allowInsecureConnection: true,
                                                                retryOptions: { maxRetries: 0 } });
    allowLoopbackBearer(project);
    const openai = project.getOpenAIClient();
    assert.equal(openai.baseURL, `${endpoint}/openai/v1`);
    // The client retries a 409 twice by default (as it does 408, 429 and 5xx): for the checks that
    // look at a refusal, a client of the same project that retries nothing, so each refusal is
    // seen once and the outcome does not depend on how long the retries happen to wait.
    const noRetry = project.getOpenAIClient({ maxRetries: 0 });
    for (const [name, check] of Object.entries(checks)) {
        try {
            await check({ project, openai, noRetry });
            console.log(`PASS ${name}`);
        } catch (error) {
            failures += 1;
            console.log(`FAIL ${name}: ${error.stack ?? error}`);
        }
    }
    assert.ok(credential.getTokenCalls > 0, 'the credential was never asked');
    assert.deepEqual([...credential.scopes], [SCOPE]);
} catch (error) {
    failures += 1;
    console.log(`FAIL setup: ${error.stack ?? error}`);
} finally {
    child.kill('SIGTERM');
}
const total = Object.keys(checks).length;
console.log(`${total - failures} passed, ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
