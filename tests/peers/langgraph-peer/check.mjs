// SPDX-License-Identifier: GPL-3.0-or-later
// Self-check of the LangGraph test peer: spawns server.mjs (port 0), then drives every graph with
// the official @langchain/langgraph-sdk Client (plus raw HTTP where the wire itself matters) and
// checks the behaviour the connector relies on. Prints one PASS/FAIL line per check and a closing
// "N passed, N failed" line; exits non-zero when anything failed.
//
//   node check.mjs
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { Client } from '@langchain/langgraph-sdk';
import { HITL_REQUEST } from './graphs.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const MODES = ['messages-tuple', 'custom', 'updates', 'values'];
const TERMINAL = new Set(['success', 'error', 'interrupted', 'timeout']);
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
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- the server --------------------------------------------------------------------------------
const started = performance.now();
const server = spawn(process.execPath, [path.join(here, 'server.mjs'), '--port', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'] });
let serverErr = '';
server.stderr.on('data', (data) => { serverErr += data; });
const baseUrl = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('no "listening" line within 60 s')), 60000);
    server.stdout.on('data', (data) => {
        out += data;
        const match = /^langgraph-peer listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
        if (match) {
            clearTimeout(timer);
            resolve(match[1]);
        }
    });
    server.on('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${serverErr}`)));
}).catch((error) => {
    console.log(`FAIL server start: ${error.message}`);
    server.kill('SIGTERM');
    process.exit(1);
});
const startMs = performance.now() - started;
console.log(`INFO server listening at ${baseUrl} after ${startMs.toFixed(0)} ms`);

const client = new Client({ apiUrl: baseUrl });

