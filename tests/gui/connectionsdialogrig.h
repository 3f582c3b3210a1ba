// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The Connections dialog as the app shows it, over a fresh store in a temporary folder and the
// simulators' engine, with a key store that finds no keyring (KeychainKeyStore(false)): the
// rig of every dialog test, made anew for each test function.

#include "connections/connectionregistry.h"
#include "connections/keystore.h"
#include "connectionsdialog.h"
#include "store/runstore.h"
#include "uitesthelpers.h"

#include <QTemporaryDir>

#include <memory>

namespace RunwatchUiTest {

struct ConnectionsDialogRig
{
    // Declared in the order they are made; the members go in reverse: the dialog first, the
    // engine (and the simulators whose runs the dialog's tests started) last.
    Engine engine;
    QTemporaryDir dir;
    Runwatch::RunStore store;
    std::unique_ptr<Runwatch::ConnectionRegistry> registry;
    std::unique_ptr<Runwatch::ConnectionsDialog> dialog;

    // Opens the store and shows the dialog; false (with a test failure) when the store does not open.
    [[nodiscard]] bool open()
    {
        if (!store.open(dir.filePath(u"runs.sqlite"_s))) {
            qWarning("ConnectionsDialogRig: the store did not open in %s", qPrintable(dir.path()));
            return false;
        }
        auto *keychain = new Runwatch::KeychainKeyStore(false);
        registry = std::make_unique<Runwatch::ConnectionRegistry>(&engine.manager, keychain, &store);
        keychain->setParent(registry.get());
        dialog = std::make_unique<Runwatch::ConnectionsDialog>(registry.get());
        dialog->show();
        return QTest::qWaitForWindowExposed(dialog.get());
    }
};

} // namespace RunwatchUiTest
