// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for what the store and the CLI read back: ContinuationToken, RunError,
// InputRequest, SecondaryItem and Connection from arbitrary JSON (a damaged or hand-edited store
// must never crash the app).
//
// Properties, for every type T and every JSON object x in the input (the document itself, and
// each object member or array element one level down):
//   - T::fromJson(x) does not crash, UBSan included;
//   - serialising is stable after one round: toJson(fromJson(x)) == toJson(fromJson(toJson(fromJson(x))))
//     (compared as compact JSON bytes, so key order and number formatting count);
//   - a token's sequence is -1 or more (the reducer drops events at or below it).
//
//   fuzz_token -dict=tests/fuzz/token.dict tests/fuzz/corpus/token
#include "domain/connection.h"
#include "domain/run.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace Runwatch;

namespace {

[[noreturn]] void violation(const char *type, const char *what)
{
    std::fprintf(stderr, "%s invariant violated: %s\n", type, what);
    std::abort();
}

QByteArray compact(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

template<typename T>
T roundTrip(const char *name, const QJsonObject &x)
{
    const T first = T::fromJson(x);
    const QJsonObject once = first.toJson();
    const T second = T::fromJson(once);
    const QJsonObject twice = second.toJson();
    if (compact(once) != compact(twice)) {
        std::fprintf(stderr, "once:  %s\ntwice: %s\n", compact(once).constData(), compact(twice).constData());
        violation(name, "toJson(fromJson(x)) is not stable under another round trip");
    }
    return first;
}

void checkObject(const QJsonObject &x)
{
    const ContinuationToken token = roundTrip<ContinuationToken>("ContinuationToken", x);
    if (token.sequence < -1)
        violation("ContinuationToken", "sequence below -1");
    roundTrip<RunError>("RunError", x);
    roundTrip<InputRequest>("InputRequest", x);
    roundTrip<SecondaryItem>("SecondaryItem", x);
    const Connection connection = roundTrip<Connection>("Connection", x);
    if (connection.toJson().contains(QStringLiteral("api_key")))
        violation("Connection", "toJson() wrote an API key");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    const QJsonDocument doc = QJsonDocument::fromJson(
        QByteArray::fromRawData(reinterpret_cast<const char *>(bytes), qsizetype(size)));
    QList<QJsonObject> objects;
    if (doc.isObject()) {
        objects << doc.object();
        for (const QJsonValue &v : doc.object()) {
            if (v.isObject())
                objects << v.toObject();
        }
    } else if (doc.isArray()) {
        for (const QJsonValue &v : doc.array()) {
            if (v.isObject())
                objects << v.toObject();
        }
    }
    for (const QJsonObject &o : std::as_const(objects))
        checkObject(o);
    return 0;
}
