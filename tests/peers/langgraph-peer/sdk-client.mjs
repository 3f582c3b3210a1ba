// SPDX-License-Identifier: GPL-3.0-or-later
// The official @langchain/langgraph-sdk Client against `runwatch-sim --langgraph`: if the simulator
// drifted from the real Agent Server (paths, shapes, statuses, the resumable stream), the vendor's
// own client would notice. ctest runs it as `langgraph_sdk_peer` (tests/peers/CMakeLists.txt).
//
//   node sdk-client.mjs /path/to/runwatch-sim
//
// Prints one PASS/FAIL line per check and a closing "N passed, N failed" line. Exit 0: every check
// passed; 1: a check failed or the package is not installed.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { isDeepStrictEqual } from 'node:util';

let Client;
try {
    ({ Client } = await import('@langchain/langgraph-sdk'));
} catch (error) {
    // A peer that is missing is a failure, not a skip: CI must never pass without the real client.
    console.log(`FAIL: @langchain/langgraph-sdk is not installed (run scripts/setup-test-peers.sh): ${error.message}`);
    process.exit(1);
}

const simPath = process.argv[2];
if (!simPath) {
    console.error('usage: node sdk-client.mjs RUNWATCH_SIM');
    process.exit(2);
}

const MODES = ['messages-tuple', 'updates', 'custom', 'values'];
const TERMINAL = new Set(['success', 'error', 'interrupted', 'timeout']);
const HITL_REQUEST = {
    action_requests: [
        { name: 'send_email', args: { to: 'ops@example.com', subject: 'Report' }, description: 'Send the report' },
        { name: 'delete_file', args: { path: '/tmp/x' }, description: 'Remove the draft' },
    ],
    review_configs: [
        { action_name: 'send_email', allowed_decisions: ['approve', 'edit', 'reject'] },
        { action_name: 'delete_file', allowed_decisions: ['approve', 'reject'] },
    ],
};
let passed = 0;
let failed = 0;

function check(name, ok, detail = '') {
    if (ok) {
        ++passed;
        console.log(`PASS ${name}`);
    } else {
        ++failed;
        console.log(`FAIL ${name}${detail ? `: ${detail}` : ''}`);
    }
    return ok;
}
const show = (value) => JSON.stringify(value);

// ---- the simulator -----------------------------------------------------------------------------
const child = spawn(simPath, ['--langgraph', '--port', '0', '--interval-ms', '5'],
                    { stdio: ['ignore', 'pipe', 'inherit'] });
const childExit = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
const baseUrl = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no "listening" line within 20 s')), 20000);
    createInterface({ input: child.stdout }).on('line', (line) => {
        const match = /listening on (\S+)/.exec(line);
        if (match) {
            clearTimeout(timer);
            resolve(match[1].replace(/\/$/, ''));
        }
    });
    child.on('exit', (code) => reject(new Error(`runwatch-sim exited early (${code})`)));
}).catch((error) => {
    console.log(`FAIL simulator start: ${error.message}`);
    child.kill('SIGTERM');
    process.exit(1);
});

const client = new Client({ apiUrl: baseUrl });

