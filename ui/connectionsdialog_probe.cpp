// SPDX-License-Identifier: GPL-3.0-or-later
// The Connections dialog's "Test connection", and what it and Save do with a stored key or token
// command when the URL in the form points at another origin than the one they were saved for:
// core decides what would move (credentialMove()); this words it and asks.
#include "connections/connectionoptions.h"
#include "connections/connectionprobe.h"
#include "connectionsdialog.h"

#include <QMessageBox>
#include <QPointer>
#include <QPushButton>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// `origin` kept on one line where it is wrapped: a word joiner after each slash and hyphen, where
// the line breaker would otherwise part "http://" from its host or split a host name.
QString unbroken(const QString &origin)
{
    QString out;
    for (const QChar c : origin) {
        out += c;
        if (c == u'/' || c == u'-')
            out += QChar(0x2060);
    }
    return out;
}
} // namespace

CredentialMove ConnectionsDialog::formCredentialMove() const
{
    const auto saved = m_editing.isEmpty() ? std::nullopt : m_registry->profile(m_editing);
    if (!saved || saved->transient)
        return {};
    return credentialMove(*saved, formProfile().connection, formKey().has_value());
}

ConnectionsDialog::MovedCredentialAnswer
ConnectionsDialog::askAboutMovedCredential(const CredentialMove &move)
{
    // The buttons name the server by host (and port): a whole origin makes a very wide button,
    // and the text above names both origins in full.
    const QString server = QUrl(move.to).authority();
    QString title, text, details, use, remove;
    if (move.key && move.tokenCommand) {
        title = tr("Use the Credentials for the New Server?");
        text = tr("The API key and the token command of “%1” were set up for %2, but the connection "
                  "now points to %3.");
        details = tr("Credentials are only sent to the server they were given for. Use them for %1 only "
                     "if that server should have them. To use others, cancel and enter them in the form.");
        use = tr("Use them for %1");
        remove = tr("Remove both");
    } else if (move.key) {
        title = tr("Use the API Key for the New Server?");
        text = tr("The API key of “%1” was saved for %2, but the connection now points to %3.");
        details = tr("A key is only sent to the server it was given for. Use the same key for %1 only if "
                     "that server should have it. To use another key, cancel and enter it in the API key "
                     "field.");
        use = tr("Use the key for %1");
        remove = tr("Remove the key");
    } else {
        title = tr("Use the Token Command for the New Server?");
        text = tr("The token command of “%1” was set up for %2, but the connection now points to %3.");
        details = tr("Its tokens are only sent to the server it was set up for. Keep the command for %1 "
                     "only if that server should have its tokens. To use another command, cancel and "
                     "change it.");
        use = tr("Use the command for %1");
        remove = tr("Remove the command");
    }
    QMessageBox box(QMessageBox::Warning, title, {}, QMessageBox::Cancel, this);
    box.setObjectName(u"movedCredentialQuestion"_s);
    box.setTextFormat(Qt::PlainText); // the connection's name is the operator's text, not markup
    box.setText(text.arg(m_editing, unbroken(move.from), unbroken(move.to)));
    box.setInformativeText(details.arg(server));
    QPushButton *useButton = box.addButton(use.arg(server), QMessageBox::AcceptRole);
    useButton->setObjectName(u"movedCredentialUse"_s);
    QPushButton *removeButton = box.addButton(remove, QMessageBox::DestructiveRole);
    removeButton->setObjectName(u"movedCredentialRemove"_s);
    // Nothing leaves for the new server by a stray Enter.
    box.setDefaultButton(QMessageBox::Cancel);
    box.setEscapeButton(QMessageBox::Cancel);
    box.exec();
    if (box.clickedButton() == useButton)
        return MovedCredentialAnswer::Use;
    if (box.clickedButton() == removeButton)
        return MovedCredentialAnswer::Remove;
    return MovedCredentialAnswer::Cancel;
}

