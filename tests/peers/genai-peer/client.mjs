// SPDX-License-Identifier: GPL-3.0-or-later
// The official `@google/genai` client (its `interactions` resource) against `runwatch-sim --gemini`:
// if the simulator drifted from the real Interactions API (paths, version, query parameters,
// headers, event and resource shapes, the stream's end, error bodies), the vendor's own client
// would notice. ctest runs it as `genai_peer` (tests/peers/CMakeLists.txt).
//
//   node client.mjs /path/to/runwatch-sim    starts `runwatch-sim --gemini` on a free port (ctest)
//   node client.mjs --url http://HOST:PORT   starts nothing: a simulator already running, its key
//                                            in GEMINI_API_KEY (default: the one ctest uses)
//
// Every check picks its behaviour with words of the input text (runwatch-sim --help, "Gemini"), so
// a simulator started with its defaults serves them all. Exit 0: every check passed; 1: a check
// failed or the package is not installed.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import assert from 'node:assert/strict';

let GoogleGenAI;
try {
    ({ GoogleGenAI } = await import('@google/genai'));
} catch (error) {
    // A peer that is missing is a failure, not a skip: CI must never pass without the real client.
    console.log(`FAIL: @google/genai is not installed (run scripts/setup-test-peers.sh): ${error.message}`);
    process.exit(1);
}

const args = process.argv.slice(2);
if (args.length === 0 || (args[0] === '--url' && !args[1])) {
    console.error('usage: node client.mjs RUNWATCH_SIM | --url BASE_URL');
    process.exit(2);
}

const KEY = args[0] === '--url' ? (process.env.GEMINI_API_KEY ?? 'peer-gemini-key') : 'peer-gemini-key';
const MODEL = 'gemini-3-flash-preview';
const AGENT = 'deep-research-pro-preview-12-2025';

