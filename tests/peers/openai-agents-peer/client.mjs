// SPDX-License-Identifier: GPL-3.0-or-later
// The official `openai` client (7.59.0: beta.agents, beta.agents.sessions and its events, turns,
// items, and the sessions.stream helper with its tool dispatcher) against
// `runwatch-sim --openai-agents`: if the simulator drifted from the real OpenAI Agents API (paths,
// the beta header, the key, cursor pages, event shapes, required actions, errors), the vendor's
// own client would notice. ctest runs it as `openai_agents_peer` (tests/peers/CMakeLists.txt).
//
//   node client.mjs /path/to/runwatch-sim    starts `runwatch-sim --openai-agents` on a free port
//   node client.mjs --url http://HOST:PORT/v1   starts nothing: a simulator already running, its
//                                            key in OPENAI_API_KEY (default: the one ctest uses)
//
// Exit 0: every check passed; 1: a check failed or the package is not installed.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import assert from 'node:assert/strict';

let OpenAI;
try {
    ({ default: OpenAI } = await import('openai'));
} catch (error) {
    // A peer that is missing is a failure, not a skip: CI must never pass without the real client.
    console.log(`FAIL: openai is not installed (run scripts/setup-test-peers.sh): ${error.message}`);
    process.exit(1);
}

const args = process.argv.slice(2);
if (args.length === 0 || (args[0] === '--url' && !args[1])) {
    console.error('usage: node client.mjs RUNWATCH_SIM | --url BASE_URL');
    process.exit(2);
}

const KEY = args[0] === '--url' ? (process.env.OPENAI_API_KEY ?? 'peer-agents-key') : 'peer-agents-key';
const AGENT = 'agent_68e1runwatch0research';
const NONE = { type: 'none' };

