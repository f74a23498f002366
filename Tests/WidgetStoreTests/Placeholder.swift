import Testing

@Test func widgetStoreBuilds() {}
