#include "widgetdhost.h"

#include "widgetdstream.h"

#include <QDir>
#include <QLoggingCategory>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QStandardPaths>

#include <time.h>

// Off by default: QT_LOGGING_RULES="widgetd.timing.debug=true" logs, on CLOCK_MONOTONIC
// (Python's time.monotonic()), when each Watch reply was read and parsed and when the
// cards it changed were handed to QML (their items and accessible objects updated): how
// scripts/test-plasma splits a lock's way to the screen reader. Never a value.
Q_LOGGING_CATEGORY(lcTiming, "widgetd.timing", QtWarningMsg)

static long long monotonicNs()
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000000000LL + now.tv_nsec;
}

static const QString HOST = QStringLiteral("io.widgetd.Host");
static const QString SURFACE = QStringLiteral("lockScreen");
static constexpr int MAX_CARDS = 6;
static constexpr int MAX_LISTED = 64;
static constexpr int MAX_FIELDS = 16;
static constexpr int MAX_TEXT = 120;
static constexpr int MAX_ACTIONS = 4;
static constexpr int BACKOFF_FIRST_MS = 250;
static constexpr int BACKOFF_MAX_MS = 16000;

static QString text(const QJsonValue &value)
{
    QString out;
    if (value.isString())
        out = value.toString();
    else if (value.isDouble())
        out = QString::number(value.toDouble());
    else if (value.isBool())
        out = value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    else if (value.isNull() || value.isUndefined())
        out = QStringLiteral("—");
    else
        out = QString::fromUtf8((value.isArray() ? QJsonDocument(value.toArray()) : QJsonDocument(value.toObject()))
                                    .toJson(QJsonDocument::Compact));
    return out.size() > MAX_TEXT ? out.left(MAX_TEXT - 1) + QStringLiteral("…") : out;
}

static bool iconName(const QJsonValue &value)
{
    static const QRegularExpression name(QStringLiteral("^[a-z0-9-]{1,64}$"));
    return value.isString() && name.match(value.toString()).hasMatch();
}

WidgetdHost::WidgetdHost(QObject *parent)
    : QObject(parent)
    , m_backoff(BACKOFF_FIRST_MS)
{
    // Before any QML binding's connection: cards() and the model are current when they run.
    connect(this, &WidgetdHost::cardsChanged, this, &WidgetdHost::publish);
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &WidgetdHost::connectControl);
    QTimer::singleShot(0, this, &WidgetdHost::connectControl);
}

WidgetdHost::~WidgetdHost()
{
    reset();
}

void WidgetdHost::setSocket(const QString &socket)
{
    if (socket == m_socket)
        return;
    m_socket = socket;
    Q_EMIT socketChanged();
    restart();
}

void WidgetdHost::setWidgets(const QStringList &widgets)
{
    if (widgets == m_widgets)
        return;
    m_widgets = widgets;
    Q_EMIT widgetsChanged();
    restart();
}

QString WidgetdHost::path() const
{
    if (!m_socket.isEmpty())
        return m_socket;
    return QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation) + QStringLiteral("/widgetd/widgetd.sock");
}

void WidgetdHost::restart()
{
    reset();
    m_backoff = BACKOFF_FIRST_MS;
    QTimer::singleShot(0, this, &WidgetdHost::connectControl);
}

// Drops every connection and card: what was shown goes with them.
void WidgetdHost::reset()
{
    m_generation++;
    m_retry.stop();
    if (m_control) {
        m_control->close();
        m_control->deleteLater();
        m_control = nullptr;
    }
    for (auto &card : m_cards) {
        card.stream->close();
        card.stream->deleteLater();
    }
    m_cards.clear();
    m_order.clear();
    m_listed.clear();
    m_families.clear();
    m_refused.clear();
    Q_EMIT cardsChanged();
}

