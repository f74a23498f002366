// The lock-screen wallpaper's cards as a list model (plasma/), for its QML Repeater.
#pragma once

#include <QAbstractListModel>
#include <QStringList>
#include <QVariantList>

// The cards as a list model (roles widget, description, cardData): a presentation that
// changes a card's values changes its row only, so QML keeps the card's items and their
// accessible objects, and a screen reader hears the card's description change (an
// AT-SPI property-change event) instead of a card destroyed and built anew.
class WidgetdCards : public QAbstractListModel
{
    Q_OBJECT
public:
    enum Role { WidgetRole = Qt::UserRole + 1, DescriptionRole, CardRole };

    using QAbstractListModel::QAbstractListModel;
    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
    // Takes `cards` (WidgetdHost::cards()): the changed rows only, or a reset when the
    // widgets shown or their order changed.
    void update(const QVariantList &cards);

private:
    QVariantList m_cards;
    QStringList m_ids;
};
