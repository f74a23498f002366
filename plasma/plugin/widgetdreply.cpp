// The reply parser of the wallpaper's QML module: bounds first, then QJsonDocument.
// Tested by plasma/plugin/test-reply.cpp (make check-plasma-plugin, under valgrind in
// scripts/test-plasma) and fuzzed (scripts/fuzz N plasma-reply).
#include "widgetdreply.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QVector>
#include <QTextCodec>

static bool withinDepth(const QByteArray &text, int limit)
{
    int depth = 0;
    bool inString = false, escaped = false;
    for (const char c : text) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limit)
                return false;
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return true;
}

bool widgetdParseReply(const QByteArray &bytes, QJsonObject *reply, QString *why)
{
    if (bytes.size() > WIDGETD_REPLY_MAX) {
        *why = QStringLiteral("reply longer than %1 bytes").arg(WIDGETD_REPLY_MAX);
        return false;
    }
    QTextCodec::ConverterState state;
    QTextCodec::codecForName("UTF-8")->toUnicode(bytes.constData(), bytes.size(), &state);
    if (state.invalidChars > 0 || bytes.contains('\0')) {
        *why = QStringLiteral("reply is not UTF-8");
        return false;
    }
    if (!withinDepth(bytes, WIDGETD_REPLY_MAX_DEPTH)) {
        *why = QStringLiteral("reply nested deeper than %1").arg(WIDGETD_REPLY_MAX_DEPTH);
        return false;
    }
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) {
        *why = QStringLiteral("reply is not a JSON object");
        return false;
    }
    *reply = document.object();
    return true;
}


QStringList widgetdFieldOrder(const QByteArray &bytes)
{
    static const QStringList path{QStringLiteral("parameters"), QStringLiteral("presentation"),
                                  QStringLiteral("entry"), QStringLiteral("fields")};
    struct Frame {
        bool object;
        bool expectKey;
        QString key;
    };
    QVector<Frame> frames;
    QStringList order;
    const int size = bytes.size();
    for (int i = 0; i < size; i++) {
        const char c = bytes.at(i);
        if (c == '{') {
            frames.append({true, true, QString()});
        } else if (c == '[') {
            frames.append({false, false, QString()});
        } else if (c == '}' || c == ']') {
            if (!frames.isEmpty())
                frames.removeLast();
        } else if (c == ',') {
            if (!frames.isEmpty() && frames.last().object)
                frames.last().expectKey = true;
        } else if (c == '"') {
            const int start = i;
            for (i++; i < size && bytes.at(i) != '"'; i++)
                if (bytes.at(i) == '\\')
                    i++;
            if (frames.isEmpty() || !frames.last().object || !frames.last().expectKey)
                continue;
            // A key: decoded by QJsonDocument, as the reply's own.
            const QJsonDocument key = QJsonDocument::fromJson("[" + bytes.mid(start, i - start + 1) + "]");
            frames.last().key = key.array().at(0).toString();
            frames.last().expectKey = false;
            if (frames.size() == path.size() + 1) {
                bool here = true;
                for (int f = 0; f < path.size() && here; f++)
                    here = frames.at(f).object && frames.at(f).key == path.at(f);
                if (here)
                    order.append(frames.last().key);
            }
        }
    }
    return order;
}
