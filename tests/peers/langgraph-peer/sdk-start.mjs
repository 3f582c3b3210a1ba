// SPDX-License-Identifier: GPL-3.0-or-later
// Starts a background run the way another client of the deployment would, with the official
// @langchain/langgraph-sdk, and prints its thread id: tst_langgraph_peer attaches to it.
//   node sdk-start.mjs URL GRAPH PROMPT
import { Client } from '@langchain/langgraph-sdk';

const [url, graph, prompt] = process.argv.slice(2);
const client = new Client({ apiUrl: url });
const thread = await client.threads.create({ metadata: { title: prompt } });
await client.runs.create(thread.thread_id, graph, {
    input: { messages: [{ role: 'user', content: prompt }] },
    streamMode: ['messages-tuple', 'updates'],
    streamResumable: true,
});
process.stdout.write(`${thread.thread_id}\n`);
