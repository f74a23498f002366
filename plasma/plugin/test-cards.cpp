// Unit tests of the wallpaper's card model (make check-plasma-plugin): a presentation
// that changes a shown card changes its row only (so QML keeps the card's items and
// AT-SPI announces its description's change); other widgets or another order reset it.
#include "widgetdcards.h"

#include <cstdio>

static int failures = 0;

static void check(const char *what, bool condition)
{
    if (!condition) {
        std::fprintf(stderr, "FAIL: %s\n", what);
        failures++;
    }
}

static QVariantMap card(const QString &widget, const QString &description, const QString &text)
{
    return {{QStringLiteral("widget"), widget}, {QStringLiteral("description"), description},
            {QStringLiteral("lines"), QVariantList{QVariantMap{{QStringLiteral("text"), text}}}}};
}

int main()
{
    WidgetdCards model;
    int resets = 0;
    QList<QPair<int, QVector<int>>> changes;
    QObject::connect(&model, &QAbstractItemModel::modelReset, [&resets] { resets++; });
    QObject::connect(&model, &QAbstractItemModel::dataChanged,
                     [&changes](const QModelIndex &first, const QModelIndex &last, const QVector<int> &roles) {
        for (int row = first.row(); row <= last.row(); row++)
            changes.append(qMakePair(row, roles));
    });
    const QString heart = QStringLiteral("com.example.health/heart");
    const QString weather = QStringLiteral("com.example.weather/forecast");

    model.update({card(heart, QStringLiteral("content"), QStringLiteral("64 bpm")),
                  card(weather, QStringLiteral("content"), QStringLiteral("18 °C"))});
    check("the first cards reset the model", resets == 1 && changes.isEmpty());
    check("two rows", model.rowCount() == 2);
    const QHash<int, QByteArray> roles = model.roleNames();
    check("the roles QML reads", roles.value(WidgetdCards::WidgetRole) == "widget"
          && roles.value(WidgetdCards::DescriptionRole) == "description"
          && roles.value(WidgetdCards::CardRole) == "cardData");
    check("a row's widget and description", model.data(model.index(0), WidgetdCards::WidgetRole) == heart
          && model.data(model.index(0), WidgetdCards::DescriptionRole) == QStringLiteral("content"));
    check("a row's card", model.data(model.index(1), WidgetdCards::CardRole).toMap()
          == card(weather, QStringLiteral("content"), QStringLiteral("18 °C")));
    check("no value for an invalid index", !model.data(model.index(2), WidgetdCards::CardRole).isValid());

    // The lock: the heart's card becomes its placeholder; the forecast's is unchanged.
    model.update({card(heart, QStringLiteral("placeholder"), QString()),
                  card(weather, QStringLiteral("content"), QStringLiteral("18 °C"))});
    check("a changed card does not reset the model", resets == 1);
    check("the changed row's values, then its description",
          changes == QList<QPair<int, QVector<int>>>{qMakePair(0, QVector<int>{WidgetdCards::CardRole}),
                                                     qMakePair(0, QVector<int>{WidgetdCards::DescriptionRole})});
    check("the row holds the new card", model.data(model.index(0), WidgetdCards::DescriptionRole)
          == QStringLiteral("placeholder") && model.data(model.index(0), WidgetdCards::CardRole).toMap()
          .value(QStringLiteral("lines")).toList().first().toMap().value(QStringLiteral("text")).toString().isEmpty());

    // The same description, new values: the values only.
    changes.clear();
    model.update({card(heart, QStringLiteral("placeholder"), QString()),
                  card(weather, QStringLiteral("content"), QStringLiteral("19 °C"))});
    check("new values, the same description", resets == 1
          && changes == QList<QPair<int, QVector<int>>>{qMakePair(1, QVector<int>{WidgetdCards::CardRole})});

    // Nothing changed: no signal.
    changes.clear();
    model.update({card(heart, QStringLiteral("placeholder"), QString()),
                  card(weather, QStringLiteral("content"), QStringLiteral("19 °C"))});
    check("the same cards change nothing", resets == 1 && changes.isEmpty());

    // Another widget set or order: a reset; none: empty.
    model.update({card(weather, QStringLiteral("content"), QStringLiteral("19 °C")),
                  card(heart, QStringLiteral("placeholder"), QString())});
    check("another order resets the model", resets == 2 && changes.isEmpty()
          && model.data(model.index(0), WidgetdCards::WidgetRole) == weather);
    model.update({});
    check("no card: no row", resets == 3 && model.rowCount() == 0);

    if (failures == 0)
        std::printf("plasma test-cards: ok\n");
    return failures == 0 ? 0 : 1;
}