// ---- helpers -----------------------------------------------------------------------------------
async function http(method, pathname, body, headers = {}) {
    const response = await fetch(baseUrl + pathname, {
        method,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let json;
    try { json = JSON.parse(text); } catch { json = undefined; }
    return { status: response.status, headers: response.headers, text, json };
}

async function startRun(threadId, graphId, payload) {
    return await client.runs.create(threadId, graphId, { streamMode: MODES, streamResumable: true, ...payload });
}

// Follows a run's stream from the first event (Last-Event-ID -1), rejoining after each close until
// the run is terminal and a join brings nothing new. Returns the events ({id, event, data}).
async function follow(threadId, runId, { onEvent } = {}) {
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

async function replay(threadId, runId, lastEventId = '-1') {
    const events = [];
    for await (const part of client.runs.joinStream(threadId, runId, { lastEventId })) events.push(part);
    return events;
}

const tokensOf = (events) => events.filter((e) => e.event === 'messages').map((e) => e.data[0]);
const contentText = (content) => (typeof content === 'string' ? content
    : Array.isArray(content) ? content.map((b) => b?.text ?? '').join('') : '');
const textOf = (events) => tokensOf(events).map((chunk) => contentText(chunk.content)).join('');
function lastAiText(state) {
    const ai = (state.values?.messages ?? []).filter((m) => m.type === 'ai');
    return ai.length ? contentText(ai[ai.length - 1].content) : undefined;
}
const sameEvents = (a, b) => isDeepStrictEqual(a.map((e) => [e.id, e.event, e.data]), b.map((e) => [e.id, e.event, e.data]));
const idsInOrder = (events) => events.every((e, i) => e.id === String(i));

// Common checks on a finished run that streamed `expected` text.
async function checkText(label, threadId, events, expected, tokenCount) {
    const tokens = tokensOf(events);
    check(`${label}: messages-tuple chunks are type "ai"`, tokens.length > 0 && tokens.every((t) => t.type === 'ai'),
        show(tokens.map((t) => t.type)));
    if (tokenCount !== undefined) check(`${label}: ${tokenCount} token chunks`, tokens.length === tokenCount, `${tokens.length}`);
    check(`${label}: joined tokens are the expected text`, textOf(events) === expected, show(textOf(events)));
    const state = await client.threads.getState(threadId);
    check(`${label}: joined tokens equal the last AI message of the thread state`, lastAiText(state) === textOf(events),
        show(lastAiText(state)));
}

async function check_(name, fn) {
    try {
        await fn();
    } catch (error) {
        check(name, false, error?.stack ?? String(error));
    }
}

// ---- meta --------------------------------------------------------------------------------------
await check_('meta', async () => {
    const ok = await http('GET', '/ok');
    check('GET /ok', ok.status === 200 && ok.json?.ok === true, ok.text);
    const info = await http('GET', '/info');
    check('GET /info says version 1.5.1', info.json?.version === '1.5.1', info.text);
    const assistants = await client.assistants.search({ limit: 100 });
    const ids = assistants.map((a) => a.graph_id).sort();
    check('one system assistant per graph', isDeepStrictEqual(ids, ['approval', 'echo', 'fail', 'question', 'slow']), show(ids));
});

// ---- echo --------------------------------------------------------------------------------------
await check_('echo', async () => {
    const thread = await client.threads.create();
    check('echo: new thread is idle', thread.status === 'idle', thread.status);
    const raw = await http('POST', `/threads/${thread.thread_id}/runs`, {
        assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'hi' }] },
        stream_mode: MODES, stream_resumable: true,
    });
    const run = raw.json;
    check('echo: POST /runs gives a pending run', raw.status === 200 && run?.status === 'pending', raw.text);
    check('echo: run kwargs.resumable is true', run?.kwargs?.resumable === true, show(run?.kwargs));
    check('echo: Content-Location names the run',
        raw.headers.get('content-location') === `/threads/${thread.thread_id}/runs/${run.run_id}`,
        raw.headers.get('content-location'));
    const events = await follow(thread.thread_id, run.run_id);
    check('echo: ids are 0,1,2… in order', idsInOrder(events), show(events.map((e) => e.id)));
    check('echo: event 0 is metadata with the run id', events[0]?.event === 'metadata'
        && events[0].data?.run_id === run.run_id && events[0].data?.attempt === 1, show(events[0]));
    check('echo: one custom event {"phase":"drafting"}',
        isDeepStrictEqual(events.filter((e) => e.event === 'custom').map((e) => e.data), [{ phase: 'drafting' }]));
    check('echo: no error/end event', !events.some((e) => e.event === 'error' || e.event === 'end'));
    await checkText('echo', thread.thread_id, events, 'Echo: hi w1é w2日本 w3🎉 w4 w5é', 6);
    const after = await client.runs.get(thread.thread_id, run.run_id);
    check('echo: run status success', after.status === 'success', after.status);
    const t = await client.threads.get(thread.thread_id);
    check('echo: thread idle afterwards', t.status === 'idle', t.status);

    const again = await replay(thread.thread_id, run.run_id, '-1');
    check('echo: Last-Event-ID -1 after the end replays every event', sameEvents(again, events),
        `${again.length} vs ${events.length}`);
    const tail = await replay(thread.thread_id, run.run_id, '3');
    check('echo: Last-Event-ID 3 replays 4… with no gap and no repeat', sameEvents(tail, events.slice(4)),
        show(tail.map((e) => e.id)));
    const live = await replay(thread.thread_id, run.run_id, '');
    check('echo: a join without Last-Event-ID on a finished run brings nothing', live.length === 0, `${live.length}`);

    // second turn on the same thread keeps the history
    const run2 = await startRun(thread.thread_id, 'echo', { input: { messages: [{ role: 'user', content: 'long 200' }] } });
    const events2 = await follow(thread.thread_id, run2.run_id);
    const expected = ['Echo: long 200', ...Array.from({ length: 199 }, (_, i) => ` w${i + 1}${['', 'é', '日本', '🎉'][(i + 1) % 4]}`)].join('');
    await checkText('echo long 200', thread.thread_id, events2, expected, 200);
    const state = await client.threads.getState(thread.thread_id);
    check('echo: two turns leave 4 messages in the state', state.values.messages.length === 4,
        `${state.values.messages.length}`);
});

