import Testing

@Test func widgetCryptoBuilds() {}
