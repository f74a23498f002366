// widgetd's lock-screen wallpaper (io.widgetd.lockscreen): the chosen image, and beneath
// the greeter's clock and prompt the cards of widgetd's widgets, as widgetd allows for
// the lock state (DESIGN §15). Each card's accessible name is the widget id and its
// description its mode; a label's text is what is drawn; a redacted field's accessible
// name is "redacted".
import QtQuick 2.15
import QtQuick.Controls 2.15
import io.widgetd.lockscreen 1.0

Item {
    id: root

    Rectangle {
        anchors.fill: parent
        color: wallpaper.configuration.Color || "#1d2a3a"
    }
    Image {
        anchors.fill: parent
        source: wallpaper.configuration.Image || ""
        fillMode: Image.PreserveAspectCrop
        visible: source != ""
        asynchronous: true
    }

    WidgetdHost {
        id: host
        socket: wallpaper.configuration.Socket || ""
        widgets: wallpaper.configuration.Widgets || []
    }

    // Ticks dates while shown and while any card has one.
    property real now: Date.now()
    Timer {
        interval: 1000
        repeat: true
        running: root.visible && host.cards.some(c => c.lines.some(l => l.kind === "date" && !l.redacted))
        onTriggered: root.now = Date.now()
    }

    function two(n) { return n < 10 ? "0" + n : "" + n }
    function formatDate(value, style, now) {
        const date = new Date(value)
        if (isNaN(date.getTime()))
            return ""
        const delta = Math.trunc((date.getTime() - now) / 1000)
        if (style === "date")
            return date.toLocaleDateString(Qt.locale(), Locale.ShortFormat)
        if (style === "relative") {
            const minutes = Math.round(Math.abs(delta) / 60)
            if (minutes < 1)
                return "now"
            const amount = minutes < 60 ? minutes + " min" : minutes < 2880 ? Math.round(minutes / 60) + " h"
                : Math.round(minutes / 1440) + " d"
            return delta > 0 ? "in " + amount : amount + " ago"
        }
        if (style === "timer") {
            const total = Math.abs(delta)
            const h = Math.floor(total / 3600), m = Math.floor(total / 60) % 60, s = total % 60
            return h > 0 ? h + ":" + two(m) + ":" + two(s) : two(m) + ":" + two(s)
        }
        return two(date.getHours()) + ":" + two(date.getMinutes())
    }

    Column {
        id: column
        width: Math.min(360, root.width - 32)
        x: (root.width - width) / 2
        y: Math.round(root.height * 0.58)
        spacing: 12
        Accessible.role: Accessible.Grouping
        Accessible.name: "widgetd"

        // A card's items live as long as its widget is shown: a new presentation changes
        // their values (and the card's description, which AT-SPI announces).
        Repeater {
            model: host.model
            delegate: Rectangle {
                id: card
                readonly property var cardData: model.cardData
                width: column.width
                height: content.height + 24
                radius: 16
                color: Qt.rgba(1, 1, 1, 0.14)
                Accessible.role: Accessible.Grouping
                Accessible.name: model.widget
                Accessible.description: model.description

                Column {
                    id: content
                    x: 16
                    y: 12
                    width: parent.width - 32
                    spacing: 4

                    Row {
                        spacing: 8
                        visible: !!card.cardData.icon || !!(card.cardData.gauge && card.cardData.gauge.ring)
                        Image {
                            visible: !!card.cardData.icon
                            source: card.cardData.icon ? "image://icon/" + card.cardData.icon : ""
                            width: 24
                            height: 24
                            sourceSize.width: 24
                            sourceSize.height: 24
                        }
                        Canvas {
                            visible: !!(card.cardData.gauge && card.cardData.gauge.ring)
                            width: 64
                            height: 64
                            Accessible.role: Accessible.ProgressBar
                            Accessible.name: card.cardData.gauge ? card.cardData.gauge.name : ""
                            Accessible.ignored: !visible
                            // The card outlives a presentation: draw again when its gauge moves.
                            readonly property real fraction: card.cardData.gauge ? card.cardData.gauge.fraction : 0
                            onFractionChanged: requestPaint()
                            onPaint: {
                                const ctx = getContext("2d")
                                ctx.reset()
                                ctx.lineWidth = 6
                                ctx.strokeStyle = Qt.rgba(1, 1, 1, 0.25)
                                ctx.beginPath(); ctx.arc(32, 32, 28, 0, 2 * Math.PI); ctx.stroke()
                                const f = fraction
                                if (f > 0) {
                                    ctx.strokeStyle = "white"
                                    ctx.beginPath(); ctx.arc(32, 32, 28, -Math.PI / 2, -Math.PI / 2 + 2 * Math.PI * f); ctx.stroke()
                                }
                            }
                        }
                    }

                    Repeater {
                        model: card.cardData.lines
                        delegate: Row {
                            spacing: 8
                            readonly property var line: modelData
                            Text {
                                visible: line.kind === "plain"
                                text: line.name || ""
                                color: Qt.rgba(1, 1, 1, 0.7)
                                Accessible.role: Accessible.StaticText
                                Accessible.name: text
                                Accessible.ignored: !visible
                                width: 110
                                font.pixelSize: 14
                                elide: Text.ElideRight
                            }
                            Text {
                                visible: !line.redacted
                                text: line.redacted ? "" : line.kind === "date" ? root.formatDate(line.date, line.style, root.now) : line.text
                                color: "white"
                                Accessible.role: Accessible.StaticText
                                Accessible.name: text
                                Accessible.ignored: !visible
                                font.pixelSize: line.kind === "value" ? 32 : line.kind === "title" ? 15 : 14
                                font.bold: line.kind === "value" || line.kind === "title"
                                elide: Text.ElideRight
                                width: Math.min(implicitWidth, content.width - (line.kind === "plain" ? 118 : 0))
                            }
                            // A redacted text: a bar, never the value.
                            Rectangle {
                                visible: line.redacted
                                width: line.kind === "value" ? 120 : 96
                                height: line.kind === "value" ? 30 : 14
                                radius: 4
                                color: Qt.rgba(1, 1, 1, 0.35)
                                Accessible.role: Accessible.StaticText
                                Accessible.name: "redacted"
                                Accessible.ignored: !line.redacted
                            }
                        }
                    }

                    Rectangle {
                        visible: !!(card.cardData.gauge && !card.cardData.gauge.ring)
                        width: content.width
                        height: 8
                        radius: 4
                        color: Qt.rgba(1, 1, 1, 0.25)
                        Accessible.role: Accessible.ProgressBar
                        Accessible.name: card.cardData.gauge ? card.cardData.gauge.name : ""
                        Accessible.ignored: !visible
                        Rectangle {
                            width: parent.width * (card.cardData.gauge ? card.cardData.gauge.fraction : 0)
                            height: parent.height
                            radius: 4
                            color: "white"
                        }
                    }

                    Row {
                        spacing: 8
                        visible: card.cardData.actions.length > 0
                        Repeater {
                            model: card.cardData.actions
                            delegate: Button {
                                readonly property var act: modelData
                                text: act.redacted ? "" : act.title + (act.status ? "  · " + act.status : "")
                                icon.name: act.icon
                                checkable: act.toggle
                                checked: act.isOn
                                Accessible.name: act.redacted ? "redacted" : act.title
                                Accessible.description: act.status
                                onClicked: host.perform(card.cardData.widget, act.id)
                            }
                        }
                    }
                }
            }
        }
    }
}
