// SPDX-License-Identifier: GPL-3.0-or-later
// Which of a saved connection's credentials an edit would carry to another origin
// (credentialMove): the stored key unless a new one was entered, the token command unless it was
// edited too; nothing while scheme, host and port stay, for a new connection, or for a URL that
// names no host. And what may be sent before the operator agrees (withoutMovedCredential).
#include "connections/credentialorigin.h"
#include "net/httppolicy.h"

#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

ConnectionProfile saved(const QString &url, KeyStorage storage, const QString &command = {})
{
    ConnectionProfile p;
    p.connection.name = u"prod"_s;
    p.connection.backend = u"openai"_s;
    p.connection.baseUrl = QUrl(url);
    if (!command.isEmpty())
        p.connection.options.insert(ConnectionOption::TokenCommand, command);
    p.keyStorage = storage;
    return p;
}

Connection edited(const ConnectionProfile &from, const QString &url)
{
    Connection c = from.connection;
    c.baseUrl = QUrl(url);
    return c;
}

} // namespace

class TestCredentialMove final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void keyStaysWithItsOrigin_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<bool>("moves");
        QTest::newRow("same URL") << u"https://api.example.com/v1"_s << u"https://api.example.com/v1"_s
                                  << false;
        QTest::newRow("other path") << u"https://api.example.com/v1"_s << u"https://API.example.com/v2"_s
                                    << false;
        QTest::newRow("default port spelled out")
            << u"https://api.example.com/v1"_s << u"https://api.example.com:443/v1"_s << false;
        QTest::newRow("other host") << u"https://api.example.com/v1"_s << u"https://evil.example.net/v1"_s
                                    << true;
        QTest::newRow("other port") << u"http://127.0.0.1:8080/v1"_s << u"http://127.0.0.1:8081/v1"_s << true;
        QTest::newRow("other scheme")
            << u"https://api.example.com/v1"_s << u"http://api.example.com/v1"_s << true;
        QTest::newRow("no host") << u"https://api.example.com/v1"_s << u"not a url"_s << false;
    }
    void keyStaysWithItsOrigin()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(bool, moves);
        const ConnectionProfile p = saved(from, KeyStorage::Keychain);
        const CredentialMove move = credentialMove(p, edited(p, to), false);
        QCOMPARE(move.key, moves);
        QVERIFY(!move.tokenCommand);
        QCOMPARE(move.any(), moves);
        if (moves) {
            QCOMPARE(move.from, originOf(QUrl(from)));
            QCOMPARE(move.to, originOf(QUrl(to)));
        }
    }

    // A key typed with the edit is given for the new origin; no stored key, nothing to move.
    void enteredOrMissingKeyDoesNotMove()
    {
        const ConnectionProfile p = saved(u"https://a.example.com"_s, KeyStorage::Session);
        QVERIFY(credentialMove(p, edited(p, u"https://b.example.com"_s), false).key);
        QVERIFY(!credentialMove(p, edited(p, u"https://b.example.com"_s), true).any());
        const ConnectionProfile none = saved(u"https://a.example.com"_s, KeyStorage::None);
        QVERIFY(!credentialMove(none, edited(none, u"https://b.example.com"_s), false).any());
        // A connection not saved yet has no stored credential.
        ConnectionProfile fresh = p;
        fresh.connection.name.clear();
        QVERIFY(!credentialMove(fresh, edited(p, u"https://b.example.com"_s), false).any());
    }

    // The token command counts as given for the saved origin unless it is edited with the URL.
    void tokenCommandMovesUnlessEdited()
    {
        const ConnectionProfile p = saved(u"https://a.example.com"_s, KeyStorage::None, u"get-token a"_s);
        Connection e = edited(p, u"https://b.example.com"_s);
        CredentialMove move = credentialMove(p, e, false);
        QVERIFY(move.tokenCommand);
        QVERIFY(!move.key);
        QCOMPARE(move.from, u"https://a.example.com"_s);
        QCOMPARE(move.to, u"https://b.example.com"_s);
        e.options.insert(ConnectionOption::TokenCommand, u"  get-token a "_s); // the same command
        QVERIFY(credentialMove(p, e, false).tokenCommand);
        e.options.insert(ConnectionOption::TokenCommand, u"get-token b"_s);
        QVERIFY(!credentialMove(p, e, false).any());
        e.options.remove(ConnectionOption::TokenCommand);
        QVERIFY(!credentialMove(p, e, false).any());
        // Entering a key does not vouch for the command.
        e.options.insert(ConnectionOption::TokenCommand, u"get-token a"_s);
        QVERIFY(credentialMove(p, e, true).tokenCommand);
    }

    void withoutMovedCredentialStripsOnlyWhatMoves()
    {
        Connection c;
        c.apiKey = u"sk-1"_s;
        c.options.insert(ConnectionOption::TokenCommand, u"get-token"_s);
        c.options.insert(ConnectionOption::Proxy, u"http://proxy:3128"_s);
        CredentialMove move;
        QCOMPARE(withoutMovedCredential(c, move).apiKey, u"sk-1"_s);
        move.key = true;
        Connection out = withoutMovedCredential(c, move);
        QVERIFY(out.apiKey.isEmpty());
        QVERIFY(out.options.contains(ConnectionOption::TokenCommand));
        move = {};
        move.tokenCommand = true;
        out = withoutMovedCredential(c, move);
        QCOMPARE(out.apiKey, u"sk-1"_s);
        QVERIFY(!out.options.contains(ConnectionOption::TokenCommand));
        QVERIFY(out.options.contains(ConnectionOption::Proxy));
    }
};

QTEST_GUILESS_MAIN(TestCredentialMove)
#include "tst_credentialmove.moc"
