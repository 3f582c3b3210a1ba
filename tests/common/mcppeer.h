// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QProcess>
#include <QRegularExpression>
#include <QString>
#include <QTemporaryDir>
#include <QUrl>

namespace RunwatchTest {

// A server built only from the official @modelcontextprotocol/sdk 1.32.2 as a test peer: node
// running tests/peers/mcp-server-peer/server.mjs (installed by scripts/setup-test-peers.sh) on a
// port the OS picks, logging every request it receives to a file (requests()). Started once per
// test program; stopped with the object.
class McpPeer
{
public:
    // `node`: the node binary; `dir`: tests/peers/mcp-server-peer.
    McpPeer(const QString &node, const QString &dir)
    {
        using namespace Qt::StringLiterals;
        m_log = m_dir.filePath(u"requests.jsonl"_s);
        m_process.setWorkingDirectory(dir);
        m_process.setProcessChannelMode(QProcess::SeparateChannels);
        m_process.start(node, QStringList{u"server.mjs"_s, u"--port"_s, u"0"_s, u"--log"_s, m_log});
        QElapsedTimer clock;
        clock.start();
        static const QRegularExpression line(u"mcp-server-peer listening on (\\S+)"_s);
        QByteArray seen;
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
    ~McpPeer()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.terminate();
            if (!m_process.waitForFinished(5000)) {
                m_process.kill();
                m_process.waitForFinished(3000);
            }
        }
    }
    McpPeer(const McpPeer &) = delete;
    McpPeer &operator=(const McpPeer &) = delete;

    QUrl url() const { return m_url; }
    QString error() const { return m_error; }

    // Every request the server received so far, oldest first: {t (ms since the epoch), http,
    // method, id, session, version, taskId, name, action}.
    QList<QJsonObject> requests() const
    {
        QList<QJsonObject> all;
        QFile file(m_log);
        if (!file.open(QIODevice::ReadOnly))
            return all;
        for (const QByteArray &line : file.readAll().split('\n')) {
            const QJsonDocument doc = QJsonDocument::fromJson(line);
            if (doc.isObject())
                all << doc.object();
        }
        return all;
    }

    // Why the peer cannot run here (node or the npm packages missing), empty when it can.
    static QString missing(const QString &node, const QString &dir)
    {
        using namespace Qt::StringLiterals;
        if (node.isEmpty() || !QFileInfo(node).isExecutable())
            return u"node is not installed: the MCP SDK server peer cannot run (install Node.js >= 20)"_s;
        if (!QFileInfo::exists(dir + u"/node_modules/@modelcontextprotocol/sdk/package.json"_s))
            return u"tests/peers/mcp-server-peer/node_modules is missing: run scripts/setup-test-peers.sh (npm ci)"_s;
        return {};
    }

private:
    QTemporaryDir m_dir;
    QString m_log;
    QProcess m_process;
    QUrl m_url;
    QString m_error;
};

} // namespace RunwatchTest