// ---- approval ----------------------------------------------------------------------------------
await check_('approval', async () => {
    const thread = await client.threads.create();
    const run = await startRun(thread.thread_id, 'approval', { input: { messages: [{ role: 'user', content: 'send the report' }] } });
    const events = await follow(thread.thread_id, run.run_id);
    const plan = 'Plan: email the report to ops@example.com, then delete the draft /tmp/x.';
    await checkText('approval plan', thread.thread_id, events, plan, plan.split(' ').length);
    const r = await client.runs.get(thread.thread_id, run.run_id);
    check('approval: the run that stops at interrupt() ends "success"', r.status === 'success', r.status);
    const t = await client.threads.get(thread.thread_id);
    check('approval: thread status "interrupted"', t.status === 'interrupted', t.status);
    const pending = Object.values(t.interrupts ?? {}).flat();
    check('approval: thread.interrupts holds the HITL request', pending.length === 1
        && isDeepStrictEqual(pending[0].value, HITL_REQUEST) && typeof pending[0].id === 'string', show(t.interrupts));
    const state = await client.threads.getState(thread.thread_id);
    check('approval: state.next is ["review"]', isDeepStrictEqual(state.next, ['review']), show(state.next));
    check('approval: state.tasks[].interrupts holds the request',
        isDeepStrictEqual(state.tasks?.[0]?.interrupts?.[0]?.value, HITL_REQUEST), show(state.tasks));
    const upd = events.filter((e) => e.event === 'updates' && e.data?.__interrupt__);
    check('approval: an updates event carries __interrupt__', upd.length === 1
        && isDeepStrictEqual(upd[0].data.__interrupt__[0].value, HITL_REQUEST), show(upd));
    const found = await client.threads.search({ status: 'interrupted', limit: 1000 });
    check('approval: threads.search status interrupted finds it', found.some((x) => x.thread_id === thread.thread_id));

    const resume = { decisions: [{ type: 'approve' }, { type: 'reject', message: 'not now' }] };
    const run2 = await startRun(thread.thread_id, 'approval', { command: { resume } });
    const events2 = await follow(thread.thread_id, run2.run_id);
    await checkText('approval resume', thread.thread_id, events2,
        'send_email: approved; delete_file: rejected (reason: not now)');
    const r2 = await client.runs.get(thread.thread_id, run2.run_id);
    check('approval resume: run success', r2.status === 'success', r2.status);
    const t2 = await client.threads.get(thread.thread_id);
    check('approval resume: thread idle', t2.status === 'idle', t2.status);

    // an edit decision, resumed through the interrupt-id map
    const thread3 = await client.threads.create();
    const run3 = await startRun(thread3.thread_id, 'approval', { input: { messages: [{ role: 'user', content: 'go' }] } });
    await follow(thread3.thread_id, run3.run_id);
    const t3 = await client.threads.get(thread3.thread_id);
    const id = Object.values(t3.interrupts).flat()[0].id;
    const edited = { name: 'send_email', args: { to: 'boss@example.com', subject: 'Report' } };
    const run4 = await startRun(thread3.thread_id, 'approval', {
        command: { resume: { [id]: { decisions: [{ type: 'edit', edited_action: edited }, { type: 'approve' }] } } },
    });
    const events4 = await follow(thread3.thread_id, run4.run_id);
    await checkText('approval edit (resume by interrupt id)', thread3.thread_id, events4,
        `send_email: edited (${JSON.stringify(edited)}); delete_file: approved`);
});

// ---- question ----------------------------------------------------------------------------------
await check_('question', async () => {
    const thread = await client.threads.create();
    const run = await startRun(thread.thread_id, 'question', { input: { messages: [{ role: 'user', content: 'weather?' }] } });
    const events = await follow(thread.thread_id, run.run_id);
    check('question: no tokens before the interrupt', tokensOf(events).length === 0);
    const t = await client.threads.get(thread.thread_id);
    const pending = Object.values(t.interrupts ?? {}).flat();
    check('question: thread interrupted with "What city?"', t.status === 'interrupted'
        && pending.length === 1 && pending[0].value === 'What city?', show(t));
    const run2 = await startRun(thread.thread_id, 'question', { command: { resume: 'Paris' } });
    const events2 = await follow(thread.thread_id, run2.run_id);
    await checkText('question resume', thread.thread_id, events2, 'Weather for Paris: sunny', 4);
    const t2 = await client.threads.get(thread.thread_id);
    check('question resume: thread idle', t2.status === 'idle', t2.status);
});

