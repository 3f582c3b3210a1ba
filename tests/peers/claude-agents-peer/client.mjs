// SPDX-License-Identifier: GPL-3.0-or-later
// The official `@anthropic-ai/sdk` client (1.14.0: beta.agents, beta.environments, beta.sessions
// and its events, lib/sessions/accumulate) against `runwatch-sim --claude-agents`: if the
// simulator drifted from the real Claude Managed Agents API (paths, beta and version headers, the
// key, query arrays, page cursors, event shapes, previews, errors), the vendor's own client would
// notice. ctest runs it as `claude_agents_peer` (tests/peers/CMakeLists.txt).
//
//   node client.mjs /path/to/runwatch-sim    starts `runwatch-sim --claude-agents` on a free port
//   node client.mjs --url http://HOST:PORT   starts nothing: a simulator already running, its key
//                                            in ANTHROPIC_API_KEY (default: the one ctest uses)
//
// Exit 0: every check passed; 1: a check failed or the package is not installed.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import assert from 'node:assert/strict';

let Anthropic;
let accumulate;
try {
    ({ default: Anthropic } = await import('@anthropic-ai/sdk'));
    ({ accumulateManagedAgentsEvent: accumulate } = await import('@anthropic-ai/sdk/lib/sessions/accumulate.mjs'));
} catch (error) {
    // A peer that is missing is a failure, not a skip: CI must never pass without the real client.
    console.log(`FAIL: @anthropic-ai/sdk is not installed (run scripts/setup-test-peers.sh): ${error.message}`);
    process.exit(1);
}

const args = process.argv.slice(2);
if (args.length === 0 || (args[0] === '--url' && !args[1])) {
    console.error('usage: node client.mjs RUNWATCH_SIM | --url BASE_URL');
    process.exit(2);
}

const KEY = args[0] === '--url' ? (process.env.ANTHROPIC_API_KEY ?? 'peer-claude-key') : 'peer-claude-key';
const AGENT = 'agent_011Runwatch0Research';