void WidgetdHost::lost(const QString &why)
{
    reset();
    qDebug("widgetd: %s; retrying in %d ms", qPrintable(why), m_backoff);
    m_retry.start(m_backoff);
    m_backoff = qMin(m_backoff * 2, BACKOFF_MAX_MS);
}

// ListWidgets, then WatchWidgets, on one connection.
void WidgetdHost::connectControl()
{
    if (m_control)
        return;
    const int generation = ++m_generation;
    m_control = new WidgetdStream(path(), this);
    connect(m_control, &WidgetdStream::failed, this, [this, generation](const QString &why) {
        if (generation == m_generation)
            lost(why);
    });
    m_control->call(HOST + QStringLiteral(".ListWidgets"), {{QStringLiteral("limit"), MAX_LISTED}}, false);
    m_control->call(HOST + QStringLiteral(".WatchWidgets"), {}, true);
    auto listed = std::make_shared<bool>(false);
    connect(m_control, &WidgetdStream::reply, this,
            [this, generation, listed](const QString &error, const QJsonObject &parameters, bool) {
        if (generation != m_generation)
            return;
        if (!*listed) {
            *listed = true;
            if (!error.isEmpty()) {
                lost(QStringLiteral("ListWidgets: ") + error);
                return;
            }
            m_backoff = BACKOFF_FIRST_MS;
            for (const QJsonValue &value : parameters.value(QStringLiteral("widgets")).toArray()) {
                const QJsonObject info = value.toObject();
                const QString id = info.value(QStringLiteral("widget")).toString();
                if (id.isEmpty())
                    continue;
                m_listed.append(id);
                m_families.insert(id, info.value(QStringLiteral("family")).toString());
            }
            choose();
            return;
        }
        if (!error.isEmpty())
            return;
        const QJsonObject info = parameters.value(QStringLiteral("widget")).toObject();
        const QString id = info.value(QStringLiteral("widget")).toString();
        if (id.isEmpty())
            return;
        m_refused.remove(id);
        if (parameters.value(QStringLiteral("event")).toString() == QStringLiteral("removed")) {
            m_listed.removeAll(id);
        } else if (!m_listed.contains(id) && m_listed.size() < MAX_LISTED) {
            m_listed.append(id);
            std::sort(m_listed.begin(), m_listed.end());
        }
        m_families.insert(id, info.value(QStringLiteral("family")).toString());
        choose();
        Q_EMIT cardsChanged();
    });
}

void WidgetdHost::choose()
{
    QStringList wanted;
    if (!m_widgets.isEmpty()) {
        for (const QString &id : m_widgets)
            if (m_listed.contains(id))
                wanted.append(id);
    } else {
        wanted = m_listed;
    }
    wanted = wanted.mid(0, MAX_CARDS);
    const QStringList shown = m_cards.keys();
    for (const QString &id : shown)
        if (!wanted.contains(id))
            drop(id);
    for (const QString &id : wanted)
        if (!m_cards.contains(id) && !m_refused.contains(id))
            watch(id);
    m_order = wanted;
    Q_EMIT cardsChanged();
}

void WidgetdHost::watch(const QString &widget)
{
    const int generation = m_generation;
    Card card;
    card.stream = new WidgetdStream(path(), this);
    connect(card.stream, &WidgetdStream::failed, this, [this, widget, generation](const QString &) {
        if (generation != m_generation)
            return;
        m_refused.insert(widget);
        drop(widget);
    });
    connect(card.stream, &WidgetdStream::reply, this,
            [this, widget, generation](const QString &error, const QJsonObject &parameters, bool continues,
                                       const QStringList &fieldOrder) {
        if (generation != m_generation || !m_cards.contains(widget))
            return;
        const long long read = monotonicNs();
        const QJsonObject presentation = parameters.value(QStringLiteral("presentation")).toObject();
        if (!error.isEmpty() || presentation.isEmpty()) {
            m_refused.insert(widget);
            drop(widget);
            return;
        }
        Card &card = m_cards[widget];
        card.presentation = presentation;
        card.fieldOrder = fieldOrder;
        card.shown = true;
        card.status.remove(QString());
        for (auto it = card.status.begin(); it != card.status.end();)
            it = it.value() == QStringLiteral("Done") ? card.status.erase(it) : std::next(it);
        Q_EMIT cardsChanged();
        qCDebug(lcTiming, "%s %s: read %lld, drawn %lld", qPrintable(widget),
                qPrintable(presentation.value(QStringLiteral("mode")).toString()), read, monotonicNs());
        if (!continues)
            drop(widget);
    });
    card.stream->call(HOST + QStringLiteral(".Watch"),
                      {{QStringLiteral("widget"), widget}, {QStringLiteral("surface"), SURFACE}}, true);
    m_cards.insert(widget, card);
}

