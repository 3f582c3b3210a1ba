// SPDX-License-Identifier: GPL-3.0-or-later
// Small deterministic LangGraph graphs served by the official Agent Server (server.mjs) for the
// LangGraph connector tests. No network, no real LLM: every answer comes from ScriptedChatModel, a
// tiny BaseChatModel whose _streamResponseChunks yields one AIMessageChunk per token, so the
// server's `messages-tuple` stream mode sends one `messages` event per token, and the message the
// node stores in the thread state is exactly the tokens joined.
//
// State: MessagesAnnotation (values.messages). Graph ids (server.mjs maps them to these exports):
//   echo      one node "respond": custom event {"phase":"drafting"}, then N tokens. Token 0 is
//             "Echo: <last user text>", tokens 1..N-1 are " w<i>" + one of "", "é", "日本", "🎉"
//             (by i % 4). N is 6, or "long N" in the prompt (1..20000); "delay MS" in the prompt
//             waits MS milliseconds before each token (default 0).
//   approval  node "plan" streams a short plan (stored as an AI message), then node "review" calls
//             interrupt() with the LangChain v1 human-in-the-loop request for send_email and
//             delete_file. Resumed with {"decisions":[…]} it streams one line stating each decision,
//             e.g. "send_email: approved; delete_file: rejected (reason: not now)".
//   restricted  node "review" asks for publish (approve or edit only) and archive (reject only).
//   question  node "ask": interrupt("What city?"), then streams "Weather for <answer>: sunny".
//   fail      node "explode": streams "Working on it, then failing" (5 tokens), then throws
//             Error("graph exploded on purpose").
//   slow      node "respond": like echo but 300 tokens 100 ms apart by default (cancel it mid-run);
//             "long N" / "delay MS" in the prompt change that.
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk } from '@langchain/core/messages';
import { ChatGenerationChunk } from '@langchain/core/outputs';
import { END, MessagesAnnotation, START, StateGraph, interrupt } from '@langchain/langgraph';

const MAX_TOKENS = 20000;
const SUFFIXES = ['', 'é', '日本', '🎉'];

function abortableSleep(ms, signal) {
    if (!(ms > 0)) return Promise.resolve();
    return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            resolve();
        }
        signal?.addEventListener('abort', done, { once: true });
    });
}

// Splits text into word tokens that keep their trailing blanks: "a b  c" -> ["a ", "b  ", "c"].
// Joining the tokens gives the text back exactly.
export function tokenize(text) {
    return text.length === 0 ? [] : text.split(/(?<=\s)(?=\S)/u);
}

// A chat model that answers with a fixed list of tokens, one AIMessageChunk per token, optionally
// `delayMs` apart. `script(messages)` returns the tokens for a call.
class ScriptedChatModel extends BaseChatModel {
    static lc_name() { return 'ScriptedChatModel'; }

    constructor({ script, delayMs = 0 }) {
        super({});
        this.script = script;
        this.delayMs = delayMs;
    }

    _llmType() { return 'runwatch-scripted'; }

    getLsParams(options) {
        return { ...super.getLsParams(options), ls_provider: 'runwatch', ls_model_name: 'scripted' };
    }

    async _generate(messages, options, runManager) {
        let text = '';
        for await (const chunk of this._streamResponseChunks(messages, options, runManager)) {
            text += chunk.text;
        }
        return { generations: [{ text, message: new AIMessage(text) }] };
    }

    async *_streamResponseChunks(messages, options, runManager) {
        for (const token of this.script(messages)) {
            await abortableSleep(this.delayMs, options?.signal);
            if (options?.signal?.aborted) break;
            const chunk = new ChatGenerationChunk({ text: token, message: new AIMessageChunk({ content: token }) });
            yield chunk;
            await runManager?.handleLLMNewToken(token, undefined, undefined, undefined, undefined, { chunk });
        }
    }
}

// Streams `tokens` through a ScriptedChatModel inside the current node and returns the AI message
// (the tokens joined).
async function speak(tokens, config, delayMs = 0) {
    const model = new ScriptedChatModel({ script: () => tokens, delayMs });
    return await model.invoke([], config);
}

function contentText(content) {
    if (typeof content === 'string') return content;
    if (Array.isArray(content)) {
        return content.map((block) => (typeof block === 'string' ? block : block?.text ?? '')).join('');
    }
    return '';
}

