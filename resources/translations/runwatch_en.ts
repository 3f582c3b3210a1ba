<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>McpConnector</name>
    <message numerus="yes">
        <source>The form has %n field(s): answer with a JSON object of them (--value).</source>
        <translation>
            <numerusform>The form has %n field: answer with a JSON object of them (--value).</numerusform>
            <numerusform>The form has %n fields: answer with a JSON object of them (--value).</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RunList</name>
    <message numerus="yes">
        <source>%n tries failed in a row: %1</source>
        <translation>
            <numerusform>%n try failed: %1</numerusform>
            <numerusform>%n tries failed in a row: %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Runwatch::ActionController</name>
    <message numerus="yes">
        <source>Cancel %n runs?</source>
        <translation>
            <numerusform>Cancel %n run?</numerusform>
            <numerusform>Cancel %n runs?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) finished before the cancel was sent.</source>
        <translation>
            <numerusform>%n run finished before the cancel was sent.</numerusform>
            <numerusform>%n runs finished before the cancel was sent.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Delete %n runs?</source>
        <translation>
            <numerusform>Delete %n run?</numerusform>
            <numerusform>Delete %n runs?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Resuming %n run(s)…</source>
        <translation>
            <numerusform>Resuming %n run…</numerusform>
            <numerusform>Resuming %n runs…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Copied %n character(s) of output.</source>
        <translation>
            <numerusform>Copied %n character of output.</numerusform>
            <numerusform>Copied %n characters of output.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deadline set on %n run(s).</source>
        <translation>
            <numerusform>Deadline set on %n run.</numerusform>
            <numerusform>Deadline set on %n runs.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deadline removed from %n run(s).</source>
        <translation>
            <numerusform>Deadline removed from %n run.</numerusform>
            <numerusform>Deadline removed from %n runs.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Why stop watching %n runs? (kept in their timelines)</source>
        <translation>
            <numerusform>Why stop watching %n run? (kept in its timeline)</numerusform>
            <numerusform>Why stop watching %n runs? (kept in their timelines)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Answered %n run(s).</source>
        <translation>
            <numerusform>Answered %n run.</numerusform>
            <numerusform>Answered %n runs.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Runwatch::Announcer</name>
    <message numerus="yes">
        <source>%n run(s) need you: %1</source>
        <translation>
            <numerusform>%n run needs you: %1</numerusform>
            <numerusform>%n runs need you: %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Runwatch::AppController</name>
    <message numerus="yes">
        <source>Removed %n finished run(s) older than %1 day(s).</source>
        <translation>
            <numerusform>Removed %n finished run older than %1 day(s).</numerusform>
            <numerusform>Removed %n finished runs older than %1 day(s).</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Runwatch::BatchRespondDialog</name>
    <message numerus="yes">
        <source>Respond to %n Runs</source>
        <translation>
            <numerusform>Respond to %n Run</numerusform>
            <numerusform>Respond to %n Runs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) wait for an approval. One answer goes to each of them, each its own request.</source>
        <translation>
            <numerusform>%n run waits for an approval. One answer goes to each of them, each its own request.</numerusform>
            <numerusform>%n runs wait for an approval. One answer goes to each of them, each its own request.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) ask the same question. One answer goes to each of them, each its own request.</source>
        <translation>
            <numerusform>%n run asks the same question. One answer goes to each of them, each its own request.</numerusform>
            <numerusform>%n runs ask the same question. One answer goes to each of them, each its own request.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Approve %n runs</source>
        <translation>
            <numerusform>Approve %n run</numerusform>
            <numerusform>Approve %n runs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Reject %n runs</source>
        <translation>
            <numerusform>Reject %n run</numerusform>
            <numerusform>Reject %n runs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&amp;Send to %n</source>
        <translation>
            <numerusform>&amp;Send to %n</numerusform>
            <numerusform>&amp;Send to %n</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Send to %n runs</source>
        <translation>
            <numerusform>Send to %n run</numerusform>
            <numerusform>Send to %n runs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Sending %n answer(s)…</source>
        <translation>
            <numerusform>Sending %n answer…</numerusform>
            <numerusform>Sending %n answers…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n answered</source>
        <translation>
            <numerusform>%n answered</numerusform>
            <numerusform>%n answered</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n not taken (still waiting: see each run&apos;s reason)</source>
        <translation>
            <numerusform>%n not taken (still waiting: see the run&apos;s reason)</numerusform>
            <numerusform>%n not taken (still waiting: see each run&apos;s reason)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n on the way</source>
        <translation>
            <numerusform>%n on the way</numerusform>
            <numerusform>%n on the way</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&amp;Approve All (%n)</source>
        <translation>
            <numerusform>&amp;Approve All (%n)</numerusform>
            <numerusform>&amp;Approve All (%n)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&amp;Reject All (%n)</source>
        <translation>
            <numerusform>&amp;Reject All (%n)</numerusform>
            <numerusform>&amp;Reject All (%n)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Runwatch::BrowseRunsDialog</name>
    <message numerus="yes">
        <source>%n run(s) on the service</source>
        <translation>
            <numerusform>%n run on the service</numerusform>
            <numerusform>%n runs on the service</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>, %n already attached</source>
        <translation>
            <numerusform>, %n already attached</numerusform>
            <numerusform>, %n already attached</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Runwatch::Cli::CliApp</name>
    <message numerus="yes">
        <source>Removed %n finished run(s) older than %1 day(s).
