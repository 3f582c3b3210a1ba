// SPDX-License-Identifier: GPL-3.0-or-later
// How the CLI prints: human text (answer on stdout, everything else on stderr) or JSON Lines.
#include "cli.h"
#include "cli_p.h"
#include "domain/runreducer.h"

#include <QJsonDocument>

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
    return o;
}

PrimaryUpdate advancePrinted(QString &printed, const RunEvent &event)
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
    if (m_json)
        writeJson(runObject(run));
    else
        writeErr(u"run %1 (%2) %3\n"_s.arg(run.localId, run.remoteId, statusName(run.status)));
}

void CliApp::printEvents(const Run &run, const QList<RunEvent> &events)
{
    if (m_announceStarts && !run.remoteId.isEmpty() && !m_announced.contains(run.localId)) {
        m_announced.insert(run.localId);
        printRunLine(run);
    }
    QString primary; // human output: written once per batch, after the batch's stderr lines
    QString &printed = m_printed[run.localId];
    const auto emitPrimary = [&](const PrimaryUpdate &update, bool atLineStart) {
        if (!m_printPrimary || update.kind == PrimaryUpdate::Kind::None)
            return;
        const bool replace = update.kind == PrimaryUpdate::Kind::Replace;
        if (m_json) {
            writeJson({{u"type"_s, replace ? u"replace"_s : u"delta"_s},
                       {u"run"_s, run.localId},
                       {u"text"_s, update.text}});
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
        writeErr(u"[output replaced] the server's text no longer continues what was printed; the "
                 u"whole current text follows\n"_s);
        writeOut(u"----- output replaced; whole current text: -----\n"_s);
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
                writeJson({{u"type"_s, u"secondary"_s},
                           {u"run"_s, run.localId},
                           {u"kind"_s, secondaryKindName(e.kind)},
                           {u"item"_s, e.itemId},
                           {u"text"_s, e.text},
                           {u"final"_s, e.type == RunEvent::Type::SecondarySnapshot}});
            } else if (e.type == RunEvent::Type::SecondarySnapshot) {
                writeErr(u"[%1%2] %3\n"_s.arg(secondaryKindName(e.kind),
                                              e.title.isEmpty() ? QString() : u' ' + e.title, e.text));
            }
            break;
        case RunEvent::Type::Status:
            if (m_json)
                writeJson({{u"type"_s, u"status"_s},
                           {u"run"_s, run.localId},
                           {u"status"_s, statusName(e.status)},
                           {u"raw"_s, e.rawStatus}});
            else
                writeErr(u"[status] %1\n"_s.arg(statusName(e.status)));
            break;
        case RunEvent::Type::InputRequired:
            if (m_json && e.input)
                writeJson({{u"type"_s, u"input_required"_s},
                           {u"run"_s, run.localId},
                           {u"request"_s, e.input->toJson()}});
            else if (e.input)
                writeErr(u"[input required] %1\n"_s.arg(e.input->prompt));
            break;
        case RunEvent::Type::Error:
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
            update.text = run.primaryText.mid(printed.size());
        } else if (!printed.startsWith(run.primaryText)) {
            update.kind = PrimaryUpdate::Kind::Replace;
            update.text = run.primaryText;
        }
        printed = run.primaryText;
        emitPrimary(update, atLineStart);
    }
    if (!primary.isEmpty())
        writeOut(primary);
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
    if (m_json)
        writeJson({{u"type"_s, u"note"_s}, {u"text"_s, text}});
    else
        writeErr(text + u'\n');
}

void CliApp::writeJson(const QJsonObject &object)
{
    const QByteArray line = QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
    std::fwrite(line.constData(), 1, std::size_t(line.size()), m_out);
    std::fflush(m_out);
}

void CliApp::writeOut(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), m_out);
    std::fflush(m_out);
}

void CliApp::writeErr(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), m_err);
    std::fflush(m_err);
}

} // namespace Runwatch::Cli
