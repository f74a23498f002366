#include "widgetdstream.h"

#include <QJsonDocument>

#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

WidgetdStream::WidgetdStream(const QString &path, QObject *parent)
    : QObject(parent)
    , m_socket(new QLocalSocket(this))
{
    connect(m_socket, &QLocalSocket::connected, this, &WidgetdStream::onConnected);
    connect(m_socket, &QLocalSocket::readyRead, this, &WidgetdStream::onReadyRead);
    connect(m_socket, &QLocalSocket::disconnected, this, [this] { fail(QStringLiteral("widgetd closed the connection")); });
    connect(m_socket, &QLocalSocket::errorOccurred, this, [this](QLocalSocket::LocalSocketError) {
        fail(m_socket->errorString());
    });
    // On the next turn: QLocalSocket may fail inside connectToServer, before the caller
    // has connected to failed().
    QMetaObject::invokeMethod(this, [this, path] {
        if (!m_closed)
            m_socket->connectToServer(path);
    }, Qt::QueuedConnection);
}

WidgetdStream::~WidgetdStream()
{
    m_closed = true;
    m_socket->disconnect(this);
    m_socket->abort();
}

void WidgetdStream::close()
{
    m_closed = true;
    m_socket->disconnect(this);
    m_socket->abort();
}

void WidgetdStream::call(const QString &method, const QJsonObject &parameters, bool more)
{
    QJsonObject message{{QStringLiteral("method"), method}, {QStringLiteral("parameters"), parameters}};
    if (more)
        message.insert(QStringLiteral("more"), true);
    QByteArray data = QJsonDocument(message).toJson(QJsonDocument::Compact);
    data.append('\0');
    if (m_ready)
        m_socket->write(data);
    else
        m_queued.enqueue(data);
}

void WidgetdStream::onConnected()
{
    // The listener must be this user or root: a socket another user could put at the
    // path must not feed the lock screen.
    struct ucred peer = {};
    socklen_t length = sizeof(peer);
    if (getsockopt(int(m_socket->socketDescriptor()), SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) {
        fail(QStringLiteral("no peer credentials"));
        return;
    }
    if (peer.uid != 0 && peer.uid != getuid()) {
        fail(QStringLiteral("the socket's listener is uid %1, neither this user nor root").arg(peer.uid));
        return;
    }
    m_ready = true;
    while (!m_queued.isEmpty())
        m_socket->write(m_queued.dequeue());
}

void WidgetdStream::onReadyRead()
{
    if (!m_ready || m_closed)
        return;
    m_buffer.append(m_socket->readAll());
    int end;
    while (!m_closed && (end = m_buffer.indexOf('\0')) >= 0) {
        const QByteArray message = m_buffer.left(end);
        m_buffer.remove(0, end + 1);
        QJsonObject object;
        QString why;
        if (!widgetdParseReply(message, &object, &why)) {
            fail(why);
            return;
        }
        const QString error = object.value(QStringLiteral("error")).toString();
        const bool continues = error.isEmpty() && object.value(QStringLiteral("continues")).toBool();
        Q_EMIT reply(error, object.value(QStringLiteral("parameters")).toObject(), continues,
                     error.isEmpty() ? widgetdFieldOrder(message) : QStringList());
    }
    if (m_buffer.size() > WIDGETD_REPLY_MAX)
        fail(QStringLiteral("reply longer than %1 bytes").arg(WIDGETD_REPLY_MAX));
}

void WidgetdStream::fail(const QString &why)
{
    if (m_closed)
        return;
    m_closed = true;
    m_buffer.fill('\0');
    m_buffer.clear();
    m_socket->disconnect(this);
    m_socket->abort();
    Q_EMIT failed(why);
}
