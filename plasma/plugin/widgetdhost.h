// The lock-screen wallpaper's view of widgetd (plasma/): what to show, as plain values
// QML draws. The chosen widgets' io.widgetd.Host.Watch(widget, "lockScreen") streams
// (none chosen: what ListWidgets lists, following WatchWidgets), each presentation
// turned into a card (roles per family, DESIGN §12; names and values without roles);
// actions performed with PerformAction (§13). widgetd absent or restarting: no card,
// and a new try after a doubling delay.
#pragma once

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QSet>
#include <QStringList>
#include <QTimer>
#include <QVariantList>

#include "widgetdcards.h"

class WidgetdStream;

class WidgetdHost : public QObject
{
    Q_OBJECT
    Q_PROPERTY(QString socket READ socket WRITE setSocket NOTIFY socketChanged)
    Q_PROPERTY(QStringList widgets READ widgets WRITE setWidgets NOTIFY widgetsChanged)
    Q_PROPERTY(QVariantList cards READ cards NOTIFY cardsChanged)
    Q_PROPERTY(QAbstractItemModel *model READ model CONSTANT)
public:
    explicit WidgetdHost(QObject *parent = nullptr);
    ~WidgetdHost() override;

    QString socket() const { return m_socket; }
    void setSocket(const QString &socket);
    QStringList widgets() const { return m_widgets; }
    void setWidgets(const QStringList &widgets);
    QVariantList cards() const { return m_shown; }
    QAbstractItemModel *model() { return &m_model; }

    Q_INVOKABLE void perform(const QString &widget, const QString &action);

Q_SIGNALS:
    void socketChanged();
    void widgetsChanged();
    void cardsChanged();

private:
    struct Card {
        WidgetdStream *stream = nullptr;
        QJsonObject presentation;
        QStringList fieldOrder;
        bool shown = false;
        QHash<QString, QString> status;   // action id → "Waiting for unlock", "Done", ...
        QHash<QString, QPair<bool, bool>> toggles;   // action id → (shown, new)
    };

    QString path() const;
    void publish();
    QVariantList compute() const;
    void restart();
    void reset();
    void lost(const QString &why);
    void connectControl();
    void choose();
    void watch(const QString &widget);
    void drop(const QString &widget);
    QVariantMap cardValue(const QString &widget, const Card &card) const;

    QString m_socket;
    QStringList m_widgets;
    WidgetdStream *m_control = nullptr;
    QStringList m_listed;
    QHash<QString, QString> m_families;
    QSet<QString> m_refused;
    QHash<QString, Card> m_cards;
    QStringList m_order;
    QVariantList m_shown;
    WidgetdCards m_model;
    QTimer m_retry;
    int m_backoff;
    int m_generation = 0;
};