</source>
        <translation>
            <numerusform>Removed %n finished run older than %1 day(s).
</numerusform>
            <numerusform>Removed %n finished runs older than %1 day(s).
</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Runwatch::CommandPalettePopup</name>
    <message numerus="yes">
        <source>%n more run(s) match: type more to narrow</source>
        <translation>
            <numerusform>%n more run matches: type more to narrow</numerusform>
            <numerusform>%n more runs match: type more to narrow</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Runwatch::ConnectionsDialog</name>
    <message numerus="yes">
        <source>…and %n more</source>
        <translation>
            <numerusform>…and %n more</numerusform>
            <numerusform>…and %n more</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Connected: %n run(s) listed.</source>
        <translation>
            <numerusform>Connected: %n run listed.</numerusform>
            <numerusform>Connected: %n runs listed.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Runwatch::FilterBar</name>
    <message numerus="yes">
        <source>%1: %n run(s)</source>
        <comment>filter chip</comment>
        <translation>
            <numerusform>%1: %n run</numerusform>
            <numerusform>%1: %n runs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) hold these words. Enter searches again.</source>
        <translation>
            <numerusform>%n run holds these words. Enter searches again.</numerusform>
            <numerusform>%n runs hold these words. Enter searches again.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Runwatch::RunHousekeeping</name>
    <message numerus="yes">
        <source>No finished run is older than %n day(s).</source>
        <translation>
            <numerusform>No finished run is older than %n day.</numerusform>
            <numerusform>No finished run is older than %n days.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Remove %n finished run(s) older than %1 day(s)? They are deleted from this computer only; servers keep their copies.</source>
        <translation>
            <numerusform>Remove %n finished run older than %1 day(s)? They are deleted from this computer only; servers keep their copies.</numerusform>
            <numerusform>Remove %n finished runs older than %1 day(s)? They are deleted from this computer only; servers keep their copies.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Removed %n finished run(s).</source>
        <translation>
            <numerusform>Removed %n finished run.</numerusform>
            <numerusform>Removed %n finished runs.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Finished runs are kept for %n day(s).</source>
        <translation>
            <numerusform>Finished runs are kept for %n day.</numerusform>
            <numerusform>Finished runs are kept for %n days.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Runwatch::TrayStatus</name>
    <message numerus="yes">
        <source>Runwatch — %n run(s) need you</source>
        <translation>
            <numerusform>Runwatch — %n run needs you</numerusform>
            <numerusform>Runwatch — %n runs need you</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n more…</source>
        <translation>
            <numerusform>%n more…</numerusform>
            <numerusform>%n more…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>StoreLocation</name>
    <message numerus="yes">
        <source>Connected: a run store (schema %1) with %n run(s).</source>
        <translation>
            <numerusform>Connected: a run store (schema %1) with %n run.</numerusform>
            <numerusform>Connected: a run store (schema %1) with %n runs.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ToolCalls</name>
    <message numerus="yes">
        <source>%n tool calls are pending: give one output per call id.</source>
        <translation>
            <numerusform>%n tool call is pending: give one output for it.</numerusform>
            <numerusform>%n tool calls are pending: give one output per call id.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>UsageTotals</name>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n run</numerusform>
            <numerusform>%n runs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n without a price</source>
        <translation>
            <numerusform>%n without a price</numerusform>
            <numerusform>%n without a price</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Cost of %n priced run(s): %1</source>
        <translation>
            <numerusform>Cost of %n priced run: %1</numerusform>
            <numerusform>Cost of %n priced runs: %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) without a price for their model (Settings › Prices…)</source>
        <translation>
            <numerusform>%n run without a price for their model (Settings › Prices…)</numerusform>
            <numerusform>%n runs without a price for their model (Settings › Prices…)</numerusform>
        </translation>
    </message>
</context>
</TS>