function startSimulator(simPath) {
    const child = spawn(simPath, ['--claude-agents', '--port', '0', '--key', KEY, '--interval-ms', '5'],
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

// The simulator's text: delta i is "tok<i>" + one of "", "é", "日本", "🎉" + " " (claudeagentssimoptions.h).
const SUFFIXES = ['', 'é', '日本', '🎉'];
function expectedText(count, prefix = '') {
    let text = prefix;
    for (let i = 0; i < count; ++i)
        text += `tok${i}${SUFFIXES[i % 4]} `;
    return text;
}

const messageText = (event) => event.content.filter((b) => b.type === 'text').map((b) => b.text).join('');

// Reads a session's stream until `stop(event)` holds: the events, the saved messages' texts, and
// what the SDK's accumulator made of the previews (each preview's last snapshot).
// `events` is the stream's iterator, read on by each call (a Stream is iterated once).
async function readUntil(events, stop) {
    const seen = { events: [], messages: [], previews: {} };
    // The accumulator's state lives with the stream: a preview may span two reads.
    let snapshot = events.snapshot;
    for (;;) {
        const { value: event, done } = await events.next();
        if (done)
            break;
        seen.events.push(event);
        snapshot = accumulate(snapshot, event);
        events.snapshot = snapshot;
        if (snapshot && (event.type === 'event_delta' || event.type === 'event_start'))
            seen.previews[snapshot.id] = messageText(snapshot);
        if (event.type === 'agent.message')
            seen.messages.push(messageText(event));
        if (stop(event))
            return seen;
    }
    throw new Error('the stream ended before the expected event');
}

const endsTurn = (event) => event.type === 'session.status_idle' && event.stop_reason?.type !== 'requires_action';
const waits = (event) => event.type === 'session.status_idle' && event.stop_reason?.type === 'requires_action';

// A session on the agent in the account's first environment, its stream opened (with previews)
// before anything is sent, as the docs ask.
async function openSession(client) {
    let environment;
    for await (const env of client.beta.environments.list())
        environment ??= env.id;
    assert.ok(environment, 'no environment');
    const session = await client.beta.sessions.create({ agent: AGENT, environment_id: environment, title: 'peer' });
    assert.equal(session.type, 'session');
    assert.equal(session.status, 'idle');
    const stream = await client.beta.sessions.events.stream(session.id, { event_deltas: ['agent.message'] });
    const events = stream[Symbol.asyncIterator]();
    opened.push(events);
    return { session, stream: events };
}

async function say(client, sessionId, text) {
    const sent = await client.beta.sessions.events.send(sessionId, {
        events: [{ type: 'user.message', content: [{ type: 'text', text }] }] });
    assert.equal(sent.data.length, 1);
    assert.ok(sent.data[0].id, 'the echo has the event id');
    return sent.data[0];
}

const checks = {
    // Every page of the agents (one agent a page).
    async agentsPaged(client) {
        const ids = [];
        for await (const agent of client.beta.agents.list({ limit: 1 }))
            ids.push(agent.id);
        assert.deepEqual(ids, [AGENT, 'agent_011Runwatch00Support']);
    },

    // One turn: previews that the SDK's accumulator folds into the saved message, usage per model
    // request, the idle that ends the turn; the event log (paged) is the stream's saved events.
    async turnStreamedAndLogged(client) {
        const { session, stream } = await openSession(client);
        const message = await say(client, session.id, 'normal deltas=6');
        const seen = await readUntil(stream, endsTurn);
        assert.deepEqual(seen.messages, [expectedText(6)]);
        const saved = seen.events.find((e) => e.type === 'agent.message');
        assert.equal(seen.previews[saved.id], expectedText(6));
        const end = seen.events.find((e) => e.type === 'span.model_request_end');
        assert.equal(end.model_usage.output_tokens, 6);
        assert.equal(seen.events.at(-1).stop_reason.type, 'end_turn');
        const logged = [];
        for await (const event of client.beta.sessions.events.list(session.id, { limit: 2 }))
            logged.push(event);
        assert.equal(logged[0].id, message.id);
        const live = seen.events.filter((e) => e.id && !e.type.startsWith('event_'));
        assert.deepEqual(logged.map((e) => e.id), live.map((e) => e.id));
        assert.ok(!logged.some((e) => e.type === 'event_delta'), 'previews never appear in the log');
    },

    // A tool to confirm: requires_action names it; a deny with its message; the turn goes on.
    async confirmationDenied(client) {
        const { session, stream } = await openSession(client);
        await say(client, session.id, 'confirm deltas=2');
        const asked = await readUntil(stream, waits);
        const use = asked.events.find((e) => e.type === 'agent.tool_use');
        assert.equal(use.evaluated_permission, 'ask');
        assert.deepEqual(asked.events.at(-1).stop_reason.event_ids, [use.id]);
        const ack = await client.beta.sessions.events.send(session.id, {
            events: [{ type: 'user.tool_confirmation', tool_use_id: use.id, result: 'deny',
                       deny_message: 'not on prod' }] });
        assert.equal(ack.data[0].type, 'user.tool_confirmation');
        const rest = await readUntil(stream, endsTurn);
        const result = rest.events.find((e) => e.type === 'agent.tool_result');
        assert.equal(result.tool_use_id, use.id);
        assert.equal(result.is_error, true);
        assert.ok(rest.messages.join('').includes('not on prod'));
    },

    async customToolResult(client) {
        const { session, stream } = await openSession(client);
        await say(client, session.id, 'custom deltas=1');
        const asked = await readUntil(stream, waits);
        const use = asked.events.find((e) => e.type === 'agent.custom_tool_use');
        assert.equal(use.name, 'lookup_order');
        await client.beta.sessions.events.send(session.id, {
            events: [{ type: 'user.custom_tool_result', custom_tool_use_id: use.id,
                       content: [{ type: 'text', text: 'delivered' }] }] });
        const rest = await readUntil(stream, endsTurn);
        assert.deepEqual(rest.messages, [`The order says: delivered. ${expectedText(1)}`]);
    },

    // A second message on the same session is its next turn.
    async secondTurn(client) {
        const { session, stream } = await openSession(client);
        await say(client, session.id, 'normal deltas=1');
        await readUntil(stream, endsTurn);
        await say(client, session.id, 'normal deltas=3');
        const second = await readUntil(stream, endsTurn);
        assert.deepEqual(second.messages, [expectedText(3)]);
    },

    // user.interrupt ends the running request without saving what it previewed.
    async interrupt(client) {
        const { session, stream } = await openSession(client);
        await say(client, session.id, 'long interval_ms=5');
        await readUntil(stream, (e) => e.type === 'event_delta');
        await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.interrupt' }] });
        const rest = await readUntil(stream, endsTurn);
        assert.deepEqual(rest.messages, []);
        assert.ok(rest.events.some((e) => e.type === 'span.model_request_end'));
        assert.equal((await client.beta.sessions.retrieve(session.id)).status, 'idle');
    },

    // Errors retried (rescheduling), then exhausted: the turn ends retries_exhausted.
    async failure(client) {
        const { session, stream } = await openSession(client);
        await say(client, session.id, 'fail deltas=2');
        const seen = await readUntil(stream, endsTurn);
        const errors = seen.events.filter((e) => e.type === 'session.error');
        assert.deepEqual(errors.map((e) => e.error.retry_status.type), ['retrying', 'exhausted']);
        assert.ok(seen.events.some((e) => e.type === 'session.status_rescheduled'));
        assert.equal(seen.events.at(-1).stop_reason.type, 'retries_exhausted');
        assert.deepEqual(seen.messages, []);
    },

    // The sessions listing over pages; retrieve; delete, then 404.
    async sessionsListedAndDeleted(client) {
        const { session } = await openSession(client);
        const ids = [];
        for await (const s of client.beta.sessions.list({ limit: 1 }))
            ids.push(s.id);
        assert.ok(ids.length >= 2 && ids.includes(session.id), ids.join(', '));
        assert.equal(ids[0], session.id, 'newest first');
        const deleted = await client.beta.sessions.delete(session.id);
        assert.equal(deleted.type, 'session_deleted');
        await assert.rejects(client.beta.sessions.retrieve(session.id), (error) => error.status === 404);
    },

    async wrongKey(_client, baseURL) {
        const other = new Anthropic({ apiKey: 'wrong-key', baseURL, maxRetries: 0 });
        await assert.rejects(other.beta.agents.list(), (error) => error.status === 401);
    },
};

// Every stream a check opened, closed after it.
const opened = [];

let sim = null;
let failed = 0;
try {
    let baseURL;
    if (args[0] === '--url') {
        baseURL = args[1];
    } else {
        sim = startSimulator(args[0]);
        baseURL = await sim.url;
    }
    const client = new Anthropic({ apiKey: KEY, baseURL, timeout: 20000 });
    for (const [name, check] of Object.entries(checks)) {
        try {
            await check(client, baseURL);
            console.log(`PASS   : ${name}`);
        } catch (error) {
            failed += 1;
            console.log(`FAIL!  : ${name}: ${error.stack ?? error}`);
        }
        for (const events of opened.splice(0))
            await events.return?.();
    }
} finally {
    sim?.child.kill('SIGTERM');
}
const passed = Object.keys(checks).length - failed;
console.log(`Totals: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
