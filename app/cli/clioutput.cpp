// SPDX-License-Identifier: GPL-3.0-or-later
// How the CLI prints: human text (answer on stdout, everything else on stderr) or JSON Lines.
#include "cli.h"
#include "cli_p.h"
#include "domain/runreducer.h"
#include "net/httperrors.h"
#include "json/jsonwriter.h"

#include <QJsonDocument>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

using namespace Qt::StringLiterals;

namespace Runwatch::Cli {

QJsonObject runObject(const Run &run)
{
    QJsonObject o;
    o.insert(u"type"_s, u"run"_s);
    o.insert(u"run"_s, run.localId);
    o.insert(u"remote_id"_s, run.remoteId);
    o.insert(u"backend"_s, run.backend);
    o.insert(u"status"_s, statusName(run.status));
    o.insert(u"title"_s, run.title);
    // The run this one follows up (a conversation's earlier turn), only when there is one.
    if (!run.parentId.isEmpty())
        o.insert(u"parent"_s, run.parentId);
    return o;
}

PrimaryUpdate advancePrinted(RunText &printed, const RunEvent &event)
{
    PrimaryUpdate update;
    if (event.type == RunEvent::Type::PrimaryDelta) {
        if (!event.text.isEmpty()) {
            printed += event.text;
            update.kind = PrimaryUpdate::Kind::Append;
            update.text = event.text;
        }
        return update;
    }
    if (event.type != RunEvent::Type::PrimarySnapshot)
        return update;
    // Same rules as applyEvent(): an empty, equal or shorter-prefix snapshot changes nothing.
    if (event.text.isEmpty() || event.text == printed || printed.startsWith(event.text))
        return update;
    if (event.text.startsWith(printed)) {
        update.kind = PrimaryUpdate::Kind::Append;
        update.text = event.text.mid(printed.size());
    } else {
        update.kind = PrimaryUpdate::Kind::Replace;
        update.text = event.text;
    }
    printed = event.text;
    return update;
}

void CliApp::printRunLine(const Run &run)
{
    if (m_json) {
        writeJson(runObject(run));
    } else {
        writeErr(u"run %1 (%2) %3\n"_s.arg(run.localId, run.remoteId, statusName(run.status)));
    }
}

void CliApp::printEvents(const Run &run, const QList<RunEvent> &events)
{
    if (m_announceStarts && !run.remoteId.isEmpty() && !m_announced.contains(run.localId)) {
        m_announced.insert(run.localId);
        printRunLine(run);
    }
    // Appended text is written once per batch (one network read): human output after the
    // batch's stderr lines, JSON as one `delta` line before the next line of another type.
    QString primary;
    RunText &printed = m_printed[run.localId];
    const auto jsonText = [&](QStringView type, QStringView text) {
        JsonObjectWriter(m_outBuffer)
            .addString("type"_L1, type)
            .addString("run"_L1, run.localId)
            .addString("text"_L1, text)
            .close();
        endJsonLine();
    };
    const auto flushJsonDelta = [&] {
        if (m_json && !primary.isEmpty())
            jsonText(u"delta", std::exchange(primary, QString()));
    };
    const auto emitPrimary = [&](const PrimaryUpdate &update, bool atLineStart) {
        if (!m_printPrimary || update.kind == PrimaryUpdate::Kind::None)
            return;
        const bool replace = update.kind == PrimaryUpdate::Kind::Replace;
        if (m_json) {
            if (!replace) {
                primary += update.text;
                return;
            }
            flushJsonDelta();
            jsonText(u"replace", update.text);
            return;
        }
        if (!replace) {
            primary += update.text;
            return;
        }
        // What was printed is not a prefix of the server's text any more (an artifact was
        // replaced, a reconciliation rewrote it): appending would produce garbage.
        if (!primary.isEmpty())
            writeOut(std::exchange(primary, QString()));
        if (!atLineStart)
            writeOut(u"\n"_s);
        writeErr(CliApp::tr("[output replaced] the server's text no longer continues what was printed; the "
                            "whole current text follows\n"));
        writeOut(CliApp::tr("----- output replaced; whole current text: -----\n"));
        primary = update.text;
    };
    for (const RunEvent &e : events) {
        switch (e.type) {
        case RunEvent::Type::PrimaryDelta:
        case RunEvent::Type::PrimarySnapshot: {
            const bool atLineStart = printed.isEmpty() || printed.endsWith(u'\n');
            emitPrimary(advancePrinted(printed, e), atLineStart);
            break;
        }
        case RunEvent::Type::SecondaryDelta:
        case RunEvent::Type::SecondarySnapshot:
            if (e.text.isEmpty())
                break;
            if (m_json) {
                flushJsonDelta();
                JsonObjectWriter(m_outBuffer)
                    .addString("type"_L1, u"secondary")
                    .addString("run"_L1, run.localId)
                    .addString("kind"_L1, secondaryKindName(e.kind))
                    .addString("item"_L1, e.itemId)
                    .addString("text"_L1, e.text)
                    .addBool("final"_L1, e.type == RunEvent::Type::SecondarySnapshot)
                    .close();
                endJsonLine();
            } else if (e.type == RunEvent::Type::SecondarySnapshot) {
                writeErr(u"[%1%2] %3\n"_s.arg(secondaryKindName(e.kind),
                                              e.title.isEmpty() ? QString() : u' ' + e.title, e.text));
            }
            break;
        case RunEvent::Type::Status:
            if (m_json) {
                flushJsonDelta();
                JsonObjectWriter(m_outBuffer)
                    .addString("type"_L1, u"status")
                    .addString("run"_L1, run.localId)
                    .addString("status"_L1, statusName(e.status))
                    .addString("raw"_L1, e.rawStatus)
                    .close();
                endJsonLine();
            } else
                writeErr(u"[status] %1\n"_s.arg(statusName(e.status)));
            break;
        case RunEvent::Type::InputRequired:
            flushJsonDelta();
            if (m_json && e.input) {
                writeJson({{u"type"_s, u"input_required"_s},
                           {u"run"_s, run.localId},
                           {u"request"_s, e.input->toJson()}});
            } else if (e.input) {
                writeErr(CliApp::tr("[input required] %1\n").arg(e.input->prompt));
            }
            break;
        case RunEvent::Type::Error:
            flushJsonDelta();
            printError(run.localId, e.error);
            break;
        case RunEvent::Type::Identity:
        case RunEvent::Type::Cursor:
            break;
        }
    }
    // The mirror can only drift from the run if its base was wrong (text that reached the run
    // outside these events): catch up from the run itself.
    if (printed.size() != run.primaryText.size()) {
        const bool atLineStart = printed.isEmpty() || printed.endsWith(u'\n');
        PrimaryUpdate update;
        if (run.primaryText.startsWith(printed)) {
            update.kind = PrimaryUpdate::Kind::Append;
            update.text = run.primaryText.mid(printed.size()).toString();
        } else if (!printed.startsWith(run.primaryText)) {
            update.kind = PrimaryUpdate::Kind::Replace;
            update.text = run.primaryText.toString();
        }
        printed = run.primaryText;
        emitPrimary(update, atLineStart);
    }
    if (m_json) {
        flushJsonDelta();
    } else if (!primary.isEmpty()) {
        writeOut(primary);
    }
}

void CliApp::printEnd(const Run &run)
{
    if (m_json) {
        writeJson({{u"type"_s, u"end"_s}, {u"run"_s, run.localId}, {u"status"_s, statusName(run.status)}});
    } else {
        if (!run.primaryText.isEmpty() && !run.primaryText.endsWith(u'\n'))
            writeOut(u"\n"_s);
        writeErr(u"[end] %1 %2\n"_s.arg(run.localId, statusName(run.status)));
    }
}

void CliApp::printReconnecting(const Run &run)
{
    if (!run.connectionLost) {
        m_reconnectPrinted.remove(run.localId);
        return;
    }
    auto printed = m_reconnectPrinted.find(run.localId);
    if (printed != m_reconnectPrinted.end() && *printed == run.nextTryAt)
        return;
    m_reconnectPrinted.insert(run.localId, run.nextTryAt);
    const qint64 inMs = std::max<qint64>(0, QDateTime::currentDateTimeUtc().msecsTo(run.nextTryAt));
    if (m_json) {
        writeJson({{u"type"_s, u"status"_s},
                   {u"run"_s, run.localId},
                   {u"status"_s, statusName(run.status)},
                   {u"raw"_s, run.rawStatus},
                   {u"reconnecting"_s, true},
                   {u"next_try_ms"_s, inMs},
                   {u"failed_tries"_s, run.failedTries},
                   {u"reason"_s, run.lostReason}});
        return;
    }
    writeErr(CliApp::tr("[reconnecting] next try in %1 s (%2 failed in a row: %3)\n")
                 .arg(formatSeconds(inMs < 10000 ? (inMs + 50) / 100 * 100 : (inMs + 500) / 1000 * 1000),
                      QString::number(run.failedTries), run.lostReason));
}

void CliApp::printError(const QString &runId, const RunError &error)
{
    if (m_json) {
        writeJson({{u"type"_s, u"error"_s},
                   {u"run"_s, runId},
                   {u"code"_s, error.code.isEmpty() ? errorKindName(error.kind) : error.code},
                   {u"message"_s, error.message},
                   {u"retryable"_s, error.retryable}});
    } else {
        writeErr(u"[error] "_s + error.toString() + u'\n');
    }
}

void CliApp::printNote(const QString &text)
{
    if (m_json) {
        writeJson({{u"type"_s, u"note"_s}, {u"text"_s, text}});
    } else {
        writeErr(text + u'\n');
    }
}

void CliApp::writeJson(const QJsonObject &object)
{
    m_outBuffer += QJsonDocument(object).toJson(QJsonDocument::Compact);
    endJsonLine();
}

void CliApp::endJsonLine()
{
    m_outBuffer += '\n';
    scheduleFlush();
}

namespace {

// A character a terminal acts on rather than shows: C0 controls but tab and newline (ESC starts
// every escape sequence: OSC 52 writes the clipboard, CSI erases lines; CR and BS overwrite what
// was shown), DEL, and C1 controls (U+0080–U+009F; U+009B is a CSI of its own).
bool drivesTerminal(char16_t c)
{
    return (c < 0x20 && c != u'\n' && c != u'\t') || (c >= 0x7f && c <= 0x9f);
}

QString terminalText(const QString &text)
{
    const auto first
        = std::find_if(text.cbegin(), text.cend(), [](QChar c) { return drivesTerminal(c.unicode()); });
    if (first == text.cend())
        return text; // the usual case: one scan, no copy
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        if (!drivesTerminal(c.unicode()))
            out.append(c);
    }
    return out;
}

} // namespace

