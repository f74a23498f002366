// One reply of widgetd's, bounded before it is parsed: at most WIDGETD_REPLY_MAX bytes,
// WIDGETD_REPLY_MAX_DEPTH levels of nesting, UTF-8 without NUL, exactly one JSON object.
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

constexpr int WIDGETD_REPLY_MAX = 64 * 1024;
constexpr int WIDGETD_REPLY_MAX_DEPTH = 32;

// Parses one reply (without its NUL); on failure returns false and says why in `why`
// (never the content).
bool widgetdParseReply(const QByteArray &bytes, QJsonObject *reply, QString *why);

// The keys of parameters.presentation.entry.fields in the order the reply gives them
// (QJsonObject sorts its keys; a timeline's fields are drawn in its order). Call only on
// a reply widgetdParseReply accepted.
QStringList widgetdFieldOrder(const QByteArray &bytes);