void WidgetdHost::drop(const QString &widget)
{
    auto it = m_cards.find(widget);
    if (it == m_cards.end())
        return;
    it->stream->close();
    it->stream->deleteLater();
    m_cards.erase(it);
    Q_EMIT cardsChanged();
}

void WidgetdHost::perform(const QString &widget, const QString &action)
{
    auto it = m_cards.find(widget);
    if (it == m_cards.end())
        return;
    bool available = true, isOn = false, toggle = false;
    for (const QJsonValue &value : it->presentation.value(QStringLiteral("actions")).toArray()) {
        const QJsonObject a = value.toObject();
        if (a.value(QStringLiteral("id")).toString() == action) {
            available = a.value(QStringLiteral("available")).toBool();
            isOn = a.value(QStringLiteral("isOn")).toBool();
            toggle = a.value(QStringLiteral("kind")).toString() == QStringLiteral("toggle");
        }
    }
    if (!available)
        it->status.insert(action, QStringLiteral("Waiting for unlock"));
    Q_EMIT cardsChanged();
    const int generation = m_generation;
    auto *stream = new WidgetdStream(path(), this);
    auto finish = [this, stream, widget, action, generation, toggle, isOn](const QString &status, bool delivered) {
        if (generation == m_generation && m_cards.contains(widget)) {
            Card &card = m_cards[widget];
            card.status.insert(action, status);
            if (delivered && toggle)
                card.toggles.insert(action, qMakePair(isOn, !isOn));
            Q_EMIT cardsChanged();
        }
    };
    connect(stream, &WidgetdStream::failed, this, [stream, finish](const QString &) {
        finish(QStringLiteral("Failed"), false);
        stream->deleteLater();
    });
    connect(stream, &WidgetdStream::reply, this,
            [stream, finish](const QString &error, const QJsonObject &parameters, bool continues) {
        const QString outcome = parameters.value(QStringLiteral("outcome")).toString();
        if (!error.isEmpty())
            finish(QStringLiteral("Failed"), false);
        else if (outcome == QStringLiteral("held"))
            finish(QStringLiteral("Waiting for unlock"), false);
        else if (outcome == QStringLiteral("delivered"))
            finish(QStringLiteral("Done"), true);
        else
            finish(QStringLiteral("Expired"), false);
        if (!continues) {
            stream->close();
            stream->deleteLater();
        }
    });
    stream->call(HOST + QStringLiteral(".PerformAction"),
                 {{QStringLiteral("widget"), widget}, {QStringLiteral("surface"), SURFACE},
                  {QStringLiteral("action"), action}}, true);
}

void WidgetdHost::publish()
{
    m_shown = compute();
    m_model.update(m_shown);
}

QVariantList WidgetdHost::compute() const
{
    QVariantList out;
    for (const QString &id : m_order) {
        auto it = m_cards.constFind(id);
        if (it != m_cards.constEnd() && it->shown)
            out.append(cardValue(id, *it));
    }
    return out;
}