QString ConnectionsDialog::movedCredentialNote(const CredentialMove &move)
{
    if (move.key && move.tokenCommand) {
        return tr("The stored API key and the token command were not used: they were set up for %1. "
                  "Enter the key for %2 above to test with it, or save the connection to choose what "
                  "happens to them.")
            .arg(unbroken(move.from), unbroken(move.to));
    }
    if (move.key) {
        return tr("The stored API key was not sent: it was saved for %1. Enter the key for %2 above to "
                  "test with it.")
            .arg(unbroken(move.from), unbroken(move.to));
    }
    if (move.tokenCommand) {
        return tr("The token command was not run: it was set up for %1. Save the connection to use it "
                  "for %2, or change it.")
            .arg(unbroken(move.from), unbroken(move.to));
    }
    return {};
}

void ConnectionsDialog::onTest()
{
    Connection c = formProfile().connection;
    if (const auto key = formKey()) {
        c.apiKey = *key;
    } else if (!m_editing.isEmpty()) {
        c.apiKey = m_registry->apiKey(m_editing); // used for the request, never shown
    }
    // The connection under test is the one in the form, so RequestAuth's origin rule would let
    // the stored key go to an edited URL: what was saved for another origin stays out.
    const CredentialMove move = formCredentialMove();
    c = withoutMovedCredential(std::move(c), move);
    // The proxy is shown without its password (it is in the keychain): test with it while the
    // form still names the proxy it was saved for.
    if (!m_editing.isEmpty() && proxyPassword(c).isEmpty())
        setProxyPassword(&c, m_registry->keptProxyPassword(m_editing, c));
    runTest(c, movedCredentialNote(move));
}

QString ConnectionsDialog::describeService(const ConnectionInfo &info)
{
    QString text = info.protocol.isEmpty() ? tr("Connected to “%1”.").arg(info.name)
                                           : tr("Connected to “%1” (%2).").arg(info.name, info.protocol);
    if (!info.description.isEmpty())
        text += u'\n' + info.description;
    if (!info.skills.isEmpty()) {
        // A long card would push the form off screen: name the first few skills and count the rest.
        constexpr int kShown = 5;
        text += u'\n' + tr("Skills:");
        for (qsizetype i = 0; i < std::min<qsizetype>(kShown, info.skills.size()); ++i)
            text += u"\n • "_s + info.skills.at(i);
        if (info.skills.size() > kShown)
            text += u'\n' + tr("…and %n more", nullptr, int(info.skills.size() - kShown));
    }
    for (const QString &warning : info.warnings)
        text += u'\n' + tr("Note: %1").arg(warning);
    return text;
}

QCoro::Task<> ConnectionsDialog::runTest(Connection connection, QString note)
{
    QPointer<ConnectionsDialog> self = this;
    m_test->setEnabled(false);
    setStatus(tr("Testing…"), false);
    const QString backend = connection.backend;
    // Which question the service is asked is core's rule (probeConnection); this only words it.
    const ConnectionProbe probe = co_await probeConnection(std::move(connection));
    if (!self)
        co_return;
    QString message;
    switch (probe.kind) {
    case ConnectionProbe::Kind::UnknownBackend:
        message = tr("Unknown backend type \"%1\".").arg(backend);
        break;
    case ConnectionProbe::Kind::Models:
        message = tr("Connected: HTTP %1, the service answered the model list.").arg(probe.httpStatus);
        break;
    case ConnectionProbe::Kind::Described:
        message = describeService(probe.info);
        break;
    case ConnectionProbe::Kind::Listed:
        message = tr("Connected: %n run(s) listed.", nullptr, probe.runsListed);
        break;
    case ConnectionProbe::Kind::Failed:
        message = tr("Failed: %1").arg(probe.error.toString());
        break;
    }
    if (!note.isEmpty())
        message += u'\n' + note;
    m_test->setEnabled(true);
    setStatus(message, !probe.ok);
    Q_EMIT tested(probe.ok, message);
}

} // namespace Runwatch