// Starts the simulator on a free loopback port and resolves with its base URL.
function startSimulator(simPath) {
    const child = spawn(simPath, ['--gemini', '--port', '0', '--key', KEY, '--interval-ms', '5'],
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

// The simulator's text: delta i is "tok<i>" + one of "", "é", "日本", "🎉" + " " (geminisimoptions.h).
const SUFFIXES = ['', 'é', '日本', '🎉'];
function expectedText(count, prefix = '') {
    let text = prefix;
    for (let i = 0; i < count; ++i)
        text += `tok${i}${SUFFIXES[i % 4]} `;
    return text;
}

// Reads a stream of events (flattened by the client: each is the `data` JSON, event_type inside)
// into what a client of ours keeps: the id, the text, the last event id, the terminal interaction,
// and an error event. A connection lost mid-stream ends the reading without a throw: `dropped`.
async function readStream(stream, into = {}) {
    const state = Object.assign({ id: null, text: '', lastEventId: undefined, terminal: null, error: null,
                                  dropped: false, events: [], steps: {} }, into);
    state.error = null;
    state.terminal = null;
    state.dropped = false;
    try {
        for await (const event of stream) {
            state.events.push(event);
            if (event.event_id)
                state.lastEventId = event.event_id;
            switch (event.event_type) {
            case 'interaction.created':
                state.id = event.interaction.id;
                break;
            case 'step.start':
                state.steps[event.index] = { ...event.step, args: '' };
                break;
            case 'step.delta':
                if (event.delta.type === 'text')
                    state.text += event.delta.text;
                if (event.delta.type === 'arguments_delta')
                    state.steps[event.index].args += event.delta.arguments;
                break;
            case 'interaction.completed':
                state.terminal = event.interaction;
                break;
            case 'error':
                state.error = event.error;
                break;
            }
        }
    } catch (error) {
        state.dropped = true;
        state.dropError = error;
    }
    return state;
}

// Follows an interaction to its end: resumes by last_event_id after every cut or drop, as a
// client must (protocol §2.5). Without an id yet, the resume replays from the start.
async function follow(ai, state) {
    for (let attempt = 0; !state.terminal; ++attempt) {
        assert.ok(attempt < 50, `no end after ${attempt} resumes`);
        if (state.error && state.error.code !== 'gateway_timeout')
            break;
        const params = { stream: true };
        if (state.lastEventId)
            params.last_event_id = state.lastEventId;
        state = await readStream(await ai.interactions.get(state.id, params), state);
    }
    return state;
}

async function waitTerminal(ai, id) {
    const deadline = Date.now() + 20000;
    for (;;) {
        const interaction = await ai.interactions.get(id);
        if (!['queued', 'in_progress'].includes(interaction.status))
            return interaction;
        assert.ok(Date.now() < deadline, `interaction ${id} still ${interaction.status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
}

async function rejectsWith(promise, status, what) {
    await assert.rejects(promise, (error) => {
        assert.equal(error.status ?? error.statusCode, status, `${what}: ${error.message}`);
        return true;
    });
}

const checks = {
    // Background + stream: the lifecycle events, event ids on the deltas only, [DONE] ends the
    // iteration; the stored interaction (GET) has the input first and the same text.
    async streamedBackground(ai) {
        const state = await readStream(await ai.interactions.create({
            model: MODEL, input: 'normal deltas=12', background: true, stream: true }));
        assert.ok(state.id, 'no interaction.created');
        assert.equal(state.terminal?.status, 'completed');
        assert.ok(state.terminal.usage?.total_tokens > 0, 'no usage');
        assert.equal(state.text, expectedText(12));
        const types = state.events.map((e) => e.event_type);
        assert.deepEqual(types.slice(0, 2), ['interaction.created', 'interaction.status_update']);
        assert.equal(types.at(-1), 'interaction.completed');
        for (const event of state.events)
            assert.equal(Boolean(event.event_id), event.event_type === 'step.delta', JSON.stringify(event));
        const ids = state.events.filter((e) => e.event_id).map((e) => e.event_id);
        assert.equal(new Set(ids).size, ids.length, 'event ids repeat');
        const stored = await ai.interactions.get(state.id);
        assert.equal(stored.status, 'completed');
        assert.equal(stored.steps[0].type, 'user_input');
        assert.equal(stored.output_text, state.text); // the client's own reading of the steps
        const withInput = await ai.interactions.get(state.id, { include_input: true });
        assert.equal(withInput.input, 'normal deltas=12');
    },

    // Leave the stream part-way, resume with GET ?stream=true&last_event_id=E: no gap, no repeat
    // of a delta.
    async resumeByLastEventId(ai) {
        const stream = await ai.interactions.create({
            model: MODEL, input: 'normal deltas=20 interval_ms=10', background: true, stream: true });
        let state = { id: null, text: '', lastEventId: undefined, events: [], steps: {} };
        for await (const event of stream) {
            if (event.event_type === 'interaction.created')
                state.id = event.interaction.id;
            if (event.event_type === 'step.delta' && event.delta.type === 'text')
                state.text += event.delta.text;
            if (event.event_id)
                state.lastEventId = event.event_id;
            if (state.text.length > 12)
                break; // leaves the loop: the client aborts the HTTP request
        }
        state = await follow(ai, state);
        assert.equal(state.terminal.status, 'completed');
        assert.equal(state.text, expectedText(20));
        assert.equal((await ai.interactions.get(state.id)).output_text, state.text);
    },

    // The service cuts long streams with an error event gateway_timeout and [DONE]; the
    // interaction goes on, and resuming after each cut rebuilds the whole text.
    async gatewayTimeoutCuts(ai) {
        let state = await readStream(await ai.interactions.create({
            model: MODEL, input: 'long deltas=30 cut_after=7 interval_ms=2', background: true, stream: true }));
        assert.equal(state.error?.code, 'gateway_timeout');
        assert.equal(state.terminal, null);
        let cuts = 1;
        while (!state.terminal) {
            state = await readStream(await ai.interactions.get(state.id, {
                stream: true, last_event_id: state.lastEventId }), state);
            cuts += state.error?.code === 'gateway_timeout' ? 1 : 0;
        }
        assert.ok(cuts >= 4, `${cuts} cuts`);
        assert.equal(state.terminal.status, 'completed');
        assert.equal(state.text, expectedText(30));
    },

    // A connection lost after every event boundary in turn: the resume gives the same text.
    async dropAtEveryBoundary(ai) {
        // 12 events: created, status update, the thought (start, signature, stop), the output
        // (start, 3 deltas, stop), completed, [DONE]. Without the first one there is no id to resume.
        for (let k = 1; k < 12; ++k) {
            let state = await readStream(await ai.interactions.create({
                model: MODEL, input: `normal deltas=3 drop_after=${k} fault_connections=1`,
                background: true, stream: true }));
            assert.ok(state.dropped || state.terminal, `drop_after=${k}: the stream neither dropped nor ended`);
            state = await follow(ai, state);
            assert.equal(state.text, expectedText(3), `drop_after=${k}`);
            assert.equal(state.terminal.status, 'completed');
        }
    },

    // CRLF line endings and events written in 7-byte pieces: the client's SSE reader joins them.
    async crlfAndSplitFraming(ai) {
        const state = await readStream(await ai.interactions.create({
            model: MODEL, input: 'think deltas=6 line_ending=crlf split=7', background: true, stream: true }));
        assert.equal(state.terminal?.status, 'completed');
        assert.equal(state.text, expectedText(6));
        const stored = await ai.interactions.get(state.id);
        assert.deepEqual(stored.steps.map((s) => s.type),
                         ['user_input', 'thought', 'google_search_call', 'google_search_result', 'model_output']);
        assert.equal(stored.steps[1].summary.length, 2);
    },

    // Background without streaming: at once in_progress with no steps, then polled to the end.
    async polledBackground(ai) {
        const created = await ai.interactions.create({
            model: MODEL, input: 'normal deltas=10 interval_ms=10', background: true });
        assert.equal(created.status, 'in_progress');
        assert.deepEqual(created.steps, []);
        const done = await waitTerminal(ai, created.id);
        assert.equal(done.status, 'completed');
        assert.equal(done.output_text, expectedText(10));
    },

    // Neither background nor stream: the call waits and returns the model's steps only.
    async unary(ai) {
        const done = await ai.interactions.create({ model: MODEL, input: 'normal deltas=4' });
        assert.equal(done.status, 'completed');
        assert.notEqual(done.steps[0].type, 'user_input');
        assert.equal(done.output_text, expectedText(4));
    },

    // Streamed without background: the client's automatic continuation is on (it would re-create
    // the interaction on requires_continuation); the stream ends completed all the same.
    async streamedForeground(ai) {
        const state = await readStream(await ai.interactions.create({
            model: MODEL, input: 'normal deltas=5', stream: true }));
        assert.equal(state.terminal?.status, 'completed');
        assert.equal(state.text, expectedText(5));
    },

    // Cancel while streaming: the reply says cancelled, and the open stream ends with
    // interaction.completed status cancelled. A finished interaction cannot be cancelled.
    async cancel(ai) {
        const stream = await ai.interactions.create({
            model: MODEL, input: 'long deltas=500 interval_ms=20', background: true, stream: true });
        let id = null;
        let cancelled = null;
        let terminal = null;
        for await (const event of stream) {
            if (event.event_type === 'interaction.created')
                id = event.interaction.id;
            if (event.event_type === 'step.delta' && event.delta.type === 'text' && !cancelled)
                cancelled = await ai.interactions.cancel(id);
            if (event.event_type === 'interaction.completed')
                terminal = event.interaction;
        }
        assert.equal(cancelled.status, 'cancelled');
        assert.equal(terminal?.status, 'cancelled');
        assert.equal((await ai.interactions.get(id)).status, 'cancelled');
        await rejectsWith(ai.interactions.cancel(id), 400, 'cancel of a cancelled interaction');
    },

    // Delete: gone on the server afterwards.
    async deleteInteraction(ai) {
        const done = await ai.interactions.create({ model: MODEL, input: 'normal deltas=2' });
        await ai.interactions.delete(done.id);
        await rejectsWith(ai.interactions.get(done.id), 404, 'get after delete');
    },

    // Function calls end requires_action; the answer is a new interaction linked by
    // previous_interaction_id whose input is one function_result per call.
    async functionCallContinuation(ai) {
        const tools = [{ type: 'function', name: 'get_weather', description: 'Weather of a city',
                         parameters: { type: 'object', properties: { city: { type: 'string' } } } },
                       { type: 'function', name: 'get_time', description: 'Time in a zone',
                         parameters: { type: 'object', properties: { zone: { type: 'string' } } } }];
        const first = await readStream(await ai.interactions.create({
            model: MODEL, input: 'tool_call calls=2 deltas=2', tools, background: true, stream: true }));
        assert.equal(first.terminal?.status, 'requires_action');
        const calls = Object.values(first.steps).filter((s) => s.type === 'function_call');
        assert.deepEqual(calls.map((c) => c.name), ['get_weather', 'get_time']);
        for (const call of calls)
            assert.ok(JSON.parse(call.args), `arguments of ${call.name}: ${call.args}`);
        const stored = await ai.interactions.get(first.id);
        assert.equal(stored.status, 'requires_action');
        assert.deepEqual(stored.steps.filter((s) => s.type === 'function_call').map((s) => s.arguments),
                         calls.map((c) => JSON.parse(c.args)));

        // One answer short: refused.
        await rejectsWith(ai.interactions.create({
            model: MODEL, previous_interaction_id: first.id, tools,
            input: [{ type: 'function_result', call_id: calls[0].id, name: calls[0].name, result: '18 C' }] }),
                          400, 'a continuation leaving a call unanswered');

        const results = [
            { type: 'function_result', call_id: calls[0].id, name: calls[0].name, result: '18 C' },
            { type: 'function_result', call_id: calls[1].id, name: calls[1].name,
              result: [{ type: 'text', text: '10:00' }] },
        ];
        const next = await readStream(await ai.interactions.create({
            model: MODEL, previous_interaction_id: first.id, input: results, tools, background: true, stream: true }));
        assert.notEqual(next.id, first.id);
        assert.equal(next.terminal?.status, 'completed');
        assert.equal(next.text, expectedText(2, `[${calls[0].id}: 18 C] [${calls[1].id}: 10:00] `));
        const answered = await ai.interactions.get(next.id);
        assert.equal(answered.previous_interaction_id, first.id);
        assert.deepEqual(answered.steps.slice(0, 2).map((s) => s.type), ['function_result', 'function_result']);

        // A text follow-up by previous_interaction_id is a new turn.
        const followUp = await ai.interactions.create({
            model: MODEL, previous_interaction_id: next.id, input: 'And tomorrow? deltas=3' });
        assert.equal(followUp.output_text, expectedText(3));
    },

    // A Deep Research agent: background required, thoughts with summaries, searches, the report.
    async deepResearchAgent(ai) {
        await rejectsWith(ai.interactions.create({ agent: AGENT, input: 'Research batteries.' }), 400,
                          'an agent without background');
        let state = await readStream(await ai.interactions.create({
            agent: AGENT, input: 'Research battery recycling. deltas=8 cut_after=3',
            agent_config: { type: 'deep-research', thinking_summaries: 'auto' }, background: true, stream: true }));
        assert.equal(state.events[0].interaction.agent, AGENT);
        state = await follow(ai, state);
        assert.equal(state.terminal.status, 'completed');
        assert.equal(state.text, expectedText(8));
        const stored = await ai.interactions.get(state.id);
        assert.equal(stored.agent, AGENT);
        assert.deepEqual(stored.steps.map((s) => s.type),
                         ['user_input', 'thought', 'google_search_call', 'google_search_result', 'model_output',
                          'thought', 'model_output']);
        assert.ok(stored.steps[1].summary.every((part) => part.type === 'text' && part.text));
        assert.equal(stored.output_text, state.text);
    },

    // A failure: an error event, then interaction.completed failed; the stored one has errors.
    async failure(ai) {
        const state = await readStream(await ai.interactions.create({
            model: MODEL, input: 'fail deltas=6', background: true, stream: true }));
        assert.equal(state.error?.code, 'internal');
        assert.equal(state.terminal?.status, 'failed');
        const stored = await ai.interactions.get(state.id);
        assert.equal(stored.status, 'failed');
        assert.equal(stored.errors[0].message, state.error.message);
    },

    // 429 with Retry-After: 1 on a GET: the client waits and retries by itself.
    async rateLimitRetried(ai) {
        const created = await ai.interactions.create({
            model: MODEL, background: true,
            input: 'normal deltas=2 http_error_status=429 http_error_count=1 http_error_on=get retry_after=1' });
        const started = Date.now();
        const done = await ai.interactions.get(created.id);
        assert.ok(Date.now() - started >= 900, `retried after ${Date.now() - started} ms`);
        assert.ok(['in_progress', 'completed'].includes(done.status));
    },

    // The models list the connector offers in New Run.
    async modelsList(ai) {
        const names = [];
        for await (const model of await ai.models.list())
            names.push(model.name);
        assert.ok(names.includes(`models/${MODEL}`), names.join(', '));
    },

    // A wrong key: 400 INVALID_ARGUMENT, not retried.
    async wrongKey(_ai, baseUrl) {
        const other = new GoogleGenAI({ apiKey: 'wrong-key', httpOptions: { baseUrl } });
        await rejectsWith(other.interactions.get('v1_nothing'), 400, 'a wrong key');
    },
};

let sim = null;
let failed = 0;
try {
    let baseUrl;
    if (args[0] === '--url') {
        baseUrl = args[1];
    } else {
        sim = startSimulator(args[0]);
        baseUrl = await sim.url;
    }
    // httpOptions.baseUrl is where the client sends everything; it adds /v1 (its default version).
    const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl, timeout: 20000 } });
    for (const [name, check] of Object.entries(checks)) {
        try {
            await check(ai, baseUrl);
            console.log(`PASS   : ${name}`);
        } catch (error) {
            failed += 1;
            console.log(`FAIL!  : ${name}: ${error.stack ?? error}`);
        }
    }
} finally {
    sim?.child.kill('SIGTERM');
}
const passed = Object.keys(checks).length - failed;
console.log(`Totals: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