// A card as QML draws it: `lines` ({text, redacted, kind: title|value|detail|name|date,
// date, style}), `icon`, `gauge` ({fraction, name, redacted} or absent), `actions`.
QVariantMap WidgetdHost::cardValue(const QString &widget, const Card &card) const
{
    const QJsonObject &p = card.presentation;
    const QString mode = p.value(QStringLiteral("mode")).toString();
    const QString family = m_families.value(widget);
    const QJsonObject fields = p.value(QStringLiteral("entry")).toObject().value(QStringLiteral("fields")).toObject();
    QVariantMap out;
    out.insert(QStringLiteral("widget"), widget);
    out.insert(QStringLiteral("family"), family);
    out.insert(QStringLiteral("description"), p.value(QStringLiteral("stale")).toBool() ? mode + QStringLiteral(", out of date") : mode);

    // Fields in the entry's order (the reply's, kept beside QJsonObject's sorted keys).
    QStringList names;
    for (const QString &name : card.fieldOrder)
        if (fields.contains(name) && !names.contains(name))
            names.append(name);
    for (auto it = fields.begin(); it != fields.end(); ++it)
        if (!names.contains(it.key()))
            names.append(it.key());
    QList<QPair<QString, QJsonObject>> all;
    bool roles = false;
    for (const QString &name : names.mid(0, MAX_FIELDS)) {
        const QJsonObject f = fields.value(name).toObject();
        roles = roles || f.contains(QStringLiteral("role"));
        all.append(qMakePair(name, f));
    }
    QVariantList lines;
    auto line = [](const QString &kind, const QJsonObject &f) {
        QVariantMap l;
        const bool redacted = f.value(QStringLiteral("redacted")).toBool();
        l.insert(QStringLiteral("kind"), kind);
        l.insert(QStringLiteral("redacted"), redacted);
        l.insert(QStringLiteral("text"), redacted ? QString() : text(f.value(QStringLiteral("value"))));
        return l;
    };
    if (!roles) {
        for (const auto &[name, f] : all) {
            QVariantMap l = line(QStringLiteral("plain"), f);
            l.insert(QStringLiteral("name"), name.left(MAX_TEXT));
            lines.append(l);
        }
    } else {
        auto by = [&all](const QString &role) {
            QList<QJsonObject> found;
            for (const auto &entry : all)
                if (entry.second.value(QStringLiteral("role")).toString() == role)
                    found.append(entry.second);
            return found;
        };
        const auto titles = by(QStringLiteral("title")), values = by(QStringLiteral("value"));
        const auto details = by(QStringLiteral("detail")), icons = by(QStringLiteral("icon"));
        const auto gauges = by(QStringLiteral("gauge")), dates = by(QStringLiteral("date"));
        auto dateLine = [](const QJsonObject &f) {
            QVariantMap l;
            l.insert(QStringLiteral("kind"), QStringLiteral("date"));
            l.insert(QStringLiteral("redacted"), true);
            if (!f.value(QStringLiteral("redacted")).toBool() && f.value(QStringLiteral("value")).isString()) {
                l.insert(QStringLiteral("redacted"), false);
                l.insert(QStringLiteral("date"), f.value(QStringLiteral("value")).toString());
                l.insert(QStringLiteral("style"), f.value(QStringLiteral("style")).toString(QStringLiteral("time")));
            }
            return l;
        };
        if (family == QStringLiteral("accessoryInline")) {
            if (!values.isEmpty())
                lines.append(line(QStringLiteral("detail"), values.first()));
            else if (!titles.isEmpty())
                lines.append(line(QStringLiteral("detail"), titles.first()));
        } else if (family == QStringLiteral("accessoryCircular")) {
            if (!values.isEmpty())
                lines.append(line(QStringLiteral("value"), values.first()));
        } else if (family == QStringLiteral("accessoryRectangular")) {
            if (!titles.isEmpty())
                lines.append(line(QStringLiteral("title"), titles.first()));
            if (!values.isEmpty())
                lines.append(line(QStringLiteral("detail"), values.first()));
            for (const auto &d : dates)
                if (!d.value(QStringLiteral("redacted")).toBool())
                    lines.append(dateLine(d));
            for (const auto &d : details)
                lines.append(line(QStringLiteral("detail"), d));
            lines = lines.mid(0, 3);
        } else {
            if (!titles.isEmpty())
                lines.append(line(QStringLiteral("title"), titles.first()));
            if (!values.isEmpty())
                lines.append(line(QStringLiteral("value"), values.first()));
            for (const auto &d : dates)
                if (!d.value(QStringLiteral("redacted")).toBool())
                    lines.append(dateLine(d));
            for (const auto &d : details)
                lines.append(line(QStringLiteral("detail"), d));
        }
        if (!icons.isEmpty() && family != QStringLiteral("accessoryRectangular")) {
            const QJsonValue v = icons.first().value(QStringLiteral("value"));
            out.insert(QStringLiteral("icon"), iconName(v) ? v.toString() : QStringLiteral("image-missing"));
        }
        if (!gauges.isEmpty() && family != QStringLiteral("accessoryInline") && family != QStringLiteral("accessoryRectangular")) {
            const QJsonObject g = gauges.first();
            const bool redacted = g.value(QStringLiteral("redacted")).toBool();
            double min = 0, max = 1;
            const QJsonArray range = g.value(QStringLiteral("range")).toArray();
            if (range.size() == 2 && range.at(1).toDouble() > range.at(0).toDouble()) {
                min = range.at(0).toDouble();
                max = range.at(1).toDouble();
            }
            double fraction = redacted || !g.value(QStringLiteral("value")).isDouble() ? 0
                : qBound(0.0, (g.value(QStringLiteral("value")).toDouble() - min) / (max - min), 1.0);
            QVariantMap gauge;
            gauge.insert(QStringLiteral("fraction"), fraction);
            gauge.insert(QStringLiteral("ring"), family == QStringLiteral("accessoryCircular"));
            gauge.insert(QStringLiteral("name"), redacted ? QStringLiteral("redacted")
                                                          : QStringLiteral("%1 %").arg(qRound(fraction * 100)));
            out.insert(QStringLiteral("gauge"), gauge);
        }
    }
    out.insert(QStringLiteral("lines"), lines);

    QVariantList actions;
    for (const QJsonValue &value : p.value(QStringLiteral("actions")).toArray()) {
        if (actions.size() >= MAX_ACTIONS)
            break;
        const QJsonObject a = value.toObject();
        const QString id = a.value(QStringLiteral("id")).toString();
        if (id.isEmpty())
            continue;
        QVariantMap action;
        const bool redacted = a.value(QStringLiteral("redacted")).toBool() && a.value(QStringLiteral("title")).isNull();
        action.insert(QStringLiteral("id"), id);
        action.insert(QStringLiteral("title"), redacted ? QString() : text(a.value(QStringLiteral("title"))));
        action.insert(QStringLiteral("redacted"), redacted);
        action.insert(QStringLiteral("available"), a.value(QStringLiteral("available")).toBool());
        action.insert(QStringLiteral("toggle"), a.value(QStringLiteral("kind")).toString() == QStringLiteral("toggle"));
        bool isOn = a.value(QStringLiteral("isOn")).toBool();
        const auto pending = card.toggles.value(id, qMakePair(!isOn, isOn));
        if (pending.first == isOn)
            isOn = pending.second;
        action.insert(QStringLiteral("isOn"), isOn);
        action.insert(QStringLiteral("icon"), iconName(a.value(QStringLiteral("icon"))) ? a.value(QStringLiteral("icon")).toString() : QString());
        QString status = card.status.value(id);
        if (status.isEmpty() && !a.value(QStringLiteral("available")).toBool())
            status = QStringLiteral("Needs unlock");
        action.insert(QStringLiteral("status"), status);
        actions.append(action);
    }
    out.insert(QStringLiteral("actions"), actions);
    return out;
}
