// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one way an enum gets its names (JSON, the store, the command line, the filter bar): a
// constexpr table per enum, next to the enum's functions, read both ways by nameOf()/fromName().
// A table entry is any struct with `value` and `name` members (EnumName, or one that carries more
// columns, such as a translatable label); a value may have several names (aliases read back by
// fromName()), and nameOf() gives the first. sim/ keeps the same shape in sim/server/simnames.h:
// it may not include core.

#include <QLatin1StringView>
#include <QString>
#include <QStringView>

#include <iterator>
#include <optional>
#include <type_traits>

namespace Runwatch {

template<typename Enum>
struct EnumName
{
    Enum value;
    QLatin1StringView name;
};
// Spelled out for compilers without C++20's deduction for aggregates (clang before 17, which the
// tidy gate runs): EnumName{Status::Done, "done"_L1} deduces the enum.
template<typename Enum>
EnumName(Enum, QLatin1StringView) -> EnumName<Enum>;

// The name of `value` in `table`; `fallback` when no entry has it.
template<typename Table, typename Enum>
QString nameOf(const Table &table, Enum value, QLatin1StringView fallback = {})
{
    for (const auto &entry : table) {
        if (entry.value == value)
            return QString(entry.name);
    }
    return QString(fallback);
}

// The value `name` stands for in `table`; nullopt when no entry has that name.
template<typename Table>
auto fromName(const Table &table, QStringView name, Qt::CaseSensitivity sensitivity = Qt::CaseSensitive)
    -> std::optional<std::remove_cvref_t<decltype(std::begin(table)->value)>>
{
    for (const auto &entry : table) {
        if (name.compare(entry.name, sensitivity) == 0)
            return entry.value;
    }
    return std::nullopt;
}

} // namespace Runwatch
