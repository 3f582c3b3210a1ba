// SPDX-License-Identifier: GPL-3.0-or-later
// Whole-process CPU of following one long background response's event stream to its end, three
// ways, in one run: `runwatch-cli --json start --follow` (JSON Lines to stdout), the same in text
// mode, and the official `openai` npm client (tests/peers/openai-peer: `responses.create({background:
// true, stream: true})`, accumulating the text and printing nothing). Each starts a response of
// DELTAS text deltas on one runwatch-sim (no pacing, loopback) and reads the stream to the end:
// user + system CPU of the client process (GNU time), median of ROUNDS, interleaved; the
// simulator's own CPU is not counted. Before each round the calibration figure (tests/bench/calibrate
// of the CLI's build, tests/bench/calibration.h), its median printed with the results.
//
//   node tests/bench/bench_cli_json.mjs RUNWATCH_SIM RUNWATCH_CLI [DELTAS=200000] [ROUNDS=5]
//
// Needs node >= 20, /usr/bin/time and the npm peer (bash scripts/setup-test-peers.sh).
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const KEY = 'sk-bench-key';
const { default: OpenAI } = await import(
    pathToFileURL(join(here, '../peers/openai-peer/node_modules/openai/index.mjs')).href);

if (process.argv[2] === '--npm-client') {
    // The npm client's side, run as a process of its own so that it is measured whole.
    const [url, deltas] = process.argv.slice(3);
    const client = new OpenAI({ baseURL: url, apiKey: KEY, maxRetries: 0 });
    const stream = await client.responses.create(
        { model: 'runwatch-sim-1', input: `normal deltas=${deltas}`, background: true, stream: true });
    let text = '';
    let count = 0;
    for await (const event of stream) {
        if (event.type === 'response.output_text.delta') {
            text += event.delta;
            ++count;
        }
    }
    process.stdout.write(`${count} deltas, ${text.length} chars\n`);
    process.exit(count === Number(deltas) ? 0 : 1);
}

const [simPath, cliPath, deltasArg, roundsArg] = process.argv.slice(2);
if (!simPath || !cliPath) {
    console.error('usage: node bench_cli_json.mjs RUNWATCH_SIM RUNWATCH_CLI [DELTAS] [ROUNDS]');
    process.exit(2);
}
const deltas = Number(deltasArg ?? 200000);
// The build's calibrate beside its runwatch-cli (BUILD/app/cli/runwatch-cli, BUILD/tests/bench/calibrate),
// or RUNWATCH_CALIBRATE's (bench_compare.sh: one calibrate for an older build that has none).
const calibratePath = process.env.RUNWATCH_CALIBRATE ?? join(dirname(cliPath), '../../tests/bench/calibrate');
function calibrate() {
    const r = spawnSync(calibratePath, ['--ms'], { encoding: 'utf8' });
    if (r.status !== 0)
        throw new Error(`${calibratePath} failed (${r.error ?? r.status}): build the calibrate target`);
    return Number(r.stdout.trim());
}
const calibrations = [];
const rounds = Number(roundsArg ?? 5);

const sim = spawn(simPath, ['--port', '0', '--key', KEY, '--interval-ms', '0'],
                  { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve, reject) => {
    createInterface({ input: sim.stdout }).on('line', (line) => {
        const match = /listening on (\S+)/.exec(line);
        if (match)
            resolve(match[1]);
    });
    sim.on('exit', (code) => reject(new Error(`runwatch-sim exited early (${code})`)));
});

const dir = mkdtempSync(join(tmpdir(), 'bench-cli-json-'));
// One measured process: its CPU seconds (user + system), wall seconds, peak RSS in MB and the
// size of what it printed.
function measure(argv, env) {
    const timing = join(dir, 'time.txt');
    const out = join(dir, 'out.txt');
    const r = spawnSync('/usr/bin/time', ['-f', '%U %S %e %M', '-o', timing, 'sh', '-c', '"$@" > "$0"', out, ...argv],
                        { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'ignore'] });
    if (r.status !== 0)
        throw new Error(`${argv.join(' ')} exited with ${r.status}`);
    const [user, sys, wall, rssKb] = readFileSync(timing, 'utf8').trim().split('\n').pop().split(' ').map(Number);
    return { cpu: user + sys, wall, rssMb: rssKb / 1024, bytes: readFileSync(out).length };
}

const cliEnv = { RUNWATCH_API_KEY: KEY };
const prompt = `normal deltas=${deltas}`;
const modes = {
    'runwatch-cli --json': (i) => measure([cliPath, '--url', url, '--store', join(dir, `j${i}.sqlite`), '--json', 'start',
                                           '--prompt', prompt, '--follow'], cliEnv),
    'runwatch-cli (text)': (i) => measure([cliPath, '--url', url, '--store', join(dir, `t${i}.sqlite`), 'start',
                                           '--prompt', prompt, '--follow'], cliEnv),
    'openai npm client': () => measure([process.execPath, fileURLToPath(import.meta.url), '--npm-client', url, String(deltas)]),
};
const results = Object.fromEntries(Object.keys(modes).map((m) => [m, []]));
for (let i = 0; i < rounds; ++i) {
    calibrations.push(calibrate());
    // Interleaved, so that a change in the machine's load touches every mode alike.
    for (const [name, run] of Object.entries(modes))
        results[name].push(run(i));
}
sim.kill();
rmSync(dir, { recursive: true, force: true });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${deltas} deltas, ${rounds} rounds, median of whole-process CPU (user + system):`);
const npm = median(results['openai npm client'].map((r) => r.cpu));
console.log(`calibration: ${median(calibrations)} ms (median of the rounds: ${calibrations.join(' ')}; `
            + 'tests/bench/calibration.h)');
for (const [name, rs] of Object.entries(results)) {
    const cpu = median(rs.map((r) => r.cpu));
    console.log(`  ${name.padEnd(22)} CPU ${cpu.toFixed(2)} s  (all: ${rs.map((r) => r.cpu.toFixed(2)).join(' ')})  `
                + `wall ${median(rs.map((r) => r.wall)).toFixed(2)} s  RSS ${median(rs.map((r) => r.rssMb)).toFixed(0)} MB  `
                + `output ${(median(rs.map((r) => r.bytes)) / 1e6).toFixed(1)} MB  npm/this ${(npm / cpu).toFixed(1)}x`);
}
