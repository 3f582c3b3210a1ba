// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Finds strings of ours that are still English on screen: every source text of the catalog whose
// translation differs from it ("&Quit" → "&Beenden"; "Status" stays "Status" and is not
// looked for) is matched against every text, tooltip, placeholder, accessible name and
// description, item and header text and action text of a widget tree. Sources with %1/%n
// become patterns ("Cancel %1?" matches "Cancel run 3?"). Read from the .ts file, so it
// cannot pass by an empty or missing list: load() fails then.

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QGroupBox>
#include <QHash>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSet>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTextEdit>
#include <QXmlStreamReader>

namespace RunwatchUiTest {

struct EnglishString
{
    QString where;  // class, object name and property
    QString text;   // what is shown
    QString source; // the catalog's English source it matches
};

class EnglishFinder
{
public:
    // Reads the catalog; false when it cannot be read or has (almost) nothing to look for.
    bool load(const QString &tsPath)
    {
        using namespace Qt::StringLiterals;
        QFile file(tsPath);
        if (!file.open(QIODevice::ReadOnly))
            return false;
        QXmlStreamReader xml(&file);
        QString source;
        QStringList forms;
        bool numerus = false;
        while (!xml.atEnd()) {
            xml.readNext();
            if (xml.isStartElement()) {
                if (xml.name() == u"message") {
                    numerus = xml.attributes().value(u"numerus"_s) == u"yes";
                    source.clear();
                    forms.clear();
                } else if (xml.name() == u"source") {
                    source = xml.readElementText();
                } else if (xml.name() == u"translation" && !numerus) {
                    forms << xml.readElementText();
                } else if (xml.name() == u"numerusform") {
                    forms << xml.readElementText();
                }
            } else if (xml.isEndElement() && xml.name() == u"message") {
                // An unfinished message is tst_translations' business; here a source is looked
                // for when some form of its translation differs from it.
                bool differs = false;
                for (const QString &f : std::as_const(forms))
                    differs = differs || normalized(f) != normalized(source);
                if (differs)
                    add(source);
            }
        }
        return !xml.hasError() && m_exact.size() > 200;
    }

    int size() const { return int(m_exact.size()); }

    // The English source `text` is (or, line by line, contains), or an empty string.
    QString match(const QString &text) const
    {
        using namespace Qt::StringLiterals;
        static const QRegularExpression trailingKeys(u"\\s*\\([^()]*\\)$"_s);
        QStringList candidates{text};
        // Tooltips carry the shortcut ("Start a new run (Ctrl+N)"); tooltips and accessible
        // texts join several messages by lines, "; " or " · ".
        for (const QString &line : text.split(u'\n')) {
            candidates << line;
            for (const QString &part : line.split(QRegularExpression(u";\\s+|\\s+·\\s+"_s)))
                candidates << part;
        }
        for (const QString &c : std::as_const(candidates)) {
            const QString n = normalized(c);
            if (n.isEmpty())
                continue;
            for (const QString &form : {n, normalized(QString(c).remove(trailingKeys))}) {
                if (const auto it = m_exact.constFind(form); it != m_exact.cend())
                    return *it;
                for (const auto &[re, source] : m_patterns) {
                    if (re.match(form).hasMatch())
                        return source;
                }
            }
        }
        return {};
    }

    // Every English string of ours in w and its children, their actions and item views.
    QList<EnglishString> find(QWidget *root) const
    {
        QList<EnglishString> out;
        QList<QWidget *> widgets{root};
        widgets += root->findChildren<QWidget *>();
        for (QWidget *w : std::as_const(widgets))
            check(w, &out);
        return out;
    }

    static QString describe(const QList<EnglishString> &found)
    {
        QStringList lines;
        for (const EnglishString &e : found) {
            lines << e.where + QStringLiteral(": \"") + e.text + QStringLiteral("\" (source \"") + e.source
                         + QStringLiteral("\")");
        }
        return lines.join(u'\n');
    }

private:
    static QString normalized(QString s)
    {
        using namespace Qt::StringLiterals;
        s.replace(u"&&"_s, u"\x01"_s).remove(u'&').replace(u'\x01', u'&');
        return s.simplified();
    }

    void add(const QString &source)
    {
        using namespace Qt::StringLiterals;
        const QString n = normalized(source);
        static const QRegularExpression placeholder(u"%(?:\\d|n)"_s);
        if (!n.contains(placeholder)) {
            m_exact.insert(n, source);
            return;
        }
        // A pattern needs words of its own, or "%1: %2" would match any text.
        QString letters = n;
        letters.remove(placeholder);
        if (letters.count(QRegularExpression(u"[A-Za-z]"_s)) < 4)
            return;
        QString re;
        qsizetype at = 0;
        for (auto it = placeholder.globalMatch(n); it.hasNext();) {
            const auto m = it.next();
            re += QRegularExpression::escape(n.mid(at, m.capturedStart() - at)) + u"(.*)"_s;
            at = m.capturedEnd();
        }
        re += QRegularExpression::escape(n.mid(at));
        m_patterns.append({QRegularExpression(QRegularExpression::anchoredPattern(re),
                                              QRegularExpression::DotMatchesEverythingOption),
                           source});
    }

