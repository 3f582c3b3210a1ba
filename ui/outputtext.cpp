// SPDX-License-Identifier: GPL-3.0-or-later
#include "outputtext.h"

#include <QFontMetrics>
#include <QtMath>

#include <algorithm>

namespace Runwatch {

namespace {
// How far back a soft split looks for whitespace before it cuts a word.
constexpr int kSplitLookBack = 120;

// Whether anything in `text` reads right to left: a piece cut from such a paragraph would take a
// direction of its own, so it is left whole.
bool readsRightToLeft(QStringView text)
{
    return std::any_of(text.begin(), text.end(), [](QChar c) {
        switch (c.direction()) {
        case QChar::DirR:
        case QChar::DirAL:
        case QChar::DirRLE:
        case QChar::DirRLO:
        case QChar::DirRLI:
            return true;
        default:
            return false;
        }
    });
}
} // namespace

OutputText::OutputText()
{
    // As QPlainTextEdit wraps: at word boundaries, inside a word longer than the line. The
    // direction is each paragraph's own (its first strong character), as in a document.
    m_option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_option.setTextDirection(Qt::LayoutDirectionAuto);
}

bool OutputText::setFont(const QFont &font, QPaintDevice *device)
{
    if (font == m_font && device == m_device)
        return false;
    m_font = font;
    m_device = device;
    m_deviceFont = device ? QFont(font, device) : font;
    relayoutAll();
    return true;
}

bool OutputText::setWidth(int width)
{
    if (width == m_width)
        return false;
    m_width = width;
    relayoutAll();
    return true;
}

void OutputText::relayoutAll()
{
    m_layouts.clear();
    std::deque<Piece> joined;
    for (Piece &p : m_pieces) {
        if (p.continues && !joined.empty()) {
            joined.back().text += p.text;
            continue;
        }
        p.continues = false; // (the piece it went on from was dropped)
        p.lines = -1;
        p.height = 0;
        joined.push_back(std::move(p));
    }
    m_pieces = std::move(joined);
    m_totalLines = size();
}

qint64 OutputText::endPosition() const
{
    return m_pieces.empty() ? 0 : m_pieces.back().start + m_pieces.back().text.size();
}

void OutputText::newPiece(bool continues)
{
    Piece p;
    // A line break before a paragraph has a position of its own (the text shown counts it).
    p.start = endPosition() + (continues || m_pieces.empty() ? 0 : 1);
    p.serial = m_nextSerial++;
    p.continues = continues;
    m_pieces.push_back(std::move(p));
    ++m_totalLines;
}

void OutputText::appendToLast(QStringView text)
{
    if (text.isEmpty())
        return;
    QString &last = m_pieces.back().text;
    if (!text.contains(u'\r')) {
        last.append(text);
        return;
    }
    for (const QChar c : text) {
        if (c != u'\r')
            last.append(c);
    }
}

qsizetype OutputText::append(QStringView text)
{
    if (m_pieces.empty())
        newPiece(false);
    const qsizetype first = size() - 1;
    qsizetype i = 0;
    while (i < text.size()) {
        const qsizetype nl = text.indexOf(u'\n', i);
        const qsizetype segEnd = nl < 0 ? text.size() : nl;
        // A paragraph past the split column ends at whitespace before it (a word is cut only
        // when none is near).
        while (segEnd - i > m_softSplit - m_paragraphLength) {
            qsizetype cut = i + qMax(1, m_softSplit - m_paragraphLength);
            const qsizetype floor = qMax(i, cut - kSplitLookBack);
            qsizetype ws = cut;
            while (ws > floor && !text.at(ws - 1).isSpace())
                --ws;
            if (ws > floor)
                cut = ws;
            appendToLast(text.mid(i, cut - i));
            newPiece(false);
            m_paragraphLength = 0;
            i = cut;
        }
        appendToLast(text.mid(i, segEnd - i));
        m_paragraphLength += int(segEnd - i);
        i = segEnd;
        if (nl >= 0) {
            newPiece(false);
            m_paragraphLength = 0;
            i = nl + 1;
        }
    }
    // The last piece is laid out now (it may be cut); the others when they are drawn or scrolled
    // to, as QPlainTextEdit lays out its paragraphs: a catch-up of a long answer shapes the
    // screenful it shows, not every paragraph it writes, and counts one line for each until then.
    // The line that grew (the usual frame of a live run) keeps its layout object, given the new
    // text.
    std::unique_ptr<QTextLayout> grown
        = first == size() - 1 && m_width > 0 ? m_layouts.take(at(first).serial) : nullptr;
    for (qsizetype p = first; p < size(); ++p) {
        m_layouts.remove(at(p).serial);
        setLines(p, -1, 0);
    }
    if (grown) {
        grown->setText(at(first).text);
        lineUp(first, grown.get());
        m_layouts.keep(at(first).serial, std::move(grown));
    } else if (m_width > 0) {
        layout(size() - 1);
    }
    return first;
}

void OutputText::setLines(qsizetype i, int lines, int height)
{
    Piece &p = piece(i);
    m_totalLines += qMax(1, lines) - qMax(1, p.lines);
    p.lines = lines;
    p.height = height;
}

const QTextLayout &OutputText::layout(qsizetype i)
{
    const Piece &p = at(i);
    if (QTextLayout *kept = m_layouts.find(p.serial))
        return *kept;
    auto layout = std::make_unique<QTextLayout>(p.text, m_deviceFont);
    layout->setCacheEnabled(true); // painted from the same shaping
    layout->setTextOption(m_option);
    lineUp(i, layout.get());
    return m_layouts.keep(p.serial, std::move(layout));
}

QTextLayout *OutputText::Layouts::find(qint64 serial)
{
    const auto it = m_kept.find(serial);
    if (it == m_kept.end())
        return nullptr;
    m_used.splice(m_used.begin(), m_used, it->second.used);
    return it->second.layout.get();
}

QTextLayout &OutputText::Layouts::keep(qint64 serial, std::unique_ptr<QTextLayout> layout)
{
    remove(serial);
    m_used.push_front(serial);
    QTextLayout &kept = *layout;
    m_kept.emplace(serial, Kept{std::move(layout), m_used.begin()});
    if (m_kept.size() > kKept) { // the one used longest ago goes (never the one just kept)
        m_kept.erase(m_used.back());
        m_used.pop_back();
    }
    return kept;
}

std::unique_ptr<QTextLayout> OutputText::Layouts::take(qint64 serial)
{
    const auto it = m_kept.find(serial);
    if (it == m_kept.end())
        return nullptr;
    std::unique_ptr<QTextLayout> layout = std::move(it->second.layout);
    m_used.erase(it->second.used);
    m_kept.erase(it);
    return layout;
}

void OutputText::Layouts::clear()
{
    m_kept.clear();
    m_used.clear();
}

void OutputText::lineUp(qsizetype i, QTextLayout *layout)
{
    layout->beginLayout();
    int y = 0;
    for (QTextLine line = layout->createLine(); line.isValid(); line = layout->createLine()) {
        line.setLeadingIncluded(true);
        line.setLineWidth(qMax(1, m_width));
        line.setPosition(QPointF(0, y));
        y += qCeil(line.height());
    }
    layout->endLayout();
    if (layout->lineCount() == 0)
        y = QFontMetrics(m_deviceFont).lineSpacing();
    setLines(i, qMax(1, layout->lineCount()), y);
}

int OutputText::height(qsizetype i)
{
    if (at(i).lines < 0)
        layout(i);
    return at(i).height;
}

int OutputText::lineTop(qsizetype i, int line)
{
    if (line <= 0)
        return 0;
    const QTextLayout &l = layout(i);
    return line < l.lineCount() ? qRound(l.lineAt(line).y()) : at(i).height;
}

int OutputText::lineHeight(qsizetype i, int line)
{
    if (at(i).lines == 1 && line == 0)
        return at(i).height;
    const QTextLayout &l = layout(i);
    if (line < 0 || line >= l.lineCount())
        return at(i).height;
    return qCeil(l.lineAt(line).height());
}

bool OutputText::cutLast()
{
    if (!m_cutGrowing || m_width <= 0 || m_pieces.empty())
        return false;
    const qsizetype i = size() - 1;
    if (at(i).lines == 1)
        return false;
    const QTextLayout &l = layout(i);
    if (l.lineCount() < 2)
        return false;
    const QTextLine last = l.lineAt(l.lineCount() - 1);
    const int start = last.textStart();
    Piece &p = piece(i);
    if (start <= 0 || readsRightToLeft(p.text))
        return false;
    // Where the last line starts, the lines before it break as they did.
    const int lastHeight = qCeil(last.height());
    const int before = l.lineCount() - 1;
    QString rest = p.text.mid(start);
    p.text.truncate(start);
    // Its layout stays: the view draws a piece's own lines only, and the one it had is what is
    // on screen (laid out again from its text, the same lines, once the cache lets it go).
    setLines(i, before, p.height - lastHeight);
    newPiece(true);
    Piece &next = m_pieces.back();
    next.text = std::move(rest);
    next.start = p.start + start;
    setLines(size() - 1, 1, lastHeight);
    return true;
}

qsizetype OutputText::trim()
{
    qsizetype dropped = 0;
    while (size() > m_maxPieces) {
        m_totalLines -= lineCount(0);
        m_layouts.remove(m_pieces.front().serial);
        m_pieces.pop_front();
        ++dropped;
    }
    return dropped;
}

void OutputText::clear()
{
    m_pieces.clear();
    m_layouts.clear();
    m_totalLines = 0;
    m_paragraphLength = 0;
}

qint64 OutputText::linesBefore(qsizetype i) const
{
    // From the nearer end: the view asks about its top line, which is near the end while it follows.
    qint64 lines = 0;
    if (i <= size() / 2) {
        for (qsizetype p = 0; p < i; ++p)
            lines += lineCount(p);
        return lines;
    }
    for (qsizetype p = i; p < size(); ++p)
        lines += lineCount(p);
    return m_totalLines - lines;
}

qsizetype OutputText::pieceAt(qint64 position) const
{
    if (m_pieces.empty())
        return -1;
    const auto after = std::upper_bound(m_pieces.begin(), m_pieces.end(), position,
                                        [](qint64 pos, const Piece &p) { return pos < p.start; });
    return qMax<qsizetype>(0, qsizetype(after - m_pieces.begin()) - 1);
}

OutputText::Place OutputText::placeOf(qint64 position) const
{
    const qsizetype i = pieceAt(position);
    if (i < 0)
        return {};
    return {i, int(qBound<qint64>(0, position - at(i).start, at(i).text.size()))};
}

QString OutputText::text(qint64 from, qint64 to) const
{
    QString out;
    if (m_pieces.empty() || to <= from)
        return out;
    for (qsizetype i = pieceAt(from); i < size(); ++i) {
        const Piece &p = at(i);
        if (!p.continues && p.start - 1 >= from && p.start - 1 < to)
            out += u'\n';
        if (p.start >= to)
            break;
        const qint64 a = qMax(from, p.start) - p.start;
        const qint64 b = qMin(to, p.start + p.text.size()) - p.start;
        if (b > a)
            out += QStringView(p.text).mid(a, b - a);
    }
    return out;
}

} // namespace Runwatch
