// Unit tests of the wallpaper's reply parser (make check-plasma-plugin).
#include "widgetdreply.h"

#include <QJsonValue>
#include <cstdio>

static int failures = 0;

static void check(const char *what, bool condition)
{
    if (!condition) {
        std::fprintf(stderr, "FAIL: %s\n", what);
        failures++;
    }
}

static bool parses(const QByteArray &bytes, QString *why = nullptr)
{
    QJsonObject reply;
    QString reason;
    const bool ok = widgetdParseReply(bytes, &reply, &reason);
    if (why)
        *why = reason;
    return ok;
}

int main()
{
    QJsonObject reply;
    QString why;
    check("an object", widgetdParseReply("{\"parameters\": {\"a\": 1}}", &reply, &why)
          && reply.value("parameters").toObject().value("a").toInt() == 1);
    check("too long", !parses(QByteArray(WIDGETD_REPLY_MAX + 1, ' '), &why) && why.contains("longer"));
    QByteArray exact = "{\"x\": \"" + QByteArray(WIDGETD_REPLY_MAX - 9, 'y') + "\"}";
    check("exactly the limit", exact.size() == WIDGETD_REPLY_MAX && parses(exact));
    check("too deep", !parses("{\"a\": " + QByteArray(WIDGETD_REPLY_MAX_DEPTH, '[') + QByteArray(WIDGETD_REPLY_MAX_DEPTH, ']') + "}", &why)
          && why.contains("deeper"));
    check("as deep as allowed", parses("{\"a\": " + QByteArray(WIDGETD_REPLY_MAX_DEPTH - 1, '[')
                                       + QByteArray(WIDGETD_REPLY_MAX_DEPTH - 1, ']') + "}"));
    check("brackets in strings do not count", parses("{\"a\": \"" + QByteArray(100, '[') + "\\\"\"}"));
    check("not UTF-8", !parses(QByteArray("{\"a\": \"\xff\"}"), &why) && why.contains("UTF-8"));
    check("a NUL", !parses(QByteArray("{\"a\": 1}\0", 10)));
    check("not JSON", !parses("{\"a\": "));
    check("an array", !parses("[1]"));
    check("two objects", !parses("{} {}"));
    const QByteArray presentation = "{\"parameters\": {\"presentation\": {\"widget\": \"a/b\", \"entry\": "
        "{\"fields\": {\"zeta\": {\"value\": {\"x\": 1, \"y\": [1, {\"k\": 2}]}}, \"al\\\"pha\": {\"value\": \"a,b\"},"
        " \"mid\": {\"value\": null}}}, \"fields\": {\"not\": 1}}}, \"fields\": {\"no\": 1}}";
    check("the presentation parses", parses(presentation));
    const QStringList order = widgetdFieldOrder(presentation);
    check("fields in the reply's order, nested keys and other \"fields\" left out",
          order == QStringList({QStringLiteral("zeta"), QStringLiteral("al\"pha"), QStringLiteral("mid")}));
    if (failures) {
        std::fprintf(stderr, "%d failed\n", failures);
        return 1;
    }
    std::puts("plasma test-reply: ok");
    return 0;
}
