import Testing

@Test func widgetDaemonBuilds() {}
