// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFont>
#include <QString>
#include <QTextLayout>

#include <deque>
#include <list>
#include <memory>
#include <unordered_map>

class QPaintDevice;

namespace Runwatch {

// What OutputView shows, as pieces of text each laid out on its own (QTextLayout), appended to at
// the end only:
// - a line break, or a soft split of a paragraph longer than softSplitColumn() characters (its
//   re-layout costs grow with its length), starts a new paragraph;
// - the last paragraph, while it grows, is cut where its last line starts once it has two lines
//   (cutLast()): the lines before break as they did, so the text looks the same, and an append
//   lays out that one line again, not the paragraph. The piece after a cut "continues" the one
//   before: no line break between them in the text. A new width or font joins the pieces again
//   (they would break early at another width); right-to-left text is never cut (a piece would
//   take a direction of its own);
// - the oldest pieces go once there are more than maxPieces();
// - every line's height is a whole number of pixels, so that a scroll by whole lines is a blit of
//   the pixels already drawn.
// A position counts the characters shown before it, a line break between paragraphs included (not
// a cut): the offset into text() plus what went with the oldest pieces. It stays put when the
// oldest pieces go, and when pieces are joined.
class OutputText final
{
public:
    struct Piece
    {
        QString text;
        qint64 start = 0;  // position of its first character
        qint64 serial = 0; // its layout's key in the cache
        bool continues = false;
        int lines = -1; // at width(); -1 when not laid out since the width or font changed
        int height = 0; // pixels, when lines >= 0
    };

    OutputText();

    // Returns whether anything changed (every piece is then laid out again, when it is needed).
    bool setFont(const QFont &font, QPaintDevice *device);
    bool setWidth(int width);
    int width() const { return m_width; }
    void setSoftSplitColumn(int chars) { m_softSplit = qMax(80, chars); }
    int softSplitColumn() const { return m_softSplit; }
    void setMaxPieces(int pieces) { m_maxPieces = qMax(2, pieces); }
    int maxPieces() const { return m_maxPieces; }
    void setCutsGrowing(bool cut) { m_cutGrowing = cut; }

    // Appends text ('\r' dropped) and lays out the last piece. Returns the index of the first
    // piece it changed.
    qsizetype append(QStringView text);
    // The last piece cut where its last line starts, when it has more than one; false if not.
    bool cutLast();
    // Drops the oldest pieces beyond maxPieces(). Returns how many went.
    qsizetype trim();
    void clear();

    qsizetype size() const { return qsizetype(m_pieces.size()); }
    bool isEmpty() const { return m_pieces.empty() || (size() == 1 && m_pieces.front().text.isEmpty()); }
    const Piece &at(qsizetype i) const { return m_pieces[size_t(i)]; }
    qint64 startPosition() const { return m_pieces.empty() ? 0 : m_pieces.front().start; }
    qint64 endPosition() const;

    // The piece laid out at width() (now, if it was not). The reference holds until the next call.
    const QTextLayout &layout(qsizetype i);
    // Its lines; 1 for a piece not laid out (an estimate, as QPlainTextEdit makes).
    int lineCount(qsizetype i) const { return qMax(1, at(i).lines); }
    int height(qsizetype i);
    // The top of line `line` of piece `i`, from the piece's top.
    int lineTop(qsizetype i, int line);
    int lineHeight(qsizetype i, int line);
    qint64 totalLines() const { return m_totalLines; }
    qint64 linesBefore(qsizetype i) const;

    // The piece a position is in (the later one where two meet).
    qsizetype pieceAt(qint64 position) const;
    // That piece, and the position's column in its text (-1: no text).
    struct Place
    {
        qsizetype piece = -1;
        int column = 0;
    };
    Place placeOf(qint64 position) const;
    // The text between two positions, a line break between paragraphs.
    QString text(qint64 from, qint64 to) const;
    QString text() const { return text(startPosition(), endPosition()); }
    // Offsets in text() and positions, one into the other (accessibility speaks in offsets).
    qint64 offsetOf(qint64 position) const
    {
        return qBound(startPosition(), position, endPosition()) - startPosition();
    }
    qint64 positionOf(qint64 offset) const
    {
        return qBound(startPosition(), startPosition() + offset, endPosition());
    }

private:
    Piece &piece(qsizetype i) { return m_pieces[size_t(i)]; }
    void newPiece(bool continues);
    void appendToLast(QStringView text);
    void setLines(qsizetype i, int lines, int height);
    // Piece `i`'s text broken into lines at width() in `layout`, and its lines and height set.
    void lineUp(qsizetype i, QTextLayout *layout);
    // The cut pieces joined again, every piece to be laid out again.
    void relayoutAll();

    std::deque<Piece> m_pieces;
    // The layouts of the pieces used last, by serial: what is on screen and what was lately.
    class Layouts
    {
    public:
        QTextLayout *find(qint64 serial); // and marks it used
        QTextLayout &keep(qint64 serial, std::unique_ptr<QTextLayout> layout);
        std::unique_ptr<QTextLayout> take(qint64 serial);
        void remove(qint64 serial) { take(serial); }
        void clear();

    private:
        static constexpr std::size_t kKept = 256;
        struct Kept
        {
            std::unique_ptr<QTextLayout> layout;
            std::list<qint64>::iterator used; // in m_used
        };
        std::unordered_map<qint64, Kept> m_kept;
        std::list<qint64> m_used; // most recently used first
    };
    Layouts m_layouts;
    QFont m_font;
    QFont m_deviceFont; // m_font at the device's resolution (each layout would resolve it again)
    QPaintDevice *m_device = nullptr;
    QTextOption m_option;
    int m_width = 0;
    int m_softSplit = 1000;
    int m_maxPieces = 20000;
    int m_paragraphLength = 0; // characters in the last paragraph (all its pieces)
    bool m_cutGrowing = true;
    qint64 m_totalLines = 0;
    qint64 m_nextSerial = 0;
};

} // namespace Runwatch
