// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringView>

#include <atomic>
#include <memory>

namespace Runwatch {

// A run's answer: text that grows at its end, copied often and cheaply.
//
// Why not QString: every copy of a run (the store's baseline of its last write, the batch on the
// writer thread, the text a `watch` printed) shared the answer's buffer, so the next delta
// appended to the live run copied the whole answer first. With a save per run per second that
// was every live run's whole text once a second on the GUI thread — 200 runs of 20 KB made the
// heaviest frames (bench_gui_live), a 5 MB answer would copy 5 MB a second.
//
// Here the characters live in a buffer that only grows: a copy is a pointer and a length, and
// an append writes past the end of everything any copy can see. Only the copy at the buffer's
// end appends in place (the first to claim the room, if two try); any other copy — one that was
// cut back while another copy still sees past it, or one behind the end — moves to a buffer of
// its own first. Characters below a
// copy's length never change, so a copy handed to another thread stays valid while the owner
// goes on appending, and two copies of one buffer compare (prefix, equality) by their lengths.
class RunText
{
public:
    RunText() = default;
    RunText(QStringView text) { assign(text); }    // NOLINT(google-explicit-constructor): a value
    RunText(const QString &text) { assign(text); } // NOLINT(google-explicit-constructor)
    RunText &operator=(QStringView text) { return assign(text); }
    RunText &operator=(const QString &text) { return assign(text); }

    qsizetype size() const { return m_size; }
    bool isEmpty() const { return m_size == 0; }
    QStringView view() const { return {data(), m_size}; }
    operator QStringView() const { return view(); } // reads as a view wherever one is taken
    // A copy of the characters: for what keeps or hands on a QString (export, clipboard, a view).
    QString toString() const { return view().toString(); }

    RunText &append(QStringView text);
    RunText &operator+=(QStringView text) { return append(text); }
    void truncate(qsizetype size);
    void clear();

    // Whether `prefix` is where this text starts: at once when they share a buffer.
    bool extends(const RunText &prefix) const;
    bool startsWith(QStringView text) const { return view().startsWith(text); }
    bool startsWith(QChar c) const { return view().startsWith(c); }
    bool endsWith(QStringView text) const { return view().endsWith(text); }
    bool endsWith(QChar c) const { return view().endsWith(c); }
    bool contains(QStringView text, Qt::CaseSensitivity cs = Qt::CaseSensitive) const
    {
        return view().contains(text, cs);
    }
    QStringView left(qsizetype n) const { return view().left(n); }
    QStringView mid(qsizetype pos, qsizetype n = -1) const { return view().mid(pos, n); }

    friend bool operator==(const RunText &a, const RunText &b);
    friend bool operator!=(const RunText &a, const RunText &b) { return !(a == b); }
    friend bool operator==(const RunText &a, QStringView b) { return a.view() == b; }
    friend bool operator!=(const RunText &a, QStringView b) { return a.view() != b; }
    friend bool operator==(QStringView a, const RunText &b) { return a == b.view(); }
    friend bool operator!=(QStringView a, const RunText &b) { return a != b.view(); }
    friend bool operator==(const RunText &a, const QString &b) { return a.view() == QStringView(b); }
    friend bool operator!=(const RunText &a, const QString &b) { return a.view() != QStringView(b); }
    friend bool operator==(const QString &a, const RunText &b) { return QStringView(a) == b.view(); }
    friend bool operator!=(const QString &a, const RunText &b) { return QStringView(a) != b.view(); }

private:
    struct Buffer
    {
        explicit Buffer(qsizetype capacity);
        std::unique_ptr<char16_t[]> chars;
        qsizetype capacity = 0;
        // How far any copy has written: the end of the buffer's text.
        std::atomic<qsizetype> used{0};
    };

    RunText &assign(QStringView text);
    const char16_t *data() const { return m_buffer ? m_buffer->chars.get() : u""; }

    std::shared_ptr<Buffer> m_buffer;
    qsizetype m_size = 0;
};

} // namespace Runwatch
