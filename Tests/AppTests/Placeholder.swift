import Testing
@testable import App

@Test func AppPlaceholder() { #expect(Bool(true)) }
