// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connections/connectionprofile.h"
#include "domain/connection.h"

#include <QString>

namespace Runwatch {

// A key or a token is sent only to the origin (scheme, host, port) it was given for — RequestAuth
// holds every request to that rule, with the connection's own URL as the origin. A saved
// connection's credential was given for the URL it was saved with, and the connection is looked up
// by name, not by origin: an edit that points it at another origin would carry the credential there
// unless this says so first. The Connections dialog asks before a save moves it and tests without
// it; the rule is here so that any other editor of saved connections applies the same one.
struct CredentialMove
{
    // The stored key would go along: one is stored and no new one was entered with the edit.
    bool key = false;
    // The saved token command would go along: the edit keeps it as it was. Its token is a
    // credential as much as a key (often issued for that service alone, e.g. an Entra ID token
    // for one resource), and the command is easily overlooked among the options: it counts as
    // given for the saved origin. A command edited with the URL is the operator's new choice.
    bool tokenCommand = false;
    QString from; // the origin the credential was given for (originOf())
    QString to;   // the origin the edit points at

    bool any() const { return key || tokenCommand; }
};

// What of `saved`'s credential `edited` would carry to another origin. `keyEntered`: the operator
// typed a key with the edit, which is given for the edited origin and replaces the stored one.
// Nothing moves while the origin stays, for a connection never saved (an empty name), or when the
// edited URL names no host (nothing can be sent there, and saving it is refused).
CredentialMove credentialMove(const ConnectionProfile &saved, const Connection &edited, bool keyEntered);

// `connection` without what `move` names (its key, its token command): what may be sent before the
// operator has given the credential for the new origin.
Connection withoutMovedCredential(Connection connection, const CredentialMove &move);

} // namespace Runwatch
