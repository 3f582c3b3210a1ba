// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QString>
#include <QUrl>

namespace RunwatchTest {

// The official LangGraph Agent Server as a test peer: node running
// tests/peers/langgraph-peer/server.mjs (@langchain/langgraph-api's in-memory server with the
// graphs of graphs.mjs, installed by scripts/setup-test-peers.sh) on a port the OS picks. Started
// once per test program; stopped with the object.
class LangGraphPeer
{
public:
    // `node`: the node binary; `dir`: tests/peers/langgraph-peer.
    LangGraphPeer(const QString &node, const QString &dir)
    {
        using namespace Qt::StringLiterals;
        m_process.setWorkingDirectory(dir);
        m_process.setProcessChannelMode(QProcess::SeparateChannels);
        m_process.start(node, QStringList{u"server.mjs"_s, u"--port"_s, u"0"_s});
        QElapsedTimer clock;
        clock.start();
        static const QRegularExpression line(u"langgraph-peer listening on (\\S+)"_s);
        QByteArray seen;
        // A cold start loads the server's modules: a few seconds on a busy machine.
        while (clock.elapsed() < 60000 && m_process.state() != QProcess::NotRunning) {
            m_process.waitForReadyRead(100);
            seen += m_process.readAllStandardOutput();
            const auto m = line.match(QString::fromUtf8(seen));
            if (m.hasMatch()) {
                m_url = QUrl(m.captured(1));
                return;
            }
        }
        m_error = QString::fromUtf8(seen + m_process.readAllStandardError());
    }
    ~LangGraphPeer()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.terminate();
            if (!m_process.waitForFinished(5000)) {
                m_process.kill();
                m_process.waitForFinished(3000);
            }
        }
    }
    LangGraphPeer(const LangGraphPeer &) = delete;
    LangGraphPeer &operator=(const LangGraphPeer &) = delete;

    QUrl url() const { return m_url; }
    QString error() const { return m_error; }

    // Why the peer cannot run here (node or the npm packages missing), empty when it can.
    static QString missing(const QString &node, const QString &dir)
    {
        using namespace Qt::StringLiterals;
        if (node.isEmpty() || !QFileInfo(node).isExecutable())
            return u"node is not installed: the LangGraph Agent Server peer cannot run (install Node.js >= 20)"_s;
        if (!QFileInfo::exists(dir + u"/node_modules/@langchain/langgraph-api/package.json"_s))
            return u"tests/peers/langgraph-peer/node_modules is missing: run scripts/setup-test-peers.sh (npm ci)"_s;
        return {};
    }

private:
    QProcess m_process;
    QUrl m_url;
    QString m_error;
};

} // namespace RunwatchTest
