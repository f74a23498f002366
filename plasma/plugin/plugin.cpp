// The QML module io.widgetd.lockscreen: WidgetdHost, for the lock screen's wallpaper.
#include "widgetdhost.h"

#include <QQmlEngine>
#include <QQmlExtensionPlugin>

class WidgetdPlugin : public QQmlExtensionPlugin
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID QQmlExtensionInterface_iid)
public:
    void registerTypes(const char *uri) override
    {
        qmlRegisterType<WidgetdHost>(uri, 1, 0, "WidgetdHost");
    }
};

#include "plugin.moc"