// ---- helpers -----------------------------------------------------------------------------------
async function http(method, pathname, body) {
    const started = performance.now();
    const response = await fetch(baseUrl + pathname, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let json;
    try { json = JSON.parse(text); } catch { json = undefined; }
    return { status: response.status, headers: response.headers, text, json, ms: performance.now() - started };
}

const input = (text) => ({ input: { messages: [{ role: 'user', content: text }] } });
const startRun = (threadId, graph, payload) =>
    client.runs.create(threadId, graph, { streamMode: MODES, streamResumable: true, ...payload });

// Follows a run from its first event (Last-Event-ID -1), rejoining from the last id after every
// close (the server sends no end event) until the run is terminal and a join brings nothing new.
async function follow(threadId, runId, onEvent) {
    const events = [];
    let lastId = '-1';
    for (let joins = 0; joins < 50; ++joins) {
        let fresh = 0;
        for await (const part of client.runs.joinStream(threadId, runId, { lastEventId: lastId })) {
            events.push(part);
            if (part.id !== undefined) lastId = part.id;
            ++fresh;
            await onEvent?.(part, events);
        }
        const run = await client.runs.get(threadId, runId);
        if (TERMINAL.has(run.status) && fresh === 0) return events;
    }
    throw new Error('the run did not settle within 50 joins');
}

async function replay(threadId, runId, lastEventId) {
    const events = [];
    for await (const part of client.runs.joinStream(threadId, runId, { lastEventId })) events.push(part);
    return events;
}

const tokensOf = (events) => events.filter((e) => e.event === 'messages').map((e) => e.data[0]);
const textOf = (events) => tokensOf(events).map((chunk) => chunk.content).join('');
function lastAiText(state) {
    const ai = (state.values?.messages ?? []).filter((m) => m.type === 'ai');
    return ai.length ? ai[ai.length - 1].content : undefined;
}
const sameEvents = (a, b) => isDeepStrictEqual(a.map((e) => [e.id, e.event, e.data]), b.map((e) => [e.id, e.event, e.data]));
const pendingInterrupts = (thread) => Object.values(thread.interrupts ?? {}).flat();

async function checkText(label, threadId, events, expected) {
    const tokens = tokensOf(events);
    check(`${label}: messages-tuple chunks are type "ai" with one message id`,
        tokens.length > 0 && tokens.every((t) => t.type === 'ai') && new Set(tokens.map((t) => t.id)).size === 1,
        show(tokens.map((t) => [t.type, t.id])));
    check(`${label}: joined tokens are the expected text`, textOf(events) === expected, show(textOf(events)));
    const state = await client.threads.getState(threadId);
    check(`${label}: joined tokens equal the last AI message of the thread state`,
        lastAiText(state) === textOf(events), show(lastAiText(state)));
}

async function section(name, fn) {
    try {
        await fn();
    } catch (error) {
        check(name, false, error?.stack ?? String(error));
    }
}

// ---- meta --------------------------------------------------------------------------------------
await section('meta', async () => {
    const ok = await http('GET', '/ok');
    check('GET /ok', ok.status === 200 && ok.json?.ok === true, ok.text);
    const info = await http('GET', '/info');
    check('GET /info: version 1.5.1-sim, context js', info.json?.version === '1.5.1-sim' && info.json?.context === 'js',
        info.text);
    const assistants = await client.assistants.search({ limit: 100 });
    const graphs = assistants.map((a) => a.graph_id).sort();
    check('assistants.search: one system assistant per graph',
        isDeepStrictEqual(graphs, ['approval', 'echo', 'fail', 'question', 'slow']), show(graphs));
    const echo = assistants.find((a) => a.graph_id === 'echo');
    check('assistants.search: echo has the real server\'s assistant id',
        echo?.assistant_id === '046b5dc7-2108-582c-9c6c-31d556d138f0', show(echo));
    const page = await client.assistants.search({ limit: 2, offset: 4 });
    check('assistants.search: limit/offset', page.length === 1, show(page));
    const byId = await client.assistants.get(echo.assistant_id);
    check('assistants.get by id', byId.graph_id === 'echo', show(byId));
});

// ---- echo: create, resumable join, state, replay -----------------------------------------------
await section('echo', async () => {
    const thread = await client.threads.create();
    check('echo: threads.create gives an idle thread', thread.status === 'idle', show(thread));
    const run = await startRun(thread.thread_id, 'echo', input('hi'));
    check('echo: runs.create gives a pending resumable run',
        run.status === 'pending' && run.kwargs?.resumable === true, show(run));
    const events = await follow(thread.thread_id, run.run_id);
    check('echo: ids are 0,1,2… in order', events.every((e, i) => e.id === String(i)), show(events.map((e) => e.id)));
    check('echo: event 0 is metadata with the run id',
        events[0]?.event === 'metadata' && events[0].data?.run_id === run.run_id, show(events[0]));
    check('echo: one custom event {"phase":"drafting"}',
        isDeepStrictEqual(events.filter((e) => e.event === 'custom').map((e) => e.data), [{ phase: 'drafting' }]));
    check('echo: no error or end event', !events.some((e) => e.event === 'error' || e.event === 'end'));
    await checkText('echo', thread.thread_id, events, 'Echo: hi w1é w2日本 w3🎉 w4 w5é');
    const done = await client.runs.get(thread.thread_id, run.run_id);
    check('echo: run status success', done.status === 'success', done.status);
    const t = await client.threads.get(thread.thread_id);
    check('echo: thread idle with values', t.status === 'idle' && t.values?.messages?.length === 2, show(t));

    const again = await replay(thread.thread_id, run.run_id, '-1');
    check('echo: lastEventId "-1" after the end replays every event', sameEvents(again, events),
        `${again.length} vs ${events.length}`);
    const tail = await replay(thread.thread_id, run.run_id, '3');
    check('echo: lastEventId "3" replays from 4, no gap, no repeat', sameEvents(tail, events.slice(4)),
        show(tail.map((e) => e.id)));
    const none = await replay(thread.thread_id, run.run_id, '');
    check('echo: a join without Last-Event-ID on a finished run brings nothing', none.length === 0, `${none.length}`);
    const runs = await client.runs.list(thread.thread_id);
    check('echo: runs.list has the run', runs.length === 1 && runs[0].run_id === run.run_id, show(runs));
});

// ---- approval: interrupt found by search, resumed with command.resume ---------------------------
await section('approval', async () => {
    const thread = await client.threads.create({ metadata: { purpose: 'peer' } });
    const run = await startRun(thread.thread_id, 'approval', input('send the report'));
    const events = await follow(thread.thread_id, run.run_id);
    await checkText('approval plan', thread.thread_id, events,
        'Plan: email the report to ops@example.com, then delete the draft /tmp/x.');
    const r = await client.runs.get(thread.thread_id, run.run_id);
    check('approval: the run that stops at interrupt() ends "success"', r.status === 'success', r.status);
    const found = await client.threads.search({ status: 'interrupted', limit: 100 });
    const mine = found.find((x) => x.thread_id === thread.thread_id);
    check('approval: threads.search({status: "interrupted"}) finds the thread', mine !== undefined,
        show(found.map((x) => [x.thread_id, x.status])));
    const pending = pendingInterrupts(mine ?? {});
    check('approval: thread.interrupts holds the human-in-the-loop request',
        pending.length === 1 && isDeepStrictEqual(pending[0].value, HITL_REQUEST) && /^[0-9a-f]{32}$/.test(pending[0].id),
        show(mine?.interrupts));
    const state = await client.threads.getState(thread.thread_id);
    check('approval: state.next is ["review"] and tasks[0].interrupts holds the request',
        isDeepStrictEqual(state.next, ['review']) && isDeepStrictEqual(state.tasks?.[0]?.interrupts?.[0]?.value, HITL_REQUEST),
        show(state.tasks));
    const streamed = events.filter((e) => e.event === 'updates' && e.data?.__interrupt__);
    check('approval: an updates event carries __interrupt__ with the same id',
        streamed.length === 1 && streamed[0].data.__interrupt__[0].id === pending[0]?.id, show(streamed));

    const resume = { decisions: [{ type: 'approve' }, { type: 'reject', message: 'not now' }] };
    const run2 = await startRun(thread.thread_id, 'approval', { command: { resume } });
    const events2 = await follow(thread.thread_id, run2.run_id);
    await checkText('approval resume', thread.thread_id, events2,
        'send_email: approved; delete_file: rejected (reason: not now)');
    const t2 = await client.threads.get(thread.thread_id);
    check('approval resume: thread idle, three messages', t2.status === 'idle' && t2.values?.messages?.length === 3,
        show(t2.status));
});

// ---- question: plain value and interrupt-id map ------------------------------------------------
await section('question', async () => {
    for (const byId of [false, true]) {
        const label = byId ? 'question (resume by interrupt id)' : 'question (plain resume value)';
        const thread = await client.threads.create();
        const run = await startRun(thread.thread_id, 'question', input('weather?'));
        const events = await follow(thread.thread_id, run.run_id);
        check(`${label}: no tokens before the interrupt`, tokensOf(events).length === 0);
        const t = await client.threads.get(thread.thread_id);
        const pending = pendingInterrupts(t);
        check(`${label}: thread interrupted with "What city?"`,
            t.status === 'interrupted' && pending.length === 1 && pending[0].value === 'What city?', show(t.interrupts));
        const city = byId ? 'Oslo' : 'Paris';
        const value = byId ? { [pending[0].id]: city } : city;
        const run2 = await startRun(thread.thread_id, 'question', { command: { resume: value } });
        const events2 = await follow(thread.thread_id, run2.run_id);
        await checkText(label, thread.thread_id, events2, `Weather for ${city}: sunny`);
        const t2 = await client.threads.get(thread.thread_id);
        check(`${label}: thread idle afterwards`, t2.status === 'idle', t2.status);
    }
});

// ---- slow: busy thread, 422, cancel ------------------------------------------------------------
await section('cancel', async () => {
    const thread = await client.threads.create();
    const run = await startRun(thread.thread_id, 'slow', input('go slowly'));
    let seen;
    const events = await follow(thread.thread_id, run.run_id, async (part, all) => {
        if (seen || tokensOf(all).length < 5) return;
        seen = {};
        seen.thread = await client.threads.get(thread.thread_id);
        seen.runStatus = (await client.runs.get(thread.thread_id, run.run_id)).status;
        const second = await http('POST', `/threads/${thread.thread_id}/runs`,
            { assistant_id: 'slow', ...input('x'), stream_resumable: true });
        seen.second = [second.status, second.text];
        const started = performance.now();
        await client.runs.cancel(thread.thread_id, run.run_id);
        seen.cancelMs = performance.now() - started;
        seen.statusAfter = (await client.runs.get(thread.thread_id, run.run_id)).status;
    });
    check('cancel: thread busy, without values, while the run executes',
        seen?.thread?.status === 'busy' && !('values' in (seen?.thread ?? {})), show(seen?.thread));
    check('cancel: run reads "running" while executing', seen?.runStatus === 'running', show(seen?.runStatus));
    check('cancel: a second run on the busy thread gets 422', seen?.second?.[0] === 422
        && seen.second[1].startsWith('Thread is already running a task.'), show(seen?.second));
    check('cancel: runs.cancel returns and the run reads "interrupted"', seen?.statusAfter === 'interrupted',
        show(seen));
    const tokens = tokensOf(events).length;
    check('cancel: the stream stopped early', tokens >= 5 && tokens < 300, `${tokens}`);
    check('cancel: no error event after the cancel', !events.some((e) => e.event === 'error'));
    const t = await client.threads.get(thread.thread_id);
    check('cancel: thread idle after the cancel', t.status === 'idle', t.status);

    // Without `wait` the server answers 202 at once.
    const run2 = await startRun(thread.thread_id, 'slow', input('again'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const raw = await http('POST', `/threads/${thread.thread_id}/runs/${run2.run_id}/cancel?action=interrupt`);
    check('cancel: POST …/cancel?action=interrupt answers 202 at once', raw.status === 202 && raw.ms < 400,
        `${raw.status} after ${raw.ms.toFixed(0)} ms`);
    const r2 = await client.runs.get(thread.thread_id, run2.run_id);
    check('cancel: the run reads "interrupted" straight away', r2.status === 'interrupted', r2.status);
});

// ---- fail --------------------------------------------------------------------------------------
await section('fail', async () => {
    const thread = await client.threads.create();
    const run = await startRun(thread.thread_id, 'fail', input('x'));
    const events = await follow(thread.thread_id, run.run_id);
    check('fail: tokens streamed before the error', textOf(events) === 'Working on it, then failing', show(textOf(events)));
    const errors = events.filter((e) => e.event === 'error');
    check('fail: one error event with the message, and it is the last event', errors.length === 1
        && isDeepStrictEqual(errors[0].data, { error: 'Error', message: 'graph exploded on purpose' })
        && events[events.length - 1] === errors[0], show(errors));
    const r = await client.runs.get(thread.thread_id, run.run_id);
    check('fail: run status error', r.status === 'error', r.status);
    const t = await client.threads.get(thread.thread_id);
    check('fail: thread status error, its task listed without interrupts',
        t.status === 'error' && isDeepStrictEqual(Object.values(t.interrupts ?? {}), [[]]), show(t));
    const state = await client.threads.getState(thread.thread_id);
    const error = state.tasks?.[0]?.error;
    let parsed;
    try { parsed = JSON.parse(error); } catch { parsed = undefined; }
    check('fail: state.tasks[0].error is a JSON-encoded {"message","name"}',
        typeof error === 'string' && parsed?.message === 'graph exploded on purpose' && parsed?.name === 'Error',
        show(state.tasks));
});

// ---- done --------------------------------------------------------------------------------------
child.kill('SIGTERM');
const { code, signal } = await childExit;
check('runwatch-sim exits cleanly on SIGTERM', code === 0, `code ${code} signal ${signal}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
