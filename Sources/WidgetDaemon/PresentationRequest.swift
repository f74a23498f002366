import WidgetModel

/// What a `GetPresentation` call asks for: one widget on one surface.
struct PresentationRequest: Hashable {
    let widget: WidgetID
    let surface: Surface
}