void CliApp::writeOut(const QString &text)
{
    // Text mode only (--json escapes control characters itself): what a server sent, shown.
    m_outBuffer += terminalText(text).toUtf8();
    scheduleFlush();
}

void CliApp::scheduleFlush()
{
    // Once per frame is prompt for a person or a pipe; per line, the write(2) calls dominated a
    // fast stream's output. A large backlog goes out at once to bound memory.
    if (m_outBuffer.size() >= kOutBufferMax) {
        flushOut();
    } else if (!m_flushTimer.isActive()) {
        m_flushTimer.start();
    }
}

CliApp::~CliApp()
{
    flushOut();
}

void CliApp::flushOut()
{
    m_flushTimer.stop();
    if (m_outBuffer.isEmpty())
        return;
    const std::size_t size = std::size_t(m_outBuffer.size());
    if ((std::fwrite(m_outBuffer.constData(), 1, size, m_out) != size || std::fflush(m_out) != 0)
        && m_outError.isEmpty()) {
        m_outError = QString::fromLocal8Bit(std::strerror(errno));
    }
    m_outBuffer.clear();
}

void CliApp::writeErr(const QString &text)
{
    // What went to stdout before this line reaches a shared terminal before it.
    flushOut();
    const QByteArray bytes = terminalText(text).toUtf8();
    std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), m_err);
    std::fflush(m_err);
}

} // namespace Runwatch::Cli
