// SPDX-License-Identifier: GPL-3.0-or-later
// The headers nearly every translation unit parses: Qt Core/Network, QCoro's task and reply
// awaiters and the standard library pieces the code uses everywhere. Compiled once per build
// (target runwatch_pch) and reused by every target (cmake/RunwatchBuildSpeed.cmake); parsing
// them was 40-65 % of a typical file's compile time on CI's two cores.
// Only Core/Network here: GCC accepts a precompiled header only where every macro defined when
// it was built is defined the same way, and every target has QT_CORE_LIB and QT_NETWORK_LIB.
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QCoreApplication>
#include <QDateTime>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QNetworkReply>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <QUrl>

#include <QCoroNetworkReply>
#include <QCoroTask>

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
