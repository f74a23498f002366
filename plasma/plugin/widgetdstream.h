// One Varlink connection to widgetd over QLocalSocket, for the lock-screen wallpaper's
// QML (plasma/): asynchronous on the greeter's event loop, the peer's credentials
// checked before anything is read (the user or root only), each reply bounded
// (WIDGETD_REPLY_MAX bytes, WIDGETD_REPLY_MAX_DEPTH levels, one JSON object) before
// QJsonDocument parses it.
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QLocalSocket>
#include <QObject>
#include <QQueue>

#include "widgetdreply.h"

class WidgetdStream : public QObject
{
    Q_OBJECT
public:
    explicit WidgetdStream(const QString &path, QObject *parent = nullptr);
    ~WidgetdStream() override;

    // Queues a call; its replies come through reply() in order.
    void call(const QString &method, const QJsonObject &parameters, bool more);
    void close();

Q_SIGNALS:
    // One reply: `error` empty, or the Varlink error's name; `fieldOrder` the presented
    // entry's field names in the reply's order (widgetdFieldOrder).
    void reply(const QString &error, const QJsonObject &parameters, bool continues, const QStringList &fieldOrder);
    // The connection failed or ended (once).
    void failed(const QString &why);

private:
    void onConnected();
    void onReadyRead();
    void fail(const QString &why);

    QLocalSocket *m_socket;
    QByteArray m_buffer;
    QQueue<QByteArray> m_queued;
    bool m_ready = false;
    bool m_closed = false;
};
