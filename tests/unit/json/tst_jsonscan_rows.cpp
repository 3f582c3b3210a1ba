// SPDX-License-Identifier: GPL-3.0-or-later
// Test inputs for tst_jsonscan. Kept apart from the Q_OBJECT test class because moc cannot
// tokenize raw string literals.
#include <QByteArray>
#include <QList>

QList<QByteArray> jsonScanRows()
{
    const char *rows[] = {
        R"({})",
        R"({"a":1})",
        R"(  {"a" : 1 , "b":[1,2,{"c":null}], "d":{"e":"f"}}  )",
        R"({"type":"response.output_text.delta","sequence_number":5,"delta":"Hi","logprobs":[]})",
        R"({"a":-0.5e+10,"b":true,"c":false})",
        R"({"a":"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00"})",
        R"({"a":1,})",
        R"({"a" 1})",
        R"({"a":01})",
        R"({"a":1.})",
        R"({"a":tru})",
        R"({"a":"x\q"})",
        R"({"a":"\u12"})",
        R"({"a":[1,2})",
        R"([1,2])",
        R"({"a":1}x)",
        R"({"a":1}{"b":2})",
        R"()",
        R"({"a":"unterminated)",
        R"({"a":-})",
        R"({"a":1e})",
    };
    QList<QByteArray> out;
    for (const char *row : rows)
        out << QByteArray(row);
    return out;
}

QByteArray jsonEscapesRow()
{
    return QByteArray(R"("a\"b\\c\/d\be\ff\ng\rh\ti")");
}

QByteArray jsonUnicodeRow()
{
    return QByteArray(R"("\u00e9\u20ac\ud83d\ude00")");
}

QByteArray jsonLoneSurrogateRow()
{
    return QByteArray(R"("\ud800x")");
}
