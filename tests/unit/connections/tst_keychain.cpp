// SPDX-License-Identifier: GPL-3.0-or-later
// The OS keychain for API keys. Runs twice under ctest (tests/unit/connections/run-keyring.sh):
//   RUNWATCH_KEYRING=real  inside dbus-run-session with an unlocked gnome-keyring;
//   RUNWATCH_KEYRING=none  with no D-Bus session at all (the "headless / locked" path).
#include "awaitwithin.h"
#include "connections/keychain.h"
#include "domain/connection.h"
#include "store/runstore.h"

#include <QCoroTask>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::awaitWithin;

namespace {

const QString kKey = u"sk-runwatch-test-key-7f3a9"_s;

} // namespace

class TestKeychain final : public QObject
{
    Q_OBJECT
    QString mode() const { return qEnvironmentVariable("RUNWATCH_KEYRING"); }

private Q_SLOTS:
    void initTestCase()
    {
        if (mode().isEmpty()) {
            QFAIL("run through tests/unit/connections/run-keyring.sh (ctest does): it provides the keyring "
                  "environment");
        }
    }

    // With a real Secret Service the key round-trips and lands nowhere else.
    void realKeyringRoundTrip()
    {
        if (mode() != u"real")
            QSKIP("needs RUNWATCH_KEYRING=real");
        Keychain secrets;
        secrets.setServiceName(u"io.github.runwatch.Runwatch.test"_s);
        const auto written = awaitWithin(secrets.write(u"connection/prod"_s, kKey));
        QVERIFY(written);
        QVERIFY2(written->ok(), qPrintable(written->error));
        QVERIFY(!written->plainFile);
        const auto read = awaitWithin(secrets.read(u"connection/prod"_s));
        QVERIFY(read && read->ok());
        QCOMPARE(read->secret, kKey);
        const auto removed = awaitWithin(secrets.remove(u"connection/prod"_s));
        QVERIFY(removed && removed->ok());
        const auto gone = awaitWithin(secrets.read(u"connection/prod"_s));
        QVERIFY(gone && gone->status == KeyStore::Status::NotFound);
    }

    // Without a keychain: a clear error, nothing written anywhere — unless the operator opted in,
    // and then every result says the insecure store was used.
    void noKeyringPath()
    {
        if (mode() != u"none")
            QSKIP("needs RUNWATCH_KEYRING=none");
        QTemporaryDir dir;
        Keychain secrets;
        const auto refused = awaitWithin(secrets.write(u"connection/prod"_s, kKey));
        QVERIFY(refused);
        QVERIFY(!refused->ok());
        QCOMPARE(refused->status, KeyStore::Status::Unavailable);
        QVERIFY2(refused->error.contains(u"keychain"_s), qPrintable(refused->error));
        QVERIFY2(refused->error.contains(u"less secure"_s), qPrintable(refused->error));

        const QString file = dir.filePath(u"insecure.json"_s);
        QVERIFY(!QFile::exists(file));
        secrets.setInsecureFallback(true, file);
        const auto stored = awaitWithin(secrets.write(u"connection/prod"_s, kKey));
        QVERIFY(stored && stored->ok());
        QVERIFY(stored->plainFile);
        QCOMPARE(QFile::permissions(file) & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
                 QFileDevice::Permissions());
        const auto read = awaitWithin(secrets.read(u"connection/prod"_s));
        QVERIFY(read && read->ok() && read->plainFile);
        QCOMPARE(read->secret, kKey);
    }

    // A damaged plain file (a partial copy, a bad edit) is never read as empty and written back,
    // which would lose every other key in it: reads and writes fail, naming it, and it stays as
    // it is.
    void damagedPlainFileIsNotRewritten()
    {
        if (mode() != u"none")
            QSKIP("needs RUNWATCH_KEYRING=none");
        QTemporaryDir dir;
        const QString path = dir.filePath(u"insecure.json"_s);
        Keychain secrets;
        secrets.setInsecureFallback(true, path);
        QVERIFY(awaitWithin(secrets.write(u"connection/a"_s, kKey))->ok());
        QVERIFY(awaitWithin(secrets.write(u"connection/b"_s, kKey + u"b"_s))->ok());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QByteArray bytes = file.readAll();
        bytes.chop(3); // truncated: the other keys are still in there
        QVERIFY(file.resize(0) && file.write(bytes) == bytes.size());
        file.close();

        const auto written = awaitWithin(secrets.write(u"connection/c"_s, kKey));
        QVERIFY(written && !written->ok());
        QVERIFY2(written->error.contains(u"damaged"_s) && written->error.contains(path),
                 qPrintable(written->error));
        const auto read = awaitWithin(secrets.read(u"connection/a"_s));
        QVERIFY(read && !read->ok());
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), bytes);
    }

    // The database and the settings file never contain the key.
    void keyNeverInStoreOrSettings()
    {
        QTemporaryDir dir;
        {
            RunStore store;
            QVERIFY(store.open(dir.filePath(u"runs.sqlite"_s)));
            Connection c;
            c.name = u"prod"_s;
            c.backend = u"openai"_s;
            c.baseUrl = QUrl(u"https://api.example.invalid/v1"_s);
            c.apiKey = kKey;
            QVERIFY(store.saveConnectionConfig(c.name, c.toJson()));
            QSettings settings(dir.filePath(u"runwatch.conf"_s), QSettings::IniFormat);
            settings.setValue(u"connections/prod"_s, c.toJson().toVariantMap());
            settings.sync();
            Keychain secrets;
            secrets.setServiceName(u"io.github.runwatch.Runwatch.test"_s);
            const auto written = awaitWithin(secrets.write(u"connection/prod"_s, kKey));
            QVERIFY(written);
            if (mode() == u"real")
                QVERIFY(written->ok());
        }
        QDirIterator it(dir.path(), QDir::Files, QDirIterator::Subdirectories);
        int files = 0;
        while (it.hasNext()) {
            QFile f(it.next());
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY2(!f.readAll().contains(kKey.toUtf8()), qPrintable(f.fileName()));
            ++files;
        }
        QVERIFY(files >= 2);
    }
};

QTEST_GUILESS_MAIN(TestKeychain)
#include "tst_keychain.moc"
