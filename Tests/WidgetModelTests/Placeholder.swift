import Testing

@Test func widgetModelBuilds() {}
