#include "widgetdcards.h"

int WidgetdCards::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_cards.size();
}

QVariant WidgetdCards::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.parent().isValid() || index.row() >= m_cards.size())
        return {};
    const QVariantMap card = m_cards.at(index.row()).toMap();
    switch (role) {
    case WidgetRole:
        return card.value(QStringLiteral("widget"));
    case DescriptionRole:
        return card.value(QStringLiteral("description"));
    case CardRole:
        return card;
    }
    return {};
}

QHash<int, QByteArray> WidgetdCards::roleNames() const
{
    return {{WidgetRole, "widget"}, {DescriptionRole, "description"}, {CardRole, "cardData"}};
}

void WidgetdCards::update(const QVariantList &cards)
{
    QStringList ids;
    for (const QVariant &card : cards)
        ids.append(card.toMap().value(QStringLiteral("widget")).toString());
    if (ids != m_ids) {
        beginResetModel();
        m_cards = cards;
        m_ids = ids;
        endResetModel();
        return;
    }
    for (int row = 0; row < cards.size(); row++) {
        if (cards.at(row) == m_cards.at(row))
            continue;
        const bool described = cards.at(row).toMap().value(QStringLiteral("description"))
            != m_cards.at(row).toMap().value(QStringLiteral("description"));
        m_cards[row] = cards.at(row);
        // The values first, then the description: a screen reader told of the new mode
        // finds the card's new items already there.
        Q_EMIT dataChanged(index(row), index(row), {CardRole});
        if (described)
            Q_EMIT dataChanged(index(row), index(row), {DescriptionRole});
    }
}
