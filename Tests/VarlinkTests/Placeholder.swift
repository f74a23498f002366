import Testing

@Test func varlinkBuilds() {}
