// SPDX-License-Identifier: GPL-3.0-or-later
// A Foundry agent's tool-call window (core/backends/openai/openaitoolwindow): ten minutes from the
// waiting response's created_at, for a response on an agent only; the mapping gives the waiting
// request that deadline while it lasts, and an expired run once it has passed.
#include "backends/openai/openaimapper.h"
#include "backends/openai/openaitoolwindow.h"

#include <QJsonArray>
#include <QTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

// A completed response that stopped on one function call, created `agoSecs` ago.
QJsonObject waitingResponse(qint64 agoSecs, bool onAgent)
{
    QJsonObject response{
        {u"id"_s, u"resp_1"_s},
        {u"status"_s, u"completed"_s},
        {u"created_at"_s, double(QDateTime::currentSecsSinceEpoch() - agoSecs)},
        {u"output"_s, QJsonArray{QJsonObject{{u"type"_s, u"function_call"_s},
                                             {u"call_id"_s, u"call_1"_s},
                                             {u"name"_s, u"get_weather"_s},
                                             {u"arguments"_s, u"{}"_s}}}},
    };
    if (onAgent) {
        response.insert(u"agent_reference"_s, QJsonObject{{u"type"_s, u"agent_reference"_s},
                                                          {u"name"_s, u"researcher"_s},
                                                          {u"version"_s, u"3"_s}});
    }
    return response;
}

std::optional<RunEvent> eventOf(const QList<RunEvent> &events, RunEvent::Type type)
{
    for (const RunEvent &e : events) {
        if (e.type == type)
            return e;
    }
    return std::nullopt;
}

} // namespace

class TestOpenAiToolWindow final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void windowEnd()
    {
        const QJsonObject response{{u"agent_reference"_s, QJsonObject{{u"name"_s, u"a"_s}}},
                                   {u"created_at"_s, 1741369938.25}};
        QCOMPARE(OpenAi::agentToolWindowEnd(response),
                 QDateTime::fromSecsSinceEpoch(1741369938 + 600, Qt::UTC));
        QVERIFY(!OpenAi::agentToolWindowEnd(QJsonObject{{u"created_at"_s, 1741369938}}).isValid());
        for (const QJsonValue &bad :
             {QJsonValue(), QJsonValue(u"yesterday"_s), QJsonValue(-5), QJsonValue(1e300)}) {
            QJsonObject r = response;
            r.insert(u"created_at"_s, bad);
            QVERIFY(!OpenAi::agentToolWindowEnd(r).isValid());
        }
    }

    // Within the window: waiting for input, due at created_at + 10 min.
    void waitingWithADeadline()
    {
        const QList<RunEvent> events = OpenAi::mapResponseObject(waitingResponse(60, true));
        const auto input = eventOf(events, RunEvent::Type::InputRequired);
        QVERIFY(input && input->input);
        const qint64 left = QDateTime::currentDateTimeUtc().secsTo(input->input->deadline);
        QVERIFY2(left > 530 && left <= 540, qPrintable(QString::number(left)));
        QCOMPARE(eventOf(events, RunEvent::Type::Status)->status, RunStatus::InputRequired);
    }

    // Past it: expired, with the reason; nothing to answer.
    void expiredPastTheWindow()
    {
        const QList<RunEvent> events = OpenAi::mapResponseObject(waitingResponse(601, true));
        QVERIFY(!eventOf(events, RunEvent::Type::InputRequired));
        QCOMPARE(eventOf(events, RunEvent::Type::Status)->status, RunStatus::Expired);
        QCOMPARE(eventOf(events, RunEvent::Type::Error)->error.code, u"expired"_s);
    }

    // Plain OpenAI states no window: however old, the calls wait, without a deadline.
    void plainResponseHasNoWindow()
    {
        const QList<RunEvent> events = OpenAi::mapResponseObject(waitingResponse(3600, false));
        const auto input = eventOf(events, RunEvent::Type::InputRequired);
        QVERIFY(input && input->input);
        QVERIFY(!input->input->deadline.isValid());
    }
};

QTEST_GUILESS_MAIN(TestOpenAiToolWindow)
#include "tst_openaitoolwindow.moc"