    void text(const QObject *o, const char *property, const QString &value, QList<EnglishString> *out) const
    {
        if (value.isEmpty())
            return;
        const QString source = match(value);
        if (source.isEmpty())
            return;
        out->append({QString::fromLatin1(o->metaObject()->className()) + u' ' + o->objectName() + u'.'
                         + QString::fromLatin1(property),
                     value, source});
    }

    void check(QWidget *w, QList<EnglishString> *out) const
    {
        if (w->isWindow())
            text(w, "windowTitle", w->windowTitle(), out);
        text(w, "toolTip", w->toolTip(), out);
        text(w, "statusTip", w->statusTip(), out);
        text(w, "whatsThis", w->whatsThis(), out);
        text(w, "accessibleName", w->accessibleName(), out);
        text(w, "accessibleDescription", w->accessibleDescription(), out);
        if (auto *l = qobject_cast<QLabel *>(w))
            text(w, "text", l->text(), out);
        if (auto *b = qobject_cast<QAbstractButton *>(w))
            text(w, "text", b->text(), out);
        if (auto *e = qobject_cast<QLineEdit *>(w))
            text(w, "placeholderText", e->placeholderText(), out);
        if (auto *e = qobject_cast<QPlainTextEdit *>(w))
            text(w, "placeholderText", e->placeholderText(), out);
        if (auto *e = qobject_cast<QTextEdit *>(w))
            text(w, "placeholderText", e->placeholderText(), out);
        if (auto *g = qobject_cast<QGroupBox *>(w))
            text(w, "title", g->title(), out);
        if (auto *s = qobject_cast<QStatusBar *>(w))
            text(w, "currentMessage", s->currentMessage(), out);
        if (auto *m = qobject_cast<QMenu *>(w))
            text(w, "title", m->title(), out);
        if (auto *m = qobject_cast<QMessageBox *>(w)) {
            text(w, "text", m->text(), out);
            text(w, "informativeText", m->informativeText(), out);
        }
        if (auto *t = qobject_cast<QTabBar *>(w)) {
            for (int i = 0; i < t->count(); ++i) {
                text(w, "tabText", t->tabText(i), out);
                text(w, "tabToolTip", t->tabToolTip(i), out);
            }
        }
        if (auto *c = qobject_cast<QComboBox *>(w)) {
            for (int i = 0; i < c->count(); ++i)
                text(w, "itemText", c->itemText(i), out);
        }
        if (auto *v = qobject_cast<QAbstractItemView *>(w);
            v && v->model() && !qobject_cast<QHeaderView *>(w))
            checkModel(v, out);
        for (QAction *a : w->actions()) {
            text(a, "text", a->text(), out);
            text(a, "iconText", a->iconText(), out);
            text(a, "toolTip", a->toolTip(), out);
            text(a, "statusTip", a->statusTip(), out);
            if (a->menu())
                check(a->menu(), out);
        }
    }

    void checkModel(const QAbstractItemView *v, QList<EnglishString> *out) const
    {
        const QAbstractItemModel *m = v->model();
        static constexpr int kRoles[]
            = {Qt::DisplayRole, Qt::ToolTipRole, Qt::AccessibleTextRole, Qt::AccessibleDescriptionRole};
        for (int c = 0; c < m->columnCount(); ++c) {
            for (int role : kRoles)
                text(v, "headerData", m->headerData(c, Qt::Horizontal, role).toString(), out);
        }
        // The first rows and their children (a tree's items): every kind of row the demo shows.
        QList<QModelIndex> parents{QModelIndex()};
        for (int p = 0; p < parents.size() && p < 50; ++p) {
            for (int r = 0; r < qMin(m->rowCount(parents.at(p)), 100); ++r) {
                for (int c = 0; c < m->columnCount(parents.at(p)); ++c) {
                    const QModelIndex i = m->index(r, c, parents.at(p));
                    for (int role : kRoles)
                        text(v, "itemData", i.data(role).toString(), out);
                    if (c == 0 && m->hasChildren(i))
                        parents << i;
                }
            }
        }
    }

    QHash<QString, QString> m_exact; // normalized source → source
    QList<std::pair<QRegularExpression, QString>> m_patterns;
};

} // namespace RunwatchUiTest
