import Testing

@Test func integrationBuilds() {}