function startSimulator(simPath) {
    const child = spawn(simPath, ['--openai-agents', '--port', '0', '--key', KEY, '--interval-ms', '5',
                                  '--openai-agents-page-size', '2'],
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

// The simulator's text: delta i is "tok<i>" + one of "", "é", "日本", "🎉" + " " (openaiagentssimconfig.h).
const SUFFIXES = ['', 'é', '日本', '🎉'];
function expectedText(count) {
    let text = '';
    for (let i = 0; i < count; ++i)
        text += `tok${i}${SUFFIXES[i % 4]} `;
    return text;
}

// Reads events until `stop(event)` holds; the deltas' text, the done messages' texts, the ids.
async function readUntil(events, stop, onEvent = async () => {}) {
    const seen = { events: [], deltas: '', messages: [], ids: new Set() };
    for await (const event of events) {
        assert.ok(event.event_id, `${event.type} has an event_id`);
        assert.ok(!seen.ids.has(event.event_id), `event_id ${event.event_id} is unique`);
        seen.ids.add(event.event_id);
        seen.events.push(event);
        if (event.type === 'agent.session.turn.output_text.delta')
            seen.deltas += event.delta;
        if (event.type === 'agent.session.turn.item.done' && event.item.type === 'message'
            && event.item.role === 'assistant' && event.item.phase !== 'commentary')
            seen.messages.push(event.item.content.map((c) => c.text).join(''));
        await onEvent(event);
        if (stop(event))
            break;
    }
    return seen;
}

const types = (seen) => seen.events.map((e) => e.type);

async function collect(page) {
    const all = [];
    for await (const item of page)
        all.push(item);
    return all;
}

async function main() {
    let sim;
    let baseURL;
    if (args[0] === '--url') {
        baseURL = args[1];
    } else {
        sim = startSimulator(args[0]);
        baseURL = await sim.url;
    }
    const client = new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0 });
    const agents = client.beta.agents;
    const sessions = agents.sessions;
    const checks = [];
    const check = async (name, body) => {
        await body();
        checks.push(name);
        console.log(`ok ${name}`);
    };

    try {
        await check('agents over pages', async () => {
            const listed = await collect(agents.list({ limit: 1 }));
            assert.deepEqual(listed.map((a) => a.id), [AGENT, 'agent_68e1runwatch00support']);
            assert.equal(listed[0].object, 'agent');
            assert.equal(listed[0].model, 'gpt-5.2');
        });

        let sessionId;
        await check('create streams the first turn', async () => {
            const stream = await sessions.create({ agent_id: AGENT, environment: NONE, input: 'normal deltas=6',
                                                   stream: true });
            let turnEnded = false;
            const seen = await readUntil(stream, (e) => {
                if (e.type === 'agent.session.turn.completed')
                    turnEnded = true;
                return e.type === 'agent.session.idle' && turnEnded;
            });
            assert.equal(types(seen)[0], 'agent.session.created');
            sessionId = seen.events[0].session.id;
            assert.ok(types(seen).includes('agent.session.turn.created'));
            assert.equal(seen.deltas, expectedText(6));
            assert.deepEqual(seen.messages, [expectedText(6)]);
            const completed = seen.events.find((e) => e.type === 'agent.session.turn.completed');
            assert.equal(completed.usage.output_tokens, 6);
            assert.equal(completed.turn.status, 'completed');
            assert.equal(completed.turn.subagent_id, null);
        });

        await check('turns and items: the saved history over pages', async () => {
            const turns = await collect(sessions.turns.list(sessionId, { limit: 1 }));
            assert.equal(turns.length, 1);
            assert.equal(turns[0].status, 'completed');
            const turn = await sessions.turns.retrieve(turns[0].id, { session_id: sessionId });
            assert.equal(turn.id, turns[0].id);
            const items = await collect(sessions.items.list(sessionId, { order: 'asc', limit: 1 }));
            assert.equal(items.length, 2);
            assert.equal(items[0].role, 'user');
            assert.equal(items[1].role, 'assistant');
            assert.equal(items[1].content[0].text, expectedText(6));
            const retrieved = await sessions.retrieve(sessionId);
            assert.equal(retrieved.status, 'idle');
            assert.equal(retrieved.object, 'agent.session');
        });

        await check('a function call answered by the helper\'s tool dispatcher (retried until registered)', async () => {
            const stream = sessions.stream(sessionId, {
                input: 'tool unregistered=1',
                toolHandlers: { lookup_order: async (a) => `order ${a.order_id} shipped` },
            });
            const seen = await readUntil(stream, () => false);
            assert.ok(types(seen).includes('agent.session.requires_action'));
            assert.deepEqual(seen.messages, ['The order says: order A-1001 shipped']);
            assert.equal(types(seen).at(-1), 'agent.session.idle');
        });

        await check('an MCP approval approved with an input event', async () => {
            const stream = sessions.stream(sessionId, { input: 'approve deltas=2' });
            const seen = await readUntil(stream, () => false, async (e) => {
                if (e.type !== 'agent.session.requires_action')
                    return;
                const action = e.session.required_actions[0];
                assert.equal(action.type, 'mcp_approval_request');
                assert.equal(action.request.server_label, 'github');
                await sessions.events.create(sessionId, {
                    events: [{ type: 'agent.session.input.mcp_approval_request_result', request_id: action.request_id,
                               response: { type: 'mcp_tool_call', decision: 'approve' } }],
                    'Idempotency-Key': `approve-${action.request_id}`,
                });
            });
            assert.ok(seen.messages.at(-1).startsWith('Approved. '));
            const mcp = seen.events.find((e) => e.type === 'agent.session.turn.item.done' && e.item.type === 'mcp_call');
            assert.equal(mcp.item.status, 'completed');
        });

        await check('cancel ends the turn as cancelled', async () => {
            const stream = sessions.stream(sessionId, { input: 'long interval_ms=5' });
            let sent = false;
            const seen = await readUntil(stream, () => false, async (e) => {
                if (e.type === 'agent.session.turn.output_text.delta' && !sent) {
                    sent = true;
                    await sessions.events.create(sessionId, { events: [{ type: 'agent.session.input.cancel' }] });
                }
            });
            assert.ok(types(seen).includes('agent.session.turn.cancelled'));
        });

        await check('a failed turn carries the service\'s error', async () => {
            const stream = sessions.stream(sessionId, { input: 'fail deltas=4' });
            const seen = await readUntil(stream, () => false);
            const failed = seen.events.find((e) => e.type === 'agent.session.turn.failed');
            assert.deepEqual(failed.turn.error, { code: 'server_error', message: 'The model is overloaded.' });
            assert.deepEqual(seen.messages, []);
        });

        await check('one Idempotency-Key is one message', async () => {
            const before = (await collect(sessions.turns.list(sessionId))).length;
            const events = [{ type: 'agent.session.input.message',
                              input: [{ role: 'user', content: [{ type: 'input_text', text: 'normal deltas=1' }] }] }];
            await sessions.events.create(sessionId, { events, 'Idempotency-Key': 'same-key' });
            await sessions.events.create(sessionId, { events, 'Idempotency-Key': 'same-key' });
            for (let i = 0; i < 100 && (await sessions.retrieve(sessionId)).status !== 'idle'; ++i)
                await new Promise((r) => setTimeout(r, 20));
            assert.equal((await collect(sessions.turns.list(sessionId))).length, before + 1);
        });

        let budgetSession;
        await check('budget_reached stops the session with its reason', async () => {
            const stream = await sessions.create({ agent_id: AGENT, environment: NONE, input: 'budget deltas=2',
                                                   stream: true });
            const seen = await readUntil(stream, (e) => e.type === 'agent.session.budget_reached');
            budgetSession = seen.events[0].session.id;
            const budget = seen.events.at(-1);
            assert.equal(budget.session.status, 'budget_reached');
            assert.equal(budget.session.error, 'Spend limit of $1.00 reached.');
        });

        await check('sessions over pages, by agent', async () => {
            const listed = await collect(sessions.list({ agent_id: AGENT, limit: 1 }));
            const ids = listed.map((s) => s.id);
            assert.ok(ids.includes(sessionId) && ids.includes(budgetSession));
            // Newest first by default.
            assert.equal(ids[0], budgetSession);
        });

        await check('delete refuses a running session, then deletes it cancelled', async () => {
            const running = await sessions.create({ agent_id: AGENT, environment: NONE, input: 'long interval_ms=5' });
            await assert.rejects(sessions.delete(running.id), (e) => e.status === 409);
            await sessions.events.create(running.id, { events: [{ type: 'agent.session.input.cancel' }] });
            const deleted = await sessions.delete(running.id);
            assert.deepEqual(deleted, { id: running.id, deleted: true, object: 'agent.session.deleted' });
            await assert.rejects(sessions.retrieve(running.id), (e) => e.status === 404);
        });

        await check('a wrong key is refused', async () => {
            const wrong = new OpenAI({ apiKey: 'wrong', baseURL, maxRetries: 0 });
            await assert.rejects(wrong.beta.agents.list(), (e) => e.status === 401);
        });
        console.log(`PASS: ${checks.length} checks`);
    } finally {
        sim?.child.kill();
    }
}

main().catch((error) => {
    console.log(`FAIL: ${error.stack ?? error}`);
    process.exit(1);
}).then(() => process.exit(0));