function lastUserText(state) {
    for (let i = state.messages.length - 1; i >= 0; --i) {
        const message = state.messages[i];
        if (message.getType() === 'human') return contentText(message.content);
    }
    return '';
}

function numberAfter(text, word, fallback) {
    const match = new RegExp(`\\b${word}\\s+(\\d+)`, 'u').exec(text);
    return match ? Number(match[1]) : fallback;
}

function echoTokens(prompt, defaultCount) {
    const count = Math.min(Math.max(numberAfter(prompt, 'long', defaultCount), 1), MAX_TOKENS);
    const tokens = [`Echo: ${prompt}`];
    for (let i = 1; i < count; ++i) tokens.push(` w${i}${SUFFIXES[i % SUFFIXES.length]}`);
    return tokens;
}

function messagesGraph(nodes) {
    const graph = new StateGraph(MessagesAnnotation);
    for (const [name, fn] of nodes) graph.addNode(name, fn);
    graph.addEdge(START, nodes[0][0]);
    for (let i = 1; i < nodes.length; ++i) graph.addEdge(nodes[i - 1][0], nodes[i][0]);
    graph.addEdge(nodes[nodes.length - 1][0], END);
    return graph.compile();
}

export const echo = messagesGraph([['respond', async (state, config) => {
    const prompt = lastUserText(state);
    config.writer?.({ phase: 'drafting' });
    const message = await speak(echoTokens(prompt, 6), config, numberAfter(prompt, 'delay', 0));
    return { messages: [message] };
}]]);

export const slow = messagesGraph([['respond', async (state, config) => {
    const prompt = lastUserText(state);
    const message = await speak(echoTokens(prompt, 300), config, numberAfter(prompt, 'delay', 100));
    return { messages: [message] };
}]]);

export const HITL_REQUEST = {
    action_requests: [
        { name: 'send_email', args: { to: 'ops@example.com', subject: 'Report' }, description: 'Send the report' },
        { name: 'delete_file', args: { path: '/tmp/x' }, description: 'Remove the draft' },
    ],
    review_configs: [
        { action_name: 'send_email', allowed_decisions: ['approve', 'edit', 'reject'] },
        { action_name: 'delete_file', allowed_decisions: ['approve', 'reject'] },
    ],
};

function describeDecision(decision) {
    switch (decision?.type) {
    case 'approve':
        return 'approved';
    case 'reject':
        return decision.message ? `rejected (reason: ${decision.message})` : 'rejected';
    case 'edit':
        return `edited (${JSON.stringify(decision.edited_action ?? null)})`;
    default:
        return `no valid decision (${JSON.stringify(decision ?? null)})`;
    }
}

// A review node: interrupt(request), then one line stating each decision.
function reviewNode(request) {
    return async (_state, config) => {
        const answer = interrupt(request);
        const decisions = Array.isArray(answer?.decisions) ? answer.decisions : [];
        const text = request.action_requests
            .map((action, i) => `${action.name}: ${describeDecision(decisions[i])}`)
            .join('; ');
        return { messages: [await speak(tokenize(text), config)] };
    };
}

export const approval = messagesGraph([
    ['plan', async (_state, config) => {
        const plan = 'Plan: email the report to ops@example.com, then delete the draft /tmp/x.';
        return { messages: [await speak(tokenize(plan), config)] };
    }],
    ['review', reviewNode(HITL_REQUEST)],
]);

// A review whose actions allow one decision each (review_configs): publish may only be approved
// (or edited), archive only rejected.
export const RESTRICTED_REQUEST = {
    action_requests: [
        { name: 'publish', args: { post: 42 }, description: 'Publish post 42' },
        { name: 'archive', args: { post: 41 }, description: 'Archive post 41' },
    ],
    review_configs: [
        { action_name: 'publish', allowed_decisions: ['approve', 'edit'] },
        { action_name: 'archive', allowed_decisions: ['reject'] },
    ],
};

export const restricted = messagesGraph([['review', reviewNode(RESTRICTED_REQUEST)]]);

export const question = messagesGraph([['ask', async (_state, config) => {
    const answer = interrupt('What city?');
    const city = typeof answer === 'string' ? answer : JSON.stringify(answer);
    return { messages: [await speak(tokenize(`Weather for ${city}: sunny`), config)] };
}]]);

export const fail = messagesGraph([['explode', async (_state, config) => {
    await speak(tokenize('Working on it, then failing'), config);
    throw new Error('graph exploded on purpose');
}]]);