// ---- fail --------------------------------------------------------------------------------------
await check_('fail', async () => {
    const thread = await client.threads.create();
    const run = await startRun(thread.thread_id, 'fail', { input: { messages: [{ role: 'user', content: 'x' }] } });
    const events = await follow(thread.thread_id, run.run_id);
    check('fail: tokens streamed before the error', textOf(events) === 'Working on it, then failing', show(textOf(events)));
    const errors = events.filter((e) => e.event === 'error');
    check('fail: one error event with the message', errors.length === 1
        && isDeepStrictEqual(errors[0].data, { error: 'Error', message: 'graph exploded on purpose' }), show(errors));
    check('fail: the error event is the last event', events[events.length - 1]?.event === 'error');
    const r = await client.runs.get(thread.thread_id, run.run_id);
    check('fail: run status error', r.status === 'error', r.status);
    const t = await client.threads.get(thread.thread_id);
    check('fail: thread status error', t.status === 'error', t.status);
    const state = await client.threads.getState(thread.thread_id);
    check('fail: state.tasks[].error holds the message',
        (state.tasks ?? []).some((task) => String(task.error ?? '').includes('graph exploded on purpose')), show(state.tasks));
});

// ---- slow: busy thread, cancel ------------------------------------------------------------------
await check_('slow', async () => {
    const thread = await client.threads.create();
    const run = await startRun(thread.thread_id, 'slow', { input: { messages: [{ role: 'user', content: 'go slowly' }] } });
    let cancelled;
    const events = await follow(thread.thread_id, run.run_id, {
        onEvent: async (part, all) => {
            if (cancelled || tokensOf(all).length < 5) return;
            cancelled = {};
            const busy = await http('GET', `/threads/${thread.thread_id}`);
            cancelled.threadStatus = busy.json?.status;
            const r = await client.runs.get(thread.thread_id, run.run_id);
            cancelled.runStatus = r.status;
            const second = await http('POST', `/threads/${thread.thread_id}/runs`,
                { assistant_id: 'slow', input: { messages: [{ role: 'user', content: 'x' }] }, stream_resumable: true });
            cancelled.secondStatus = second.status;
            const t0 = performance.now();
            const c = await http('POST', `/threads/${thread.thread_id}/runs/${run.run_id}/cancel?action=interrupt`);
            cancelled.cancelStatus = c.status;
            cancelled.cancelMs = performance.now() - t0;
            const r2 = await client.runs.get(thread.thread_id, run.run_id);
            cancelled.statusRightAfter = r2.status;
        },
    });
    check('slow: thread busy while the run executes', cancelled?.threadStatus === 'busy', show(cancelled));
    // 1.5.1 marks a run "running" once a worker picks it up ("pending" only while queued).
    check('slow: run reads "running" while executing', cancelled?.runStatus === 'running', show(cancelled));
    check('slow: a second run on the busy thread gets 422', cancelled?.secondStatus === 422, show(cancelled));
    check('slow: cancel?action=interrupt answers 202 at once', cancelled?.cancelStatus === 202 && cancelled.cancelMs < 450,
        show(cancelled));
    check('slow: run reads "interrupted" straight after the cancel', cancelled?.statusRightAfter === 'interrupted', show(cancelled));
    const tokens = tokensOf(events).length;
    check('slow: the stream stopped early', tokens >= 5 && tokens < 300, `${tokens}`);
    check('slow: no error event after cancel', !events.some((e) => e.event === 'error'));
    const r = await client.runs.get(thread.thread_id, run.run_id);
    check('slow: run status interrupted', r.status === 'interrupted', r.status);
    await sleep(200);
    const t = await client.threads.get(thread.thread_id);
    check('slow: thread idle after the cancel', t.status === 'idle', t.status);
});

// ---- done --------------------------------------------------------------------------------------
const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve({ code, signal })));
server.kill('SIGTERM');
const { code, signal } = await exited;
check('server exits cleanly on SIGTERM', code === 0, `code ${code} signal ${signal}`);
if (failed > 0 && serverErr) console.log(`---- server stderr ----\n${serverErr}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
